# Stage select (ltrfs.pipeline.select): fit one feature-selection method on a fold.


rule select:
    input:
        unpack(PLAN.select.scorer_inputs),
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
    output:
        selection=f"{FOLD}/select/{{method}}.json",
        selector=f"{FOLD}/select/{{method}}.model",
    threads: PLAN.select.threads
    # the heads of the longest predicted chains of work first (PLAN.requests.priority)
    priority: PLAN.requests.priority("select")
    resources:
        **PLAN.requests.resources("select"),
    params:
        method=PLAN.run.method_config,
        seed=PLAN.run.job_seed("dataset", "fold", "method"),
        convention=PLAN.run.convention,
        ties=config["ties"],
    conda:
        PLAN.select.conda_env
    log:
        "logs/select/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/select/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/select.py"


# select_batch (on request; off by default, docs/cluster.md): one job per (dataset, fold) fits every
# method of the dataset whose algorithm reads only the scorers' tables (the baselines and filters:
# PLAN.select.batches) in turn (workflow/scripts/select_batch.py), and writes the same files, each
# method's log included, as rule select's jobs would (each method's log ending with what its part
# used); the job's own log ends with what the whole job used. Rule select stays for every other method.
if config["select_batch"]:
    for _dataset, (_name, _methods) in PLAN.select.batches().items():
        _fold = f"{RESULTS}/{_dataset}/fold{{fold}}"

        rule:
            name:
                _name
            input:
                **PLAN.select.batch_scorers(_fold, _methods),
                train=f"{_fold}/data/train.npz",
                vali=f"{_fold}/data/vali.npz",
            output:
                **PLAN.select.batch_outputs(_fold, _methods),
            params:
                jobs=lambda w, d=_dataset, ms=tuple(_methods): PLAN.select.batch_jobs(d, ms, w.fold),
            threads: 1  # one-thread methods only (PLAN.select.batchable)
            conda:
                "../../envs/ltrfs.yaml"
            log:
                f"logs/select_batch/{_dataset}/fold{{fold}}.log",
                **{m: f"logs/select/{_dataset}/fold{{fold}}/{m}.log" for m in _methods},
            benchmark:
                f"benchmarks/select_batch/{_dataset}/fold{{fold}}.tsv"
            priority: PLAN.requests.priority("select", batch=(_dataset, tuple(_methods)))
            resources:
                **PLAN.requests.resources("select", batch=(_dataset, tuple(_methods))),
            script:
                "../scripts/select_batch.py"

        workflow.ruleorder(_name, "select")

# Stage train (ltrfs.pipeline.train): train every ranker on every k-view of a selection, tuned on vali,
# and evaluate on vali and test in the same job; the reference rows and other conventions' run files.
from ltrfs.config import OWN


rule train:
    """Train the ranker on every k of the selection (grid on vali), and evaluate the models on
    vali and test in the same job (the run file)."""
    input:
        unpack(PLAN.train.own_selector),
        selection=f"{FOLD}/select/{{method}}.json",
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.model",
        info=f"{FOLD}/models/{{method}}/{{ranker}}.json",
        run=f"{FOLD}/runs/{{method}}/{{ranker}}.tsv",
    params:
        job=PLAN.train.job,
    threads: PLAN.train.threads
    conda:
        PLAN.train.conda_env
    log:
        "logs/train/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/train/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    priority: PLAN.requests.priority("train")
    resources:
        **PLAN.requests.resources("train"),
    script:
        "../scripts/train.py"


# train_batch (default): one job per (dataset, method) trains all the method's one-thread rankers in
# turn (workflow/scripts/train_batch.py) and writes the same files, logs included, as the
# per-ranker jobs of rule train would; rule train stays for any file no batch makes (a ranker of
# several threads among them).
if config["train_batch"]:
    for (_dataset, _method), (_name, _rankers) in PLAN.train.batches().items():
        _fold = f"{RESULTS}/{_dataset}/fold{{fold}}"
        _own = any(config["rankers"][r]["algorithm"] == OWN for r in _rankers)

        rule:
            name:
                _name
            input:
                selection=f"{_fold}/select/{_method}.json",
                train=f"{_fold}/data/train.npz",
                vali=f"{_fold}/data/vali.npz",
                test=f"{_fold}/data/test.npz",
                **({"selector": f"{_fold}/select/{_method}.model"} if _own else {}),
            output:
                **PLAN.train.batch_outputs(_fold, _method, _rankers),
            params:
                jobs=lambda w, d=_dataset, m=_method, rs=tuple(_rankers): PLAN.train.batch_jobs(d, m, rs, w.fold),
            threads: 1  # one-thread rankers only (PLAN.train.batches)
            conda:
                "../../envs/ltrfs.yaml"
            log:
                **{r: f"logs/train/{_dataset}/fold{{fold}}/{_method}/{r}.log" for r in _rankers},
            benchmark:
                f"benchmarks/train/{_dataset}/fold{{fold}}/{_method}.tsv"
            priority: PLAN.requests.priority("train", batch=(_dataset, _method, tuple(_rankers)))
            resources:
                **PLAN.requests.resources("train", batch=(_dataset, _method, tuple(_rankers))),
            script:
                "../scripts/train_batch.py"

        workflow.ruleorder(_name, "train")


rule reference:
    input:
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        f"{FOLD}/reference.tsv",
    params:
        convention=PLAN.run.convention,
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/reference/{dataset}/fold{fold}.log",
    benchmark:
        "benchmarks/reference/{dataset}/fold{fold}.tsv"
    script:
        "../scripts/reference.py"


use rule reference as reference_as with:
    """The reference rows in another metric convention (an experiment's ``also_conventions``)."""
    output:
        f"{FOLD}/reference_{{as_convention}}.tsv",
    params:
        convention=lambda w: w.as_convention,
    log:
        "logs/reference/{dataset}/fold{fold}_{as_convention}.log",
    benchmark:
        "benchmarks/reference/{dataset}/fold{fold}_{as_convention}.tsv"


rule rescore:
    """A train job's saved models evaluated in another metric convention (``also_conventions``)."""
    input:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.model",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        f"{FOLD}/runs_{{as_convention}}/{{method}}/{{ranker}}.tsv",
    params:
        run_ties=PLAN.train.run_ties(),
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/rescore/{dataset}/fold{fold}/{method}/{ranker}_{as_convention}.log",
    benchmark:
        "benchmarks/rescore/{dataset}/fold{fold}/{method}/{ranker}_{as_convention}.tsv"
    script:
        "../scripts/rescore.py"

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

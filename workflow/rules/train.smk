rule train:
    input:
        selection=FOLD + "/select/{method}.json",
        train=FOLD + "/data/train.npz",
        vali=FOLD + "/data/vali.npz",
    output:
        model=FOLD + "/models/{method}/{ranker}.pkl",
        info=FOLD + "/models/{method}/{ranker}.json",
    params:
        ranker=ranker_config,
        k=lambda w: k_grid(config, w.dataset, w.method, w.ranker),
        metric=config["validation_metric"],
        convention=convention,
        seed=job_seed("dataset", "fold", "method", "ranker"),
    log:
        "logs/train/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/train/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/train.py"

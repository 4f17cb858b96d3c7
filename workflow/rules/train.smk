rule train:
    """Train the ranker on every k of the selection (grid on vali), and evaluate the models on
    vali and test in the same job (the run file)."""
    input:
        unpack(own_selector),
        selection=f"{FOLD}/select/{{method}}.json",
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.pkl",
        info=f"{FOLD}/models/{{method}}/{{ranker}}.json",
        run=f"{FOLD}/runs/{{method}}/{{ranker}}.tsv",
    params:
        ranker=ranker_config,
        k=train_ks,
        metric=lambda w: TRAIN_METRICS.get((w.dataset, w.method, w.ranker), config["validation_metric"]),
        convention=convention,
        ties=config["ties"],
        run_ties={"vali": config["ties"], "test": config["evaluation_ties"]},
        seed=job_seed("dataset", "fold", "method", "ranker"),
    threads: train_threads
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/train/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/train/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(30, 1),
    script:
        "../scripts/train.py"

rule train:
    input:
        selection=f"{FOLD}/select/{{method}}.json",
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
    output:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.pkl",
        info=f"{FOLD}/models/{{method}}/{{ranker}}.json",
    params:
        ranker=ranker_config,
        k=train_ks,
        metric=lambda w: TRAIN_METRICS.get((w.dataset, w.method, w.ranker), config["validation_metric"]),
        convention=convention,
        ties=config["ties"],
        seed=job_seed("dataset", "fold", "method", "ranker"),
    threads: train_threads
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/train/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/train/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    resources:
        mem_mb=4000,
        runtime=120,
    script:
        "../scripts/train.py"

rule select:
    input:
        unpack(scorer_inputs),
        train=FOLD + "/data/train.npz",
        vali=FOLD + "/data/vali.npz",
    output:
        FOLD + "/select/{method}.json",
    params:
        method=method_config,
        seed=job_seed("dataset", "fold", "method"),
        convention=convention,
    log:
        "logs/select/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/select/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/select.py"

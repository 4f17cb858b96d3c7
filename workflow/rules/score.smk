rule score:
    input:
        train=FOLD + "/data/train.npz",
    output:
        FOLD + "/scores/{scorer}.npz",
    params:
        convention=convention,
    log:
        "logs/score/{dataset}/fold{fold}/{scorer}.log",
    benchmark:
        "benchmarks/score/{dataset}/fold{fold}/{scorer}.tsv"
    script:
        "../scripts/score.py"

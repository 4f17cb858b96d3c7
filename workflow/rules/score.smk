rule score:
    input:
        train=f"{FOLD}/data/train.npz",
    output:
        f"{FOLD}/scores/{{scorer}}.npz",
    params:
        convention=convention,
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/score/{dataset}/fold{fold}/{scorer}.log",
    benchmark:
        "benchmarks/score/{dataset}/fold{fold}/{scorer}.tsv"
    script:
        "../scripts/score.py"

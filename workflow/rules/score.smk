def score_inputs(wildcards):
    """A fold's splits, plus the chunk files when the scorer is split across jobs."""
    fold = FOLD.format(**wildcards)
    inputs = {"train": f"{fold}/data/train.npz", "vali": f"{fold}/data/vali.npz"}
    n = n_chunks(wildcards.scorer)
    if n > 1:
        inputs["chunks"] = [f"{fold}/scores/{wildcards.scorer}.chunk{i}of{n}.npz" for i in range(1, n + 1)]
    return inputs


rule score:
    input:
        unpack(score_inputs),
    output:
        f"{FOLD}/scores/{{scorer}}.npz",
    params:
        convention=convention,
    threads: 2
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/score/{dataset}/fold{fold}/{scorer}.log",
    benchmark:
        "benchmarks/score/{dataset}/fold{fold}/{scorer}.tsv"
    script:
        "../scripts/score.py"


rule score_chunk:
    input:
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
    output:
        f"{FOLD}/scores/{{scorer}}.chunk{{chunk}}of{{n_chunks}}.npz",
    params:
        convention=convention,
    threads: 2
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/score/{dataset}/fold{fold}/{scorer}.chunk{chunk}of{n_chunks}.log",
    benchmark:
        "benchmarks/score/{dataset}/fold{fold}/{scorer}.chunk{chunk}of{n_chunks}.tsv"
    script:
        "../scripts/score_chunk.py"

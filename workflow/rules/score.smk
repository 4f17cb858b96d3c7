# Stage score (ltrfs.pipeline.score): the per-feature scores of a fold, whole or in feature chunks.
rule score:
    input:
        unpack(PLAN.score.inputs),
    output:
        f"{FOLD}/scores/{{scorer}}.npz",
    params:
        convention=PLAN.run.convention,
        ties=config["ties"],
    threads: PLAN.score.threads
    priority: PLAN.requests.priority("score")
    resources:
        **PLAN.requests.resources("score"),
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
        convention=PLAN.run.convention,
        ties=config["ties"],
    threads: PLAN.score.threads
    priority: PLAN.requests.priority("score_chunk")
    resources:
        **PLAN.requests.resources("score_chunk"),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/score/{dataset}/fold{fold}/{scorer}.chunk{chunk}of{n_chunks}.log",
    benchmark:
        "benchmarks/score/{dataset}/fold{fold}/{scorer}.chunk{chunk}of{n_chunks}.tsv"
    script:
        "../scripts/score_chunk.py"

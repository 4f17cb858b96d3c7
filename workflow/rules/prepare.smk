# Stage prepare (ltrfs.pipeline.prepare): fetch or generate a dataset, cache each fold's splits.
rule download:
    output:
        f"{RESOURCES}/{{dataset}}/manifest.json",
    params:
        entry=PLAN.prepare.fetch_entry,
        seed=PLAN.run.job_seed("dataset"),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/download/{dataset}.log",
    benchmark:
        "benchmarks/download/{dataset}.tsv"
    priority: PLAN.requests.priority("download")
    resources:
        **PLAN.requests.resources("download"),
    script:
        "../scripts/download.py"


rule prepare:
    input:
        f"{RESOURCES}/{{dataset}}/manifest.json",
    output:
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    params:
        entry=PLAN.prepare.fetch_entry,
        seed=PLAN.run.job_seed("dataset"),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/prepare/{dataset}/fold{fold}.log",
    benchmark:
        "benchmarks/prepare/{dataset}/fold{fold}.tsv"
    priority: PLAN.requests.priority("prepare")
    resources:
        **PLAN.requests.resources("prepare"),
    script:
        "../scripts/prepare.py"

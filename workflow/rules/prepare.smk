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
    resources:
        # generated data: its latent columns in memory, about 0.95 MB a MB of text (MSLR's shape)
        mem_mb=scaled(1000, 1.0, PLAN.prepare.generated_text_mb),
        runtime=scaled(240, 0.02, PLAN.prepare.generated_text_mb),
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
    resources:
        # a file over 256 MiB is read in pieces (ltrfs.datasets.folds): its matrix twice, not its text
        mem_mb=scaled(1000, 1.0, PLAN.prepare.fold_text_mb),
        runtime=scaled(5, 0.05, PLAN.prepare.fold_text_mb),
    script:
        "../scripts/prepare.py"

rule select:
    input:
        unpack(scorer_inputs),
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
    output:
        f"{FOLD}/select/{{method}}.json",
    threads: lambda w: method_config(w).get("threads", 1)
    params:
        method=method_config,
        seed=job_seed("dataset", "fold", "method"),
        convention=convention,
        ties=config["ties"],
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/select/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/select/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/select.py"

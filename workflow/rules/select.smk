rule select:
    input:
        unpack(scorer_inputs),
        train=f"{FOLD}/data/train.npz",
        vali=f"{FOLD}/data/vali.npz",
    output:
        selection=f"{FOLD}/select/{{method}}.json",
        selector=f"{FOLD}/select/{{method}}.pkl",
    threads: lambda w: method_config(w).get("threads", 1)
    # selections first: a long selection then overlaps the trainings of the short ones
    priority: 10
    resources:
        mem_mb=scaled(500, 10),
        runtime=scaled(30, 1),
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


rule fsed_densities:
    """FS-ED: class densities of the top and the last feature by psi (Fig. 3's data)."""
    input:
        train=f"{FOLD}/data/train.npz",
        selection=f"{FOLD}/select/{{method}}.json",
    output:
        f"{FOLD}/densities/{{method}}.tsv",
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/fsed_densities/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/fsed_densities/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/fsed_densities.py"


rule fsmrank_convergence:
    """FSMRank: objective traces of the accelerated proximal gradient (the selection's final
    solve, re-timed) and the projected subgradient baseline on the same problem (Lai et al. Fig. 5)."""
    input:
        train=f"{FOLD}/data/train.npz",
        selection=f"{FOLD}/select/{{method}}.json",
    output:
        f"{FOLD}/convergence/{{method}}.tsv",
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/fsmrank_convergence/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/fsmrank_convergence/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/fsmrank_convergence.py"

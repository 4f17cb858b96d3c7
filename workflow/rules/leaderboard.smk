rule leaderboard:
    """Every selector of the run ranked per experiment and over all of them (Friedman, Nemenyi,
    critical-difference diagram), with its stability across folds, its selection cost and the
    smallest k that keeps up with all features (ltrfs.leaderboard)."""
    input:
        leaderboard_inputs,
    output:
        csv=f"{LEADERBOARD}/leaderboard.csv",
        md=f"{LEADERBOARD}/leaderboard.md",
        stability=f"{LEADERBOARD}/stability.csv",
        cost=f"{LEADERBOARD}/cost.csv",
        smallest_k=f"{LEADERBOARD}/smallest_k.csv",
        cd=f"{LEADERBOARD}/critical_difference.png",
        stability_png=f"{LEADERBOARD}/stability.png",
        pareto=f"{LEADERBOARD}/accuracy_vs_cost.png",
        pareto_csv=f"{LEADERBOARD}/accuracy_vs_cost.csv",
        recovery=f"{LEADERBOARD}/planted_recovery.csv",
        recovery_png=f"{LEADERBOARD}/planted_recovery.png",
    params:
        records=lambda w: leaderboard_records(),
        truths=lambda w: planted_truths(),
        ks=leaderboard_ks(),
        baselines=all_baselines(),
        own=all_own_rankers(),
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/leaderboard/leaderboard.log",
    benchmark:
        "benchmarks/leaderboard/leaderboard.tsv"
    script:
        "../scripts/leaderboard.py"

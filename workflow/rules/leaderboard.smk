# Stage leaderboard (ltrfs.pipeline.leaderboard): every selector of the run ranked, with stability and cost,
# in the run's own folder results/leaderboard/{run_name}/ (LEADERBOARD).


# its figures from the registry (ltrfs.results.figures.registry); the planted-feature recovery only where
# the run has generated data whose planted features are known: a figure with nothing to show is
# neither drawn nor listed in the report
LEADERBOARD_FIGURES = {}
for _figure in figure_registry.drawn_by("leaderboard"):
    if _figure.name != "planted_recovery" or PLAN.leaderboard.planted_datasets():
        LEADERBOARD_FIGURES.update(figure_outputs(_figure.name, run_name=PLAN.run.config["run_name"]))


rule leaderboard:
    """Every selector of the run ranked per experiment and over all of them (Friedman, Nemenyi,
    critical-difference diagram), with its stability across folds, its selection cost, the
    smallest k that keeps up with all features and the cross table of selector family x ranker
    (ltrfs.results.leaderboard)."""
    input:
        PLAN.leaderboard.inputs,
    output:
        csv=f"{LEADERBOARD}/leaderboard.csv",
        md=f"{LEADERBOARD}/leaderboard.md",
        html=report(f"{LEADERBOARD}/leaderboard.html", caption="../report/leaderboard.rst", category="Leaderboard",
                    labels={"figure": "leaderboard (tables)"}),
        stability=f"{LEADERBOARD}/stability.csv",
        cost=f"{LEADERBOARD}/cost.csv",
        smallest_k=f"{LEADERBOARD}/smallest_k.csv",
        pairs=f"{LEADERBOARD}/pairs.csv",
        cross_family=f"{LEADERBOARD}/cross_family.csv",
        **LEADERBOARD_FIGURES,
    params:  # small values only: Snakemake shows a changed param as the reason to rerun
        spec=PLAN.leaderboard.spec,
        truths=PLAN.leaderboard.planted_truths(),
        ks=PLAN.leaderboard.ks(),
        baselines=PLAN.leaderboard.baselines(),
        own=PLAN.leaderboard.own_rankers(),
        margin=config["noninferiority_margin"],
        families=PLAN.leaderboard.families(),
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        f"logs/leaderboard/{PLAN.run.config['run_name']}.log",
    benchmark:
        f"benchmarks/leaderboard/{PLAN.run.config['run_name']}.tsv"
    script:
        "../scripts/leaderboard.py"

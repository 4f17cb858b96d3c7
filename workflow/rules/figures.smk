# Stage figures (ltrfs.pipeline.figures): the figures. Metric against k per experiment, every
# feature report of the registry ltrfs.results.figures.registry, and the per-method report data they draw.
from ltrfs.pipeline.planning.figures import METRIC_BY_FILE_NAME


rule report_data:
    """A method's report data declared in ltrfs.results.figures.registry (REPORT_DATA): Greedy RankRLS path
    metrics on test, FS-ED class densities, FSMRank solver traces."""
    input:
        unpack(PLAN.figures.report_data_inputs),
    output:
        f"{FOLD}/{{report}}/{{method}}.tsv",
    params:
        context=PLAN.figures.report_data_context,
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/report_data/{dataset}/fold{fold}/{report}/{method}.log",
    benchmark:
        "benchmarks/report_data/{dataset}/fold{fold}/{report}/{method}.tsv"
    script:
        "../scripts/report_data.py"


rule figure_metric_vs_k:
    input:
        table=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_compare.csv",
    output:
        **figure_outputs("metric_vs_k"),
    wildcard_constraints:
        metric="|".join(METRIC_BY_FILE_NAME),  # not a paper figure's "fig4" (rule figure_paper)
    params:
        metric=lambda w: METRIC_BY_FILE_NAME[w.metric],
        title=lambda w: PLAN.run.experiment_title(w.experiment, w.dataset),
        baselines=lambda w: PLAN.run.baselines(w.experiment),
        curves=lambda w: PLAN.run.experiment(w.experiment).get("figure_curves"),
        n_features=lambda w: PLAN.run.n_features_of(w.dataset),
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/{dataset}_{metric}.log",
    benchmark:
        "benchmarks/figures/{experiment}/{dataset}_{metric}.tsv"
    script:
        "../scripts/figure_metric_vs_k.py"


rule figure_paper:
    """A paper's figure in its form (experiment config paper_figures): one ranker, a panel per metric."""
    input:
        table=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_compare.csv",
    output:
        **figure_outputs("paper_figure"),
    wildcard_constraints:
        figure=r"fig\d+",
    params:
        spec=lambda w: PLAN.figures.paper_figure(w.experiment, w.figure),
        title=lambda w: PLAN.run.experiment_title(w.experiment, w.dataset),
        baselines=lambda w: PLAN.run.baselines(w.experiment),
        n_features=lambda w: PLAN.run.n_features_of(w.dataset),
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/{dataset}_{figure}.log",
    benchmark:
        "benchmarks/figures/{experiment}/{dataset}_{figure}.tsv"
    script:
        "../scripts/figure_paper.py"


rule feature_report:
    """Any feature report declared in ltrfs.results.figures.registry (the registry gives its input files)."""
    input:
        unpack(PLAN.figures.inputs),
    output:
        **figure_outputs("feature_report"),
    wildcard_constraints:
        stem=figure_registry.stem_pattern(r"[A-Za-z0-9][A-Za-z0-9_.+-]*"),
    params:
        context=PLAN.figures.context,
        caption=PLAN.figures.caption,  # read by the report's caption
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_{stem}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_{stem}.tsv"
    script:
        "../scripts/feature_report.py"

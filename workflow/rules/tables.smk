# Stage tables (ltrfs.pipeline.tables): fold-averaged tables of an experiment on a dataset, in other
# metric conventions too, the paper's published numbers beside them, and each method's top features.


rule tables:
    input:
        lambda w: [r["path"] for r in PLAN.tables.run_records(w.experiment, w.dataset)],
        lambda w: [r["path"] for r in PLAN.tables.reference_records(w.experiment, w.dataset)],
    output:
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}.html", caption="../report/table.rst",
                    category="{experiment}", subcategory="Tables", labels={"dataset": "{dataset}", "table": "test metrics"}),
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_compare.csv",
        pairs=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_pairs.csv",
    params:
        pairs=lambda w: config["experiments"][w.experiment].get("compare", []),
        runs=lambda w: PLAN.tables.run_records(w.experiment, w.dataset),
        references=lambda w: PLAN.tables.reference_records(w.experiment, w.dataset),
        metric=lambda w: PLAN.tables.metric(w.experiment),
        columns=lambda w: PLAN.tables.columns(w.experiment),
        title=lambda w: PLAN.run.experiment_title(w.experiment, w.dataset),
        baselines=lambda w: PLAN.run.baselines(w.experiment),
        own=lambda w: PLAN.run.own_rankers(w.experiment),
        n_features=lambda w: PLAN.run.n_features_of(w.dataset),
        convention=PLAN.run.convention,
        dataset=lambda w: w.dataset,
        margin=config["noninferiority_margin"],
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/tables/{dataset}/{experiment}.log",
    benchmark:
        "benchmarks/tables/{dataset}/{experiment}.tsv"
    script:
        "../scripts/tables.py"


use rule tables as tables_as with:
    """The experiment's tables with the same models evaluated in another convention."""
    input:
        lambda w: [r["path"] for r in PLAN.tables.run_records(w.experiment, w.dataset, w.as_convention)],
        lambda w: [r["path"] for r in PLAN.tables.reference_records(w.experiment, w.dataset, w.as_convention)],
    output:
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.csv",
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.html", caption="../report/table.rst",
                    category="{experiment}", subcategory="Tables",
                    labels={"dataset": "{dataset}", "table": "test metrics, {as_convention} convention"}),
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}_compare.csv",
        pairs=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}_pairs.csv",
    params:
        runs=lambda w: PLAN.tables.run_records(w.experiment, w.dataset, w.as_convention),
        references=lambda w: PLAN.tables.reference_records(w.experiment, w.dataset, w.as_convention),
        title=lambda w: f"{PLAN.run.experiment_title(w.experiment, w.dataset)}, {w.as_convention} convention",
        convention=lambda w: w.as_convention,
    log:
        "logs/tables/{dataset}/{experiment}.{as_convention}.log",
    benchmark:
        "benchmarks/tables/{dataset}/{experiment}.{as_convention}.tsv"


rule published:
    input:
        tables=PLAN.tables.published_tables,
        paper=lambda w: Path(workflow.basedir, "config/published", f"{config['experiments'][w.experiment]['published']['paper']}.csv"),
    output:
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.html", caption="../report/published.rst",
                    category="{experiment}", subcategory="Tables",
                    labels={"dataset": "{dataset}", "table": "ours beside the paper"}),
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.csv",
    params:
        published=lambda w: config["experiments"][w.experiment]["published"],
        title=lambda w: PLAN.run.experiment_title(w.experiment, w.dataset),
        conventions=PLAN.tables.published_conventions,
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/published/{dataset}/{experiment}.log",
    benchmark:
        "benchmarks/published/{dataset}/{experiment}.tsv"
    script:
        "../scripts/published.py"


rule top_features:
    input:
        PLAN.tables.top_feature_inputs,
    output:
        md=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.html", caption="../report/top_features.rst",
                    category="{experiment}", subcategory="Tables", labels={"dataset": "{dataset}", "table": "top features"}),
        csv=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.csv",
    params:
        methods=lambda w: PLAN.tables.ranking_methods(w.experiment),
        names=lambda w: PLAN.run.names_of(w.dataset),
        title=lambda w: f"Top features by method: {w.dataset} fold {PLAN.tables.first_fold(w.experiment, w.dataset)}",
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/tables/{dataset}/top_features/{experiment}.log",
    benchmark:
        "benchmarks/tables/{dataset}/top_features/{experiment}.tsv"
    script:
        "../scripts/top_features.py"

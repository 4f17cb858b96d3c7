rule reference:
    input:
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        f"{FOLD}/reference.tsv",
    params:
        convention=convention,
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/reference/{dataset}/fold{fold}.log",
    benchmark:
        "benchmarks/reference/{dataset}/fold{fold}.tsv"
    script:
        "../scripts/reference.py"


use rule reference as reference_as with:
    """The reference rows in another metric convention (an experiment's ``also_conventions``)."""
    output:
        f"{FOLD}/reference_{{as_convention}}.tsv",
    params:
        convention=lambda w: w.as_convention,
    log:
        "logs/reference/{dataset}/fold{fold}_{as_convention}.log",
    benchmark:
        "benchmarks/reference/{dataset}/fold{fold}_{as_convention}.tsv"


rule rescore:
    """A train job's saved models evaluated in another metric convention (``also_conventions``)."""
    input:
        model=f"{FOLD}/models/{{method}}/{{ranker}}.pkl",
        vali=f"{FOLD}/data/vali.npz",
        test=f"{FOLD}/data/test.npz",
    output:
        f"{FOLD}/runs_{{as_convention}}/{{method}}/{{ranker}}.tsv",
    params:
        run_ties={"vali": config["ties"], "test": config["evaluation_ties"]},
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/rescore/{dataset}/fold{fold}/{method}/{ranker}_{as_convention}.log",
    benchmark:
        "benchmarks/rescore/{dataset}/fold{fold}/{method}/{ranker}_{as_convention}.tsv"
    script:
        "../scripts/rescore.py"


rule published:
    input:
        f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        lambda w: Path(workflow.basedir, "config/published", f"{config['experiments'][w.experiment]['published']['paper']}.csv"),
        others=lambda w: [f"{RESULTS}/{w.dataset}/tables/{w.experiment}.{c}.csv"
                          for c in also_conventions(w.experiment, w.dataset)],
    output:
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.html", caption="../report/published.rst",
                    category="{experiment}", subcategory="Tables",
                    labels={"dataset": "{dataset}", "table": "ours beside the paper"}),
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_published.csv",
    params:
        published=lambda w: config["experiments"][w.experiment]["published"],
        title=lambda w: experiment_title(w.experiment, w.dataset),
        conventions=lambda w: [convention_of(config, REGISTRY, w.dataset)] + also_conventions(w.experiment, w.dataset),
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


rule tables:
    input:
        lambda w: [r["path"] for r in run_records(w.experiment, w.dataset)],
        lambda w: fold_files(w.experiment, w.dataset, "reference.tsv"),
    output:
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}.html", caption="../report/table.rst",
                    category="{experiment}", subcategory="Tables", labels={"dataset": "{dataset}", "table": "test metrics"}),
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_compare.csv",
    params:
        pairs=lambda w: config["experiments"][w.experiment].get("compare", []),
        runs=lambda w: run_records(w.experiment, w.dataset),
        references=lambda w: reference_records(w.experiment, w.dataset),
        metric=lambda w: table_metric(w.experiment),
        columns=lambda w: [column_name(m) for m in config["experiments"][w.experiment].get("metrics", [])],
        title=lambda w: experiment_title(w.experiment, w.dataset),
        baselines=lambda w: baselines(w.experiment),
        own=lambda w: own_rankers(w.experiment),
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
        lambda w: [r["path"] for r in run_records(w.experiment, w.dataset, w.as_convention)],
        lambda w: [r["path"] for r in reference_records(w.experiment, w.dataset, w.as_convention)],
    output:
        csv=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.csv",
        md=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}.html", caption="../report/table.rst",
                    category="{experiment}", subcategory="Tables",
                    labels={"dataset": "{dataset}", "table": "test metrics, {as_convention} convention"}),
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.{{as_convention}}_compare.csv",
    params:
        runs=lambda w: run_records(w.experiment, w.dataset, w.as_convention),
        references=lambda w: reference_records(w.experiment, w.dataset, w.as_convention),
        title=lambda w: f"{experiment_title(w.experiment, w.dataset)}, {w.as_convention} convention",
    log:
        "logs/tables/{dataset}/{experiment}.{as_convention}.log",
    benchmark:
        "benchmarks/tables/{dataset}/{experiment}.{as_convention}.tsv"


rule path_metrics:
    """Greedy RankRLS: per-query test MAP and MeanNDCG of every model on the selection path."""
    input:
        selection=f"{FOLD}/select/{{method}}.json",
        test=f"{FOLD}/data/test.npz",
    output:
        f"{FOLD}/paths/{{method}}.tsv",
    params:
        convention=convention,
        ties=config["evaluation_ties"],
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/path_metrics/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "benchmarks/path_metrics/{dataset}/fold{fold}/{method}.tsv"
    script:
        "../scripts/path_metrics.py"

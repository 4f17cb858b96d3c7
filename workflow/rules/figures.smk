rule figure_metric_vs_k:
    input:
        table=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
        compare=f"{RESULTS}/{{dataset}}/tables/{{experiment}}_compare.csv",
    output:
        png=report(f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.png", caption="../report/figure.rst",
                   category="{experiment}", subcategory="Figures", labels={"dataset": "{dataset}", "figure": "{metric} against k"}),
        pdf=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.csv",
    params:
        metric=lambda w: METRIC_BY_FILE_NAME[w.metric],
        title=lambda w: experiment_title(w.experiment, w.dataset),
        baselines=lambda w: baselines(w.experiment),
        curves=lambda w: config["experiments"][w.experiment].get("figure_curves"),
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


rule artefact:
    """Any feature report declared in ltrfs.artefacts (the registry gives its input files)."""
    input:
        unpack(artefact_inputs),
    output:
        png=report(f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_{{artefact}}.png", caption="../report/artefact.rst",
                   category="{experiment}", subcategory="Feature reports", labels={"dataset": "{dataset}", "figure": "{artefact}"}),
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_{{artefact}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_{{artefact}}.csv",
    wildcard_constraints:
        artefact=artefacts.stem_pattern(r"[A-Za-z0-9][A-Za-z0-9_.+-]*"),
    params:
        context=artefact_context,
    resources:
        mem_mb=scaled(500, 4),
        runtime=scaled(5, 0.2),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_{artefact}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_{artefact}.tsv"
    script:
        "../scripts/artefact.py"


rule top_features:
    input:
        lambda w: [f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/select/{m}.json"
                   for m in methods_with(w.experiment, lambda m, cls: cls.uses_k)],
    output:
        md=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.md",
        html=report(f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.html", caption="../report/top_features.rst",
                    category="{experiment}", subcategory="Tables", labels={"dataset": "{dataset}", "table": "top features"}),
        csv=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.csv",
    params:
        methods=lambda w: methods_with(w.experiment, lambda m, cls: cls.uses_k),
        names=lambda w: names_of(w.dataset),
        title=lambda w: f"Top features by method: {w.dataset} fold {first_fold(w.experiment, w.dataset)}",
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

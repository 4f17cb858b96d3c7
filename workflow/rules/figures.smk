rule figure_metric_vs_k:
    input:
        f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
    output:
        png=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.csv",
    params:
        metric=lambda w: METRIC_BY_FILE_NAME[w.metric],
        title=lambda w: f"{config['experiments'][w.experiment].get('title', w.experiment)}: {w.dataset}",
        baselines=lambda w: baselines(w.experiment),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/{dataset}_{metric}.log",
    benchmark:
        "benchmarks/figures/{experiment}/{dataset}_{metric}.tsv"
    script:
        "../scripts/figure_metric_vs_k.py"

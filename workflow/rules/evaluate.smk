rule evaluate:
    input:
        model=FOLD + "/models/{method}/{ranker}.pkl",
        vali=FOLD + "/data/vali.npz",
        test=FOLD + "/data/test.npz",
    output:
        FOLD + "/runs/{method}/{ranker}.tsv",
    params:
        convention=convention,
    log:
        "logs/evaluate/{dataset}/fold{fold}/{method}/{ranker}.log",
    benchmark:
        "benchmarks/evaluate/{dataset}/fold{fold}/{method}/{ranker}.tsv"
    script:
        "../scripts/evaluate.py"


rule tables:
    input:
        lambda w: [r["path"] for r in run_records(w.experiment, w.dataset)],
    output:
        csv=RESULTS + "/{dataset}/tables/{experiment}.csv",
        md=RESULTS + "/{dataset}/tables/{experiment}.md",
    params:
        runs=lambda w: run_records(w.experiment, w.dataset),
        metric=column_name(config["validation_metric"]),
        title=lambda w: f"{config['experiments'][w.experiment].get('title', w.experiment)}: {w.dataset}",
    log:
        "logs/tables/{dataset}/{experiment}.log",
    benchmark:
        "benchmarks/tables/{dataset}/{experiment}.tsv"
    script:
        "../scripts/tables.py"

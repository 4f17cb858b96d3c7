rule figure_metric_vs_k:
    input:
        f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
    output:
        png=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/{{dataset}}_{{metric}}.csv",
    params:
        metric=lambda w: METRIC_BY_FILE_NAME[w.metric],
        title=lambda w: experiment_title(w.experiment, w.dataset),
        baselines=lambda w: baselines(w.experiment),
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/{dataset}_{metric}.log",
    benchmark:
        "benchmarks/figures/{experiment}/{dataset}_{metric}.tsv"
    script:
        "../scripts/figure_metric_vs_k.py"


rule figure_importance:
    input:
        lambda w: fold_files(w.experiment, w.dataset, "scores/single_feature.npz"),
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_importance_{{metric}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_importance_{{metric}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_importance_{{metric}}.csv",
    params:
        metric=lambda w: METRIC_BY_FILE_NAME[w.metric],
        names=lambda w: names_of(w.dataset),
        title=lambda w: f"{w.dataset}: each feature alone, fold mean",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_importance_{metric}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_importance_{metric}.tsv"
    script:
        "../scripts/figure_features.py"


rule figure_kendall:
    input:
        lambda w: fold_files(w.experiment, w.dataset, "scores/kendall.npz"),
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_kendall.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_kendall.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_kendall.csv",
    params:
        title=lambda w: f"{w.dataset}: Kendall similarity, fold mean",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_kendall.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_kendall.tsv"
    script:
        "../scripts/figure_features.py"


rule figure_densities:
    input:
        train=lambda w: f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/data/train.npz",
        selection=lambda w: f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/select/{w.method}.json",
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_densities_{{method}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_densities_{{method}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_densities_{{method}}.csv",
    params:
        title=lambda w: f"{w.dataset} fold {first_fold(w.experiment, w.dataset)}: {w.method}",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_densities_{method}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_densities_{method}.tsv"
    script:
        "../scripts/figure_features.py"


rule figure_elimination:
    input:
        lambda w: fold_files(w.experiment, w.dataset, f"select/{w.method}.json"),
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_elimination_{{method}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_elimination_{{method}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_elimination_{{method}}.csv",
    params:
        folds=lambda w: folds_of(config, REGISTRY, w.experiment, w.dataset),
        title=lambda w: f"{w.dataset}: {w.method} elimination curve",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_elimination_{method}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_elimination_{method}.tsv"
    script:
        "../scripts/figure_features.py"


rule figure_greedy_path:
    input:
        selections=lambda w: fold_files(w.experiment, w.dataset, f"select/{w.method}.json"),
        tests=lambda w: fold_files(w.experiment, w.dataset, "data/test.npz"),
        table=f"{RESULTS}/{{dataset}}/tables/{{experiment}}.csv",
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_path_{{method}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_path_{{method}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_path_{{method}}.csv",
    params:
        folds=lambda w: folds_of(config, REGISTRY, w.experiment, w.dataset),
        convention=convention,
        title=lambda w: f"{w.dataset}: {w.method}, test, fold mean",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_path_{method}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_path_{method}.tsv"
    script:
        "../scripts/figure_features.py"


rule figure_convergence:
    input:
        train=lambda w: f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/data/train.npz",
        selection=lambda w: f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/select/{w.method}.json",
    output:
        png=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_convergence_{{method}}.png",
        pdf=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_convergence_{{method}}.pdf",
        csv=f"{RESULTS}/figures/{{experiment}}/features/{{dataset}}_convergence_{{method}}.csv",
    params:
        title=lambda w: f"{w.dataset} fold {first_fold(w.experiment, w.dataset)}: {w.method} objective",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/figures/{experiment}/features/{dataset}_convergence_{method}.log",
    benchmark:
        "benchmarks/figures/{experiment}/features/{dataset}_convergence_{method}.tsv"
    script:
        "../scripts/figure_features.py"


rule top_features:
    input:
        lambda w: [f"{RESULTS}/{w.dataset}/fold{first_fold(w.experiment, w.dataset)}/select/{m}.json"
                   for m in methods_with(w.experiment, lambda m, cls: cls.uses_k)],
    output:
        md=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.md",
        csv=f"{RESULTS}/{{dataset}}/tables/top_features/{{experiment}}.csv",
    params:
        methods=lambda w: methods_with(w.experiment, lambda m, cls: cls.uses_k),
        names=lambda w: names_of(w.dataset),
        title=lambda w: f"Top features by method: {w.dataset} fold {first_fold(w.experiment, w.dataset)}",
    conda:
        "../../envs/ltrfs.yaml"
    log:
        "logs/tables/{dataset}/top_features/{experiment}.log",
    benchmark:
        "benchmarks/tables/{dataset}/top_features/{experiment}.tsv"
    script:
        "../scripts/top_features.py"

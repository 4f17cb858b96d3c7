"""Snakemake adapter: test metric against k (one panel per ranker, or the experiment's
``figure_curves``), with the experiment's ``compare`` pairs marked where they differ."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.figures import figure_metric_vs_k
from ltrfs.results.figures.registry import output_files

log_to(snakemake.log[0])
out, params = snakemake.output, snakemake.params
figure_metric_vs_k(snakemake.input.table, snakemake.input.compare, output_files(out, "metric_vs_k"), metric=params.metric,
                   title=params.title, baselines=params.baselines, curves=params.curves,
                   n_features=params.n_features)

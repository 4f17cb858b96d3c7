"""Snakemake adapter: a paper's figure in its form (experiment config ``paper_figures``)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.figures import figure_paper
from ltrfs.results.figures.registry import output_files

log_to(snakemake.log[0])
out, params = snakemake.output, snakemake.params
figure_paper(snakemake.input.table, snakemake.input.compare, output_files(out, "paper_figure"), spec=params.spec,
             title=params.title, baselines=params.baselines, n_features=params.n_features)

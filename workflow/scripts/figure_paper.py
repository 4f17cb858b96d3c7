"""Snakemake adapter: a paper's figure in its form (experiment config ``paper_figures``)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.artefacts import figure_paper

log_to(snakemake.log[0])
out, params = snakemake.output, snakemake.params
figure_paper(snakemake.input.table, snakemake.input.compare, out.png, out.pdf, out.csv, spec=params.spec,
             title=params.title, baselines=params.baselines, n_features=params.n_features)

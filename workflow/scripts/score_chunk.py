"""Snakemake adapter: per-feature scores of one slice of a fold's features."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.score import score

log_to(snakemake.log[0])
w = snakemake.wildcards
score(w.scorer, snakemake.input.train, snakemake.input.vali, snakemake.output[0], snakemake.params.convention,
      threads=snakemake.threads, chunk=(int(w.chunk) - 1, int(w.n_chunks)), ties=snakemake.params.ties)

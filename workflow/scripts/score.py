"""Snakemake adapter: per-feature scores of a fold's training split."""
from ltrfs.experiments import score
from ltrfs.util import log_to

log_to(snakemake.log[0])
score(snakemake.wildcards.scorer, snakemake.input.train, snakemake.output[0], snakemake.params.convention)

"""Snakemake adapter: per-query vali and test metrics of every k's model."""
from ltrfs.experiments import evaluate
from ltrfs.util import log_to

log_to(snakemake.log[0])
evaluate(snakemake.input.model, {"vali": snakemake.input.vali, "test": snakemake.input.test},
         snakemake.output[0], convention=snakemake.params.convention, ties=snakemake.params.ties)

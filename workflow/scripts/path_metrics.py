"""Snakemake adapter: per-query test metrics along a Greedy RankRLS selection path."""
from ltrfs.experiments import path_metrics
from ltrfs.util import log_to

log_to(snakemake.log[0])
path_metrics(snakemake.input.selection, snakemake.input.test, snakemake.output[0],
             convention=snakemake.params.convention, ties=snakemake.params.ties)

"""Snakemake adapter: train a ranker on every k-subset of a selection (grid chosen on vali) and
write the per-query vali and test metrics of every k's model."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.train import train

log_to(snakemake.log[0])
train(snakemake.input.selection, snakemake.wildcards.ranker, snakemake.params.ranker,
      snakemake.input.train, snakemake.input.vali, snakemake.output.model, snakemake.output.info,
      ks=snakemake.params.k, metric=snakemake.params.metric, convention=snakemake.params.convention,
      seed=snakemake.params.seed, threads=snakemake.threads, ties=snakemake.params.ties,
      test_path=snakemake.input.test, out_run=snakemake.output.run, run_ties=snakemake.params.run_ties,
      selector_path=snakemake.input.get("selector"))

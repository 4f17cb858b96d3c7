"""Snakemake adapter: what a constant score gets on a fold (file order, random order)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.train import reference

log_to(snakemake.log[0])
reference({"vali": snakemake.input.vali, "test": snakemake.input.test}, snakemake.output[0],
          convention=snakemake.params.convention)

"""Snakemake adapter: the run file of a train job's saved models in another metric convention."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.train import rescore

log_to(snakemake.log[0])
rescore(snakemake.input.model, {"vali": snakemake.input.vali, "test": snakemake.input.test}, snakemake.output[0],
        convention=snakemake.wildcards.as_convention, ties=snakemake.params.run_ties)

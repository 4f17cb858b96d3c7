"""Snakemake adapter: train a ranker on every k-subset of a selection (grid chosen on vali) and
write the per-query vali and test metrics of every k's model."""
from dataclasses import replace

from ltrfs.job_log import log_to
from ltrfs.pipeline.train import TrainFiles, TrainJob, train

log_to(snakemake.log[0])
job = replace(TrainJob(**snakemake.params.job), threads=snakemake.threads)
i, out = snakemake.input, snakemake.output
train(job, TrainFiles(selection=i.selection, train=i.train, vali=i.vali, test=i.test, model=out.model, info=out.info,
                      run=out.run, selector=i.get("selector")))

"""Snakemake adapter: one batched train job (``train_batch``): every ranker of a method on one
fold, in turn, in one process that loads the data and the libraries once. Per ranker the same
files as rule train's job (model, info, run file, log) from the same settings and seed."""
from dataclasses import replace

from ltrfs import io
from ltrfs.job_log import log_to
from ltrfs.pipeline.planning.train import output_name
from ltrfs.pipeline.train import TrainFiles, TrainJob, train

data = {split: io.load_npz(snakemake.input[split]) for split in ("train", "vali", "test")}
for settings in snakemake.params.jobs:
    job = TrainJob(**settings)
    log_to(snakemake.log[job.ranker_name])
    out = {kind: snakemake.output[output_name(kind, job.ranker_name)] for kind in ("model", "info", "run")}
    train(replace(job, threads=min(job.threads, snakemake.threads)),
          TrainFiles(selection=snakemake.input.selection, **data, **out, selector=snakemake.input.get("selector")))

"""Snakemake adapter: one batched train job (``train_batch``): every ranker of a method on one
fold, in turn, in one process that loads the data and the libraries once. Per ranker the same
files as rule train's job (model, info, run file, log) from the same settings and seed."""
from ltrfs import io
from ltrfs.job_log import log_to
from ltrfs.pipeline.train import train

data = {split: io.load_npz(snakemake.input[split]) for split in ("train", "vali", "test")}
outputs = list(snakemake.output)
for i, job in enumerate(snakemake.params.jobs):
    log_to(snakemake.log[i])
    model, info, run = outputs[3 * i: 3 * i + 3]
    train(snakemake.input.selection, job["ranker"], job["config"], data["train"], data["vali"], model, info,
          ks=job["k"], metric=job["metric"], convention=snakemake.params.convention, seed=job["seed"],
          threads=min(job["threads"], snakemake.threads), ties=snakemake.params.ties, test_path=data["test"],
          out_run=run, run_ties=snakemake.params.run_ties,
          selector_path=snakemake.input.selector if job["own"] else None)

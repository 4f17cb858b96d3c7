"""Snakemake adapter: one batched select job (``select_batch``): every baseline and filter method of
a dataset on one fold, in turn, in one process that loads Python and the fold once. Per method the
same files as rule select's job (selection record, fitted method, log ending with what the method
used) from the same settings and seed; the job's own log says what the whole job used."""
import logging

from ltrfs import io
from ltrfs.job_log import log_part, log_to
from ltrfs.pipeline.select import select_on
from ltrfs.selection import SELECTORS

log_to(snakemake.log[0])
train, vali = (io.load_npz(snakemake.input[split]).read_only() for split in ("train", "vali"))
names = [job["name"] for job in snakemake.params.jobs]
logging.getLogger("ltrfs").info("fitting %d methods in turn, each with its own log: %s", len(names), ", ".join(names))
for job in snakemake.params.jobs:
    name = job["name"]
    with log_part(snakemake.log[name]):
        scores = {s: snakemake.input[s] for s in SELECTORS[job["method"]["algorithm"]].requires}
        select_on(name, job["method"], train, vali, scores, snakemake.output[f"selection_{name}"],
                  seed=job["seed"], convention=job["convention"], ties=job["ties"],
                  out_selector=snakemake.output[f"selector_{name}"])

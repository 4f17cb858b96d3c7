"""Snakemake adapter: parse one fold of a dataset and cache its splits as .npz."""
from pathlib import Path

from ltrfs.job_log import log_to
from ltrfs.pipeline.prepare import prepare

log_to(snakemake.log[0])
prepare(snakemake.params.entry, Path(snakemake.input[0]).parent, int(snakemake.wildcards.fold),
        snakemake.params.seed, {split: snakemake.output[split] for split in ("train", "vali", "test")})

"""Snakemake adapter: fetch (or generate) a dataset into resources/{dataset}/."""
from pathlib import Path

from ltrfs.datasets.download import fetch
from ltrfs.job_log import log_to

log_to(snakemake.log[0])
fetch(snakemake.wildcards.dataset, snakemake.params.entry, Path(snakemake.output[0]).parent,
      mirror=snakemake.config.get("mirror"), seed=snakemake.params.seed)

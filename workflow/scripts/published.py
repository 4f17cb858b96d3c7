"""Snakemake adapter: a paper's published numbers beside the experiment's table (and, with
``also_conventions``, which convention each paper table is closest to)."""
from pathlib import Path

from ltrfs.job_log import log_to
from ltrfs.pipeline.tables import write_published

log_to(snakemake.log[0])
write_published(snakemake.params.published, Path(snakemake.input.paper).parent,
                dict(zip(snakemake.params.conventions, snakemake.input.tables)), snakemake.wildcards.dataset,
                snakemake.params.title, dict(snakemake.output.items()))

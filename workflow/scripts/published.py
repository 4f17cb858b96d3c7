"""Snakemake adapter: a paper's published numbers beside the experiment's table (and, with
``also_conventions``, which convention each paper table is closest to)."""
from pathlib import Path

from ltrfs.pipeline.tables import write_published
from ltrfs.util import log_to

log_to(snakemake.log[0])
write_published(snakemake.params.published, Path(snakemake.input.paper).parent,
                dict(zip(snakemake.params.conventions, snakemake.input.tables)), snakemake.wildcards.dataset,
                snakemake.params.title, dict(snakemake.output.items()))

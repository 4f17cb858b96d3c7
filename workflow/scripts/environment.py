"""Snakemake adapter: the report's page of library versions (ltrfs.environment)."""
from pathlib import Path

from ltrfs.environment import write_versions_page
from ltrfs.job_log import log_to

log_to(snakemake.log[0])
write_versions_page(Path(snakemake.output.md).parent, snakemake.output.md, snakemake.output.html)

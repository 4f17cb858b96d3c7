"""Snakemake adapter: one method's report data on a fold (registry ``ltrfs.artefacts.REPORT_DATA``)."""
from ltrfs.pipeline.artefacts import report_data
from ltrfs.util import log_to

log_to(snakemake.log[0])
report_data(snakemake.wildcards.report, snakemake.input.selection, snakemake.input.split, snakemake.output[0],
            snakemake.params.context)

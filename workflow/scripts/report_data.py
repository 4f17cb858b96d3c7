"""Snakemake adapter: one method's report data on a fold (registry ``ltrfs.results.figures.registry.REPORT_DATA``)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.figures import report_data

log_to(snakemake.log[0])
report_data(snakemake.wildcards.report, snakemake.input.selection, snakemake.input.split, snakemake.output[0],
            snakemake.params.context)

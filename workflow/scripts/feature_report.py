"""Snakemake adapter: draw the feature report named by the wildcard ``stem`` (registry
``ltrfs.results.figures.registry``) from its input files."""
from ltrfs.job_log import log_to
from ltrfs.results.figures import registry
from ltrfs.results.figures.registry import output_files

log_to(snakemake.log[0])
out = snakemake.output
registry.FIGURES["feature_report"].draw({"stem": snakemake.wildcards.stem, "inputs": dict(snakemake.input.items()),
                                         "context": snakemake.params.context}, output_files(out, "feature_report"))

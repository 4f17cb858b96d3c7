"""Snakemake adapter: draw the feature report named by the wildcard ``artefact`` (registry
``ltrfs.results.figures.registry``) from its input files."""
from ltrfs.results.figures import registry as artefacts
from ltrfs.job_log import log_to

log_to(snakemake.log[0])
out = snakemake.output
artefacts.draw(snakemake.wildcards.artefact, dict(snakemake.input.items()), out.png, out.pdf, out.csv,
               snakemake.params.context)

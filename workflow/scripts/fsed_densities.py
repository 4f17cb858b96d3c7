"""Snakemake adapter: FS-ED's class densities of the top and the last feature by psi."""
from ltrfs.experiments import fsed_densities
from ltrfs.util import log_to

log_to(snakemake.log[0])
fsed_densities(snakemake.input.train, snakemake.input.selection, snakemake.output[0])

"""Snakemake adapter: the projected subgradient baseline of FSMRank's convergence figure."""
from ltrfs.experiments import fsmrank_convergence
from ltrfs.util import log_to

log_to(snakemake.log[0])
fsmrank_convergence(snakemake.input.train, snakemake.input.selection, snakemake.output[0])

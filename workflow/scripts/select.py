"""Snakemake adapter: fit one feature-selection method on a fold (the selection record and the
fitted method, which ranker ``own`` uses as its model)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.select import select
from ltrfs.selection import SELECTORS

log_to(snakemake.log[0])
method = snakemake.params.method
scores = {name: snakemake.input[name] for name in SELECTORS[method["algorithm"]].requires}
select(snakemake.wildcards.method, method, snakemake.input.train, snakemake.input.vali, scores,
       snakemake.output.selection, seed=snakemake.params.seed, convention=snakemake.params.convention,
       threads=snakemake.threads, ties=snakemake.params.ties, out_selector=snakemake.output.selector)

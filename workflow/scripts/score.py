"""Snakemake adapter: per-feature scores of a fold (or the merge of their chunk files)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.score import merge_scores, score

log_to(snakemake.log[0])
if "chunks" in snakemake.input.keys():
    merge_scores(snakemake.wildcards.scorer, snakemake.input.chunks, snakemake.output[0])
else:
    score(snakemake.wildcards.scorer, snakemake.input.train, snakemake.input.vali, snakemake.output[0],
          snakemake.params.convention, threads=snakemake.threads, ties=snakemake.params.ties)

"""Snakemake adapter: fold-averaged tables of one experiment on one dataset."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.tables import write_tables

log_to(snakemake.log[0])
write_tables(snakemake.params.runs, snakemake.output.csv, snakemake.output.md, out_html=snakemake.output.html,
             references=snakemake.params.references, pairs=snakemake.params.pairs,
             out_compare=snakemake.output.compare, out_pairs=snakemake.output.pairs, own=snakemake.params.own,
             columns=snakemake.params.columns or None,
             metric=snakemake.params.metric, title=snakemake.params.title, baselines=snakemake.params.baselines,
             n_features=snakemake.params.n_features, convention=snakemake.params.convention,
             dataset=snakemake.params.dataset, margin=snakemake.params.margin)

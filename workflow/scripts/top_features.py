"""Snakemake adapter: each method's top features with names and scores (Lei & Han Tables 3.1-3.5)."""
from ltrfs.job_log import log_to
from ltrfs.pipeline.tables import top_features

log_to(snakemake.log[0])
top_features(dict(zip(snakemake.params.methods, snakemake.input)), snakemake.output.md, snakemake.output.csv,
             names=snakemake.params.names, title=snakemake.params.title, out_html=snakemake.output.html)

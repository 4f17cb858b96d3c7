"""Snakemake adapter: each method's top features with names and scores (Lei & Han Tables 3.1-3.5)."""
from ltrfs.pipeline.tables import top_features
from ltrfs.util import log_to

log_to(snakemake.log[0])
top_features(dict(zip(snakemake.params.methods, snakemake.input)), snakemake.output.md, snakemake.output.csv,
             names=snakemake.params.names, title=snakemake.params.title, out_html=snakemake.output.html)

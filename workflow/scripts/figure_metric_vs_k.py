"""Snakemake adapter: test metric against k, one panel per ranker."""
import pandas as pd

from ltrfs.plots import metric_vs_k
from ltrfs.util import log_to

log_to(snakemake.log[0])
table = pd.read_csv(snakemake.input[0], dtype={"k": str})
metric_vs_k(table, snakemake.params.metric, snakemake.output.png, snakemake.output.pdf,
            snakemake.output.csv, title=snakemake.params.title, baselines=snakemake.params.baselines)

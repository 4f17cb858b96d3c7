"""Snakemake adapter: a paper's published numbers beside the experiment's table."""
from pathlib import Path

import pandas as pd

from ltrfs import published
from ltrfs.util import log_to, write_text

log_to(snakemake.log[0])
spec = snakemake.params.published
ours = pd.read_csv(snakemake.input[0], dtype={"k": str, "k_chosen": str})
comparison = published.beside(ours, published.load(spec["paper"], Path(snakemake.input[1]).parent),
                              snakemake.wildcards.dataset, spec.get("tables"), spec.get("rows"))
if spec.get("metrics"):
    comparison = comparison[comparison.metric.str.lower().isin([m.lower() for m in spec["metrics"]])]
write_text(snakemake.output[0], published.to_markdown(comparison, snakemake.params.title, spec.get("tolerance")))

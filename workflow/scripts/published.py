"""Snakemake adapter: a paper's published numbers beside the experiment's table (and, with
``also_conventions``, which convention each paper table is closest to)."""
from pathlib import Path

from ltrfs import published
from ltrfs.files import read_csv
from ltrfs.htmlpage import write_markdown
from ltrfs.util import log_to, write_text

log_to(snakemake.log[0])
spec = snakemake.params.published
paper = published.load(spec["paper"], Path(snakemake.input[1]).parent)
tables = {c: read_csv(path, ("method", "ranker", "k"), dtype={"k": str, "k_chosen": str})
          for c, path in zip(snakemake.params.conventions, [snakemake.input[0], *snakemake.input.others])}
ours = tables[snakemake.params.conventions[0]]
comparison = published.beside(ours, paper, snakemake.wildcards.dataset, spec.get("tables"), spec.get("rows"))
if spec.get("metrics"):
    comparison = comparison[comparison.metric.str.lower().isin([m.lower() for m in spec["metrics"]])]
text = published.to_markdown(comparison, snakemake.params.title, spec.get("tolerance"))
if len(tables) > 1:
    closest = published.closest_convention(tables, paper, snakemake.wildcards.dataset, spec.get("tables"),
                                           spec.get("rows"), spec.get("metrics"))
    text += ("\n" + published.closest_convention_markdown(closest)) if not closest.empty else ""
write_markdown(snakemake.output.md, text, snakemake.output.html)
write_text(snakemake.output.csv, comparison.to_csv(index=False, float_format="%.6g"))

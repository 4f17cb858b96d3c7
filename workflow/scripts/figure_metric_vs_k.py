"""Snakemake adapter: test metric against k (one panel per ranker, or the experiment's
``figure_curves``), with the experiment's ``compare`` pairs marked where they differ."""
from ltrfs.files import read_csv
from ltrfs.plots import metric_vs_k
from ltrfs.util import log_to

log_to(snakemake.log[0])
table = read_csv(snakemake.input.table, ("method", "ranker", "k", "folds"), dtype={"k": str})
comparison = read_csv(snakemake.input.compare, dtype={"k_a": str, "k_b": str, "key_a": str, "key_b": str})
metric_vs_k(table, snakemake.params.metric, snakemake.output.png, snakemake.output.pdf,
            snakemake.output.csv, title=f"Test {snakemake.params.metric} against the number of features k, "
            f"{int(table.folds.max())} folds: {snakemake.params.title}", baselines=snakemake.params.baselines,
            curves=snakemake.params.curves, comparison=comparison)

"""Snakemake adapter: the per-feature and per-method figures (importance bars, Kendall heat map,
FS-ED densities, random-forest elimination curve, Greedy RankRLS path, FSMRank convergence),
chosen by the rule's name."""
from ltrfs import reports
from ltrfs.util import log_to

log_to(snakemake.log[0])
out, params = snakemake.output, snakemake.params
if snakemake.rule == "figure_importance":
    reports.importance_figure(snakemake.input, params.metric, out.png, out.pdf, out.csv,
                              title=params.title, names=params.names)
elif snakemake.rule == "figure_kendall":
    reports.kendall_figure(snakemake.input, out.png, out.pdf, out.csv, title=params.title)
elif snakemake.rule == "figure_densities":
    reports.fsed_figure(snakemake.input.train, snakemake.input.selection, out.png, out.pdf, out.csv,
                        title=params.title)
elif snakemake.rule == "figure_elimination":
    reports.rf_curve_figure(dict(zip(params.folds, snakemake.input)), out.png, out.pdf, out.csv,
                            title=params.title)
elif snakemake.rule == "figure_greedy_path":
    reports.greedy_path_figure(dict(zip(params.folds, snakemake.input.selections)),
                               dict(zip(params.folds, snakemake.input.tests)), out.png, out.pdf, out.csv,
                               convention=params.convention, title=params.title, table_csv=snakemake.input.table)
elif snakemake.rule == "figure_convergence":
    reports.convergence_figure(snakemake.input.train, snakemake.input.selection, out.png, out.pdf, out.csv,
                               title=params.title)
else:
    raise ValueError(f"figure_features.py does not draw rule {snakemake.rule!r}")

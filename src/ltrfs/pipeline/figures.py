"""Stage figures (``workflow/rules/figures.smk``): the figures. The test metric against k of
every experiment (``results/figures/{experiment}/{dataset}_{metric}.png``, rule
``figure_metric_vs_k``), a paper's figures in its form (config ``paper_figures``:
``results/figures/{experiment}/{dataset}_fig{n}.png``, rule ``figure_paper``), every feature report of the registry ``ltrfs.results.figures.registry``
(``results/figures/{experiment}/features/``, rule ``feature_report``) and the per-method report data
some of them draw (``results/{dataset}/fold{fold}/{name}/{method}.tsv``, rule ``report_data``)."""
from __future__ import annotations

import logging

from ltrfs import io
from ltrfs.atomic_files import write_text
from ltrfs.docstrings import fill_doc
from ltrfs.formats import read_csv, read_selection
from ltrfs.results.figures import registry

__all__ = ["report_data", "figure_metric_vs_k", "figure_paper"]

log = logging.getLogger("ltrfs")

def report_data(name: str, selection_path, split_path, out_path, context: dict) -> None:
    """Compute the report data ``name`` (``ltrfs.results.figures.registry.REPORT_DATA``) of one method's
    selection on one fold and write it (a TSV).

    Parameters
    ----------
    name : str
        The declared report data.
    selection_path : path-like
        The method's selection record (``select/{method}.json``).
    split_path : path-like
        The ``.npz`` of the split it reads.
    out_path : path-like
    context : dict
        ``convention`` and ``evaluation_ties`` of the dataset.
    """
    declared = registry.REPORT_DATA[name]
    selection = read_selection(selection_path, declared.algorithms)
    try:
        text = declared.compute(selection, io.load_npz(split_path), context)
    except ValueError as exc:
        raise ValueError(f"{selection_path}: {exc}") from None
    write_text(out_path, text)
    log.info("%s of %s: %d lines", name, selection["method"], text.count("\n") - 1)


#: the parameters the figures against k share (their docstrings' ``%(k_figure_files)s``)
_K_FIGURE_FILES = """table_csv : str or os.PathLike
    The experiment's long table.
compare_csv : str or os.PathLike
    Its paired t-tests (``{experiment}_compare.csv``).
files : dict
    ``png``, ``pdf`` and ``csv``: the files written (the CSV holds the numbers drawn).
"""


@fill_doc(k_figure_files=_K_FIGURE_FILES)
def figure_metric_vs_k(table_csv, compare_csv, files: dict, *, metric: str, title: str, baselines,
                       curves=None, n_features: int | None = None) -> None:
    """Draw test ``metric`` against k, one panel per ranker (``ltrfs.results.figures.curves.metric_vs_k``).

    The experiment's ``compare`` pairs are marked where they differ.

    Parameters
    ----------
    %(k_figure_files)s
    metric : str
        The test metric.
    title : str
        The experiment's title.
    baselines : sequence of str
        The all-features baseline methods, drawn as horizontal dashed lines.
    curves : list or None, default None
        The experiment's ``figure_curves``: one panel holding those lines instead of one panel
        per ranker.
    n_features : int or None, default None
        The dataset's number of features: k = d is labelled "all (d)".
    """
    table = read_csv(table_csv, ("method", "ranker", "k", "folds"), dtype={"k": str})
    comparison = read_csv(compare_csv, dtype={"k_a": str, "k_b": str, "key_a": str, "key_b": str})
    n = int(table.folds.max())
    registry.FIGURES["metric_vs_k"].draw(
        {"table": table, "metric": metric, "title": f"Test {metric} against the number of features k, "
         f"{n} fold{'s' * (n != 1)}: {title}", "baselines": baselines, "curves": curves, "comparison": comparison,
         "n_features": n_features}, files)


@fill_doc(k_figure_files=_K_FIGURE_FILES)
def figure_paper(table_csv, compare_csv, files: dict, *, spec: dict, title: str, baselines,
                 n_features: int | None = None) -> None:
    """Draw one of a paper's figures in its form: one ranker, a panel per metric
    (``ltrfs.results.figures.curves.metric_panels``), the experiment's ``compare`` pairs circled where they differ.

    Parameters
    ----------
    %(k_figure_files)s
    spec : dict
        The figure (``PLAN.figures.paper_figure``, ``ltrfs.pipeline.planning.figures``):
        ``figure`` (e.g. "fig4"), ``ranker``, ``metrics``, ``methods``, ``labels``.
    title : str
        The experiment's title.
    baselines : sequence of str
        The all-features baseline methods, drawn as horizontal dashed lines.
    n_features : int or None, default None
        The dataset's number of features: k = d is labelled "all (d)".
    """
    table = read_csv(table_csv, ("method", "ranker", "k", "folds"), dtype={"k": str})
    comparison = read_csv(compare_csv, dtype={"k_a": str, "k_b": str, "key_a": str, "key_b": str})
    n = int(table.folds.max())
    labels = spec["labels"]
    ranker = labels.get(spec["ranker"], spec["ranker"])
    number = spec["figure"].removeprefix("fig")
    waf = ", ".join(f"{labels.get(b, b)} (all {n_features or 'd'} features)" for b in baselines
                    if b in spec["methods"])
    caption = (f"Fig. {number} in the paper's form, ours: each point is the test value of {ranker} trained on the "
               f"k features a method selected, mean over {n} fold{'s' * (n != 1)} (standard deviation in the "
               f"CSV beside the figure)" + (f"; dashed line: {waf}" if waf else "")
               + "; an open circle around a point: that method differs from the method whose colour the circle "
               "has, at the same k (paired two-sided t-test on the per-query test values of all folds, "
               "p < 0.05).")
    registry.FIGURES["paper_figure"].draw(
        {"table": table, "ranker": spec["ranker"], "metrics": spec["metrics"], "title": f"Fig. {number} (ours): {ranker}, {title}",
         "caption": caption, "baselines": baselines, "methods": spec["methods"], "labels": labels,
         "comparison": comparison, "n_features": n_features}, files)

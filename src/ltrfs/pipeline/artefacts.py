"""Stage artefacts (``workflow/rules/artefacts.smk``): the figures. The test metric against k of
every experiment (``results/figures/{experiment}/{dataset}_{metric}.png``, rule
``figure_metric_vs_k``), a paper's figures in its form (config ``paper_figures``:
``results/figures/{experiment}/{dataset}_fig{n}.png``, rule ``figure_paper``), every feature report of the registry ``ltrfs.artefacts``
(``results/figures/{experiment}/features/``, rule ``artefact``) and the per-method report data
some of them draw (``results/{dataset}/fold{fold}/{name}/{method}.tsv``, rule ``report_data``)."""
from __future__ import annotations

import logging

from ltrfs import artefacts, io
from ltrfs.docstrings import fill_doc
from ltrfs.formats import METRIC_COLUMNS, column_name, read_csv, read_selection
from ltrfs.pipeline.tables import TablesPlanning
from ltrfs.plots import metric_panels, metric_vs_k
from ltrfs.selection import SELECTORS
from ltrfs.util import write_text

__all__ = ["report_data", "figure_metric_vs_k", "figure_paper", "metric_file_name", "METRIC_BY_FILE_NAME", "ArtefactsPlanning"]

log = logging.getLogger("ltrfs")

#: a metric's name in file names (no "@") -> its column
METRIC_BY_FILE_NAME = {c.replace("@", ""): c for c in METRIC_COLUMNS}


def metric_file_name(metric: str) -> str:
    """``NDCG@10`` -> ``NDCG10``."""
    return column_name(metric).replace("@", "")


def report_data(name: str, selection_path, split_path, out_path, context: dict) -> None:
    """Compute the report data ``name`` (``ltrfs.artefacts.REPORT_DATA``) of one method's
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
    declared = artefacts.REPORT_DATA[name]
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
png, pdf, csv : str or os.PathLike
    The files written (the CSV holds the numbers drawn).
"""


@fill_doc(k_figure_files=_K_FIGURE_FILES)
def figure_metric_vs_k(table_csv, compare_csv, png, pdf, csv, *, metric: str, title: str, baselines,
                       curves=None, n_features: int | None = None) -> None:
    """Draw test ``metric`` against k, one panel per ranker (``ltrfs.plots.metric_vs_k``).

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
    metric_vs_k(table, metric, png, pdf, csv, title=f"Test {metric} against the number of features k, "
                f"{n} fold{'s' * (n != 1)}: {title}", baselines=baselines, curves=curves, comparison=comparison,
                n_features=n_features)


@fill_doc(k_figure_files=_K_FIGURE_FILES)
def figure_paper(table_csv, compare_csv, png, pdf, csv, *, spec: dict, title: str, baselines,
                 n_features: int | None = None) -> None:
    """Draw one of a paper's figures in its form: one ranker, a panel per metric
    (``ltrfs.plots.metric_panels``), the experiment's ``compare`` pairs circled where they differ.

    Parameters
    ----------
    %(k_figure_files)s
    spec : dict
        The figure (``ArtefactsPlanning.paper_figure``): ``figure`` (e.g. "fig4"), ``ranker``,
        ``metrics``, ``methods``, ``labels``.
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
    metric_panels(table, spec["ranker"], spec["metrics"], png, pdf, csv,
                  title=f"Fig. {number} (ours): {ranker}, {title}", caption=caption, baselines=baselines,
                  methods=spec["methods"], labels=labels, comparison=comparison, n_features=n_features)


@fill_doc
class ArtefactsPlanning(TablesPlanning):
    """The targets and inputs of the figure and report-data jobs (parameters as ``ltrfs.pipeline.run.Run``)."""

    def experiment_methods(self, experiment: str) -> dict:
        """The experiment's methods, in order, with their configs."""
        return {m: self.config["methods"][m] for m in self.experiment(experiment)["methods"]}

    def figure_targets(self, experiment: str, dataset: str) -> list[str]:
        """The experiment's metric-against-k figures, its ``paper_figures`` of the dataset and its
        feature reports on the dataset.

        The feature reports are those its methods make possible (``ltrfs.artefacts.stems``); config
        ``artefacts`` restricts them.

        %(experiment_dataset_paths)s
            The PNG files.
        """
        e = self.experiment(experiment)
        targets = [f"{self.results}/figures/{experiment}/{dataset}_{metric_file_name(m)}.png"
                   for m in e["figure_metrics"]]
        targets += [f"{self.results}/figures/{experiment}/{dataset}_{name}.png"
                    for name, figure in (e.get("paper_figures") or {}).items() if figure["dataset"] == dataset]
        wanted = e.get("artefacts")  # None: every one the methods allow
        targets += [f"{self.results}/figures/{experiment}/features/{dataset}_{stem}.png"
                    for stem in artefacts.stems(self.experiment_methods(experiment), SELECTORS)
                    if wanted is None or artefacts.parse(stem)[0].name in wanted]
        return targets

    def paper_figure(self, experiment: str, figure: str) -> dict:
        """A figure of config ``paper_figures`` with its defaults: ``figure``, ``dataset``, ``ranker``,
        ``metrics`` (default the experiment's ``figure_metrics``), ``methods`` (default all of the
        experiment's) and ``labels`` (the experiment's ``figure_labels``).

        Parameters
        ----------
        experiment : str
        figure : str
            Its name, e.g. "fig4".

        Returns
        -------
        dict
        """
        e = self.experiment(experiment)
        spec = e["paper_figures"][figure]
        return {"figure": figure, "dataset": spec["dataset"], "ranker": spec["ranker"],
                "metrics": spec.get("metrics", e["figure_metrics"]), "methods": spec.get("methods", e["methods"]),
                "labels": dict(e.get("figure_labels") or {})}

    def artefact_inputs(self, wildcards) -> dict:
        """Role -> file(s) the artefact reads (``ltrfs.artefacts``), for ``unpack``."""
        return artefacts.input_paths(wildcards.artefact, results=self.results, dataset=wildcards.dataset,
                                     experiment=wildcards.experiment,
                                     folds=self.folds(wildcards.experiment, wildcards.dataset))

    def artefact_context(self, wildcards) -> dict:
        """The plain values an artefact's drawing function needs besides its files."""
        folds = self.folds(wildcards.experiment, wildcards.dataset)
        return {"dataset": wildcards.dataset, "experiment": wildcards.experiment, "folds": list(folds),
                "names": self.names_of(wildcards.dataset),
                "title": artefacts.title(wildcards.artefact, dataset=wildcards.dataset, folds=folds)}

    def artefact_caption(self, wildcards) -> str:
        """A params function: the registry's caption of the job's feature report (the report's
        caption reads it), with the method it shows."""
        artefact, method = artefacts.parse(wildcards.artefact)
        text = artefact.caption + (f" Method: {method}." if method else "")
        return text.replace("\\", "\\\\").replace("@", "\\@")  # reStructuredText: NDCG@10 is no e-mail address

    def report_data_inputs(self, wildcards) -> dict:
        """The method's selection record and the split the report data reads."""
        fold = self.fold.format(**wildcards)
        split = artefacts.REPORT_DATA[wildcards.report].split
        return {"selection": f"{fold}/select/{wildcards.method}.json", "split": f"{fold}/data/{split}.npz"}

    def report_data_context(self, wildcards) -> dict:
        """A params function: the values report data is computed with (``convention``, ``evaluation_ties``)."""
        return {"convention": self.convention(wildcards), "evaluation_ties": self.config["evaluation_ties"]}

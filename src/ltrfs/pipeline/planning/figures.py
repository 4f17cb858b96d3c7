"""Planning of stage figures (``workflow/rules/figures.smk``): the figures ``rule all`` asks
for, a paper's figure with its defaults, and what each feature report and report data job reads."""
from __future__ import annotations

from ltrfs.docstrings import fill_doc
from ltrfs.formats import METRIC_COLUMNS, column_name
from ltrfs.results.figures import registry
from ltrfs.selection import SELECTORS

__all__ = ["FiguresPlanning", "metric_file_name", "METRIC_BY_FILE_NAME"]

#: a metric's name in file names (no "@") -> its column
METRIC_BY_FILE_NAME = {c.replace("@", ""): c for c in METRIC_COLUMNS}


def metric_file_name(metric: str) -> str:
    """``NDCG@10`` -> ``NDCG10``."""
    return column_name(metric).replace("@", "")


@fill_doc
class FiguresPlanning:
    """The targets and inputs of the figure and report-data jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def experiment_methods(self, experiment: str) -> dict:
        """The experiment's methods, in order, with their configs."""
        return {m: self.run.config["methods"][m] for m in self.run.experiment(experiment)["methods"]}

    def targets(self, experiment: str, dataset: str) -> list[str]:
        """The experiment's metric-against-k figures, its ``paper_figures`` of the dataset and its
        feature reports on the dataset.

        The feature reports are those its methods make possible (``ltrfs.results.figures.registry.stems``); config
        ``feature_reports`` restricts them.

        %(experiment_dataset_paths)s
            The PNG files.
        """
        e = self.run.experiment(experiment)
        folder = f"{self.run.results}/figures/{experiment}"
        targets = [f"{folder}/{dataset}_{metric_file_name(m)}.png" for m in e["figure_metrics"]]
        targets += [f"{folder}/{dataset}_{name}.png"
                    for name, figure in (e.get("paper_figures") or {}).items() if figure["dataset"] == dataset]
        wanted = e.get("feature_reports")  # None: every one the methods allow
        targets += [f"{folder}/features/{dataset}_{stem}.png"
                    for stem in registry.stems(self.experiment_methods(experiment), SELECTORS)
                    if wanted is None or registry.parse(stem)[0].name in wanted]
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
        e = self.run.experiment(experiment)
        spec = e["paper_figures"][figure]
        return {"figure": figure, "dataset": spec["dataset"], "ranker": spec["ranker"],
                "metrics": spec.get("metrics", e["figure_metrics"]), "methods": spec.get("methods", e["methods"]),
                "labels": dict(e.get("figure_labels") or {})}

    def inputs(self, wildcards) -> dict:
        """Role -> file(s) the feature report reads (``ltrfs.results.figures.registry``), for ``unpack``."""
        return registry.input_paths(wildcards.stem, results=self.run.results, dataset=wildcards.dataset,
                                     experiment=wildcards.experiment,
                                     folds=self.run.folds(wildcards.experiment, wildcards.dataset))

    def context(self, wildcards) -> dict:
        """The plain values a feature report's drawing function needs besides its files."""
        folds = self.run.folds(wildcards.experiment, wildcards.dataset)
        return {"dataset": wildcards.dataset, "experiment": wildcards.experiment, "folds": list(folds),
                "names": self.run.names_of(wildcards.dataset),
                "title": registry.title(wildcards.stem, dataset=wildcards.dataset, folds=folds)}

    def caption(self, wildcards) -> str:
        """A params function: the registry's caption of the job's feature report (the report's
        caption reads it), with the method it shows."""
        report, method = registry.parse(wildcards.stem)
        text = report.caption + (f" Method: {method}." if method else "")
        return text.replace("\\", "\\\\").replace("@", "\\@")  # reStructuredText: NDCG@10 is no e-mail address

    def report_data_inputs(self, wildcards) -> dict:
        """The method's selection record and the split the report data reads."""
        fold = self.run.fold.format(**wildcards)
        split = registry.REPORT_DATA[wildcards.report].split
        return {"selection": f"{fold}/select/{wildcards.method}.json", "split": f"{fold}/data/{split}.npz"}

    def report_data_context(self, wildcards) -> dict:
        """A params function: the values report data is computed with (``convention``, ``evaluation_ties``)."""
        return {"convention": self.run.convention(wildcards), "evaluation_ties": self.run.config["evaluation_ties"]}

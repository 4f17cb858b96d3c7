"""Planning of stage tables (``workflow/rules/tables.smk``): the run files and references each
table reads, its metric, columns and conventions, and the tables ``rule all`` asks for."""
from __future__ import annotations

from ltrfs.config import OWN, validation_metric_of
from ltrfs.docstrings import fill_doc
from ltrfs.formats import column_name
from ltrfs.selection import SELECTORS

__all__ = ["TablesPlanning"]


@fill_doc
class TablesPlanning:
    """The run files, references and settings of the table jobs.

    Parameters
    ----------
    run : ltrfs.pipeline.run.Run
        The run.
    train : ltrfs.pipeline.planning.train.TrainPlanning
        Asked which (method, ranker) pairs rank (``ranks_itself``).
    """

    def __init__(self, run, train):
        self.run = run
        self.train = train

    def metric(self, experiment: str) -> str:
        """The run-file column of the experiment's vali metric (k chosen on vali, p-values)."""
        return column_name(validation_metric_of(self.run.config, experiment))

    def columns(self, experiment: str) -> list[str]:
        """The columns of the experiment's Markdown table (config ``metrics``; [] for the default)."""
        return [column_name(m) for m in self.run.experiment(experiment).get("metrics", [])]

    def also_conventions(self, experiment: str, dataset: str) -> list[str]:
        """The experiment's ``also_conventions`` other than the dataset's own.

        %(experiment_dataset_paths)s
        """
        own = self.run.convention_of(dataset)
        return [c for c in self.run.experiment(experiment).get("also_conventions", []) if c != own]

    def run_records(self, experiment: str, dataset: str, as_convention: str | None = None) -> list[dict]:
        """Every run file of an experiment on a dataset, with its coordinates (for the tables).

        Parameters
        ----------
        %(experiment_dataset)s
        as_convention : str or None, default None
            The re-evaluated run files in this convention (``runs_{convention}``) instead.

        Returns
        -------
        list of dict
            ``path``, ``fold``, ``method``, ``ranker``, ``k`` and ``full_model`` of every run file.
        """
        run = self.run
        e = run.experiment(experiment)
        folder = "runs" if as_convention is None else f"runs_{as_convention}"
        return [
            {"path": f"{run.fold_folder(dataset, fold)}/{folder}/{method}/{ranker}.tsv",
             "fold": fold, "method": method, "ranker": ranker, "k": e["k"],
             "full_model": run.config["rankers"][ranker]["algorithm"] == OWN}
            for fold in run.folds(experiment, dataset)
            for method in e["methods"]
            for ranker in e["rankers"]
            if self.train.ranks_itself(method, ranker)
        ]

    def reference_records(self, experiment: str, dataset: str, as_convention: str | None = None) -> list[dict]:
        """The reference file of every fold (file order and random order of a constant score).

        Parameters
        ----------
        %(experiment_dataset)s
        as_convention : str or None, default None
            The re-evaluated reference files in this convention instead.

        Returns
        -------
        list of dict
            ``path`` and ``fold`` of every reference file.
        """
        name = "reference" if as_convention is None else f"reference_{as_convention}"
        return [{"path": f"{self.run.fold_folder(dataset, fold)}/{name}.tsv", "fold": fold}
                for fold in self.run.folds(experiment, dataset)]

    def published_tables(self, wildcards) -> list[str]:
        """The experiment's tables in the conventions its published page compares, own first."""
        e, d, results = wildcards.experiment, wildcards.dataset, self.run.results
        return [f"{results}/{d}/tables/{e}.csv",
                *(f"{results}/{d}/tables/{e}.{c}.csv" for c in self.also_conventions(e, d))]

    def published_conventions(self, wildcards) -> list[str]:
        """A params function: the dataset's convention, then the experiment's ``also_conventions``."""
        return [self.run.convention_of(wildcards.dataset),
                *self.also_conventions(wildcards.experiment, wildcards.dataset)]

    def first_fold(self, experiment: str, dataset: str) -> int:
        """The first fold of a dataset the experiment uses.

        Parameters
        ----------
        %(experiment_dataset)s

        Returns
        -------
        int
        """
        return self.run.folds(experiment, dataset)[0]

    def methods_with(self, experiment: str, test) -> list[str]:
        """The experiment's methods whose configuration passes ``test``.

        Parameters
        ----------
        experiment : str
            The experiment.
        test : callable
            ``test(method_config, selector_class) -> bool``.

        Returns
        -------
        list of str
        """
        return [m for m in self.run.experiment(experiment)["methods"]
                if test(self.run.config["methods"][m], SELECTORS[self.run.algorithm(m)])]

    def ranking_methods(self, experiment: str) -> list[str]:
        """The experiment's methods that rank the features (those the top-feature table lists)."""
        return self.methods_with(experiment, lambda m, cls: cls.uses_k)

    def top_feature_inputs(self, wildcards) -> list[str]:
        """An input function: the first fold's selection records of the experiment's ranking methods."""
        fold = self.first_fold(wildcards.experiment, wildcards.dataset)
        return [f"{self.run.fold_folder(wildcards.dataset, fold)}/select/{m}.json"
                for m in self.ranking_methods(wildcards.experiment)]

    def targets(self, experiment: str, dataset: str) -> list[str]:
        """The tables of an experiment on a dataset that ``rule all`` asks for.

        %(experiment_dataset_paths)s
            The Markdown and HTML files.
        """
        e = self.run.experiment(experiment)
        tables = [experiment, *(f"{experiment}.{c}" for c in self.also_conventions(experiment, dataset))]
        tables += [f"{experiment}_published"] if e.get("published") else []
        folder = f"{self.run.results}/{dataset}/tables"
        targets = [f"{folder}/{t}.{ext}" for t in tables for ext in ("md", "html")]
        if self.ranking_methods(experiment):
            targets += [f"{folder}/top_features/{experiment}.{ext}" for ext in ("md", "html")]
        return targets

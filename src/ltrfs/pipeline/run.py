"""The questions every stage's planner asks of a run: its config and the dataset registry."""
from __future__ import annotations

import re
from pathlib import Path

from ltrfs.config import OWN, convention_of, folds_of, train_metrics
from ltrfs.context import stable_seed
from ltrfs.datasets.registry import feature_names

__all__ = ["Run"]


class Run:
    """A run of the workflow: a checked config (``ltrfs.config_check.check``) and the dataset registry.

    Parameters
    ----------
    config : dict
        The checked config (defaults filled in).
    registry : dict
        Dataset name -> registry entry (``ltrfs.datasets.registry.load_registry``).
    present : callable, optional
        ``present(dataset) -> bool``: whether the dataset takes part (``datasets_present_only``);
        default every dataset.

    Attributes
    ----------
    results, resources : str
        The folders of the results and of the downloads.
    fold : str
        The fold folder pattern, ``{results}/{dataset}/fold{fold}`` with wildcards left in.
    train_metrics : dict
        (dataset, method, ranker) -> the vali metric of its train job (``ltrfs.config.train_metrics``).
    """

    def __init__(self, config: dict, registry: dict, present=None):
        self.config = config
        self.registry = registry
        self.present = present or (lambda dataset: True)
        self.results = config["results_dir"]
        self.resources = config["resources_dir"]
        self.fold = f"{self.results}/{{dataset}}/fold{{fold}}"
        self.train_metrics = train_metrics(config)

    # ------------------------------------------------------------------------- the config

    def experiment(self, name: str) -> dict:
        """The config of the experiment ``name``."""
        return self.config["experiments"][name]

    def run_experiments(self):
        """(name, experiment, dataset) of every experiment being run, on its present datasets."""
        for name in self.config["run"]:
            e = self.experiment(name)
            for dataset in filter(self.present, e["datasets"]):
                yield name, e, dataset

    def folds(self, experiment: str, dataset: str) -> list[int]:
        """The folds of ``dataset`` the experiment uses."""
        return folds_of(self.config, self.registry, experiment, dataset)

    def fold_folder(self, dataset: str, fold) -> str:
        """The folder of one fold of a dataset: ``{results}/{dataset}/fold{fold}``."""
        return f"{self.results}/{dataset}/fold{fold}"

    def convention_of(self, dataset: str) -> str:
        """The dataset's metric convention (``conventions[dataset]`` or the registry's)."""
        return convention_of(self.config, self.registry, dataset)

    def convention(self, wildcards) -> str:
        """A params function: the metric convention of the job's ``{dataset}`` wildcard."""
        return self.convention_of(wildcards.dataset)

    def method_config(self, wildcards) -> dict:
        """A params function: the config of the job's ``{method}`` wildcard."""
        return self.config["methods"][wildcards.method]

    def ranker_config(self, wildcards) -> dict:
        """A params function: the config of the job's ``{ranker}`` wildcard."""
        return self.config["rankers"][wildcards.ranker]

    def algorithm(self, method: str) -> str:
        """The selection algorithm of the method ``method``."""
        return self.config["methods"][method]["algorithm"]

    def baselines(self, experiment: str) -> list[str]:
        """The experiment's all-features methods (algorithm waf), for p-values and figures."""
        return [m for m in self.experiment(experiment)["methods"] if self.algorithm(m) == "waf"]

    def own_rankers(self, experiment: str) -> list[str]:
        """The experiment's rankers that are the method's own model (algorithm own)."""
        return [r for r in self.experiment(experiment)["rankers"] if self.config["rankers"][r]["algorithm"] == OWN]

    def n_features_of(self, dataset: str) -> int | None:
        """The dataset's number of features from the registry (None where the entry leaves it to
        the files): the k that tables and figures label "all (d)"."""
        return self.registry[dataset].get("n_features")

    def job_seed(self, *names):
        """A params function: the config seed combined with the named wildcards."""
        return lambda w: stable_seed(self.config["seed"], *(getattr(w, name) for name in names))

    def names_of(self, dataset: str):
        """The dataset's feature names from the registry (None when it has none)."""
        return feature_names(self.registry[dataset], Path(self.config["datasets_file"]).parent)

    def experiment_title(self, experiment: str, dataset: str) -> str:
        """The experiment's title, followed by the dataset unless the title names it already.

        Any case and spelling of separators names it: "Synthetic data" names ``synthetic``,
        "MSLR-WEB10K" names ``mslr_web10k``.

        Parameters
        ----------
        experiment, dataset : str

        Returns
        -------
        str
        """
        title = self.experiment(experiment).get("title", experiment)
        def plain(text: str) -> str:  # letters and digits only, lower case
            return re.sub(r"[^0-9a-z]", "", text.lower())

        return title if plain(dataset) in plain(title) else f"{title}: {dataset}"

"""Planning of stage select (``workflow/rules/select.smk``): the score files, threads and conda
environment of the select jobs, and the batched select jobs (config ``select_batch``)."""
from __future__ import annotations

import re
from functools import cached_property

from ltrfs.context import stable_seed
from ltrfs.pipeline.planning.environments import conda_env
from ltrfs.selection import SCORES_ONLY, SELECTORS

__all__ = ["SelectPlanning", "SELECT_OUTPUTS"]

#: a select job's outputs: kind -> the extension of ``select/{method}.{ext}``
SELECT_OUTPUTS = {"selection": "json", "selector": "model"}


class SelectPlanning:
    """The inputs, threads and batches of the select jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def scorer_inputs(self, wildcards) -> dict:
        """The per-fold score files the method's algorithm reads."""
        fold = self.run.fold.format(**wildcards)
        return {name: f"{fold}/scores/{name}.npz" for name in SELECTORS[self.run.algorithm(wildcards.method)].requires}

    def threads(self, wildcards) -> int:
        """The method's own ``threads`` (default 1)."""
        return self.run.method_config(wildcards).get("threads", 1)

    def conda_env(self, wildcards) -> str:
        """The job's conda environment (``ltrfs.pipeline.planning.environments``): the neural one for
        a neural selector."""
        return conda_env(self.run.algorithm(wildcards.method))

    # ------------------------------------------------------------------ batched select jobs

    def batchable(self, method: str) -> bool:
        """Whether a method is fitted in its fold's batch (config ``select_batch``): its algorithm
        reads only the scorers' tables (``ltrfs.selection.SCORES_ONLY``), on one thread, on the
        whole fold (no ``sample_queries``, which fits on the rows themselves)."""
        config = self.run.config["methods"][method]
        return (config["algorithm"] in SCORES_ONLY and config.get("threads", 1) == 1
                and config.get("sample_queries") is None)

    @staticmethod
    def batch_rule_name(dataset: str) -> str:
        """The rule name of a dataset's batched select jobs.

        Parameters
        ----------
        dataset : str

        Returns
        -------
        str
            ``select_batch_{dataset}`` with every character outside [A-Za-z0-9_] made ``_``.
        """
        return re.sub(r"\W", "_", f"select_batch_{dataset}")

    def batches(self) -> dict:
        """dataset -> rule name and methods of its batched select jobs, one per fold (config
        ``select_batch``): the ``batchable`` methods of the experiments being run on the dataset,
        in the order first listed; a dataset with fewer than two keeps rule select, and so does
        the second of two datasets whose rule names clash.

        Returns
        -------
        dict
        """
        return self._batches

    @cached_property  # the config is fixed once the workflow is parsed
    def _batches(self) -> dict:
        methods: dict = {}
        for name in self.run.config["run"]:
            e = self.run.experiment(name)
            for dataset in e["datasets"]:
                listed = methods.setdefault(dataset, [])
                listed.extend(m for m in e["methods"] if m not in listed and self.batchable(m))
        batches, names = {}, set()
        for dataset, listed in methods.items():
            name = self.batch_rule_name(dataset)
            if len(listed) > 1 and name not in names:
                names.add(name)
                batches[dataset] = (name, listed)
        return batches

    def batch_jobs(self, dataset: str, methods, fold) -> list[dict]:
        """A batched select job's per-method settings, the arguments of
        ``ltrfs.pipeline.select.select`` that rule select passes (the seed from the same
        wildcards), in the order of ``methods``.

        Parameters
        ----------
        dataset : str
        methods : iterable of str
        fold : str
            The fold wildcard.

        Returns
        -------
        list of dict
            ``{"name", "method", "seed", "convention", "ties"}`` per method.
        """
        config = self.run.config
        return [{"name": m, "method": config["methods"][m], "seed": stable_seed(config["seed"], dataset, fold, m),
                 "convention": self.run.convention_of(dataset), "ties": config["ties"]} for m in methods]

    @staticmethod
    def batch_outputs(fold_path: str, methods) -> dict:
        """The named outputs of a batched select job: ``{kind}_{method}`` -> path, each method's
        selection record and fitted selector (``SELECT_OUTPUTS``), the paths rule select writes.

        Parameters
        ----------
        fold_path : str
            ``results/{dataset}/fold{fold}`` (with the ``{fold}`` wildcard).
        methods : iterable of str

        Returns
        -------
        dict
        """
        return {f"{kind}_{m}": f"{fold_path}/select/{m}.{ext}" for m in methods for kind, ext in SELECT_OUTPUTS.items()}

    def batch_scorers(self, fold_path: str, methods) -> dict:
        """A batched select job's score files: scorer -> ``{fold_path}/scores/{scorer}.npz``, for ``methods``."""
        scorers = dict.fromkeys(s for m in methods for s in SELECTORS[self.run.algorithm(m)].requires)
        return {s: f"{fold_path}/scores/{s}.npz" for s in scorers}

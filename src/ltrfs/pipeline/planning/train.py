"""Planning of stage train (``workflow/rules/train.smk``): the k grid, vali metric, seed and
threads of each train job, which (method, ranker) pairs rank at all, and the batched train jobs
(config ``train_batch``)."""
from __future__ import annotations

import re
from types import SimpleNamespace

from ltrfs.config import OWN, k_grid, train_batches
from ltrfs.context import stable_seed
from ltrfs.neural import NEURAL_METHODS
from ltrfs.pipeline.planning.environments import conda_env
from ltrfs.selection import SELECTORS, has_own_predictions

__all__ = ["TrainPlanning", "TRAIN_OUTPUTS", "output_name"]

#: a train job's outputs: kind -> (folder under the fold, extension) of ``{folder}/{method}/{ranker}.{ext}``
TRAIN_OUTPUTS = {"model": ("models", "model"), "info": ("models", "json"), "run": ("runs", "tsv")}


def output_name(kind: str, ranker: str) -> str:
    """The name of one ranker's ``kind`` of output in a batched train job (``TRAIN_OUTPUTS``).

    Parameters
    ----------
    kind : str
        ``model``, ``info`` or ``run``.
    ranker : str
        The ranker's name.

    Returns
    -------
    str

    Examples
    --------
    >>> output_name("run", "ranksvm")
    'run_ranksvm'
    """
    return f"{kind}_{ranker}"


class TrainPlanning:
    """The inputs, params and batches of the train jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def ks(self, wildcards) -> list[int]:
        """The k grid of a train job; [] for methods that ignore k, so that editing the
        experiments' k lists does not rerun them."""
        algorithm = SELECTORS[self.run.algorithm(wildcards.method)]
        if not algorithm.uses_k:
            return []
        if self.run.ranker_config(wildcards)["algorithm"] == OWN and not hasattr(algorithm, "predict_scores_k"):
            return []  # the method's own model on all features; only FSMRank's can be cut to its top k
        return k_grid(self.run.config, wildcards.dataset, wildcards.method, wildcards.ranker)

    def own_selector(self, wildcards) -> dict:
        """Ranker ``own`` reads the method's fitted model, written by its select job."""
        if self.run.ranker_config(wildcards)["algorithm"] != OWN:
            return {}
        return {"selector": f"{self.run.fold.format(**wildcards)}/select/{wildcards.method}.model"}

    def threads_of(self, method: str, ranker: str) -> int:
        """The ranker's own ``threads`` (default 1); ranker ``own`` takes the method's.

        Parameters
        ----------
        method, ranker : str
            Their names in the config.

        Returns
        -------
        int
        """
        config = self.run.config
        if config["rankers"][ranker]["algorithm"] == OWN:
            return config["methods"][method].get("threads", 1)
        return config["rankers"][ranker].get("threads", 1)

    def threads(self, wildcards) -> int:
        """The threads of a train job (``threads_of``)."""
        return self.threads_of(wildcards.method, wildcards.ranker)

    def conda_env(self, wildcards) -> str:
        """The conda environment of a train job (``ltrfs.pipeline.planning.environments``): the
        neural one for the ``mlp`` ranker, and for ranker ``own`` that of the method."""
        algorithm = self.run.ranker_config(wildcards)["algorithm"]
        return conda_env(self.run.algorithm(wildcards.method) if algorithm == OWN else algorithm)

    def metric(self, wildcards) -> str:
        """The vali metric of a train job (``Run.train_metrics``; the top-level one for a
        combination of no experiment)."""
        return self.run.train_metrics.get((wildcards.dataset, wildcards.method, wildcards.ranker),
                                          self.run.config["validation_metric"])

    def seed(self, wildcards) -> int:
        """A params function: the seed of a train job (config seed, dataset, fold, method, ranker)."""
        w = wildcards
        return stable_seed(self.run.config["seed"], w.dataset, w.fold, w.method, w.ranker)

    def ranks_itself(self, method: str, ranker: str) -> bool:
        """Whether the ranker can rank with the method.

        Parameters
        ----------
        method : str
            A method's name.
        ranker : str
            A ranker's name.

        Returns
        -------
        bool
            False for the pair (method, ranker ``own``) when the method has no model of its own.
        """
        if self.run.config["rankers"][ranker]["algorithm"] != OWN:
            return True
        return has_own_predictions(self.run.algorithm(method))

    def run_ties(self) -> dict:
        """How the run files rank tied scores: vali as tuning does, test as reported."""
        return {"vali": self.run.config["ties"], "test": self.run.config["evaluation_ties"]}

    @staticmethod
    def batch_rule_name(dataset: str, method: str) -> str:
        """The rule name of a batched train job.

        Parameters
        ----------
        dataset, method : str
            The job's dataset and method.

        Returns
        -------
        str
            ``train_{dataset}_{method}`` with every character outside [A-Za-z0-9_] made ``_``.
        """
        return re.sub(r"\W", "_", f"train_{dataset}_{method}")

    def batches(self) -> dict:
        """(dataset, method) -> rule name and rankers of each batched train job (config
        ``train_batch``): every one-thread ranker of the method in the experiments being run that
        can rank with it. A ranker of several threads keeps its own job (rule train): in a batch
        it would hold all its cores while the batch's other rankers use one (on MQ2008 the
        all-features batch of 15 rankers held both cores for ``random_forest``). So does a ranker
        of the neural extra (``mlp``): a config that adds it to a run made without it
        (``config/leaderboard_neural.yaml``) leaves that run's batches as they were, and its jobs
        are not redone. A name clash keeps rule train for the second."""
        batches, names = {}, set()
        for (dataset, method), rankers in train_batches(self.run.config).items():
            rankers = [r for r in rankers if self.ranks_itself(method, r) and self.threads_of(method, r) == 1
                       and self.run.config["rankers"][r]["algorithm"] not in NEURAL_METHODS]
            name = self.batch_rule_name(dataset, method)
            if rankers and name not in names:
                names.add(name)
                batches[(dataset, method)] = (name, rankers)
        return batches

    def job(self, wildcards) -> dict:
        """A params function: one train job's settings, the fields of
        ``ltrfs.pipeline.train.TrainJob`` as plain values (rule train and each ranker of a batch)."""
        return {"ranker_name": wildcards.ranker, "ranker": self.run.ranker_config(wildcards), "ks": self.ks(wildcards),
                "metric": self.metric(wildcards), "convention": self.run.convention(wildcards),
                "seed": self.seed(wildcards), "threads": self.threads(wildcards), "ties": self.run.config["ties"],
                "run_ties": self.run_ties(),
                "shared_fits": (f"{self.run.fold_folder(wildcards.dataset, wildcards.fold)}/fits"
                                if self.run.config["share_fits"] else None)}

    def batch_jobs(self, dataset: str, method: str, rankers, fold) -> list[dict]:
        """One batched train job's per-ranker settings (``job``), in the order of ``rankers``.

        Parameters
        ----------
        dataset, method : str
            The job's dataset and method.
        rankers : iterable of str
            Its rankers.
        fold : int or str
            The fold.

        Returns
        -------
        list of dict
            Per ranker, ``job``'s settings.
        """
        return [self.job(SimpleNamespace(dataset=dataset, fold=fold, method=method, ranker=ranker))
                for ranker in rankers]

    @staticmethod
    def batch_outputs(fold_path: str, method: str, rankers) -> dict:
        """The named outputs of a batched train job: ``{kind}_{ranker}`` -> path, for each
        ranker's model, info and run file (``TRAIN_OUTPUTS``), the paths rule train writes.

        Parameters
        ----------
        fold_path : str
            ``results/{dataset}/fold{fold}`` (with the ``{fold}`` wildcard).
        method : str
            The method.
        rankers : iterable of str
            The batch's rankers.

        Returns
        -------
        dict
        """
        return {output_name(kind, ranker): f"{fold_path}/{folder}/{method}/{ranker}.{ext}"
                for ranker in rankers for kind, (folder, ext) in TRAIN_OUTPUTS.items()}

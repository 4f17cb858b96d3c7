"""The run's config: its defaults and vocabulary, and the questions planning asks of it (folds,
k grids, train batches, vali metrics, conventions). Checking a config before anything runs is
``ltrfs.config_check``.
"""
from __future__ import annotations

DEFAULTS = {
    "datasets_file": "config/datasets.yaml",
    "mirror": None,
    "resources_dir": "resources",
    "results_dir": "results",
    "seed": 2026,
    "validation_metric": "ndcg@10",
    "ties": "expected",
    "evaluation_ties": "file_order",
    "conventions": {},
    "chunks": {},
    "datasets_present_only": False,
    "train_batch": True,
    "select_batch": False,
    "share_fits": True,
    "noninferiority_margin": 0.01,
}
EXPERIMENT_DEFAULTS = {"k": [5, 10, 20], "figure_metrics": ["NDCG@10", "MAP"]}
#: the ranker algorithm that ranks with the selection method's own model (Lei & Han)
OWN = "own"


class ConfigError(ValueError):
    """A configuration problem; the message is one line."""


def default_run_name(run) -> str:
    """The run's name when the config gives no ``run_name``: its experiments joined with "+".

    Parameters
    ----------
    run : sequence of str
        The config's ``run``: the experiments being run.

    Returns
    -------
    str
        E.g. ``"demo"``, or ``"lai2013_table1+lai2013_table2"``.
    """
    return "+".join(run)


def folds_of(config: dict, registry: dict, experiment: str, dataset: str) -> list[int]:
    """The folds of a dataset an experiment runs on.

    Parameters
    ----------
    config : dict
        The checked workflow configuration.
    registry : dict
        The dataset registry (``ltrfs.datasets.registry``).
    experiment : str
        The experiment's name.
    dataset : str
        The dataset's name.

    Returns
    -------
    list of int
        The registry's folds of the dataset, restricted to the experiment's ``folds`` when given.
    """
    chosen = config["experiments"][experiment].get("folds")
    return [f for f in registry[dataset]["folds"] if chosen is None or f in chosen]


def k_grid(config: dict, dataset: str, method: str, ranker: str) -> list[int]:
    """The k values to train for (dataset, method, ranker).

    The union over the experiments being run that contain the combination (one run file serves
    them all).

    Parameters
    ----------
    config : dict
        The checked workflow configuration.
    dataset, method, ranker : str
        The combination.

    Returns
    -------
    list of int
        The sorted k values.
    """
    ks = set()
    for name in config["run"]:
        e = config["experiments"][name]
        if dataset in e["datasets"] and method in e["methods"] and ranker in e["rankers"]:
            ks.update(e["k"])
    return sorted(ks)


def train_batches(config: dict) -> dict:
    """(dataset, method) -> its rankers in the experiments being run, in the order they are
    first listed: what one batched train job trains (``train_batch``)."""
    batches: dict = {}
    for name in config["run"]:
        e = config["experiments"][name]
        for dataset in e["datasets"]:
            for method in e["methods"]:
                rankers = batches.setdefault((dataset, method), [])
                rankers.extend(r for r in e["rankers"] if r not in rankers)
    return batches


def validation_metric_of(config: dict, experiment: str) -> str:
    """The vali metric of an experiment: its own ``validation_metric`` or the top-level one.

    Parameters
    ----------
    config : dict
        The checked workflow configuration.
    experiment : str
        The experiment's name.

    Returns
    -------
    str
    """
    return config["experiments"][experiment].get("validation_metric") or config["validation_metric"]


def train_metrics(config: dict) -> dict:
    """The vali metric of every train job: (dataset, method, ranker) -> metric.

    That of the experiments being run that contain it, which must agree (one model serves them
    all). Combinations of no experiment take the top-level ``validation_metric``.

    Parameters
    ----------
    config : dict
        The checked workflow configuration.

    Returns
    -------
    dict
        (dataset, method, ranker) -> metric name.

    Raises
    ------
    ConfigError
        When two experiments give one combination different metrics (naming both).
    """
    chosen: dict = {}
    for name in config["run"]:
        e = config["experiments"][name]
        metric = validation_metric_of(config, name)
        for key in ((d, m, r) for d in e["datasets"] for m in e["methods"] for r in e["rankers"]):
            first = chosen.setdefault(key, (name, metric))
            if first[1].lower() != metric.lower():
                raise ConfigError(f"config experiments.{name}.validation_metric: {metric!r} differs from "
                                  f"{first[1]!r} of experiment {first[0]!r} for {'/'.join(key)}; "
                                  "experiments run together share its models")
    return {key: metric for key, (_, metric) in chosen.items()}


def convention_of(config: dict, registry: dict, dataset: str) -> str:
    """The metric convention of a dataset: ``conventions[dataset]`` or the registry's.

    Parameters
    ----------
    config : dict
        The checked workflow configuration.
    registry : dict
        The dataset registry.
    dataset : str
        The dataset's name.

    Returns
    -------
    str
    """
    return (config.get("conventions") or {}).get(dataset) or registry[dataset]["convention"]

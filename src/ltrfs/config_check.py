"""Checking the workflow configuration before anything runs.

``check`` validates against the JSON schema (``workflow/schemas/config.schema.yaml``), fills
defaults, then checks every name against the dataset registry and the package's selectors and
rankers, building each configured estimator once so that an unknown parameter is caught too.
Every problem is a one-line ``ConfigError`` naming the bad entry and listing the valid ones.
"""
from __future__ import annotations

from pathlib import Path

import jsonschema
import yaml

from ltrfs.checks import k_above_d
from ltrfs.config import DEFAULTS, EXPERIMENT_DEFAULTS, OWN, ConfigError, default_run_name, train_metrics
from ltrfs.datasets.registry import load_registry
from ltrfs.formats import column_name
from ltrfs.names import unknown_name
from ltrfs.rankers import RANKERS, checked_grid
from ltrfs.results.figures.registry import FEATURE_REPORTS
from ltrfs.scoring import CHUNKED
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.yaml_numbers import with_numbers

__all__ = ["check", "k_notices", "without_missing_extras"]


def _where(error: jsonschema.ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "(top level)"


def check(config: dict, schema_path, registry: dict | None = None) -> dict:
    """Validate a workflow configuration in place (defaults filled) and return it.

    Parameters
    ----------
    config : dict
        The configuration as loaded (``config/config.yaml`` with any ``--config`` overrides).
    schema_path : str or os.PathLike
        The JSON schema (``workflow/schemas/config.schema.yaml``).
    registry : dict or None, default None
        The dataset registry; None loads ``config["datasets_file"]``.

    Returns
    -------
    dict
        ``config``, with the defaults filled in.

    Raises
    ------
    ConfigError
        One line naming the config key, for the first problem.
    """
    schema = yaml.safe_load(Path(schema_path).read_text())
    renamed_keys(config)
    _read_numbers(config)
    # --config key=true arrives as a string
    for key in ("datasets_present_only", "train_batch", "select_batch", "share_fits"):
        if isinstance(config.get(key), str) and config[key].lower() in ("true", "false", "yes", "no"):
            config[key] = config[key].lower() in ("true", "yes")
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if error is not None:
        raise ConfigError(f"config {_where(error)}: {error.message}")
    for key, value in DEFAULTS.items():
        config.setdefault(key, value)
    config.setdefault("run_name", default_run_name(config["run"]))
    for experiment in config["experiments"].values():
        for key, value in EXPERIMENT_DEFAULTS.items():
            experiment.setdefault(key, list(value))
    if registry is None:
        registry = load_registry(config["datasets_file"])
    _check_names(config, registry)
    return config


#: experiment keys that were renamed: old name -> new name (the old one still read, with a notice)
RENAMED_EXPERIMENT_KEYS = {"artefacts": "feature_reports"}


def renamed_keys(config: dict) -> list[str]:
    """Move each experiment's renamed keys (``RENAMED_EXPERIMENT_KEYS``) to their new names, in place.

    Parameters
    ----------
    config : dict
        The configuration as loaded.

    Returns
    -------
    list of str
        One notice per key moved, naming the experiment.

    Raises
    ------
    ConfigError
        When an experiment has both the old and the new name.
    """
    notices = []
    experiments = config.get("experiments")
    for ename, experiment in (experiments.items() if isinstance(experiments, dict) else ()):
        for old, new in RENAMED_EXPERIMENT_KEYS.items():
            if isinstance(experiment, dict) and old in experiment:
                if new in experiment:
                    raise ConfigError(f"config experiments.{ename}: both {old} and {new}; {old} is the old name "
                                      f"of {new}: keep {new}")
                experiment[new] = experiment.pop(old)
                notices.append(f"ltrfs: config experiments.{ename}.{old} is now called {new} (read as such)")
    return notices


def _read_numbers(config: dict) -> None:
    """The methods' and rankers' parameters and grids with numbers read as YAML 1.2 writes them.

    Snakemake loads ``--configfile`` with a YAML 1.1 reader, which leaves ``1e-7`` as text; here,
    in place, every such text is made the number it is (``ltrfs.yaml_numbers.with_numbers``), as ``--set``
    reads it on the command line.
    """
    for section in ("methods", "rankers"):
        for entry in (config.get(section) or {}).values():
            if isinstance(entry, dict):
                for key in ("params", "grid"):
                    if isinstance(entry.get(key), dict):
                        entry[key] = with_numbers(entry[key])


def _unknown(what: str, name: str, where: str, valid) -> ConfigError:
    return ConfigError(f"config {where}: " + unknown_name(what, name, valid))


def _without_owner(error: Exception, algorithm: str) -> str:
    """An estimator's message without its leading "<algorithm>: " (the config key names it)."""
    text = str(error)
    return text[len(algorithm) + 2:] if text.startswith(f"{algorithm}: ") else text


def _check_references(ename: str, experiment: dict) -> None:
    """Every method and ranker the experiment's settings name (``_named``) is one of its own, and
    each of ``paper_figures`` names one of its datasets."""
    for figure, spec in (experiment.get("paper_figures") or {}).items():
        if spec["dataset"] not in experiment["datasets"]:
            raise _unknown("dataset", spec["dataset"], f"experiments.{ename}.paper_figures.{figure}",
                           experiment["datasets"])
    valid = {"method": experiment["methods"], "ranker": experiment["rankers"],
             "method or ranker": [*experiment["methods"], *experiment["rankers"]]}
    for where, kind, name in _named(experiment):
        if name not in valid[kind]:
            raise _unknown(kind, name, f"experiments.{ename}.{where}", valid[kind])


def _named(experiment: dict):
    """(where, kind, name) of every method or ranker an experiment's settings name besides its
    lists: ``compare``, ``figure_curves``, ``published.rows`` (``method/ranker``),
    ``paper_figures`` and ``figure_labels`` (kind "method or ranker")."""
    sides = [(f"compare[{i}]", side) for i, pair in enumerate(experiment.get("compare") or []) for side in pair]
    sides += [("figure_curves", side) for side in experiment.get("figure_curves") or []]
    sides += [("published.rows", side) for side in ((experiment.get("published") or {}).get("rows") or {}).values()]
    for where, side in sides:
        method, _, ranker = side.partition("/")
        yield where, "method", method
        yield where, "ranker", ranker
    for figure, spec in (experiment.get("paper_figures") or {}).items():
        yield f"paper_figures.{figure}", "ranker", spec["ranker"]
        for method in spec.get("methods", []):
            yield f"paper_figures.{figure}", "method", method
    for name in experiment.get("figure_labels") or {}:
        yield "figure_labels", "method or ranker", name


def _check_names(config: dict, registry: dict) -> None:
    try:
        column_name(config["validation_metric"])
        for ename, experiment in config["experiments"].items():
            paper_metrics = [m for f in (experiment.get("paper_figures") or {}).values() for m in f.get("metrics", [])]
            for metric in [*experiment["figure_metrics"], *experiment.get("metrics", []), *paper_metrics]:
                column_name(metric)
    except ValueError as exc:
        raise ConfigError(f"config: {exc}") from None
    for scorer in config.get("chunks") or {}:
        if scorer not in CHUNKED:
            raise _unknown("chunked scorer", scorer, "chunks", CHUNKED)
    for dataset in config.get("conventions") or {}:
        if dataset not in registry:
            raise _unknown("dataset", dataset, "conventions", registry)
    for name in config["run"]:
        if name not in config["experiments"]:
            raise _unknown("experiment", name, "run", config["experiments"])
    for ename, experiment in config["experiments"].items():
        _check_references(ename, experiment)
        for name in experiment.get("feature_reports") or []:
            if name not in FEATURE_REPORTS:
                raise _unknown("feature report", name, f"experiments.{ename}.feature_reports", FEATURE_REPORTS)
    train_metrics(config)  # experiments run together agree on their vali metric
    for name, method in config["methods"].items():
        if method["algorithm"] not in SELECTORS:
            raise _unknown("method algorithm", method["algorithm"], f"methods.{name}", SELECTORS)
        try:
            make_selector(method["algorithm"], **(method.get("params") or {})).validate_params()
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"config methods.{name}: {_without_owner(exc, method['algorithm'])}") from None
    for name, ranker in config["rankers"].items():
        if ranker["algorithm"] == OWN:
            if ranker.get("params") or ranker.get("grid"):
                raise ConfigError(f"config rankers.{name}: the {OWN!r} ranker takes no params or grid "
                                  "(it uses the method's own fitted model)")
            continue
        if ranker["algorithm"] not in RANKERS:
            raise _unknown("ranker algorithm", ranker["algorithm"], f"rankers.{name}", [*RANKERS, OWN])
        params, grid = ranker.get("params") or {}, ranker.get("grid") or {}
        both = sorted(set(params) & set(grid))
        if both:
            raise ConfigError(f"config rankers.{name}: {both[0]!r} is both a fixed parameter and a grid")
        try:
            checked_grid(ranker)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"config rankers.{name}: {_without_owner(exc, ranker['algorithm'])}") from None
    for ename, experiment in config["experiments"].items():
        for dataset in experiment["datasets"]:
            if dataset not in registry:
                raise _unknown("dataset", dataset, f"experiments.{ename}.datasets", registry)
            folds = set(registry[dataset]["folds"])
            extra = sorted(set(experiment.get("folds", [])) - folds)
            if extra:
                raise ConfigError(f"config experiments.{ename}.folds: dataset {dataset!r} has no fold {extra[0]}; "
                                  f"valid: {', '.join(map(str, sorted(folds)))}")
        for method in experiment["methods"]:
            if method not in config["methods"]:
                raise _unknown("method", method, f"experiments.{ename}.methods", config["methods"])
        for ranker in experiment["rankers"]:
            if ranker not in config["rankers"]:
                raise _unknown("ranker", ranker, f"experiments.{ename}.rankers", config["rankers"])


def k_notices(config: dict, registry: dict, present=None) -> list[str]:
    """One line per experiment being run whose k values exceed a dataset's number of features.

    A selector cannot keep more features than there are: a k above d keeps all d features
    (``ltrfs.checks.k_above_d``), trained once however many k exceed d
    (``ltrfs.pipeline.train.valid_ks``), the row the tables and figures label "all (d)". The idiom of a large k for "all features" (``k: [1000]``) is meant; these
    lines say where it applies. Datasets whose registry entry gives no ``n_features`` are not
    known before their files are read and are left out.

    Parameters
    ----------
    config : dict
        The checked configuration.
    registry : dict
        The dataset registry.
    present : callable or None, default None
        ``present(dataset) -> bool``: the datasets taking part (``datasets_present_only``);
        None: every dataset.

    Returns
    -------
    list of str
        E.g. ``"experiment e: k 100, 200 exceed the 46 features: all 46 are kept on MQ2008 (the
        "all (46)" row of tables and figures)"``.
    """
    lines = []
    for name in config["run"]:
        experiment = config["experiments"][name]
        if not any(SELECTORS[config["methods"][m]["algorithm"]].uses_k for m in experiment["methods"]):
            continue  # WAF alone: k means nothing
        parts = []
        for dataset in experiment["datasets"]:
            d = registry[dataset].get("n_features")
            above = sorted(k for k in experiment["k"] if d and k > d)
            if not above or (present is not None and not present(dataset)):
                continue
            parts.append(f"{k_above_d(above, d)} on {dataset} (the \"all ({d})\" row of tables and figures)")
        if parts:
            lines.append(f"experiment {name}: " + "; ".join(parts))
    return lines


def without_missing_extras(config: dict, installed: bool | None = None) -> list[str]:
    """Leave the neural methods and rankers (``ltrfs.neural.NEURAL_METHODS``, by algorithm) whose
    modules are not installed (``ltrfs.neural.extra_installed``) out of the experiments being
    run, in place.

    A config that lists them (``config/leaderboard_neural.yaml``) then runs the rest, and the
    returned line says what was left out and how to install the extra. An experiment left with no
    method or no ranker is a ``ConfigError``.

    Parameters
    ----------
    config : dict
        The checked configuration.
    installed : bool or None, default None
        Whether the extra is installed; None: asked per algorithm (``extra_installed(algorithm)``:
        with PyTorch alone, only TabNet and LassoNet are left out).

    Returns
    -------
    list of str
        One line when something was left out, else none.
    """
    from ltrfs.neural import INSTALL_HINT, NEURAL_METHODS, extra_installed

    if installed:
        return []

    def missing(algorithm: str) -> bool:
        return algorithm in NEURAL_METHODS and (installed is False or not extra_installed(algorithm))

    left = {"methods": set(), "rankers": set()}
    experiments = []
    for name in config["run"]:
        experiment = config["experiments"][name]
        before = len(experiment["methods"]) + len(experiment["rankers"])
        for key in left:
            neural = [e for e in experiment[key] if missing(config[key][e]["algorithm"])]
            left[key].update(neural)
            experiment[key] = [e for e in experiment[key] if e not in neural]
            if not experiment[key]:
                raise ConfigError(f"experiments.{name}.{key}: every one needs the neural extra: {INSTALL_HINT}")
        for where, _, named in _named(experiment):
            if named in left["methods"] | left["rankers"]:
                raise ConfigError(f"experiments.{name}.{where} names {named}, which needs the neural extra: "
                                  f"{INSTALL_HINT}")
        if len(experiment["methods"]) + len(experiment["rankers"]) < before:
            experiments.append(name)
    if not experiments:
        return []
    what = " and ".join(f"{key[:-1] if len(v) == 1 else key} {', '.join(sorted(v))}" for key, v in left.items() if v)
    state = "not installed" if installed is False or not extra_installed("mlp") else "not fully installed"
    return [f"the neural extra is {state}: leaving out {what} of {', '.join(experiments)} ({INSTALL_HINT})"]

"""The files the stages exchange, in one place: every stage writes and reads them through here.

    scores/{scorer}.npz           ``save_scores`` / ``load_scores``    per-feature scores of a fold
    select/{method}.json          ``selection_record``, ``view_for_k`` the selection record
    select/{method}.model         ``save_selector`` / ``load_selector`` the fitted method (ranker own)
    models/{method}/{ranker}.model ``save_models`` / ``load_models``   one model per k
    runs/{method}/{ranker}.tsv    ``RUN_HEAD``, ``run_lines``          per-query vali and test metrics
    reference.tsv                 ``REFERENCE_HEAD``                   the same for a constant score

Reading any of the pipeline's own files (``read_csv``, ``read_json``, ``read_npz``) gives a
one-line ``DataError`` naming the file and how to rebuild it when it is missing, truncated or
not in its format, never a pandas or json traceback from deep inside. Feature ids in the JSON
files are 1-based, as in the data files; arrays in memory are 0-based.

Model and selector files are JSON that runs no code when read (``ltrfs.state``), loaded from
anyone; only a model with no code-free form is a pickle signed with the user's key
(``ltrfs.signed``). The loaders tell the two apart by the first bytes.
"""
from __future__ import annotations

import json
import logging
import math
import zipfile
from pathlib import Path

import numpy as np

from ltrfs import signed
from ltrfs.atomic_files import atomic_path, write_text
from ltrfs.checks import k_above_d
from ltrfs.json_numbers import finite_json_float, json_default, refuse_json_constant
from ltrfs.ranking_data import DataError, RankingData
from ltrfs.state import NoCodeFreeForm, estimator_from_state, estimator_state
from ltrfs.user_errors import os_error_text

log = logging.getLogger(__name__)

__all__ = ["REBUILD", "check_selection", "read_selection", "read_csv", "read_json", "read_npz", "METRIC_COLUMNS", "column_name", "RUN_HEAD",
           "REFERENCE_HEAD", "run_lines", "save_scores", "load_scores", "no_subsets", "selection_record",
           "read_selection", "features_for_k", "n_views", "view_for_k", "save_selector", "load_selector", "save_models",
           "load_models", "predict"]

REBUILD = "delete it and run the workflow again to rebuild it"


# ----------------------------------------------------------------------------- reading any file

def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_csv(path, columns=(), **kwargs):
    """Read a table of the pipeline.

    Parameters
    ----------
    path : path-like
        A CSV, or a TSV with ``sep="\\t"``.
    columns : sequence of str, default ()
        Columns the table must have.
    **kwargs
        Passed to ``pandas.read_csv``.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    DataError
        One line naming ``path``: missing, unreadable, or without one of ``columns``.
    """
    import pandas as pd  # heavy (about 0.5 s): only the jobs that read tables pay for it

    try:
        frame = pd.read_csv(path, **kwargs)
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise DataError(f"{path}: not a readable table ({_first_line(exc)}); {REBUILD}") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: not a table of this pipeline (no column {', '.join(map(str, missing))}); {REBUILD}")
    return frame


def read_json(path, keys=(), what: str = "a file of this pipeline", remedy: str = REBUILD) -> dict:
    """The JSON object in ``path``, which has every one of ``keys``.

    Parameters
    ----------
    path : path-like
    keys : sequence of str, default ()
        Keys the object must have.
    what, remedy : str
        Words of the error: ``"<path>: not <what> (<why>); <remedy>"``.

    Raises
    ------
    DataError
        One line naming ``path`` when it is missing, not JSON, not an object or lacks a key.
    """
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not {what} (not JSON: {_first_line(exc)}); {remedy}") from None
    if not isinstance(obj, dict):
        raise DataError(f"{path}: not {what} (not a JSON object); {remedy}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise DataError(f"{path}: not {what} (no key {', '.join(missing)}); {remedy}")
    return obj


def read_npz(path, keys=()) -> dict:
    """The arrays of an ``.npz`` file (no pickled objects) that has every one of ``keys``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file.
    keys : sequence of str, default ()
        Arrays the file must hold.

    Returns
    -------
    dict
        Array name -> ndarray.

    Raises
    ------
    DataError
        One line naming the file, when it cannot be read or lacks a key.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {key: z[key] for key in z.files}
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        raise DataError(f"{path}: not a readable .npz file ({_first_line(exc)}); {REBUILD}") from None
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise DataError(f"{path}: not a file of this pipeline (no array {', '.join(missing)}); {REBUILD}")
    return arrays


# ----------------------------------------------------------------------------- run files

#: the metric columns of run files and tables, in this order
METRIC_COLUMNS = ([f"P@{k}" for k in range(1, 11)] + ["MAP"]
                  + [f"NDCG@{k}" for k in range(1, 11)] + ["MeanNDCG"])
#: run file columns: one line per (k, split, query)
RUN_HEAD = ["k", "split", "ties", "qid", "n_docs"] + METRIC_COLUMNS
#: reference file columns: the reference's name (``order``) in column ``k``'s place
REFERENCE_HEAD = ["order"] + RUN_HEAD[1:]


def column_name(metric: str) -> str:
    """The run-file column of a metric name in any case (``ndcg@10`` -> ``NDCG@10``).

    >>> column_name("ndcg@10")
    'NDCG@10'
    """
    names = {c.lower(): c for c in METRIC_COLUMNS}
    if metric.lower() not in names:
        raise ValueError(f"metric {metric!r} is not reported; valid: {', '.join(METRIC_COLUMNS)}")
    return names[metric.lower()]


def run_lines(key, split: str, ties: str, data: RankingData, values: np.ndarray) -> list[str]:
    """The run-file lines of one (k or reference, split): one per query of ``data``.

    Parameters
    ----------
    key : int or str
        The k of the model, or the reference's name.
    split, ties : str
        The split ("vali", "test") and how tied scores were ranked.
    data : RankingData
        The split (query ids and sizes).
    values : ndarray of shape (n_queries, len(METRIC_COLUMNS))
        Per-query metrics in the order of ``METRIC_COLUMNS``.
    """
    head = [str(key), split, ties]
    return ["\t".join(head + [str(qid), str(n)] + [f"{v:.9g}" for v in row])
            for qid, n, row in zip(data.query_ids, data.query_sizes(), values)]


# ----------------------------------------------------------------------------- score files

def save_scores(table: dict, out_path) -> None:
    """Write a scorer's arrays (``ltrfs.scoring.compute``) as ``.npz``, atomically.

    Parameters
    ----------
    table : dict
        Array name -> ndarray.
    out_path : str or os.PathLike
        The ``.npz`` file written.
    """
    with atomic_path(out_path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **table)


def load_scores(paths: dict) -> dict:
    """Scorer name -> dict of arrays, from the cached ``.npz`` files ``paths`` (name -> path)."""
    return {name: read_npz(path) for name, path in paths.items()}


# ----------------------------------------------------------------------------- selection records

def no_subsets(name: str) -> str:
    """The error of asking a projecting method (FS-BFS) for feature subsets (``ltrfs select --k``).

    Parameters
    ----------
    name : str
        The method.

    Returns
    -------
    str
        One line.
    """
    return (f"{name}: --k writes feature subsets, but {name} projects: its k features are weighted sums of "
            "the data's features, not a subset (train on them with 'ltrfs train --selection FILE --k K')")


def selection_record(name: str, method: dict, selector, ks=()) -> dict:
    """The JSON-able description of a fitted selector (``select/{method}.json``).

    Parameters
    ----------
    name : str
        The method's name in the config.
    method : dict
        Its config entry (``{"algorithm": ..., "params": ...}``).
    selector : ltrfs.selection.base.Selector
        Fitted.
    ks : sequence of int, default ()
        Subset sizes whose subsets are written in ``subsets`` whatever the method
        (``ltrfs select --k``); an error for a projecting method (``no_subsets``).

    Returns
    -------
    dict
        ``ranking`` is the feature order (1-based ids) and ``scores`` the method's score of
        feature id i at position i - 1 (null when the method has none). ``subsets`` (k -> sorted
        ids) holds the subset of every k in ``ks``, and of every k for methods whose k-subsets
        are not prefixes of the ranking; any other subset k is ``ranking[:k]`` (all features for
        a method that does not use k, WAF). ``projection`` (FS-BFS) lists, per new feature, the
        features and weights it sums.
    """
    if ks and selector.projects:
        raise ValueError(no_subsets(name))
    d = selector.n_features_in_
    scores = None if selector.scores_ is None else [float(s) for s in selector.scores_]
    record = {
        "method": name,
        "algorithm": method["algorithm"],
        "params": selector.get_params(),
        "n_features": d,
        "ranking": [int(f) + 1 for f in selector.ranking_],
        "scores": scores,
        "uses_k": bool(selector.uses_k),
        "chosen": selector.chosen_,
        "seconds": round(selector.seconds_, 6),
        # constant within every training query: ranked after all other features (Selector.fit)
        "constant_features": [int(f) + 1 for f in getattr(selector, "constant_features_", [])],
    }
    if getattr(selector, "details_", None):
        record["details"] = selector.details_  # method-specific output, e.g. an elimination curve
    projection = getattr(selector, "projection_", None)
    if projection is not None:
        # a projection d -> k (FS-BFS): new feature j = sum of weights x features of group j
        record["projection"] = [{"features": [int(f) + 1 for f in np.flatnonzero(column)],
                                 "weights": [float(w) for w in column[column != 0]]} for column in projection.T]
    if getattr(selector, "sign_", None) is not None:
        # -1 where the method found the feature useful in ascending order (orientation "best")
        record["sign"] = [int(s) for s in selector.sign_]
    every_k = range(1, d + 1) if selector.uses_k and not selector.prefix_consistent else ()
    wanted = sorted({*every_k, *(int(k) for k in ks)})
    if wanted:
        record["subsets"] = {str(k): sorted(int(f) + 1 for f in selector.support(min(k, d))) for k in wanted}
    return record


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _bad_ids(ids, d: int, nonempty: bool = False) -> str | None:
    """What is wrong with a list of feature ids (distinct integers in 1..d; at least one with
    ``nonempty``), or None."""
    if not isinstance(ids, list):
        return "is not a list of feature ids"
    if nonempty and not ids:
        return "is empty"
    for i in ids:
        if not _is_int(i):
            return f"holds {i!r}, not an integer feature id"
        if not 1 <= i <= d:
            return f"holds feature id {i}, outside 1..{d}"
    if len(set(ids)) != len(ids):
        twice = next(i for n, i in enumerate(ids) if i in ids[:n])
        return f"holds feature id {twice} twice"
    return None


def check_selection(selection: dict, path) -> None:
    """Raise a one-line error unless the feature ids of a selection record are sound.

    ``n_features`` (d) is a positive integer; ``ranking`` (1 to d ids), every subset of
    ``subsets`` (keyed by k >= 1; a k of d or more holds all d, ``checks.k_above_d``), ``constant_features`` and the ``features`` of every
    ``projection`` group are lists of distinct integers in 1..d, and each group's ``weights``
    are as many finite numbers. A record edited by hand or made elsewhere would otherwise train
    on other columns than it names (id 0 indexes the last feature, 1.5 is cut to 1).

    Parameters
    ----------
    selection : dict
        The record.
    path : str or os.PathLike
        Its file, named in the error.

    Raises
    ------
    DataError
        ``"<path>: bad selection file: <what is wrong>; <remedy>"``.
    """
    def bad(what):
        return DataError(f"{path}: bad selection file: {what}; {SELECTION_REMEDY}")

    d = selection.get("n_features")
    if not _is_int(d) or d < 1:
        raise bad(f"n_features {d!r} is not a positive integer")
    if problem := _bad_ids(selection.get("ranking"), d, nonempty=True):
        raise bad(f"ranking {problem}")
    if "constant_features" in selection and (problem := _bad_ids(selection["constant_features"], d)):
        raise bad(f"constant_features {problem}")
    subsets = selection.get("subsets", {})
    if not isinstance(subsets, dict):
        raise bad("subsets is not a mapping of k to feature ids")
    for k, ids in subsets.items():
        if not (isinstance(k, str) and k.isdecimal() and len(k) <= 9 and int(k) >= 1):
            raise bad(f"subsets has the key {k[:20]!r}, not a k >= 1")
        if problem := _bad_ids(ids, d):
            raise bad(f"subset {k} {problem}")
        if int(k) >= d and len(ids) != d:  # a k of d or above keeps all d features (checks.k_above_d)
            raise bad(f"subset {k} holds {len(ids)} features, not all {d}")
    groups = selection.get("projection")
    if groups is None:
        return
    if not isinstance(groups, list) or not groups:
        raise bad("projection is not a list of feature groups")
    for j, group in enumerate(groups, 1):
        if not isinstance(group, dict):
            raise bad(f"projection group {j} is not an object with features and weights")
        if problem := _bad_ids(group.get("features"), d, nonempty=True):
            raise bad(f"projection group {j}: features {problem}")
        weights = group.get("weights")
        if (not isinstance(weights, list) or len(weights) != len(group["features"])
                or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w)
                           for w in weights)):
            raise bad(f"projection group {j}: weights are not {len(group['features'])} finite numbers")


SELECTION_REMEDY = "write it again with 'ltrfs select --out' (a workflow's file: delete it to rebuild it)"


def read_selection(path, algorithms: tuple[str, ...] | None = None) -> dict:
    """The selection record in ``path``, checked.

    Parameters
    ----------
    path : str or os.PathLike
        A select job's JSON record.
    algorithms : tuple of str or None, default None
        When given, an error unless the record was made by one of them (a method's report data
        reads only its own method's selections).

    Returns
    -------
    dict
        The record.

    Raises
    ------
    DataError
        One line naming ``path`` when it is not a selection record or its feature ids are not
        sound (``check_selection``).
    """
    selection = read_json(path, ("n_features", "ranking"), what="a selection file", remedy=SELECTION_REMEDY)
    check_selection(selection, path)
    if algorithms is not None and selection.get("algorithm") not in algorithms:
        raise ValueError(f"{path}: a {selection.get('algorithm')!r} selection; "
                         f"this needs one of: {', '.join(algorithms)}")
    return selection


def features_for_k(selection: dict, k: int) -> np.ndarray:
    """0-based feature indices (sorted) of the k-subset of a selection record.

    Parameters
    ----------
    selection : dict
        A selection record (``read_selection``).
    k : int
        Number of features.

    Returns
    -------
    ndarray of int
        The sorted feature indices.
    """
    if not isinstance(selection, dict) or not {"n_features", "ranking"} <= set(selection):
        raise ValueError("not a selection file (written by 'ltrfs select' or the workflow)")
    d = selection["n_features"]
    if not selection.get("uses_k", True):
        return np.arange(d)
    if k < 1:
        raise ValueError(f"k={k}: a subset keeps at least 1 feature")
    subset = selection.get("subsets", {}).get(str(k))
    if k > d and subset is None:  # one rule everywhere: all d features, said in one line
        log.warning(k_above_d([k], d))
        k = d
        subset = selection.get("subsets", {}).get(str(k))
    ids = subset if subset is not None else selection["ranking"][:k]
    if subset is None and len(ids) < k:
        raise ValueError(f"k={k}: the selection ranks only {len(ids)} features")
    return np.asarray(sorted(ids), dtype=np.int64) - 1


def n_views(selection: dict) -> int:
    """How many features the selection can hand a ranker: d, or its projected features."""
    return len(selection["projection"]) if "projection" in selection else selection["n_features"]


def view_for_k(selection: dict, k: int) -> tuple[np.ndarray, np.ndarray | None]:
    """What a ranker trained for k sees.

    Parameters
    ----------
    selection : dict
        A selection record (``read_selection``).
    k : int
        Number of (new) features.

    Returns
    -------
    features : ndarray of shape (n,)
        0-based feature ids. A subset method gives ``features_for_k``.
    projection : ndarray of shape (n, k) or None
        A projection method (record key ``projection``: one ``{"features": ids, "weights": w}``
        per new feature, FS-BFS) gives the union of the first k groups' features and the matrix
        that maps them to the k new features (``RankingData.view``); None for a subset.
    """
    groups = selection.get("projection") if isinstance(selection, dict) else None
    if groups is None:
        return features_for_k(selection, k), None
    if k < 1:
        raise ValueError(f"k={k}: a projection keeps at least 1 new feature")
    if k > len(groups):
        log.warning(k_above_d([k], len(groups)).replace("features", "projected features", 1))
        k = len(groups)
    features = np.unique(np.concatenate([np.asarray(g["features"], dtype=np.int64) for g in groups[:k]])) - 1
    position = {int(f): i for i, f in enumerate(features)}
    projection = np.zeros((len(features), k))
    for j, group in enumerate(groups[:k]):
        for f, w in zip(group["features"], group["weights"]):
            projection[position[f - 1], j] = w
    return features, projection


# ----------------------------------------------------------------------------- model files

#: the code-free model and selector files (JSON): their ``format`` and ``version``
MODEL_KIND, SELECTOR_KIND, CODE_FREE_VERSION = "ltrfs-model", "ltrfs-selector", 2
#: the ``format`` inside a signed pickle (``ltrfs.signed``): models or selectors with no code-free form
MODEL_FORMAT = 1
SELECTOR_FORMAT = 1
RETRAIN = "write it again with this ltrfs (the workflow rebuilds it when you delete it)"


def _read_model_file(path, what: str, kind: str, pickle_format: int, trust: bool):
    """(``"json"``, document) for a code-free file of ``kind``, (``"pickle"``, object) for a signed
    pickle of ``pickle_format``."""
    raw = signed.read_bytes(path, what)
    if raw.startswith(signed.MAGIC):
        obj = signed.loads(raw, path, what, trust=trust)
        if not isinstance(obj, dict) or obj.get("format") != pickle_format:
            raise DataError(f"{path}: not an ltrfs {what} file")
        return "pickle", obj
    if raw.lstrip()[:1] != b"{":
        raise DataError(f"{path}: not an ltrfs {what} file (neither JSON nor a signed pickle); {RETRAIN}")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=refuse_json_constant, parse_float=finite_json_float)
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, a number not finite or too long
        raise DataError(f"{path}: damaged {what} file (not JSON: {_first_line(exc)}); {RETRAIN}") from None
    except RecursionError:
        raise DataError(f"{path}: damaged {what} file (JSON nested too deeply); {RETRAIN}") from None
    if not isinstance(doc, dict) or doc.get("format") != kind:
        raise DataError(f"{path}: not an ltrfs {what} file (no \"format\": \"{kind}\"); {RETRAIN}")
    if doc.get("version") != CODE_FREE_VERSION:
        raise DataError(f"{path}: {what} file version {doc.get('version')!r}; this ltrfs reads version "
                        f"{CODE_FREE_VERSION}: {RETRAIN}")
    return "json", doc


def save_selector(path, method: str, selector) -> None:
    """Write the fitted selector of a method (``select/{method}.model``), code-free when it can be.

    JSON (``{"format": "ltrfs-selector", "version": 2, "method", "selector"}``, the selector's
    ``ltrfs.state.estimator_state``) for every selector with a code-free form; a pickle signed with the user's key
    (``ltrfs.signed``) for the others (``gbm_importance``).

    Parameters
    ----------
    path : str or os.PathLike
        The file written.
    method : str
        The method's name, stored with the selector.
    selector : Selector
        The fitted selector.
    """
    try:
        doc = {"format": SELECTOR_KIND, "version": CODE_FREE_VERSION, "method": method, "selector": estimator_state(selector)}
    except NoCodeFreeForm:
        signed.dump(path, {"format": SELECTOR_FORMAT, "method": method, "selector": selector})
        return
    write_text(path, json.dumps(doc, separators=(",", ":"), default=json_default) + "\n")


def load_selector(path, method: str, trust: bool = False):
    """The fitted selector of ``save_selector``; an error when it holds another method.

    Parameters
    ----------
    path : str or os.PathLike
        The file of ``save_selector``.
    method : str
        The method expected.
    trust : bool, default False
        Accept a signed pickle not written with the user's key (a code-free file needs no trust).

    Returns
    -------
    Selector
        The fitted selector.
    """
    from ltrfs.selection.base import Selector  # imported on use: the registry imports every method

    form, obj = _read_model_file(path, "selector", SELECTOR_KIND, SELECTOR_FORMAT, trust)
    if obj.get("method") != method:
        raise ValueError(f"{path}: holds method {obj.get('method')!r}, the selection is {method!r}")
    if form == "pickle":
        return obj["selector"]
    try:
        selector = estimator_from_state(obj["selector"], Selector)
        if hasattr(selector, "predict_scores"):
            _probe(selector.predict_scores, selector.n_features_in_)
        return selector
    except _DAMAGE as exc:
        raise DataError(f"{path}: damaged selector file ({_damage(exc)}); {RETRAIN}") from None


def _probe(score, width: int) -> None:
    """Score two rows (zeros, ones) with a model just read: a model whose parts passed their own
    checks but do not fit together fails here, while its file can still be named, not later."""
    scores = np.asarray(score(np.stack([np.zeros(width, np.float32), np.ones(width, np.float32)])))
    if scores.shape != (2,) or not np.isfinite(scores).all():
        raise ValueError("its model gives scores that are not one finite number a row")


#: what reading a hand-edited state can raise (a key missing, a value of the wrong type or size,
#: nesting too deep); each becomes one line naming the file
_DAMAGE = (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, RecursionError)


def _damage(exc: Exception) -> str:
    """What a KeyError and the like says about a hand-edited file, in a few words."""
    if isinstance(exc, KeyError):
        return f"no key {exc.args[0]!r}"
    return _first_line(exc)


def _model_document(record: dict) -> dict:
    """A model record as JSON (``save_models``); NoCodeFreeForm when its estimator has no such form."""
    model = estimator_state(record["estimator"])  # NoCodeFreeForm first, before any other work
    projection = record.get("projection")
    return {"ranker": record["ranker"], "n_features": int(record["n_features"]),
            "features": [int(f) + 1 for f in record["features"]],
            "projection": None if projection is None else np.asarray(projection, dtype=np.float64).tolist(),
            "params": record.get("params"), "model": model}


def _model_record(doc: dict) -> dict:
    """The model record of ``_model_document``, its parts checked against each other."""
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    d = doc["n_features"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise ValueError(f"n_features {d!r} is not a positive integer")
    ids = doc["features"]
    if not isinstance(ids, list) or not ids or not all(isinstance(f, int) and not isinstance(f, bool) for f in ids):
        raise ValueError("features is not a list of feature ids")
    features = np.asarray(ids, dtype=np.int64) - 1
    if features.min() < 0 or features.max() >= d:
        raise ValueError(f"a feature id is outside 1..{d}")
    if len(np.unique(features)) != len(features):
        raise ValueError("features repeats a feature id")
    projection = doc["projection"]
    width = len(features)
    if projection is not None:
        projection = np.asarray(projection, dtype=np.float64)
        if projection.ndim != 2 or projection.shape[0] != len(features):
            raise ValueError(f"projection of shape {list(projection.shape)} for {len(features)} features")
        width = projection.shape[1]
    from ltrfs.rankers.base import Ranker  # imported on use, as in load_selector
    from ltrfs.selection.base import OwnPredictions

    estimator = estimator_from_state(doc["model"], (Ranker, OwnPredictions))
    fitted = getattr(estimator, "n_features_in_", None)
    if fitted != width:
        raise ValueError(f"the {doc['ranker']} model takes {fitted} features, the record gives it {width}")
    _probe(estimator.predict, width)
    return {"ranker": doc["ranker"], "n_features": d, "features": features, "projection": projection,
            "params": doc["params"], "estimator": estimator}


def save_models(path, models: dict) -> None:
    """Write the models of one training job, code-free when every one of them can be.

    JSON, ``{"format": "ltrfs-model", "version": 2, "models": {"<k>": {"ranker", "n_features",
    "features" (1-based ids), "projection" (rows: features, columns: the k new features; or
    null), "params", "model" (``ltrfs.state.estimator_state`` of the estimator)}}}``, which ``load_models`` reads
    from anyone without running code; a pickle signed with the user's key (``ltrfs.signed``)
    when a model has no code-free form (ranker ``own`` of ``gbm_importance``).

    Parameters
    ----------
    path : str or os.PathLike
        The file written.
    models : dict
        k -> {"ranker", "n_features" (of the training data), "features" (0-based),
        "projection" ((n, k) or None/absent), "params", "estimator"}.
    """
    try:
        doc = {"format": MODEL_KIND, "version": CODE_FREE_VERSION,
               "models": {str(k): _model_document(record) for k, record in sorted(models.items())}}
    except NoCodeFreeForm:
        signed.dump(path, {"format": MODEL_FORMAT, "models": models})
        return
    write_text(path, json.dumps(doc, separators=(",", ":"), default=json_default) + "\n")


def load_models(path, trust: bool = False) -> dict:
    """The models of ``save_models``.

    A code-free (JSON) file loads from anyone; a signed pickle only when it was written with the
    user's key or ``trust`` is given (``ltrfs.signed``).

    Parameters
    ----------
    path : str or os.PathLike
        The file of ``save_models``.
    trust : bool, default False
        Accept a signed pickle not written with the user's key; refused otherwise.

    Returns
    -------
    dict
        k -> model record (0-based ``features``, the fitted ``estimator``).

    Raises
    ------
    DataError
        One line naming the file: missing, not a model file, an untrusted pickle, or a damaged
        or hand-edited JSON model (a missing key, weights that do not fit the features).
    """
    form, obj = _read_model_file(path, "model", MODEL_KIND, MODEL_FORMAT, trust)
    if form == "pickle":
        return obj["models"]
    models = obj.get("models")
    if not isinstance(models, dict) or not models:
        raise DataError(f"{path}: damaged model file (no models); {RETRAIN}")
    out = {}
    for key, doc in models.items():
        try:
            out[int(key)] = _model_record(doc)
        except _DAMAGE as exc:
            raise DataError(f"{path}: damaged model file (model {str(key)[:40]}: {_damage(exc)}); {RETRAIN}") from None
    return out


def predict(model: dict, data: RankingData) -> np.ndarray:
    """Scores of a model record on a data set.

    The record's feature subset, and its projection when it has one, are applied first.

    Parameters
    ----------
    model : dict
        A model record (``save_models``).
    data : RankingData
        The data to score.

    Returns
    -------
    ndarray of shape (m,)
        The scores.
    """
    if data.n_features <= int(np.max(model["features"], initial=-1)):
        raise ValueError(f"the model uses feature {int(np.max(model['features'])) + 1} "
                         f"but the data has only {data.n_features}")
    X = data.view(model["features"], model.get("projection")).X
    return np.asarray(model["estimator"].predict(X), dtype=np.float64)

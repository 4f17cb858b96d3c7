"""Stage train (``workflow/rules/train.smk``): train a ranker on every k-view of a selection,
hyperparameters chosen on vali (``ltrfs.tuning``), and evaluate the models on vali and test in
the same job: ``models/{method}/{ranker}.model`` and ``.json``, ``runs/{method}/{ranker}.tsv``
(``ltrfs.formats``). Also the evaluations that need no training: ``reference.tsv`` (a constant
score) and ``runs_{convention}/`` (saved models in another metric convention, ``rescore``)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import logging
import time

import numpy as np

from ltrfs import io, metrics
from ltrfs.atomic_files import write_json, write_text
from ltrfs.checks import k_above_d
from ltrfs.config import OWN
from ltrfs.context import takes_parameter, with_context
from ltrfs.progress import Progress
from ltrfs.ranking_data import RankingData
from ltrfs.formats import (REFERENCE_HEAD, RUN_HEAD, load_models, load_selector, n_views, predict,
                           read_selection, run_lines, save_models, view_for_k)
from ltrfs.pipeline.shared_fits import SharedFits, data_digest
from ltrfs.rankers import make_ranker, ranker_class, ranker_grid
from ltrfs.tuning import SELECTION_TIES, search

__all__ = ["valid_ks", "fit_best", "uses_seed", "train_own", "TrainJob", "TrainFiles", "train", "run_text",
           "rescore", "reference", "SPLIT_TIES", "REFERENCES"]

log = logging.getLogger("ltrfs")

#: how each split of a run file ranks tied scores by default: vali chooses k (tuning, tie-aware),
#: test is reported as the official evaluation scripts compute it
SPLIT_TIES = {"vali": SELECTION_TIES, "test": "file_order"}
#: the reference rows of every table: what the data file's order alone scores, and what a
#: random order scores (the tie-aware expectation of a constant score)
REFERENCES = {"file order": "file_order", "random order": "expected"}


def valid_ks(ks, d: int, uses_k: bool = True) -> list[int]:
    """The k grid of a method on d features (docs/methods.md, section 'The k grid').

    A k above d keeps all d features (``ltrfs.checks.k_above_d``, logged): it becomes d, the row
    tables and figures label "all (d)", trained once however many k exceed d.

    Parameters
    ----------
    ks : iterable of int
        The configured k values.
    d : int
        Number of features (or of a projection method's new features).
    uses_k : bool, default True
        False for methods that ignore k (WAF): they get [d].

    Returns
    -------
    list of int
        The sorted k values to train.
    """
    if not uses_k:
        return [d]
    note = k_above_d(ks, d)
    if note:
        log.warning(note)
    return sorted({min(int(k), d) for k in ks if k >= 1}) or [d]


# ----------------------------------------------------------------------------- one ranker

def fit_best(ranker: dict, train: RankingData, vali: RankingData | None, *, metric: str,
             convention: str, seed: int, threads: int = 1, ties: str = SELECTION_TIES):
    """Fit a configured ranker at every grid point on train and keep the best on vali.

    Parameters
    ----------
    ranker : dict
        ``{"algorithm", "params", "grid"}`` (``ltrfs.rankers.ranker_grid``).
    train, vali : RankingData
        Without vali the grid must have one point, fitted without early stopping or choice.
    metric, convention, ties : str
        The vali metric (``ltrfs.tuning.ValiChoice``: tied scores ranked by ``ties``, a degenerate
        model never chosen; the ranker's own vali choices, e.g. early stopping, get the same ``ties``).
    seed, threads : int
        The job's context (``ltrfs.context``).

    Returns
    -------
    model, point, trials
        As ``ltrfs.tuning.search``.
    """
    algorithm = ranker["algorithm"]
    cls = ranker_class(algorithm)
    base = with_context(cls, ranker.get("params"), random_state=seed, n_jobs=threads, ties=ties,
                        relevant_min=metrics.get_convention(convention).relevant_min)
    points = ranker_grid(ranker)
    warm = takes_parameter(cls, "warm_start") and len(points) > 1
    if warm:
        base["warm_start"] = True
    return search(lambda **point: make_ranker(algorithm, **{**base, **point}), points, train, vali,
                  what=algorithm, metric=metric, convention=convention, ties=ties, warm_start=warm)


def own_selector(path, selection: dict):
    """The fitted selector of a selection record, to rank with (ranker ``own``).

    Parameters
    ----------
    path : str or os.PathLike or None
        The method's ``select/{method}.model``.
    selection : dict
        The selection record.

    Returns
    -------
    Selector
        The fitted selector.

    Raises
    ------
    ValueError
        For a method that has no model of its own, or when ``path`` is None.
    """
    from ltrfs.selection import SELECTORS, has_own_predictions  # every selector: imported on use (ranker own)

    algorithm = selection["algorithm"]
    if not has_own_predictions(algorithm):
        raise ValueError(f"method {selection['method']!r} ({algorithm}) has no predictions of its own; "
                         f"these have: {', '.join(a for a in sorted(SELECTORS) if has_own_predictions(a))}")
    if path is None:
        raise ValueError(f"ranker own needs the fitted method of {selection['method']!r} (select/{{method}}.model)")
    return load_selector(path, selection["method"])


def train_own(selection: dict, selector, *, ks=()) -> tuple[dict, dict]:
    """The selection's fitted method as the ranker, on all d features.

    k = d in the run file; the method's own choice of features is inside its model. A method that
    can restrict its model to its top k features (``predict_scores_k``: FSMRank) also gets one
    model per k of ``ks`` below d, the curve of Lai et al. Figs. 1-3; nothing is tuned on vali for
    those k.

    Parameters
    ----------
    selection : dict
        The selection record.
    selector : Selector
        The method's fitted selector (``own_selector``).
    ks : iterable of int, default ()
        The k values below d of a method with ``predict_scores_k``.

    Returns
    -------
    models : dict
        k -> model record (``ltrfs.formats.save_models``).
    info : dict
        k (as str) -> features, chosen parameters, trials and seconds (the info file's ``k``).

    References
    ----------
    Lai, Pan, Tang and Yu. FSMRank: feature selection algorithm for learning to rank. IEEE
    TNNLS 2013 (Figs. 1-3: the metric at the top k features; docs/methods.md, section
    'FSMRank').
    """
    from ltrfs.selection.base import OwnPredictions  # every selector: imported on use (ranker own)

    d, seconds = selection["n_features"], selection["seconds"]
    features = np.arange(d, dtype=np.int64)
    models = {d: {"ranker": OWN, "n_features": d, "features": features, "params": selector.chosen_,
                  "estimator": OwnPredictions(selector)}}
    info = {str(d): {"features": (features + 1).tolist(), "chosen": selector.chosen_, "trials": [],
                     "seconds": seconds}}
    if hasattr(selector, "predict_scores_k"):
        for k in sorted({int(k) for k in ks if 1 <= int(k) < d}):
            top = np.sort(np.asarray(selector.ranking_[:k], dtype=np.int64))
            models[k] = {"ranker": OWN, "n_features": d, "features": features, "params": selector.chosen_,
                         "estimator": OwnPredictions(selector, k)}
            info[str(k)] = {"features": (top + 1).tolist(), "chosen": selector.chosen_, "trials": [],
                            "seconds": seconds}
    return models, info


@dataclass(frozen=True)
class TrainJob:
    """What one train job does: a ranker on every k-view of a selection, its grid chosen on vali.

    Parameters
    ----------
    ranker_name : str
        The ranker's name in the config.
    ranker : dict
        Its config ``{"algorithm", "params", "grid"}``.
    ks : sequence of int
        The k grid (``valid_ks`` is applied).
    metric : str
        The vali metric.
    convention : str
        The metric convention.
    seed : int
        The job's seed.
    threads : int, default 1
        The job's threads.
    ties : str, default "expected"
        How tied scores are ranked in the vali choice.
    run_ties : dict or None, default None
        Split -> ties of the run file (``run_text``'s ``ties``).
    shared_fits : str or os.PathLike or None, default None
        The fold's folder of fits shared with the other methods' train jobs
        (``ltrfs.pipeline.shared_fits``); None fits every k here.
    """

    ranker_name: str
    ranker: dict
    ks: Sequence[int]
    metric: str
    convention: str
    seed: int
    threads: int = 1
    ties: str = SELECTION_TIES
    run_ties: dict | None = None
    shared_fits: object = None


@dataclass(frozen=True)
class TrainFiles:
    """The files of one train job: what it reads and what it writes.

    Parameters
    ----------
    selection : str or os.PathLike
        The selection record (JSON).
    train, vali : str, os.PathLike or RankingData
        ``.npz`` files or loaded data (a batched train job loads them once for all its rankers).
    model : str or os.PathLike
        The model file written (``ltrfs.formats.save_models``).
    info : str or os.PathLike
        The info JSON written (features, chosen parameters and vali trials per k).
    test : str, os.PathLike, RankingData or None, default None
        The test split, with ``run``.
    run : str or os.PathLike or None, default None
        The run file written (``run_text``): the models evaluated on vali and test.
    selector : str or os.PathLike or None, default None
        The method's fitted selector, read for ranker ``own`` only.
    """

    selection: object
    train: object
    vali: object
    model: object
    info: object
    test: object = None
    run: object = None
    selector: object = None


def _train_ranker(selection: dict, job: TrainJob, train_data: RankingData,
                  vali_data: RankingData) -> tuple[dict, dict]:
    """(models by k, info) of a ranker fitted on every k-view of the selection."""
    ranker = job.ranker
    models, info = {}, {"ranker": job.ranker_name, "algorithm": ranker["algorithm"],
                        "method": selection["method"], "validation_metric": job.metric, "ties": job.ties, "k": {}}
    ks = valid_ks(job.ks, n_views(selection), selection.get("uses_k", True))
    shared = None if job.shared_fits is None else SharedFits(job.shared_fits, data_digest(train_data, vali_data))
    seed = job.seed if uses_seed(ranker) else None
    progress = Progress(f"train {job.ranker_name}", len(ks), unit="k values", every=0.0)
    for k in ks:
        features, projection = view_for_k(selection, k)
        log.info("k=%d: features %s%s", k, (features + 1).tolist(), "" if projection is None else " (projected)")
        start = time.perf_counter()
        key = None if shared is None or projection is not None else shared.key(
            ranker, features, metric=job.metric, convention=job.convention, ties=job.ties, threads=job.threads,
            seed=seed)
        hit = None if key is None else shared.get(key)
        if hit is None:
            model, point, trials = fit_best(ranker, train_data.view(features, projection),
                                            vali_data.view(features, projection), metric=job.metric,
                                            convention=job.convention, seed=job.seed, threads=job.threads,
                                            ties=job.ties)
        else:
            model, point, trials = hit
            log.info("k=%d: the fit of these features is another method's, shared (fits/%s)", k, key)
        models[k] = {"ranker": ranker["algorithm"], "n_features": selection["n_features"],
                     "features": features, "projection": projection, "params": point, "estimator": model}
        if key is not None and hit is None:
            shared.put(key, models[k], point, trials)
        info["k"][str(k)] = {"features": (features + 1).tolist(), "chosen": point, "trials": trials,
                             "seconds": round(time.perf_counter() - start, 4), **({"shared": True} if hit else {})}
        progress.step(f"k={k}")
    return models, info


def uses_seed(ranker: dict) -> bool:
    """Whether a configured ranker draws random numbers at any point of its grid
    (``Ranker.uses_seed``).

    Parameters
    ----------
    ranker : dict
        ``{"algorithm", "params", "grid"}``.

    Returns
    -------
    bool
    """
    params = ranker.get("params") or {}
    return any(make_ranker(ranker["algorithm"], **{**params, **point}).uses_seed() for point in ranker_grid(ranker))


def _loaded(data) -> RankingData:
    """``data`` itself when it is loaded, else the ``.npz`` file it names."""
    return data if isinstance(data, RankingData) else io.load_npz(data)


def train(job: TrainJob, files: TrainFiles) -> None:
    """Train the ranker on every k-view of a selection, hyperparameters chosen on vali.

    Ranker algorithm ``own``: the method's fitted model from ``files.selector`` (``train_own``).
    With ``files.run`` (and ``files.test``) the models are also evaluated on vali and test in the
    same process and the run file written: the workflow's train jobs do this, so that no second
    job loads the models and their libraries again.

    Parameters
    ----------
    job : TrainJob
        The ranker, k grid, vali metric, convention, seed, threads and ties.
    files : TrainFiles
        The selection and splits read, the model, info and run files written.
    """
    selection = read_selection(files.selection)
    train_data, vali_data = _loaded(files.train), _loaded(files.vali)
    if job.ranker["algorithm"] == OWN:
        models, by_k = train_own(selection, own_selector(files.selector, selection), ks=job.ks)
        info = {"ranker": job.ranker_name, "algorithm": OWN, "method": selection["method"],
                "validation_metric": None, "k": by_k}
    else:
        models, info = _train_ranker(selection, job, train_data, vali_data)
    if files.run is not None:
        splits = {"vali": vali_data, "test": _loaded(files.test)}
        write_text(files.run, run_text(models, splits, convention=job.convention, ties=job.run_ties))
    save_models(files.model, models)
    write_json(files.info, info)


# ----------------------------------------------------------------------------- evaluation

def per_query_rows(data: RankingData, scores: np.ndarray, convention: str, ties: str = "file_order") -> np.ndarray:
    """Per-query metrics of one ranking, in the order of ``ltrfs.formats.METRIC_COLUMNS``.

    Parameters
    ----------
    data : RankingData
        The split.
    scores : ndarray of shape (m,)
        Scores of its rows.
    convention : str
        The metric convention.
    ties : {"file_order", "expected"}, default "file_order"
        How tied scores are ranked.

    Returns
    -------
    ndarray of shape (q, 22)
    """
    qm = metrics.evaluate(data.y, scores, data.query_ptr, convention=convention, max_k=10, ties=ties)
    return np.column_stack([qm.precision, qm.map, qm.ndcg, qm.mean_ndcg])


def run_text(models: dict, splits: dict, *, convention: str, ties: dict | None = None) -> str:
    """The run file of models on splits: ``RUN_HEAD`` columns, one line per k, split and query.

    Parameters
    ----------
    models : dict
        k -> model record.
    splits : dict
        ``{"vali": RankingData, "test": RankingData}``.
    convention : str
        The metric convention.
    ties : dict or None, default None
        Split -> how tied scores are ranked, over ``SPLIT_TIES``.

    Returns
    -------
    str
    """
    ties = {**SPLIT_TIES, **(ties or {})}
    lines = ["\t".join(RUN_HEAD)]
    for split, data in splits.items():
        for k, model in sorted(models.items()):
            values = per_query_rows(data, predict(model, data), convention, ties[split])
            lines += run_lines(k, split, ties[split], data, values)
            log.info("k=%s %s: NDCG@10 %.4f MAP %.4f (ties: %s)", k, split, values[:, 20].mean(),
                     values[:, 10].mean(), ties[split])
    return "\n".join(lines) + "\n"


def rescore(model_path, split_paths: dict, out_path, *, convention: str, ties: dict | None = None) -> None:
    """The run file of saved models in another metric ``convention``.

    The same models, the same layout as the train job's run file (``run_text``).

    Parameters
    ----------
    model_path : str or os.PathLike
        ``models/{method}/{ranker}.model``.
    split_paths : dict
        ``{"vali": path, "test": path}``.
    out_path : str or os.PathLike
        The run file written.
    convention : str
        The metric convention.
    ties : dict or None, default None
        As ``run_text``.
    """
    splits = {split: io.load_npz(path) for split, path in split_paths.items()}
    write_text(out_path, run_text(load_models(model_path), splits, convention=convention, ties=ties))


def reference(split_paths: dict, out_path, *, convention: str) -> None:
    """Per-query metrics of a constant score on each split, once per ``REFERENCES`` entry.

    Written in the layout of a run file with the reference's name in column ``k``'s place
    (``REFERENCE_HEAD``).

    Parameters
    ----------
    split_paths : dict
        Split -> ``.npz`` file.
    out_path : str or os.PathLike
        The file written.
    convention : str
        The metric convention.
    """
    lines = ["\t".join(REFERENCE_HEAD)]
    for split, path in split_paths.items():
        data = io.load_npz(path)
        for name, ties in REFERENCES.items():
            values = per_query_rows(data, np.zeros(data.n_rows), convention, ties)
            lines += run_lines(name, split, ties, data, values)
            log.info("%s %s: NDCG@10 %.4f MAP %.4f", name, split, values[:, 20].mean(), values[:, 10].mean())
    write_text(out_path, "\n".join(lines) + "\n")

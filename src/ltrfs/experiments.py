"""What the workflow's rules call: one function per stage, each reading its input files,
calling the package, and writing its outputs atomically (a killed job leaves nothing a rerun
would trust).

Files (docs/methods.md, section 'Files of a run'):

    data/{split}.npz            prepare()   parsed split of one fold
    scores/{scorer}.npz         score()     per-feature scores of the training split
    select/{method}.json        select()    feature order, per-k subsets, scores, timing
    models/{method}/{ranker}.pkl|.json
                                train()     one model per k, hyperparameters chosen on vali
    runs/{method}/{ranker}.tsv  train()     per-query vali and test metrics of those models
    reference.tsv               reference() what a constant score gets: file order, random order
    paths/{method}.tsv          path_metrics()  Greedy RankRLS: per-query test metrics of the path models
    densities/{method}.tsv      fsed_densities()  FS-ED: class densities of the top and last feature
    convergence/{method}.tsv    fsmrank_convergence()  FSMRank: objective traces of both solvers
    tables/{experiment}.csv|.md tables()    fold-averaged test metrics, std, p-values
"""
from __future__ import annotations

import copy
import inspect
import itertools
import logging
import time
from pathlib import Path

import numpy as np

from ltrfs import io, metrics, scoring
from ltrfs import signed
from ltrfs.ranking_data import DataError, RankingData
from ltrfs.files import read_json, read_npz
from ltrfs.rankers import make_ranker
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.util import Progress, atomic_path, write_json, write_text
from ltrfs.validation import SELECTION_TIES, ValiChoice

log = logging.getLogger("ltrfs")

MODEL_FORMAT = 1
SELECTOR_FORMAT = 1
#: the ranker algorithm that ranks with the selection method's own model (Lei & Han)
OWN = "own"
METRIC_COLUMNS = ([f"P@{k}" for k in range(1, 11)] + ["MAP"]
                  + [f"NDCG@{k}" for k in range(1, 11)] + ["MeanNDCG"])


def column_name(metric: str) -> str:
    """The run-file column of a metric name in any case (``ndcg@10`` -> ``NDCG@10``)."""
    names = {c.lower(): c for c in METRIC_COLUMNS}
    if metric.lower() not in names:
        raise ValueError(f"metric {metric!r} is not reported; valid: {', '.join(METRIC_COLUMNS)}")
    return names[metric.lower()]


# ----------------------------------------------------------------------------- prepare / score

def prepare(entry: dict, root, fold: int, seed: int, outputs: dict) -> None:
    """Read one fold of a fetched dataset and cache its splits as .npz (``outputs[split]``)."""
    from ltrfs.datasets.folds import load_fold

    splits = load_fold(entry, Path(root), fold, seed=seed)
    for split, path in outputs.items():
        data = splits[split]
        log.info("%s: %d queries, %d rows, %d features", split, data.n_queries, data.n_rows, data.n_features)
        io.save_npz(data, path)


def _save_scores(table: dict, out_path) -> None:
    with atomic_path(out_path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **table)


def score(scorer: str, train_path, vali_path, out_path, convention: str, *, threads: int = 1,
          chunk: tuple[int, int] | None = None, ties: str = SELECTION_TIES) -> None:
    """Compute a per-feature scorer on a fold (or the feature slice ``chunk = (i, n)``) and
    cache it as .npz (``ties``: how single-feature rankings order tied values)."""
    start = time.perf_counter()
    table = scoring.compute(scorer, io.load_npz(train_path), convention, io.load_npz(vali_path),
                            n_threads=threads, chunk=chunk, ties=ties)
    _save_scores(table, out_path)
    log.info("scorer %s%s: %.2f s", scorer, f" chunk {chunk[0] + 1} of {chunk[1]}" if chunk else "",
             time.perf_counter() - start)


def merge_scores(scorer: str, chunk_paths, out_path) -> None:
    """Merge the chunk files of a chunked scorer into its per-fold score file."""
    _save_scores(scoring.merge(scorer, list(load_scores(dict(enumerate(chunk_paths))).values())), out_path)


def load_scores(paths: dict) -> dict:
    """scorer name -> dict of arrays, from the cached .npz files."""
    out = {}
    for name, path in paths.items():
        out[name] = read_npz(path)
    return out


# ----------------------------------------------------------------------------- select

def fit_selector(method: dict, train: RankingData, vali: RankingData | None, *, seed: int,
                 convention: str, precomputed: dict | None = None, threads: int = 1,
                 ties: str = SELECTION_TIES):
    """Build the configured selector (``{"algorithm": ..., "params": {...}}``) and fit it; the
    seed, convention and tie policy fill the parameters the method's config leaves open."""
    algorithm = method["algorithm"]
    params = dict(method.get("params") or {})
    cls = SELECTORS.get(algorithm)
    if cls is not None:
        accepted = inspect.signature(cls.__init__).parameters
        if "random_state" in accepted:
            params.setdefault("random_state", seed)
        if "convention" in accepted:
            params.setdefault("convention", convention)
        if "ties" in accepted:
            params.setdefault("ties", ties)
        if "relevant_min" in accepted:  # binarisation follows the dataset's label scale
            params.setdefault("relevant_min", metrics.get_convention(convention).relevant_min)
        if "n_jobs" in accepted:
            params["n_jobs"] = threads
    selector = make_selector(algorithm, **params)
    kwargs = {}
    if vali is not None:
        kwargs = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    selector.fit(train.X, train.y, train.qid, precomputed=precomputed, **kwargs)
    return selector


def selection_record(name: str, method: dict, selector) -> dict:
    """The JSON-able description of a fitted selector; feature ids are 1-based as in the data.

    ``ranking`` is the feature order and ``scores`` the method's score of feature id i at
    position i - 1 (null when the method has none). ``subsets`` (k -> ids) is written only for
    methods whose k-subsets are not prefixes of the ranking; otherwise subset k is
    ``ranking[:k]``.
    """
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
    if selector.uses_k and not selector.prefix_consistent:
        record["subsets"] = {str(k): sorted(int(f) + 1 for f in selector.support(k)) for k in range(1, d + 1)}
    return record


def valid_ks(ks, d: int, uses_k: bool = True) -> list[int]:
    """The k grid for a method on d features (docs/methods.md, section 'The k grid'):
    k > d is skipped with a warning, and when every k exceeds d the method is trained on all d
    features (logged); methods that ignore k (WAF) get [d]."""
    if not uses_k:
        return [d]
    dropped = [k for k in ks if k > d]
    if dropped:
        log.warning("k %s exceed the %d features and are skipped", dropped, d)
    kept = sorted({int(k) for k in ks if 1 <= k <= d})
    if not kept:
        log.warning("every k exceeds the %d features: training on all of them", d)
    return kept or [d]


def select(name: str, method: dict, train_path, vali_path, score_paths: dict, out_path, *,
           seed: int, convention: str, threads: int = 1, ties: str = SELECTION_TIES,
           out_selector=None) -> dict:
    """Fit the method on a fold and write its selection record (JSON); with ``out_selector``,
    also pickle the fitted selector, which ranker ``own`` uses as the method's model."""
    train, vali = io.load_npz(train_path), io.load_npz(vali_path)
    selector = fit_selector(method, train, vali, seed=seed, convention=convention,
                            precomputed=load_scores(score_paths), threads=threads, ties=ties)
    record = selection_record(name, method, selector)
    if out_selector is not None:
        _pickle(out_selector, {"format": SELECTOR_FORMAT, "method": name, "selector": selector})
    write_json(out_path, record)
    log.info("%s: selected in %.3f s; top features %s", name, record["seconds"], record["ranking"][:10])
    return record


def features_for_k(selection: dict, k: int) -> np.ndarray:
    """0-based feature indices of the k-subset of a selection record."""
    if not isinstance(selection, dict) or not {"n_features", "ranking"} <= set(selection):
        raise ValueError("not a selection file (written by 'ltrfs select' or the workflow)")
    d = selection["n_features"]
    if not selection.get("uses_k", True):
        return np.arange(d)
    if not 1 <= k <= d:
        raise ValueError(f"k={k} is outside 1..{d} (the number of features)")
    subset = selection.get("subsets", {}).get(str(k))
    ids = subset if subset is not None else selection["ranking"][:k]
    return np.asarray(sorted(ids), dtype=np.int64) - 1


def n_views(selection: dict) -> int:
    """How many features the selection can hand a ranker: d, or its projected features."""
    return len(selection["projection"]) if "projection" in selection else selection["n_features"]


def view_for_k(selection: dict, k: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(features 0-based (n,), projection (n, k) or None): what a ranker trained for k sees.

    A subset method gives the columns ``features_for_k`` and no projection. A projection
    method (record key ``projection``: one ``{"features": ids, "weights": w}`` per new feature,
    FS-BFS) gives the union of the first k groups' features and the matrix that maps them to
    the k new features (``RankingData.view``).
    """
    groups = selection.get("projection") if isinstance(selection, dict) else None
    if groups is None:
        return features_for_k(selection, k), None
    if not 1 <= k <= len(groups):
        raise ValueError(f"k={k} is outside 1..{len(groups)} (the projected features the selection built)")
    features = np.unique(np.concatenate([np.asarray(g["features"], dtype=np.int64) for g in groups[:k]])) - 1
    position = {int(f): i for i, f in enumerate(features)}
    projection = np.zeros((len(features), k))
    for j, group in enumerate(groups[:k]):
        for f, w in zip(group["features"], group["weights"]):
            projection[position[f - 1], j] = w
    return features, projection


# ----------------------------------------------------------------------------- train

def expand_grid(grid: dict | None) -> list[dict]:
    """``{"C": [1, 2], "x": [3]}`` -> ``[{"C": 1, "x": 3}, {"C": 2, "x": 3}]`` (grid order kept)."""
    if not grid:
        return [{}]
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def ranker_class(algorithm: str):
    from ltrfs.rankers import RANKERS

    if algorithm not in RANKERS:
        raise ValueError(f"unknown ranker {algorithm!r}; valid: {', '.join(sorted(RANKERS))}")
    return RANKERS[algorithm]


def ranker_grid(ranker: dict) -> list[dict]:
    """The grid points of a configured ranker: its ``grid``, or else the class's default grid
    over the hyperparameters that ``params`` does not fix."""
    grid = ranker.get("grid")
    if grid is None:
        fixed = ranker.get("params") or {}
        default = getattr(ranker_class(ranker["algorithm"]), "default_grid", {})
        grid = {key: values for key, values in default.items() if key not in fixed}
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"grid {key!r} must be a non-empty list, got {values!r}")
    return expand_grid(grid)


def checked_grid(ranker: dict) -> list[dict]:
    """``ranker_grid(ranker)``, the ranker of every point built and its parameters validated
    (a one-line ValueError naming the parameter): what the config check and ``ltrfs train``
    do before any data is read."""
    from ltrfs.rankers import make_ranker

    points = ranker_grid(ranker)
    for point in points:
        make_ranker(ranker["algorithm"], **(ranker.get("params") or {}), **point).validate_params()
    return points


def fit_best(ranker: dict, train: RankingData, vali: RankingData | None, *, metric: str,
             convention: str, seed: int, threads: int = 1, ties: str = SELECTION_TIES):
    """Fit the ranker at every grid point on train, keep the one with the best mean vali ``metric``
    (``ltrfs.validation.ValiChoice``: tied scores ranked by ``ties``, a degenerate model never
    chosen; the ranker's own vali choices, e.g. early stopping, get the same ``ties``).

    Returns (estimator, chosen grid point, list of {params, vali, degenerate, seconds}).
    Ties keep the earlier grid point. Without vali the grid must have one point, which is
    fitted without early stopping or choice.
    """
    algorithm = ranker["algorithm"]
    base = dict(ranker.get("params") or {})
    accepted = inspect.signature(ranker_class(algorithm).__init__).parameters
    if "random_state" in accepted:
        base.setdefault("random_state", seed)
    if "n_jobs" in accepted:
        base["n_jobs"] = threads
    if "ties" in accepted:
        base.setdefault("ties", ties)
    if "relevant_min" in accepted:  # binarisation follows the dataset's label scale
        base.setdefault("relevant_min", metrics.get_convention(convention).relevant_min)
    points = ranker_grid(ranker)
    if vali is None and len(points) > 1:
        raise ValueError(f"a grid of {len(points)} points needs a validation split to choose from")
    # a solver that can restart from its previous state (RankSVM keeps its cutting planes, valid
    # for every C) is refitted in place along the grid; the best model is kept as a copy
    warm = "warm_start" in accepted and len(points) > 1
    if warm:
        base["warm_start"] = True
    choice = None if vali is None else ValiChoice(algorithm, vali.y, vali.query_ptr, metric, convention, ties)
    model = None
    for point in points:
        start = time.perf_counter()
        if warm and model is not None:
            model.set_params(**point)
        else:
            model = make_ranker(algorithm, **{**base, **point})
        if vali is None:
            model.fit(train.X, train.y, train.qid)
            return model, point, [{"params": point, "vali": None, "seconds": round(time.perf_counter() - start, 4)}]
        model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
        # a model refitted in place at the next grid point is kept as a copy when it is the best
        value = choice.offer(point, model.predict(vali.X), payload=model, keep=copy.deepcopy if warm else None)
        seconds = time.perf_counter() - start
        choice.trials[-1]["seconds"] = round(seconds, 4)
        log.info("  %s %s: vali %s = %.4f%s (%.2f s)", algorithm, point, metric, value,
                 " (degenerate: constant scores)" if choice.trials[-1]["degenerate"] else "", seconds)
    point, model, _ = choice.best
    return model, point, choice.trials


class OwnPredictions:
    """A fitted selector used as a ranker: ``predict(X)`` is its ``predict_scores(X)``
    (P(relevant) or the expected label, as Lei & Han report them), or with ``k`` its
    ``predict_scores_k(X, k)`` (its model restricted to its top k features, Lai et al. Figs. 1-3)."""

    def __init__(self, selector, k: int | None = None):
        self.selector = selector
        self.k = k

    def predict(self, X) -> np.ndarray:
        if self.k is None:
            return self.selector.predict_scores(X)
        return self.selector.predict_scores_k(X, self.k)


def has_own_predictions(algorithm: str) -> bool:
    """Whether a selection algorithm can rank by itself (ranker ``own``)."""
    return hasattr(SELECTORS[algorithm], "predict_scores")


def train_own(selection: dict, selector, *, ks=()) -> tuple[dict, dict]:
    """The selection's fitted method (``selector``, pickled by the select job) as the ranker,
    on all d features (k = d in the run file; the method's own choice of features is inside its
    model). A method that can restrict its model to its top k features (``predict_scores_k``:
    FSMRank) also gets one model per k of ``ks`` below d, the curve of Lai et al. Figs. 1-3;
    nothing is tuned on vali for those k. Returns (models, info["k"])."""
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


def train(selection_path, ranker_name: str, ranker: dict, train_path, vali_path, out_model,
          out_info, *, ks, metric: str, convention: str, seed: int, threads: int = 1,
          ties: str = SELECTION_TIES, test_path=None, out_run=None, run_ties: dict | None = None,
          selector_path=None) -> None:
    """Train the ranker on every k-subset of a selection, hyperparameters chosen on vali
    (ranker algorithm ``own``: the method's fitted model from ``selector_path``, see
    ``train_own``). With ``out_run`` (and ``test_path``) the models are also evaluated on vali
    and test in the same process and the run file written (``run_text``, ``run_ties`` as its
    ``ties``): the workflow's train jobs do this, so that no second job loads the models and
    their libraries again. ``train_path``, ``vali_path`` and ``test_path`` are ``.npz`` files or
    loaded ``RankingData`` (a batched train job loads them once for all its rankers)."""
    selection = read_json(selection_path, ("ranking",))
    train_data, vali_data = _loaded(train_path), _loaded(vali_path)
    if ranker["algorithm"] == OWN:
        models, by_k = train_own(selection, load_selector(selector_path, selection), ks=ks)
        info = {"ranker": ranker_name, "algorithm": OWN, "method": selection["method"],
                "validation_metric": None, "k": by_k}
    else:
        models, info = _train_ranker(selection, ranker_name, ranker, train_data, vali_data, ks=ks, metric=metric,
                                     convention=convention, seed=seed, threads=threads, ties=ties)
    if out_run is not None:
        splits = {"vali": vali_data, "test": _loaded(test_path)}
        write_text(out_run, run_text(models, splits, convention=convention, ties=run_ties))
    save_models(out_model, models)
    write_json(out_info, info)


def _loaded(data) -> RankingData:
    """``data`` itself when it is loaded, else the ``.npz`` file it names."""
    return data if isinstance(data, RankingData) else io.load_npz(data)


def _train_ranker(selection: dict, ranker_name: str, ranker: dict, train_data: RankingData,
                  vali_data: RankingData, *, ks, metric: str, convention: str, seed: int, threads: int,
                  ties: str) -> tuple[dict, dict]:
    """(models by k, info) of a ranker fitted on every k-view of the selection."""
    models, info = {}, {"ranker": ranker_name, "algorithm": ranker["algorithm"],
                        "method": selection["method"], "validation_metric": metric, "ties": ties, "k": {}}
    ks = valid_ks(ks, n_views(selection), selection.get("uses_k", True))
    progress = Progress(f"train {ranker_name}", len(ks), unit="k values", every=0.0)
    for k in ks:
        features, projection = view_for_k(selection, k)
        log.info("k=%d: features %s%s", k, (features + 1).tolist(), "" if projection is None else " (projected)")
        start = time.perf_counter()
        model, point, trials = fit_best(ranker, train_data.view(features, projection),
                                        vali_data.view(features, projection), metric=metric,
                                        convention=convention, seed=seed, threads=threads, ties=ties)
        models[k] = {"ranker": ranker["algorithm"], "n_features": selection["n_features"],
                     "features": features, "projection": projection, "params": point, "estimator": model}
        info["k"][str(k)] = {"features": (features + 1).tolist(), "chosen": point,
                             "trials": trials, "seconds": round(time.perf_counter() - start, 4)}
        progress.step(f"k={k}")
    return models, info


def _pickle(path, obj) -> None:
    signed.dump(path, obj)


def _unpickle(path, what: str, format_: int, trust: bool = False) -> dict:
    """A file of ``_pickle``: a signed pickle (``ltrfs.signed``), refused unless it is the
    user's own or ``trust``."""
    obj = signed.load(path, what, trust=trust)
    if not isinstance(obj, dict) or obj.get("format") != format_:
        raise DataError(f"{path}: not an ltrfs {what} file")
    return obj


def load_selector(path, selection: dict):
    """The fitted selector pickled by ``select`` for the selection record ``selection``, to rank
    with (ranker ``own``): an error for a method that has no model of its own."""
    algorithm = selection["algorithm"]
    if not has_own_predictions(algorithm):
        raise ValueError(f"method {selection['method']!r} ({algorithm}) has no predictions of its own; "
                         f"these have: {', '.join(a for a in sorted(SELECTORS) if has_own_predictions(a))}")
    if path is None:
        raise ValueError(f"ranker own needs the fitted method of {selection['method']!r} (select/{{method}}.pkl)")
    obj = _unpickle(path, "selector", SELECTOR_FORMAT)
    if obj["method"] != selection["method"]:
        raise ValueError(f"{path}: holds method {obj['method']!r}, the selection is {selection['method']!r}")
    return obj["selector"]


def save_models(path, models: dict) -> None:
    """Pickle a mapping k -> {"ranker", "n_features" (of the training data), "features"
    (0-based), "projection" ((n, k) or None/absent), "params", "estimator"}."""
    _pickle(path, {"format": MODEL_FORMAT, "models": models})


def load_models(path, trust: bool = False) -> dict:
    """The models of ``save_models``; a file not written with the user's key is refused
    unless ``trust`` (``ltrfs.signed``)."""
    return _unpickle(path, "model", MODEL_FORMAT, trust)["models"]


def predict(model: dict, data: RankingData) -> np.ndarray:
    """Scores of a trained model record on a dataset (applies its feature subset, and its
    projection when it has one)."""
    if data.n_features <= int(np.max(model["features"], initial=-1)):
        raise ValueError(f"the model uses feature {int(np.max(model['features'])) + 1} "
                         f"but the data has only {data.n_features}")
    X = data.view(model["features"], model.get("projection")).X
    return np.asarray(model["estimator"].predict(X), dtype=np.float64)


# ----------------------------------------------------------------------------- evaluate

def per_query_rows(data: RankingData, scores: np.ndarray, convention: str, ties: str = "file_order") -> np.ndarray:
    """(q, 22) per-query metrics in the order of ``METRIC_COLUMNS``."""
    qm = metrics.evaluate(data.y, scores, data.query_ptr, convention=convention, max_k=10, ties=ties)
    return np.column_stack([qm.precision, qm.map, qm.ndcg, qm.mean_ndcg])


#: how each split of a run file ranks tied scores by default: vali chooses k (tuning, tie-aware),
#: test is reported as the official evaluation scripts compute it
SPLIT_TIES = {"vali": SELECTION_TIES, "test": "file_order"}
RUN_HEAD = ["k", "split", "ties", "qid", "n_docs"] + METRIC_COLUMNS


def run_text(models: dict, splits: dict, *, convention: str, ties: dict | None = None) -> str:
    """The run file (``RUN_HEAD`` columns, one line per k, split and query) of the models on
    each split (``{"vali": RankingData, "test": RankingData}``)."""
    ties = {**SPLIT_TIES, **(ties or {})}
    lines = ["\t".join(RUN_HEAD)]
    for split, data in splits.items():
        sizes = data.query_sizes()
        for k, model in sorted(models.items()):
            values = per_query_rows(data, predict(model, data), convention, ties[split])
            for qid, n, row in zip(data.query_ids, sizes, values):
                lines.append("\t".join([str(k), split, ties[split], str(qid), str(n)] + [f"{v:.9g}" for v in row]))
            log.info("k=%s %s: NDCG@10 %.4f MAP %.4f (ties: %s)", k, split, values[:, 20].mean(),
                     values[:, 10].mean(), ties[split])
    return "\n".join(lines) + "\n"


def rescore(model_path, split_paths: dict, out_path, *, convention: str, ties: dict | None = None) -> None:
    """The run file of saved models (``models/{method}/{ranker}.pkl``) on the splits
    (``{"vali": path, "test": path}``) in another metric ``convention``: the same models, the
    same layout as the train job's run file (``run_text``)."""
    splits = {split: io.load_npz(path) for split, path in split_paths.items()}
    write_text(out_path, run_text(load_models(model_path), splits, convention=convention, ties=ties))


#: the reference rows of every table: what the data file's order alone scores, and what a
#: random order scores (the tie-aware expectation of a constant score)
REFERENCES = {"file order": "file_order", "random order": "expected"}


def reference(split_paths: dict, out_path, *, convention: str) -> None:
    """Per-query metrics of a constant score on each split, once per ``REFERENCES`` entry, in
    the layout of a run file with the reference's name in column ``k``'s place (``order``)."""
    lines = ["\t".join(["order"] + RUN_HEAD[1:])]
    for split, path in split_paths.items():
        data = io.load_npz(path)
        sizes = data.query_sizes()
        for name, ties in REFERENCES.items():
            values = per_query_rows(data, np.zeros(data.n_rows), convention, ties)
            for qid, n, row in zip(data.query_ids, sizes, values):
                lines.append("\t".join([name, split, ties, str(qid), str(n)] + [f"{v:.9g}" for v in row]))
            log.info("%s %s: NDCG@10 %.4f MAP %.4f", name, split, values[:, 20].mean(), values[:, 10].mean())
    write_text(out_path, "\n".join(lines) + "\n")


# ----------------------------------------------------------------------------- per-method report data
# What the feature reports draw is computed here, by the stage that owns the computation, and
# written as a small file; the figure jobs (``ltrfs.artefacts``) only read and draw.

def _selection_of(selection_path, algorithms: tuple[str, ...]) -> dict:
    selection = read_json(selection_path, ("ranking",))
    if selection.get("algorithm") not in algorithms:
        raise ValueError(f"{selection_path}: a {selection.get('algorithm')!r} selection; "
                         f"this needs one of: {', '.join(algorithms)}")
    return selection


#: columns of a path file (``path_metrics``)
PATH_HEAD = ["lambda", "k", "ties", "qid", "n_docs", "MAP", "MeanNDCG"]


def path_metrics(selection_path, test_path, out_path, *, convention: str, ties: str = "file_order") -> None:
    """Per-query test MAP and MeanNDCG of every model on a Greedy RankRLS selection path: for
    every lambda of the selection (``details.lambdas``, key ``repr(lambda)``) and every k, the
    RankRLS model on the first k features of that lambda's order (the path's own weights).
    ``ties`` ranks tied scores as the reported test metrics do (``evaluation_ties``, official
    "file_order"). One row per (lambda, k, query), columns ``PATH_HEAD``."""
    selection = _selection_of(selection_path, ("greedy_rankrls",))
    lambdas = (selection.get("details") or {}).get("lambdas")
    if not lambdas:
        raise ValueError(f"{selection_path}: the selection has no per-lambda path in 'details'")
    test = io.load_npz(test_path)
    X = test.X.astype(np.float64)
    sizes = test.query_sizes()
    lines = ["\t".join(PATH_HEAD)]
    for lam, entry in lambdas.items():
        order = entry["order"]
        for k, coef in enumerate(entry["coef"], 1):
            scores = X[:, order[:k]] @ np.asarray(coef, dtype=np.float64)
            qm = metrics.evaluate(test.y, scores, test.query_ptr, convention=convention, max_k=1, ties=ties)
            for qid, n, ap, mean_ndcg in zip(test.query_ids, sizes, qm.map, qm.mean_ndcg):
                lines.append("\t".join([lam, str(k), ties, str(qid), str(n), f"{ap:.9g}", f"{mean_ndcg:.9g}"]))
        log.info("lambda %s: test MAP at k = 1..%d computed", lam, len(entry["coef"]))
    write_text(out_path, "\n".join(lines) + "\n")


#: columns of a densities file (``fsed_densities``)
DENSITY_HEAD = ["role", "feature", "psi", "label", "x", "density"]


def informative_features(selection: dict, X) -> list[int]:
    """The selection's ranking (1-based ids, in order) without the features that carry nothing
    to draw: constant within every training query (``constant_features``) or 0 on every
    training row of ``X``."""
    skip = set(selection.get("constant_features") or [])
    zero = set((np.flatnonzero(~np.any(np.asarray(X) != 0, axis=0)) + 1).tolist())
    return [f for f in selection["ranking"] if f not in skip and f not in zero]


def fsed_densities(train_path, selection_path, out_path, *, n_points: int = 200) -> None:
    """FS-ED Fig. 3 data: the per-relevance-class KDE densities (``ltrfs.scoring.divergence.
    class_densities``, Silverman bandwidths on the training rows) of the top and the last
    feature by psi, on ``n_points`` points over the feature's training range widened by 5%.
    Features constant within every training query or 0 on every training row are skipped
    (they have no density to compare). One row per (role, label, point), columns
    ``DENSITY_HEAD`` (role "top" or "last")."""
    from ltrfs.scoring.divergence import class_densities

    selection = _selection_of(selection_path, ("fs_ed",))
    train = io.load_npz(train_path)
    kept = informative_features(selection, train.X)
    if not kept:
        raise ValueError(f"{selection_path}: every feature is constant or zero on the training rows")
    lines = ["\t".join(DENSITY_HEAD)]
    for role, feature in (("top", kept[0]), ("last", kept[-1])):
        x = train.X[:, feature - 1].astype(np.float64)
        low, high = float(x.min()), float(x.max())
        pad = 0.05 * (high - low) if high > low else 0.5
        points = np.linspace(low - pad, high + pad, n_points)
        psi = selection["scores"][feature - 1]
        for label, density in sorted(class_densities(x, train.y, points).items()):
            lines += ["\t".join([role, str(feature), f"{psi:.9g}", str(label), f"{p:.9g}", f"{v:.9g}"])
                      for p, v in zip(points, density)]
        log.info("%s feature by psi: %d (psi %.4f)", role, feature, psi)
    write_text(out_path, "\n".join(lines) + "\n")


#: columns of a convergence file (``fsmrank_convergence``)
CONVERGENCE_HEAD = ["solver", "iteration", "seconds", "objective"]
SUBGRADIENT = "projected subgradient"
APG = "FSMRank (accelerated proximal gradient)"


def fsmrank_convergence(train_path, selection_path, out_path, *, max_iter: int | None = None) -> None:
    """Lai et al. Fig. 5 data: the objective against time of the accelerated proximal gradient
    (``ltrfs.rankers.fsmrank.fsmrank_solve``, the selection's stopping rule) and of the
    projected subgradient method (``subgradient_solve``, ``max_iter`` iterations without early
    stop, default the selection's ``max_iter``) on the FSMRank problem the selection solved
    (same training split, similarity, importance, feature scaling and chosen lambdas), both
    timed after the compiled kernels are loaded.

    The accelerated run repeats the selection's final solve: its objectives must equal the
    selection's own trace (``details.trace``), which checks that the baseline solves the same
    problem; its times are measured here because the fit's first solve also pays for loading
    the compiled kernels. Columns ``CONVERGENCE_HEAD``; iteration 0 is the start w = 0."""
    from ltrfs.rankers import fsmrank as fsm

    selection = _selection_of(selection_path, ("fsmrank", "fsmsvm"))
    params, chosen = selection["params"], selection.get("chosen") or {}
    recorded = (selection.get("details") or {}).get("trace")
    if not recorded:
        raise ValueError(f"{selection_path}: the selection has no convergence trace ('details.trace')")
    train = io.load_npz(train_path)
    # the selection's own inputs (selections written before the [0, 1] scaling have no "scale")
    X, A, s, _, _ = fsm.scaled_inputs(train.X, train.y, params.get("similarity", "pearson"),
                                      params.get("importance", "pearson"), params.get("scale", "none"))
    problem = fsm.FSMProblem(X, train.y, train.query_ptr, A, s, float(chosen["lambda1"]), float(chosen["lambda2"]))
    fsm.fsmrank_solve(problem, max_iter=1)  # load the compiled kernels before anything is timed
    fsm.subgradient_solve(problem, max_iter=1)
    apg = fsm.fsmrank_solve(problem, max_iter=int(params.get("max_iter", 400)),
                            tol=float(params.get("tol", 1e-4))).trace()
    if len(apg["objective"]) != len(recorded["objective"]) or not np.allclose(
            apg["objective"], recorded["objective"], rtol=1e-9, atol=1e-12):
        raise ValueError(f"{selection_path}: re-solving the selection's problem does not reproduce its trace "
                         "(the FSMRank problem changed since the selection was made?)")
    iterations = int(max_iter if max_iter is not None else params.get("max_iter", 400))
    sub = fsm.subgradient_solve(problem, max_iter=iterations, tol=0.0).trace()
    lines = ["\t".join(CONVERGENCE_HEAD)]
    for solver, trace in ((APG, apg), (SUBGRADIENT, sub)):
        lines += ["\t".join([solver, str(i), f"{t:.6f}", f"{F:.12g}"])
                  for i, (t, F) in enumerate(zip(trace["seconds"], trace["objective"]))]
        log.info("%s: %d iterations, F %.6g -> %.6g, %.4f s", solver, trace["n_iter"], trace["objective"][0],
                 trace["objective"][-1], trace["seconds"][-1])
    write_text(out_path, "\n".join(lines) + "\n")

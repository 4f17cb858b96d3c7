"""Coordinate Ascent (Metzler & Croft 2007) with RankLib's search rules.

Model: a linear score ``s(x) = w . x`` whose weights directly maximise a ranking metric on the
training queries (Metzler & Croft, "Linear feature-based models for information retrieval",
Information Retrieval 10(3), 2007)::

    max_w  M(w) = (1/q) sum_q metric_q(X_q w)                 (metric: ndcg@K, p@K, map, meanndcg)
    (regularized:  M(w) - slack * || w / |w|_1  -  u / |u|_1 ||_2,   u = (1/d, ..., 1/d))

M is piecewise constant in w, so it is optimised one coordinate at a time by a line search,
with RankLib's rules (``ciir.umass.edu.learning.CoorAscent``; ranker 4):

- a restart starts from w = (1/d, ..., 1/d) (see ``restart_init`` for later restarts);
- a pass visits the features in a freshly shuffled order (seeded here); for feature f with
  current weight w0 it tries direction +1, and only if that brings no improvement, -1. Along a
  direction the first step is ``0.001`` (or ``step_base * |w0|`` when ``0.001 > |w0| / 2``) and
  every further step is ``step_scale`` times the previous one; trial j sets
  ``w_f = w0 + step_0 (1 + scale + ... + scale^j)``, j = 0 .. n_iterations - 1. The best trial
  that beats the current score strictly is kept (earliest on ties), then w is L1-normalised
  (w / sum |w|; uniform when w = 0);
- passes repeat until a whole pass ends with d - 1 or more consecutive failed features (one
  for d = 1), or until a pass ends with the restart's score less than ``tolerance`` above its
  starting score;
- of ``n_restarts`` restarts the one with the best validation score is kept when a validation
  split is given, else the one with the best training score (earliest on ties).

RankLib's default optimisation metric is ERR@10; ltrfs uses NDCG@10 in the LETOR 4.0
convention (``metric`` / ``convention``), matching how every ranker of the workflow is judged.
Equal scores (``ties``): by default the metric is its expectation over the orders of tied
documents (``ltrfs.metrics``: a tie block's ranks share its mean gain and relevance, AP by
McSherry & Najork), so weights that tie documents earn no credit from the file order;
``ties="file_order"`` ranks them in row order, as RankLib's stable sort does.

Deviations from RankLib (both RankLib behaviours look unintended):

- RankLib sets the small-weight first step to ``+step_base * |w0|`` in both directions (the sign
  is lost); here it is ``direction * step_base * |w0|``.
- RankLib restarts all from the uniform vector and differ only in the shuffled feature order;
  here restarts after the first start from random positive L1-normalised weights by default
  (``restart_init="random"``); ``restart_init="uniform"`` gives RankLib's behaviour. (RankLib 2.8+
  also "tries" w_f = 0 per feature, but evaluates it with the unchanged cached scores, so it
  never changes anything when unregularized; it is not reproduced.)
- After an accepted move the scores are recomputed as ``X @ w`` from the normalised weights
  and the score re-evaluated (RankLib updates cached scores incrementally and keeps the trial's
  score); identical up to rounding, and it keeps ``score`` exactly consistent with ``w``.
- With ``regularized`` a random start pays its penalty in the start score (RankLib's uniform
  start has penalty 0, so nothing changes there).

Speed: a trial changes the scores by ``t * X[:, f]``, so every trial of a line search is
evaluated by one compiled kernel over all queries (``ltrfs.metric_context.MetricContext.trials``)
from the current scores, a column and the trial steps; features constant within every query are
skipped (they cannot change a ranking).
``coordinate_ascent`` is the loop shared by the ranker and FS-BFS; build the ``MetricContext``
once per (labels, queries, metric, ties) and pass it in.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ltrfs.metric_context import MetricContext
from ltrfs.metrics import TIES
from ltrfs.params import Boolean, ConventionLike, Integer, Metric, Options, Real
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.ranking_data import constant_within_queries

log = logging.getLogger(__name__)

__all__ = ["CAResult", "coordinate_ascent", "CoordinateAscent"]

RESTART_INITS = ("random", "uniform")
#: RankLib's first step along a direction (before the small-weight rule)
_FIRST_STEP = 0.001


# ----------------------------------------------------------------------------- the search


@dataclass
class CAResult:
    """What ``coordinate_ascent(..., return_info=True)`` reports besides (w, score).

    Attributes
    ----------
    train_score : float
        Metric on the training data of the kept weights (unpenalised).
    vali_score : float or None
        Metric on the validation data of the kept weights, or None.
    best_restart : int
        Index of the kept restart.
    restart_scores : ndarray of shape (R,)
        Per restart: training objective at its end (penalised when regularized).
    restart_vali_scores : ndarray of shape (R,) or None
        Per restart: validation metric, or None without validation data.
    restart_weights : ndarray of shape (R, d)
        The weights each restart ended with.
    n_passes : ndarray of shape (R,)
        Passes over the features per restart.
    n_evals : int
        Metric evaluations (trial weight vectors scored), all restarts.
    n_accepted : int
        Accepted coordinate moves, all restarts.
    seconds_per_restart : ndarray of shape (R,)
        Wall time of every restart.
    """

    train_score: float
    vali_score: float | None
    best_restart: int
    restart_scores: np.ndarray
    restart_vali_scores: np.ndarray | None
    restart_weights: np.ndarray
    n_passes: np.ndarray
    n_evals: int
    n_accepted: int
    seconds_per_restart: np.ndarray = field(default_factory=lambda: np.zeros(0))


def _trial_totals(w0: float, direction: int, n_iterations: int, step_base: float, step_scale: float):
    """Cumulative offsets of w_f along one direction (RankLib's schedule, sign kept)."""
    step = _FIRST_STEP * direction
    if w0 != 0.0 and abs(step) > 0.5 * abs(w0):
        step = direction * step_base * abs(w0)
    totals = np.empty(n_iterations)
    total = step
    for j in range(n_iterations):
        totals[j] = total
        if j < n_iterations - 1:
            step *= step_scale
            total += step
    return totals


def _penalty(w, f, totals, slack):
    """slack * || w'/|w'|_1 - 1/d ||_2 for w' = w with w'_f = w_f + t, every t in totals: (T,)."""
    W = np.repeat(w[None, :], len(totals), axis=0)
    W[:, f] = w[f] + totals
    S = np.abs(W).sum(axis=1, keepdims=True)
    S[S == 0] = 1.0
    return slack * np.sqrt(((W / S - 1.0 / w.size) ** 2).sum(axis=1))


def _prepare_inputs(X, y, query_ptr, metric, convention, ties, context, X_val, y_val, query_ptr_val,
                    context_val, restart_init):
    """The shape checks of ``coordinate_ascent``: ``(context, XT (d, m), context_val, XvT (d, m'))``,
    the features transposed to float64 rows (one contiguous row per feature); the validation
    pair is ``(None, None)`` without X_val. Builds the metric contexts not given."""
    if context is None:
        if y is None or query_ptr is None:
            raise ValueError("give y and query_ptr, or a MetricContext as context")
        context = MetricContext(y, query_ptr, metric, convention, ties)
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] != context.n_rows or X.shape[1] == 0:
        raise ValueError(f"X must be ({context.n_rows}, d >= 1) to match the labels; got shape {X.shape}")
    if restart_init not in RESTART_INITS:
        raise ValueError(f"restart_init must be one of {', '.join(RESTART_INITS)}; got {restart_init!r}")
    d = X.shape[1]
    XT = np.ascontiguousarray(X.T, dtype=np.float64)  # (d, m): one contiguous row per feature
    XvT = None
    if X_val is not None:
        if context_val is None:
            if y_val is None or query_ptr_val is None:
                raise ValueError("with X_val give y_val and query_ptr_val, or context_val")
            context_val = MetricContext(y_val, query_ptr_val, context.metric, context.convention, context.ties)
        X_val = np.asarray(X_val)
        if X_val.ndim != 2 or X_val.shape != (context_val.n_rows, d):
            raise ValueError(f"X_val must be ({context_val.n_rows}, {d}); got shape {X_val.shape}")
        XvT = np.ascontiguousarray(X_val.T, dtype=np.float64)
    return context, XT, context_val, XvT


def _restart_weights(r: int, d: int, w_init, restart_init: str, uniform: np.ndarray, rng) -> np.ndarray:
    """The L1-normalised start of restart ``r``: ``w_init`` or the uniform vector for the first,
    then uniform or ``rng.random(d)`` (``restart_init``)."""
    if r == 0 and w_init is not None:
        w = np.array(w_init, dtype=np.float64).reshape(-1)
        if w.shape != (d,) or not np.isfinite(w).all():
            raise ValueError(f"w_init must be {d} finite numbers")
    elif r == 0 or restart_init == "uniform":
        w = uniform.copy()
    else:
        w = rng.random(d)
    total_abs = np.abs(w).sum()
    return w / total_abs if total_abs > 0 else uniform.copy()


def _ascend(w, XT, context, movable, rng, r: int, *, n_iterations, step_base, step_scale, tolerance, regularized,
            slack, max_passes, n_jobs):
    """One restart from ``w``: passes over the features in random order until a pass gains less
    than ``tolerance`` (or every feature failed, or ``max_passes``). Returns
    ``(w, score, passes, evaluations, accepted moves)``."""
    d = XT.shape[0]
    uniform = np.full(d, 1.0 / d)
    t_r = time.perf_counter()
    s = w @ XT
    score = context.mean(s, n_jobs)
    if regularized:  # 0 at the uniform start (RankLib's only start); random starts pay it too
        score -= float(_penalty(w, 0, np.zeros(1), slack)[0])
    n_evals, n_accepted, passes = 1, 0, 0
    start_score = score
    fails = 0
    while (d > 1 and fails < d - 1) or (d == 1 and fails == 0):
        if max_passes is not None and passes >= max_passes:
            break
        passes += 1
        order = rng.permutation(d)
        accepted = 0
        for f in order:
            if not movable[f]:
                fails += 1
                continue
            w0 = w[f]
            success = False
            for direction in (1, -1):
                totals = _trial_totals(w0, direction, n_iterations, step_base, step_scale)
                vals = context.trials(s, XT[f], totals, n_jobs)
                n_evals += totals.size
                if regularized:
                    vals = vals - _penalty(w, f, totals, slack)
                j = int(np.argmax(vals))
                if vals[j] > score:
                    success = True
                    w[f] = w0 + totals[j]
                    break
            if not success:
                fails += 1
                continue
            fails = 0
            accepted += 1
            total_abs = np.abs(w).sum()
            w = w / total_abs if total_abs > 0 else uniform.copy()
            s = w @ XT  # exact scores of the normalised weights (no drift)
            score = context.mean(s, n_jobs) - (float(_penalty(w, 0, np.zeros(1), slack)[0]) if regularized else 0.0)
            n_evals += 1
        n_accepted += accepted
        if log.isEnabledFor(logging.DEBUG):
            log.debug("CoordinateAscent restart %d pass %d: %s %.6f (start %.6f), %d moves, %.3f s",
                      r + 1, passes, context.metric, score, start_score, accepted, time.perf_counter() - t_r)
        if score - start_score < tolerance:
            break
    return w, score, passes, n_evals, n_accepted


def coordinate_ascent(X, y=None, query_ptr=None, *, metric: str = "ndcg@10", convention="letor4",
                      ties: str = "expected", context: MetricContext | None = None, n_restarts: int = 5,
                      n_iterations: int = 25, step_base: float = 0.05, step_scale: float = 2.0,
                      tolerance: float = 0.001, regularized: bool = False, slack: float = 0.001,
                      restart_init: str = "random", max_passes: int | None = None, w_init=None, X_val=None,
                      y_val=None, query_ptr_val=None, context_val: MetricContext | None = None, rng=None,
                      n_jobs: int = 1, return_info: bool = False):
    """Coordinate Ascent on one feature matrix (the search of the module docstring).

    Inputs are checked for shape only (callers validate; FS-BFS calls this thousands of times).
    The hyperparameters are those of :class:`CoordinateAscent`.

    Parameters
    ----------
    X : ndarray of shape (m, d)
        Features (any float dtype; float64 copies are made, column-major).
    y : array-like of shape (m,) or None
        Relevance labels; with ``query_ptr``, or None when ``context`` is given.
    query_ptr : array-like of int64, shape (q + 1,) or None
        Query boundaries; or None when ``context`` is given.
    metric : str, default "ndcg@10"
        Metric optimised (``ndcg@K``, ``p@K``, ``map``, ``meanndcg``); ignored with ``context``.
    convention : str or Convention, default "letor4"
        Metric convention; ignored with ``context``.
    ties : {"expected", "file_order"}, default "expected"
        Equal scores in expectation or in row order, for the objective and the validation
        metric alike; ignored with ``context``.
    context : MetricContext or None, default None
        A prebuilt context of (y, query_ptr, metric, convention, ties).
    n_restarts : int, default 5
        RankLib ``-r``.
    n_iterations : int, default 25
        RankLib ``-i``: trial steps per direction in a line search.
    step_base : float, default 0.05
        First step relative to |w_f| when |w_f| < 0.002.
    step_scale : float, default 2.0
        Growth factor of successive steps.
    tolerance : float, default 0.001
        RankLib ``-tolerance``: stop a restart after a pass that leaves its score less than
        ``tolerance`` above the start.
    regularized : bool, default False
        RankLib ``-reg``: subtract ``slack * ||w/|w|_1 - u/|u|_1||_2`` (u uniform).
    slack : float, default 0.001
        The regularisation weight.
    restart_init : {"random", "uniform"}, default "random"
        Start of restarts 2..R: random positive weights, or the uniform vector as RankLib.
    max_passes : int or None, default None
        Cap on passes per restart (None: RankLib's rule alone).
    w_init : array-like of shape (d,) or None, default None
        Start of the first restart instead of the uniform vector (L1-normalised).
    X_val : ndarray of shape (m', d) or None, default None
        Validation features; with them the restart kept is the one best on them.
    y_val, query_ptr_val : array-like or None, default None
        Validation labels and query boundaries (or ``context_val``).
    context_val : MetricContext or None, default None
        A prebuilt context of the validation split.
    rng : numpy.random.Generator, int or None, default None
        Generator or seed of the feature orders and random restarts.
    n_jobs : int, default 1
        Threads of the metric kernel.
    return_info : bool, default False
        Also return a :class:`CAResult`.

    Returns
    -------
    w : ndarray of float64, shape (d,)
        The weights, ``sum |w| = 1``.
    score : float
        The validation metric of w when validation data are given, else its training objective.
    info : CAResult
        Only with ``return_info``.

    References
    ----------
    Metzler and Croft. Linear feature-based models for information retrieval. Information
    Retrieval 10(3), 2007 (coordinate ascent on the metric; RankLib's rules in the module
    docstring).
    """
    t_start = time.perf_counter()
    context, XT, context_val, XvT = _prepare_inputs(X, y, query_ptr, metric, convention, ties, context, X_val,
                                                    y_val, query_ptr_val, context_val, restart_init)
    rng = np.random.default_rng(rng)
    d = XT.shape[0]
    movable = np.ones(d, bool) if regularized else ~constant_within_queries(XT.T, context.ptr)
    starts = {"w_init": w_init, "restart_init": restart_init, "n_restarts": int(n_restarts)}
    search = {"n_iterations": n_iterations, "step_base": step_base, "step_scale": step_scale, "tolerance": tolerance,
              "regularized": regularized, "slack": slack, "max_passes": max_passes, "n_jobs": n_jobs}
    info = _restarts(XT, context, XvT, context_val, movable, rng, starts, search)
    best = info.best_restart
    w = info.restart_weights[best].copy()
    score = info.vali_score if info.vali_score is not None else float(info.restart_scores[best])
    if not return_info:
        return w, score
    info.train_score = float(context.mean(w @ XT, n_jobs))
    log.debug("CoordinateAscent done in %.3f s: %d evaluations", time.perf_counter() - t_start, info.n_evals)
    return w, score, info


def _restarts(XT, context, XvT, context_val, movable, rng, starts: dict, search: dict) -> CAResult:
    """Every restart of ``coordinate_ascent``: ``_ascend`` from ``_restart_weights`` (``starts``:
    ``w_init``, ``restart_init``, ``n_restarts``; ``search``: ``_ascend``'s keywords), each
    scored on the validation split when ``XvT`` is given. The restart kept is the best on vali,
    else on train (earliest on ties); ``train_score`` is left NaN (the caller fills it)."""
    R, d, n_jobs = starts["n_restarts"], XT.shape[0], search["n_jobs"]
    uniform = np.full(d, 1.0 / d)
    restart_scores = np.empty(R)
    restart_vali = np.empty(R) if XvT is not None else None
    restart_weights = np.empty((R, d))
    n_passes = np.zeros(R, dtype=np.int64)
    seconds = np.empty(R)
    n_evals = 0
    n_accepted = 0
    best = -1
    for r in range(R):
        t_r = time.perf_counter()
        w = _restart_weights(r, d, starts["w_init"], starts["restart_init"], uniform, rng)
        w, score, n_passes[r], evals, accepted = _ascend(w, XT, context, movable, rng, r, **search)
        n_evals += evals
        n_accepted += accepted
        restart_scores[r] = score
        restart_weights[r] = w
        if restart_vali is not None:
            restart_vali[r] = context_val.mean(w @ XvT, n_jobs)
            n_evals += 1
        key = restart_vali if restart_vali is not None else restart_scores
        if best < 0 or key[r] > key[best]:
            best = r
        seconds[r] = time.perf_counter() - t_r
        log.debug("CoordinateAscent restart %d/%d: train %.6f%s, %d passes, %.3f s", r + 1, R, score,
                  "" if restart_vali is None else f", vali {restart_vali[r]:.6f}", n_passes[r], seconds[r])
    return CAResult(train_score=float("nan"), vali_score=None if restart_vali is None else float(restart_vali[best]),
                    best_restart=int(best), restart_scores=restart_scores, restart_vali_scores=restart_vali,
                    restart_weights=restart_weights, n_passes=n_passes, n_evals=int(n_evals),
                    n_accepted=int(n_accepted), seconds_per_restart=seconds)


# ----------------------------------------------------------------------------- estimator


class CoordinateAscent(LinearScores, Ranker):
    """Coordinate Ascent (Metzler & Croft 2007), RankLib's search (see the module docstring).

    Parameters
    ----------
    metric : str, default "ndcg@10"
        metric optimised on train and used to pick the restart on vali: ``ndcg@K``, ``p@K``,
        ``map`` or ``meanndcg`` (RankLib's default is ERR@10, which ltrfs does not implement).
    convention : str or Convention, default "letor4"
        metric convention (``ltrfs.metrics``: letor3, letor4, mslr, standard).
    ties : {"expected", "file_order"}, default "expected"
        equal scores in the metric: the mean over their orders, or row order (RankLib's sort),
        for the training objective and the validation choice of the restart.
    n_restarts : int, default 5
        RankLib ``-r``
    n_iterations : int, default 25
        RankLib ``-i``: trial steps per direction in a line
        search (RankLib has no cap on passes)
    step_base : float, default 0.05
        first step relative to |w_f| when |w_f| < 0.002
    step_scale : float, default 2.0
        growth factor of successive steps
    tolerance : float, default 0.001
        RankLib ``-tolerance``: stop a restart after a pass
        that leaves its score < tolerance above the start
    regularized : bool, default False
        RankLib ``-reg``: subtract
        ``slack * ||w/|w|_1 - u/|u|_1||_2`` (u uniform)
    slack : float, default 0.001
        the regularisation weight
    restart_init : {"random", "uniform"}, default "random"
        start of restarts 2..R: random positive weights, or the uniform vector as RankLib
    max_passes : int or None, default None
        cap on passes per restart (None: no cap, as RankLib)
    random_state : int, default 0
        seed of the feature orders and random restarts
    n_jobs : int, default 1
        threads of the metric kernel (numba)

    Attributes
    ----------
    coef_ : float64 (d,)
        weights, sum |coef_| = 1; ``predict(X) = X @ coef_``
    train_score_ : float
        metric on the training data at coef_
    vali_score_ : float or None
        metric on the validation data at coef_
    best_restart_ : int
        index of the kept restart
    restart_scores_ : float64 (R,)
        final training objective of every restart
    restart_vali_scores_ : (R,) or None
    n_passes_ : int64 (R,)
        passes over the features per restart
    n_iter_ : int
        passes over the features, all restarts
    n_evals_ : int
        metric evaluations (scored trial weight vectors)
    seconds_per_restart_ : float64 (R,)
    seconds_ : float
        fit time
    n_features_in_ : int

    References
    ----------
    Metzler and Croft. Linear feature-based models for information retrieval. Information
    Retrieval 10(3), 2007 (coordinate ascent on a ranking metric); RankLib's restarts, step
    schedule and regularisation (module docstring).

    Examples
    --------
    >>> from ltrfs.rankers.coord_ascent import CoordinateAscent
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = CoordinateAscent().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.88
    """

    name = "coord_ascent"
    default_grid: dict = {}

    parameters = {
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "n_restarts": [Integer(1)],
        "n_iterations": [Integer(1)],
        "step_base": [Real(0, None, closed="neither")],
        "step_scale": [Real(0, None, closed="neither")],
        "tolerance": [Real(0)],
        "regularized": [Boolean()],
        "slack": [Real(0)],
        "restart_init": [Options(*RESTART_INITS)],
        "max_passes": [Integer(1), None],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
        "ties": [Options(*TIES)],
    }

    def __init__(self, metric="ndcg@10", convention="letor4", n_restarts=5, n_iterations=25, step_base=0.05,
                 step_scale=2.0, tolerance=0.001, regularized=False, slack=0.001, restart_init="random",
                 max_passes=None, random_state=0, n_jobs=1, ties="expected"):
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.n_restarts = n_restarts
        self.n_iterations = n_iterations
        self.step_base = step_base
        self.step_scale = step_scale
        self.tolerance = tolerance
        self.regularized = regularized
        self.slack = slack
        self.restart_init = restart_init
        self.max_passes = max_passes
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _params(self) -> dict:
        """The keyword arguments of ``coordinate_ascent`` (the parameters, validated by ``fit``)."""
        return {
            "metric": self.metric,
            "convention": self.convention,
            "ties": self.ties,
            "n_restarts": int(self.n_restarts),
            "n_iterations": int(self.n_iterations),
            "step_base": float(self.step_base),
            "step_scale": float(self.step_scale),
            "tolerance": float(self.tolerance),
            "regularized": bool(self.regularized),
            "slack": float(self.slack),
            "restart_init": self.restart_init,
            "max_passes": None if self.max_passes is None else int(self.max_passes),
            "n_jobs": int(self.n_jobs),
        }

    def _fit(self, X, y, query_ptr, vali):
        """Coordinate Ascent on (X, y); the restart is chosen on ``vali`` when given."""
        params = self._params()
        start = time.perf_counter()
        val_kw = {}
        if vali is not None:
            Xv, yv, ptr_v = vali
            val_kw = {"X_val": Xv, "y_val": yv, "query_ptr_val": ptr_v}
        w, _, info = coordinate_ascent(X, y, query_ptr, rng=np.random.default_rng(int(self.random_state)),
                                       return_info=True, **params, **val_kw)
        self.coef_ = w
        self.train_score_ = info.train_score
        self.vali_score_ = info.vali_score
        self.best_restart_ = info.best_restart
        self.restart_scores_ = info.restart_scores
        self.restart_vali_scores_ = info.restart_vali_scores
        self.n_passes_ = info.n_passes
        self.n_iter_ = int(info.n_passes.sum())
        self.n_evals_ = info.n_evals
        self.seconds_per_restart_ = info.seconds_per_restart
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("CoordinateAscent fit: train %s %.6f, vali %s, restart %d kept, %d passes, %d evaluations, %.3f s",
                  self.metric, self.train_score_, self.vali_score_, self.best_restart_, self.n_iter_,
                  self.n_evals_, self.seconds_)
        return self


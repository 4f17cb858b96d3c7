"""ListNet (Cao, Qin, Liu, Tsai & Li, ICML 2007) with a linear scoring function.

Model: ``s = X w`` (the linear ListNet of the LETOR baselines; RankLib's ListNet has no hidden
layer either). A bias would shift every score of a query equally and cancels in the softmax,
so there is none.

Loss (top-one probabilities, cross entropy), per query q with documents j::

    P_y(j) = exp(y_j) / sum_k exp(y_k)          (phi = identity on the labels, as RankLib's
                                                 exp(label) normalisation)
    P_s(j) = exp(s_j) / sum_k exp(s_k)
    L_q(w) = - sum_j P_y(j) log P_s(j)

    L(w)   = (1 / Q) sum_q L_q(w) + (alpha / 2) ||w||^2          (Q = number of training queries)
    dL/dw  = (1 / Q) X^T (P_s - P_y) + alpha w

(the paper sums over queries; dividing by Q only rescales the objective, which keeps L-BFGS'
tolerances independent of the data size). The softmax of all queries is computed at once with
segment reductions (``np.maximum.reduceat`` / ``np.add.reduceat`` over the query offsets).
Queries whose documents all share one label have a uniform P_y and are kept, as in RankLib.

Optimisers (``solver``):

- ``"lbfgs"`` (default): ``scipy.optimize.minimize(method="L-BFGS-B")`` on L(w), from a small
  seeded random start. On MQ2008 it converges in 85-160 iterations (0.2-0.3 s per fold) to a
  lower training loss than RankLib's 1500 epochs of per-query gradient steps at learning rate
  1e-5 reach (4 s per fold), with the same test NDCG@10 and MAP (bench/bench_neural_rankers.py).
- ``"sgd"``: RankLib's procedure: for every epoch, for every query in file order, the step
  ``w -= learning_rate * X_q^T (P_s - P_y)`` (unnormalised per-query gradient, plus
  ``alpha * w``); one epoch is a compiled (Numba) loop. RankLib steps on the raw features;
  here the (default) standardisation applies to both solvers; ``standardize=False`` gives
  RankLib's raw-feature run (MQ2008: test NDCG@10 0.2228, MAP 0.4630 against 0.2268 / 0.4712
  standardised, 5-fold means).

Model choice on the validation split: after every L-BFGS iteration (or SGD epoch) the model is
scored on (X_val, y_val, qid_val) with ``metric`` (default ``ndcg@10``) in the ``convention``
(default ``letor4``) of ``ltrfs.metrics``; the weights of the best iteration are kept (the
first one on ties), and training stops when ``patience`` iterations in a row did not improve it
(``patience=None``: run to convergence / ``max_iter`` and still keep the best). Without a
validation split the final weights are kept.

Features are standardised with the training mean and standard deviation inside the model
(``standardize=True``, constant columns get scale 1); ``coef_`` is reported in the units of
the original features, so ``predict(X) = X @ coef_`` (plus a constant ``intercept_`` that does
not change any ranking).
"""
from __future__ import annotations

import logging
import time

import numpy as np
from numba import njit

from ltrfs.params import Boolean, Integer, Options, Real
from ltrfs.rankers.base import LinearScores, Ranker, standardise
from ltrfs.rankers.ranknet import (
    COMMON_PARAMETERS,
    ValidationTracker,
    finish_validation,
)
from ltrfs.ranking_data import group_ids

log = logging.getLogger(__name__)

_SOLVERS = ("lbfgs", "sgd")


# ----------------------------------------------------------------------------- loss


def segment_softmax(values: np.ndarray, query_ptr: np.ndarray, gid: np.ndarray | None = None):
    """The softmax of values within every query, and its logarithm.

    Stable: the query maximum is subtracted first.

    Parameters
    ----------
    values : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    gid : ndarray of int, shape (m,), or None
        Query index of every row (computed when None).

    Returns
    -------
    (float64 (m,), float64 (m,))
        (P, log P).

    Examples
    --------
    >>> import numpy as np
    >>> P, logP = segment_softmax(np.array([0.0, 0.0, 5.0]), np.array([0, 2, 3]))
    >>> P
    array([0.5, 0.5, 1. ])
    """
    if gid is None:
        gid = group_ids(query_ptr)
    starts = query_ptr[:-1]
    shifted = values - np.maximum.reduceat(values, starts)[gid]
    e = np.exp(shifted)
    z = np.add.reduceat(e, starts)
    log_p = shifted - np.log(z)[gid]
    return e / z[gid], log_p


def listnet_loss(scores, y, query_ptr):
    """ListNet's top-one cross entropy ``sum_q -sum_j P_y(j) log P_s(j)`` and its gradient.

    Parameters
    ----------
    scores : ndarray, shape (m,)
    y : ndarray, shape (m,)
        Labels.
    query_ptr : ndarray of int, shape (q + 1,)

    Returns
    -------
    (float, float64 (m,))
        The loss and ``grad = P_s - P_y`` (the derivative of the summed loss with respect to the
        scores; each query's P_y sums to 1).

    References
    ----------
    Cao et al., ICML 2007 (the top-one probability and the cross entropy).
    """
    scores = np.asarray(scores, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    gid = group_ids(query_ptr)
    p_y, _ = segment_softmax(np.asarray(y, dtype=np.float64), query_ptr, gid)
    p_s, log_p_s = segment_softmax(scores, query_ptr, gid)
    return float(-(p_y @ log_p_s)), p_s - p_y


def _objective(w, X, p_y, query_ptr, gid, alpha):
    n_queries = len(query_ptr) - 1
    p_s, log_p_s = segment_softmax(X @ w, query_ptr, gid)
    loss = -(p_y @ log_p_s) / n_queries + 0.5 * alpha * (w @ w)
    grad = X.T @ (p_s - p_y) / n_queries + alpha * w
    return float(loss), grad


def listnet_objective(w, X, y, query_ptr, alpha: float = 0.0):
    """The training objective of ``ListNet`` for the linear scores ``X @ w`` and its gradient.

    ``L(w) = (1/Q) sum_q -sum_j P_y(j) log P_s(j) + alpha/2 ||w||^2`` (Q queries).

    Parameters
    ----------
    w, X, y, query_ptr : ndarray
        Weights (d,), features (m, d), labels (m,) and the int query offsets (q + 1,).
    alpha : float, default 0.0

    Returns
    -------
    (float, float64 (d,))
    """
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    gid = group_ids(query_ptr)
    p_y, _ = segment_softmax(np.asarray(y, dtype=np.float64), query_ptr, gid)
    return _objective(np.asarray(w, dtype=np.float64), np.asarray(X, dtype=np.float64), p_y, query_ptr, gid,
                      float(alpha))


@njit(cache=True)
def _sgd_epoch(X, p_y, query_ptr, w, learning_rate, alpha):  # pragma: no cover - compiled
    """One RankLib-style epoch in place: per query (file order), w -= lr * (X_q^T (P_s - P_y) + alpha w).

    Returns the summed ListNet loss of the queries, each at the weights before its own step.
    """
    d = X.shape[1]
    total = 0.0
    grad = np.empty(d)
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        n = b - a
        s = np.empty(n)
        smax = -np.inf
        for i in range(n):
            acc = 0.0
            for f in range(d):
                acc += X[a + i, f] * w[f]
            s[i] = acc
            if acc > smax:
                smax = acc
        z = 0.0
        for i in range(n):
            s[i] = np.exp(s[i] - smax)
            z += s[i]
        logz = np.log(z)
        for f in range(d):
            grad[f] = alpha * w[f]
        for i in range(n):
            ps = s[i] / z
            total -= p_y[a + i] * (np.log(s[i]) - logz)
            g = ps - p_y[a + i]
            for f in range(d):
                grad[f] += g * X[a + i, f]
        for f in range(d):
            w[f] -= learning_rate * grad[f]
    return total


# ----------------------------------------------------------------------------- estimator


class ListNet(LinearScores, Ranker):
    """Linear ListNet (top-one cross entropy), L-BFGS or RankLib-style per-query SGD.

    Parameters
    ----------
    solver : {"lbfgs", "sgd"}, default "lbfgs"
        ``"lbfgs"``: scipy's L-BFGS-B on the query-averaged loss; ``"sgd"``: RankLib's per-query
        gradient steps (see the module docstring).
    max_iter : int, default 1500
        L-BFGS iterations, or SGD epochs (RankLib's ListNet default is 1500 epochs).
    learning_rate : float, default 1e-5
        SGD step size (RankLib's default); unused by L-BFGS.
    alpha : float, default 0.0
        L2 penalty ``alpha/2 ||w||^2`` on the (standardised) weights.
    tol : float, default 1e-7
        L-BFGS stops when the relative decrease of the loss is below ``tol`` (``ftol``) or the
        largest gradient entry is below ``tol`` (``gtol``); unused by SGD.
    patience : int or None, default None
        with a validation split: stop after this many iterations/epochs without improvement
        of the validation metric; None runs to the end. The best iterate is kept either way.
    metric : str, default "ndcg@10"
        validation metric (any ``ltrfs.metrics.metric_per_query`` name: ndcg@K, p@K, map, ...).
    convention : str, default "letor4"
        metric convention (letor3, letor4, mslr, standard).
    ties : str, default "expected"
        how the validation metric ranks tied scores (``ltrfs.metrics``): "expected" over all
        orders of the tied documents, or "file_order"; a degenerate iterate (constant scores
        within every vali query) is never kept.
    standardize : bool, default True
        standardise features with the training mean / std inside the model.
    init_scale : float, default 0.01
        initial weights ~ N(0, init_scale^2) (standardised units), drawn from ``random_state``.
    random_state : int, default 0
        seed of the initial weights.
    n_jobs : int, default 1
        BLAS threads (threadpoolctl) for the matrix products.

    Attributes
    ----------
    coef_ : float64 (d,)
        weights in the units of the input features
    intercept_ : float
        constant added by ``predict`` (irrelevant to rankings)
    n_iter_ : int
        iterations (L-BFGS) or epochs (SGD) run
    best_iteration_ : int
        1-based iteration whose weights were kept (0: the initial ones)
    best_score_ : float or None
        validation metric at ``best_iteration_`` (None without vali)
    train_loss_ : list[float]
        training loss L(w) after every iteration / epoch
    val_scores_ : list[float]
        validation metric after every iteration / epoch
    mean_, scale_ : float64 (d,)
        the standardisation (zeros / ones with standardize=False)
    n_features_in_ : int
    seconds_ : float
        training time

    References
    ----------
    Cao, Qin, Liu, Tsai, Li. Learning to rank: from pairwise approach to listwise approach.
    ICML 2007 (the top-one probability cross entropy), with a linear scoring function.

    Examples
    --------
    >>> from ltrfs.rankers.listnet import ListNet
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = ListNet().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "listnet"
    default_grid: dict = {}

    parameters = {
        "solver": [Options(*_SOLVERS)],
        "max_iter": [Integer(1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "alpha": [Real(0)],
        "tol": [Real(0, None, closed="neither")],
        "standardize": [Boolean()],
        "init_scale": [Real(0)],
        **COMMON_PARAMETERS,
    }

    def __init__(self, solver="lbfgs", max_iter=1500, learning_rate=1e-5, alpha=0.0, tol=1e-7, patience=None,
                 metric="ndcg@10", convention="letor4", standardize=True, init_scale=0.01, random_state=0,
                 n_jobs=1, ties="expected"):
        self.solver = solver
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.tol = tol
        self.patience = patience
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.standardize = standardize
        self.init_scale = init_scale
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, val):
        start = time.perf_counter()
        m, d = X.shape
        Xs, mean, scale = standardise(X) if self.standardize else (X, np.zeros(d), np.ones(d))
        gid = group_ids(query_ptr)
        p_y, _ = segment_softmax(y.astype(np.float64), query_ptr, gid)
        alpha = float(self.alpha)
        rng = np.random.default_rng(self.random_state)
        w = rng.normal(0.0, float(self.init_scale), size=d)
        tracker = None
        if val is not None:
            Xv, yv, ptr_v = val
            tracker = ValidationTracker((Xv - mean) / scale, yv, ptr_v, self.metric, self.convention,
                                        self.patience, self.ties)
            tracker.update(0, tracker.score(tracker.X @ w), w)

        def objective(v):
            return _objective(v, Xs, p_y, query_ptr, gid, alpha)

        train_loss: list[float] = []
        if self.solver == "lbfgs":
            from scipy.optimize import minimize  # heavy (scipy.optimize, ~0.7 s): imported on use

            state = {"it": 0, "x": None, "f": None}

            def fun(v):
                f, g = objective(v)
                state["x"], state["f"] = v.copy(), f
                return f, g

            def callback(xk):  # the plain xk signature works with every scipy >= 1.10
                state["it"] += 1
                loss = state["f"] if np.array_equal(state["x"], xk) else objective(xk)[0]
                train_loss.append(float(loss))
                msg = ""
                if tracker is not None:
                    value = tracker.score(tracker.X @ xk)
                    stop = tracker.update(state["it"], value, xk)
                    msg = f"  vali {self.metric} {value:.5f}"
                    if stop:
                        log.debug("ListNet iter %d: loss %.8g%s (patience exhausted)", state["it"], loss, msg)
                        raise StopIteration  # scipy >= 1.11 ends minimize; older ones re-raise
                log.debug("ListNet iter %d: loss %.8g%s", state["it"], loss, msg)

            tol = float(self.tol)
            try:
                result = minimize(fun, w, jac=True, method="L-BFGS-B", callback=callback,
                                  options={"maxiter": int(self.max_iter), "ftol": tol, "gtol": tol})
                w = np.asarray(result.x, dtype=np.float64)
            except StopIteration:  # pragma: no cover - scipy < 1.11; the tracker holds the best
                pass
            n_iter = state["it"]
        else:
            Xc = np.ascontiguousarray(Xs)
            lr = float(self.learning_rate)
            n_iter = 0
            for epoch in range(1, int(self.max_iter) + 1):
                _sgd_epoch(Xc, p_y, query_ptr, w, lr, alpha)
                n_iter = epoch
                train_loss.append(float(objective(w)[0]))
                msg = ""
                stop = False
                if tracker is not None:
                    value = tracker.score(tracker.X @ w)
                    stop = tracker.update(epoch, value, w)
                    msg = f"  vali {self.metric} {value:.5f}"
                log.debug("ListNet epoch %d: loss %.8g%s", epoch, train_loss[-1], msg)
                if stop:
                    break
        w = finish_validation(self, tracker, w, n_iter)
        self.coef_ = w / scale
        self.intercept_ = float(-(mean / scale) @ w)
        self.mean_, self.scale_ = mean, scale
        self.n_iter_ = int(n_iter)
        self.train_loss_ = train_loss
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("ListNet done: %d iterations, best %d (vali %s), %.3f s", n_iter, self.best_iteration_,
                  self.best_score_, self.seconds_)


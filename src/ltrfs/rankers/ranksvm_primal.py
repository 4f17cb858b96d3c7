"""Linear RankSVM with the squared pairwise hinge, trained by truncated Newton in the primal.

Objective (Chapelle & Keerthi 2010, "Efficient algorithms for ranking with SVMs", eq. 2 with
the squared hinge; no bias term)::

    f(w) = 1/2 ||w||^2 + C' * sum_q sum_{(i, j) in P_q} max(0, 1 - w.(x_i - x_j))^2

with ``P_q`` the pairs of documents of query q with ``y_i > y_j`` and ``C' = C / n`` where n
is the number of training queries (``loss_normalization="queries"``, the default): the same
convention as svm_rank's ``-c`` and ``ltrfs.rankers.ranksvm``, so that C multiplies the mean
per-query loss and one C grid (1e-5 .. 5.24 by factors of 2) serves both RankSVMs.
``loss_normalization="pairs"`` uses ``C' = C / (total number of pairs)`` and ``"none"``
uses ``C' = C`` as written in the paper. ``C_effective_`` records C'.

Pair-free oracles (O(n log n + n d) per query of n documents, nothing of size #pairs is
built). With scores s = X w and, for a pair p = (i, j), the residual r_p = 1 - (s_i - s_j),
the active set is {p : r_p > 0}. Per query the documents are sorted by score once; a sweep in
descending score order inserts every document j with s_j > s_k - 1 into Fenwick trees
indexed by label level (count, sum of s, sum of s^2), so the active lower-label partners of k
and their sums come from one prefix query; an ascending sweep does the same for the
higher-label partners. This gives

    loss   L(s)   = sum_{active p} r_p^2
    coef   c (m,) = sum_{active p} r_p (e_j - e_i)       gradient  grad f = w + 2 C' X^T c
    A u    (m,)   = sum_{active p} (u_i - u_j)(e_i - e_j)  Hessian   H v = v + 2 C' X^T A X v

(``squared_hinge_pairs`` and ``squared_hinge_hessp``; H is the generalised Hessian of the
piecewise quadratic f, positive definite since it contains the identity).

Solver (truncated Newton, as in Chapelle & Keerthi section 3): at w, the Newton direction
solves H d = -grad f by conjugate gradients (Hessian-vector products only; relative residual
``min(0.5, sqrt(|grad f| / |grad f(0)|))``, so the steps become exact Newton steps near the
optimum), then an exact line search on the convex piecewise quadratic
phi(t) = f(w + t d): safeguarded Newton iterations on phi'(t), which only need the scores
s + t X d (one product X d per outer iteration). Since f is piecewise quadratic, once the
active set is right one Newton step lands on the optimum (finite convergence in practice).

Stopping: ``|grad f(w)| <= tol * |grad f(0)|`` (relative gradient norm; scale-free in C).
"""
from __future__ import annotations

import logging
import time
import warnings

import numpy as np
from numba import njit

from ltrfs.estimator import ConvergenceWarning
from ltrfs.params import Boolean, Integer, Options, Real
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.rankers.pairs import count_pairs, fenwick_add, fenwick_prefix, levels_within_queries

log = logging.getLogger(__name__)

LOSS_NORMALIZATIONS = ("queries", "pairs", "none")
#: line search: stop when |phi'(t)| <= this fraction of |phi'(0)|
_LS_RTOL = 1e-12
_LS_MAX_ITER = 50


# ----------------------------------------------------------------------------- kernels


@njit(cache=True)
def _sort_within_queries(scores, query_ptr, order):  # pragma: no cover - compiled
    """order (m,) <- row indices sorted by ascending score inside every query (stable)."""
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        if b - a == 1:
            order[a] = a
        elif b - a > 1:
            order[a:b] = np.argsort(scores[a:b], kind="mergesort") + a


@njit(cache=True)
def _n_levels(levels, a, b):
    n_levels = 0
    for k in range(a, b):
        if levels[k] + 1 > n_levels:
            n_levels = levels[k] + 1
    return n_levels


@njit(cache=True)
def _sqh_kernel(scores, levels, query_ptr, order, coef):  # pragma: no cover - compiled
    """coef (m,) <- sum_{active p} r_p (e_j - e_i); return (sum_{active p} r_p^2, #active pairs).

    A pair p = (i, j) with level_i > level_j is active when r_p = 1 - (s_i - s_j) > 0. Scores
    are centred per query (pair differences do not change) to limit cancellation.
    """
    loss = 0.0
    n_active = 0
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        n = b - a
        for k in range(a, b):
            coef[k] = 0.0
        L = _n_levels(levels, a, b)
        if n < 2 or L < 2:
            continue
        centre = 0.0
        for k in range(a, b):
            centre += scores[k]
        centre /= n
        t_cnt = np.zeros(L + 1)
        t_s1 = np.zeros(L + 1)
        t_s2 = np.zeros(L + 1)
        # descending sweep: k as the higher document; partners j with s_j > s_k - 1
        p = b - 1
        for t in range(b - 1, a - 1, -1):
            k = order[t]
            sk = scores[k] - centre
            while p >= a and scores[k] - scores[order[p]] < 1.0:
                j = order[p]
                sj = scores[j] - centre
                pos = levels[j] + 1
                fenwick_add(t_cnt, pos, 1.0)
                fenwick_add(t_s1, pos, sj)
                fenwick_add(t_s2, pos, sj * sj)
                p -= 1
            cnt = fenwick_prefix(t_cnt, levels[k])
            if cnt > 0.0:
                s1 = fenwick_prefix(t_s1, levels[k])
                s2 = fenwick_prefix(t_s2, levels[k])
                base = 1.0 - sk  # r = base + s_j
                loss += cnt * base * base + 2.0 * base * s1 + s2
                coef[k] -= cnt * base + s1
                n_active += int(cnt)
        # ascending sweep: k as the lower document; partners i with s_i < s_k + 1
        t_cnt[:] = 0.0
        t_s1[:] = 0.0
        tot_cnt = 0.0
        tot_s1 = 0.0
        p = a
        for t in range(a, b):
            k = order[t]
            sk = scores[k] - centre
            while p < b and scores[order[p]] - scores[k] < 1.0:
                i = order[p]
                si = scores[i] - centre
                pos = levels[i] + 1
                fenwick_add(t_cnt, pos, 1.0)
                fenwick_add(t_s1, pos, si)
                tot_cnt += 1.0
                tot_s1 += si
                p += 1
            cnt = tot_cnt - fenwick_prefix(t_cnt, levels[k] + 1)
            if cnt > 0.0:
                s1 = tot_s1 - fenwick_prefix(t_s1, levels[k] + 1)
                coef[k] += cnt * (1.0 + sk) - s1  # r = 1 + s_k - s_i
    return loss, n_active


@njit(cache=True)
def _hessp_kernel(scores, levels, query_ptr, order, u, out):  # pragma: no cover - compiled
    """out (m,) <- A u with A = sum_{active p} (e_i - e_j)(e_i - e_j)^T (active set from scores)."""
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        n = b - a
        for k in range(a, b):
            out[k] = 0.0
        L = _n_levels(levels, a, b)
        if n < 2 or L < 2:
            continue
        t_cnt = np.zeros(L + 1)
        t_u = np.zeros(L + 1)
        p = b - 1
        for t in range(b - 1, a - 1, -1):
            k = order[t]
            while p >= a and scores[k] - scores[order[p]] < 1.0:
                j = order[p]
                fenwick_add(t_cnt, levels[j] + 1, 1.0)
                fenwick_add(t_u, levels[j] + 1, u[j])
                p -= 1
            cnt = fenwick_prefix(t_cnt, levels[k])
            if cnt > 0.0:
                out[k] += cnt * u[k] - fenwick_prefix(t_u, levels[k])
        t_cnt[:] = 0.0
        t_u[:] = 0.0
        tot_cnt = 0.0
        tot_u = 0.0
        p = a
        for t in range(a, b):
            k = order[t]
            while p < b and scores[order[p]] - scores[k] < 1.0:
                i = order[p]
                fenwick_add(t_cnt, levels[i] + 1, 1.0)
                fenwick_add(t_u, levels[i] + 1, u[i])
                tot_cnt += 1.0
                tot_u += u[i]
                p += 1
            cnt = tot_cnt - fenwick_prefix(t_cnt, levels[k] + 1)
            if cnt > 0.0:
                out[k] += cnt * u[k] - (tot_u - fenwick_prefix(t_u, levels[k] + 1))


# ----------------------------------------------------------------------------- public oracles


def _as_f64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def sort_within_queries(scores, query_ptr) -> np.ndarray:
    """Row indices sorted by ascending score within each query (stable).

    Pass it as ``order`` to ``squared_hinge_pairs`` and ``squared_hinge_hessp`` to reuse one sort
    for several calls at the same scores.

    Parameters
    ----------
    scores : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)

    Returns
    -------
    int64 (m,)
    """
    scores = _as_f64(scores)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    order = np.empty(len(scores), dtype=np.int64)
    _sort_within_queries(scores, query_ptr, order)
    return order


def squared_hinge_pairs(scores, levels, query_ptr, order=None):
    """Squared pairwise hinge loss and its score-space gradient, without building pairs.

    Parameters
    ----------
    scores : ndarray, shape (m,)
    levels : ndarray of int, shape (m,)
        Label levels per query (labels work too: only their order within a query matters;
        ``pairs.levels_within_queries`` makes them dense, which keeps the Fenwick trees small).
    query_ptr : int64 ndarray, shape (q + 1,)
    order : ndarray or None
        ``sort_within_queries(scores, query_ptr)``.

    Returns
    -------
    loss : float
        ``sum_q sum_{y_i > y_j} max(0, 1 - (s_i - s_j))^2``.
    coef : float64 (m,)
        Half the gradient of ``loss`` with respect to the scores, so that for s = X w the gradient
        of ``1/2 ||w||^2 + C loss`` is ``w + 2 C X.T @ coef``.

    References
    ----------
    Chapelle and Keerthi, Information Retrieval 2010 (the loss and gradient without forming pairs).

    Examples
    --------
    >>> import numpy as np
    >>> loss, coef = squared_hinge_pairs(np.array([0.0, 0.5]), np.array([1, 0]), np.array([0, 2]))
    >>> loss                         # one pair, ordered the wrong way by 0.5: (1 + 0.5)^2
    2.25
    """
    scores = _as_f64(scores)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    levels = _dense_levels(levels, query_ptr)
    if order is None:
        order = sort_within_queries(scores, query_ptr)
    coef = np.empty(len(scores), dtype=np.float64)
    loss, _ = _sqh_kernel(scores, levels, query_ptr, np.ascontiguousarray(order, dtype=np.int64), coef)
    return float(loss), coef


def squared_hinge_hessp(scores, levels, query_ptr, u, order=None) -> np.ndarray:
    """Score-space generalised Hessian-vector product ``A u`` of the loss / 2 at ``scores``.

    ``A = sum_{active (i, j)} (e_i - e_j)(e_i - e_j)^T``, so the Hessian of ``1/2 ||w||^2 + C
    loss`` applied to v is ``v + 2 C X.T @ (A @ (X @ v))``.

    Parameters
    ----------
    scores, levels, query_ptr, order
        As ``squared_hinge_pairs``.
    u : ndarray, shape (m,)

    Returns
    -------
    float64 (m,)
    """
    scores = _as_f64(scores)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    levels = _dense_levels(levels, query_ptr)
    if order is None:
        order = sort_within_queries(scores, query_ptr)
    out = np.empty(len(scores), dtype=np.float64)
    _hessp_kernel(scores, levels, query_ptr, np.ascontiguousarray(order, dtype=np.int64), _as_f64(u), out)
    return out


def _dense_levels(levels, query_ptr) -> np.ndarray:
    levels = np.asarray(levels)
    if len(levels) and (levels.min() < 0 or levels.max() >= 64):  # raw labels: densify
        return levels_within_queries(levels, query_ptr)
    return np.ascontiguousarray(levels, dtype=np.int64)


# ----------------------------------------------------------------------------- solver


class _Problem:
    """f(w) = 1/2 ||w||^2 + C' L(X w) with its oracles (X float64 (m, d))."""

    def __init__(self, X, levels, query_ptr, C_eff):
        self.X = X
        self.levels = levels
        self.query_ptr = query_ptr
        self.C = C_eff
        self.order = np.empty(X.shape[0], dtype=np.int64)
        self.coef = np.empty(X.shape[0], dtype=np.float64)
        self.Au = np.empty(X.shape[0], dtype=np.float64)
        self.n_hv = 0

    def at_scores(self, s):
        """(loss, coef copy, n_active); leaves self.order sorted for s."""
        _sort_within_queries(s, self.query_ptr, self.order)
        loss, n_active = _sqh_kernel(s, self.levels, self.query_ptr, self.order, self.coef)
        return float(loss), self.coef.copy(), int(n_active)

    def score_hessp(self, s, u):
        """A u for the active set of scores s (self.order must be sorted for s)."""
        _hessp_kernel(s, self.levels, self.query_ptr, self.order, u, self.Au)
        return self.Au

    def hessp(self, s, v):
        self.n_hv += 1
        return v + (2.0 * self.C) * (self.X.T @ self.score_hessp(s, self.X @ v))


def _cg(problem, s, g, rtol, max_iter):
    """Solve H d = -g by (unpreconditioned) conjugate gradients; returns (d, iterations)."""
    d = np.zeros_like(g)
    r = -g.copy()
    p = r.copy()
    rr = r @ r
    target = (rtol * np.sqrt(rr)) ** 2
    it = 0
    while it < max_iter and rr > target:
        Hp = problem.hessp(s, p)
        pHp = p @ Hp
        if pHp <= 0.0:  # pragma: no cover - H >= I, cannot happen
            break
        alpha = rr / pHp
        d += alpha * p
        r -= alpha * Hp
        rr_new = r @ r
        p = r + (rr_new / rr) * p
        rr = rr_new
        it += 1
    return d, it


def _line_search(problem, w, d, s, z, g_dot_d):
    """Exact minimisation of phi(t) = f(w + t d) (convex, piecewise quadratic), s = X w, z = X d.

    Safeguarded Newton on phi'(t) = w.d + t d.d + 2 C' coef(s + t z).z from t = 1 with a
    bracket [lo, hi] (phi'(lo) < 0 < phi'(hi)). Returns (t, loss, coef, n_active) at the step.
    """
    C = problem.C
    wd, dd = float(w @ d), float(d @ d)
    lo, hi = 0.0, np.inf
    dphi0 = g_dot_d
    t = 1.0
    best = None
    for _ in range(_LS_MAX_ITER):
        st = s + t * z
        loss, coef, n_active = problem.at_scores(st)
        dphi = wd + t * dd + 2.0 * C * float(coef @ z)
        best = (t, loss, coef, n_active)
        if abs(dphi) <= _LS_RTOL * abs(dphi0):
            break
        if dphi > 0:
            hi = t
        else:
            lo = t
        curv = dd + 2.0 * C * float(z @ problem.score_hessp(st, z))
        t_new = t - dphi / curv
        if not (lo < t_new < hi):
            t_new = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * t
        if abs(t_new - t) <= 1e-15 * max(1.0, abs(t)):
            break
        t = t_new
    return best


def _newton(problem, w, tol, max_iter):
    """Truncated Newton from w; returns (w, objective, n_iter, converged, grad norm, grad norm at 0)."""
    X, C = problem.X, problem.C
    d_dim = X.shape[1]
    m = X.shape[0]
    # reference gradient norm: at w = 0 every pair is active with r = 1
    loss0, coef0, _ = problem.at_scores(np.zeros(m))
    g0 = 2.0 * C * (X.T @ coef0)
    g0_norm = float(np.linalg.norm(g0))
    if not np.any(w):
        s = np.zeros(m)
        loss, g = loss0, g0
    else:
        s = X @ w
        loss, coef, _ = problem.at_scores(s)
        g = w + 2.0 * C * (X.T @ coef)
    f = 0.5 * float(w @ w) + C * loss
    g_norm = float(np.linalg.norm(g))
    it = 0
    converged = g_norm <= tol * g0_norm or g0_norm == 0.0
    max_cg = max(50, 2 * d_dim)
    while not converged and it < max_iter:
        it += 1
        t_start = time.perf_counter()
        _sort_within_queries(s, problem.query_ptr, problem.order)  # active set of the current w
        rtol = min(0.5, np.sqrt(g_norm / g0_norm))
        n_hv = problem.n_hv
        d, cg_it = _cg(problem, s, g, rtol, max_cg)
        z = X @ d
        t, loss, coef, n_active = _line_search(problem, w, d, s, z, float(g @ d))
        w = w + t * d
        s = s + t * z
        f_new = 0.5 * float(w @ w) + C * loss
        g = w + 2.0 * C * (X.T @ coef)
        g_norm = float(np.linalg.norm(g))
        if log.isEnabledFor(logging.DEBUG):
            log.debug("RankSVM-Primal iter %d: objective %.10g  |grad| %.3g (rel %.3g)  CG %d (Hv %d)  "
                      "step %.4g  active pairs %d  %.3f s", it, f_new, g_norm, g_norm / g0_norm, cg_it,
                      problem.n_hv - n_hv, t, n_active, time.perf_counter() - t_start)
        converged = g_norm <= tol * g0_norm
        stalled = f_new >= f and t * np.linalg.norm(d) <= 1e-14 * max(1.0, np.linalg.norm(w))
        f = f_new
        if stalled and not converged:  # pragma: no cover - rounding floor reached
            log.debug("RankSVM-Primal: no progress at |grad| %.3g (rel %.3g); stopping", g_norm, g_norm / g0_norm)
            break
    # exact objective at the returned w (the scores above were updated incrementally)
    s = X @ w
    loss, _, _ = problem.at_scores(s)
    f = 0.5 * float(w @ w) + C * loss
    return w, f, it, bool(converged), g_norm, g0_norm


# ----------------------------------------------------------------------------- estimator


class RankSVMPrimal(LinearScores, Ranker):
    """Linear RankSVM with the squared pairwise hinge (Chapelle & Keerthi 2010), pair-free
    truncated Newton in the primal.

    No validation-based early stopping: the method has none (it is solved to optimality);
    the validation arguments of ``fit`` are accepted and unused, and C is chosen on vali by the
    workflow from ``default_grid``.

    Parameters
    ----------
    C : float, default 1.0
        loss weight; the objective is ``1/2 ||w||^2 + C' sum_q sum_{y_i>y_j} max(0, 1 - w.(x_i - x_j))^2``
        with ``C' = C / n_queries`` by default (see ``loss_normalization``).
    tol : float, default 1e-6
        stop when ``||grad f(w)|| <= tol * ||grad f(0)||``.
    max_iter : int, default 100
        maximum number of Newton iterations; a ConvergenceWarning is issued when reached.
    loss_normalization : {"queries", "pairs", "none"}, default "queries"
        ``C' = C / n_queries`` (svm_rank's and ``RankSVM``'s convention), ``C / n_pairs`` or ``C``.
    warm_start : bool, default False
        start from the previous ``coef_`` (when it has the right width), e.g. along a C path.
    n_jobs : int, default 1
        threads for the BLAS calls (X @ v, X.T @ u); the pair sweeps are single-threaded.

    Attributes
    ----------
    coef_ : float64 (d,)
        weight vector; ``predict(X) = X @ coef_``
    objective_ : float
        f(coef_), computed exactly from ``X @ coef_``
    n_iter_ : int
        Newton iterations
    n_hessp_ : int
        Hessian-vector products (CG iterations, all Newton steps)
    converged_ : bool
        relative gradient norm <= tol within max_iter
    grad_norm_ : float
        ||grad f(coef_)||
    grad_norm0_ : float
        ||grad f(0)|| (the reference of ``tol``)
    C_effective_ : float
        C' of the objective
    seconds_ : float
        wall time of ``fit``
    n_features_in_ : int

    References
    ----------
    Chapelle and Keerthi. Efficient algorithms for ranking with SVMs. Information Retrieval
    13(3), 2010: eq. 2 with the squared hinge, minimised by truncated Newton in the primal.

    Examples
    --------
    >>> from ltrfs.rankers.ranksvm_primal import RankSVMPrimal
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankSVMPrimal().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "ranksvm_primal"
    default_grid = {"C": [1e-5 * 2**i for i in range(20)]}

    parameters = {"C": [Real(0, None, closed="neither")], "tol": [Real(0, None, closed="neither")],
                  "max_iter": [Integer(1)], "loss_normalization": [Options(*LOSS_NORMALIZATIONS)],
                  "warm_start": [Boolean()], "n_jobs": [Integer(1)]}

    def __init__(self, C=1.0, tol=1e-6, max_iter=100, loss_normalization="queries", warm_start=False,
                 n_jobs=1):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.loss_normalization = loss_normalization
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        """Truncated Newton on (X, y); ``vali`` is not used (C is chosen by the workflow's grid)."""
        start = time.perf_counter()
        m, d = X.shape
        n = len(query_ptr) - 1
        levels = levels_within_queries(y, query_ptr)
        n_pairs = int(count_pairs(y, query_ptr).sum())
        C = float(self.C)
        C_eff = {"queries": C / n, "pairs": C / max(n_pairs, 1), "none": C}[self.loss_normalization]
        w = np.zeros(d)
        previous = getattr(self, "coef_", None)
        if self.warm_start and previous is not None and len(previous) == d:
            w = np.array(previous, dtype=np.float64)
        problem = _Problem(X, levels, np.ascontiguousarray(query_ptr, dtype=np.int64), C_eff)
        if n_pairs == 0:
            log.warning("RankSVM-Primal: no query has two documents with different labels; coef_ = 0")
            w, f, it, converged, g_norm, g0_norm = np.zeros(d), 0.0, 0, True, 0.0, 0.0
        else:
            w, f, it, converged, g_norm, g0_norm = _newton(problem, w, float(self.tol), int(self.max_iter))
        if not converged:
            warnings.warn(f"RankSVM-Primal did not converge in max_iter={self.max_iter} Newton iterations "
                          f"(C={C:g}, relative gradient norm {g_norm / g0_norm:.3g} > tol={self.tol:g}); "
                          "increase max_iter", ConvergenceWarning, stacklevel=3)
        self.coef_ = w
        self.objective_ = float(f)
        self.n_iter_ = int(it)
        self.n_hessp_ = int(problem.n_hv)
        self.converged_ = bool(converged)
        self.grad_norm_ = float(g_norm)
        self.grad_norm0_ = float(g0_norm)
        self.C_effective_ = float(C_eff)
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("RankSVM-Primal done: C=%g, %d iterations, %d Hv, objective %.10g, rel |grad| %.3g, %.3f s",
                  self.C, self.n_iter_, self.n_hessp_, self.objective_,
                  self.grad_norm_ / self.grad_norm0_ if self.grad_norm0_ else 0.0, self.seconds_)


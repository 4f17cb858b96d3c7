"""FSMRank: joint feature selection and ranking by a non-negative weighted-L1 problem
(Lai, Pan, Tang, Yu, IEEE TNNLS 2013; docs/methods.md, section 'FSMRank'): the problem, its
solvers and the ranker.
The selectors built on it (``fsmrank``, ``fsmsvm``) are in ``ltrfs.selection.fsmrank``.

Problem (paper eq. 2). With the d features extended to 2d, ``X' = [X, -X]`` (m, 2d), weights
``w >= 0`` in R^2d and ``w_hat = w[:d] - w[d:]`` (d,), so that ``w.x' = w_hat.x``::

    min_{w >= 0}  F(w) = lambda1/2 w'Aw + lambda2 sum_i w_i / s_i + f(w)
    f(w) = (1/p) sum_{(i, j) in P} max(0, 1 - w_hat.(x_i - x_j))^2

P = the p pairs of documents of one query with y_i > y_j (all queries together). ``A`` (2d, 2d)
and ``s`` (2d,) are the paper's Pearson quantities on the 2d columns (section III-B):
``s_i = |corr(h_i, y)|`` and ``A_ij = |corr(h_i, h_j)|``; since |corr(-a, b)| = |corr(a, b)|,
``A = [[P, P], [P, P]]`` and ``s = [q, q]`` with ``q``, ``P`` the d-feature importance and
similarity of ``ltrfs.scoring.pearson`` (constant feature: q = EPS, row of P zero except the
diagonal). Ablations (Table III): ``similarity="identity"`` (A = I_2d) and ``importance="ones"``
(s = 1).

The pair sum is never materialised: ``ltrfs.rankers.ranksvm_primal.squared_hinge_pairs``
gives ``L(s) = sum_P max(0, 1 - (s_i - s_j))^2`` and ``c`` = half its gradient in score space
for scores ``s = X w_hat`` in O(n log n) per query, so f = L / p and
``grad f = [g, -g]`` with ``g = (2/p) X' c`` (d,).

Solver (``fsmrank_solve``, Algorithm 1): Nesterov's accelerated proximal gradient with
Nemirovski's line search. ``w_0 = z_1 = 0, alpha_1 = 1, gamma = 2, L = L0 / gamma^10`` with
``L0 = (4 + 2 lambda1) d`` (Theorem 1). Iteration t, with phi = F minus the linear term:

    g = grad phi(z_t)
    repeat:  w_t = max(0, (L z_t - g - lambda2 / s) / L)        (projection step, closed form)
             accept if phi(w_t) <= phi(z_t) + g.(w_t - z_t) + L/2 ||w_t - z_t||^2, else L <- gamma L
    stop if |F(w_t) - F(w_{t-1})| <= tol |F(w_{t-1})|   (tol = 1e-4)   or t = T (T = 400)
    alpha_{t+1} = (1 + sqrt(1 + 4 alpha_t^2)) / 2
    z_{t+1} = w_t + (alpha_t - 1) / alpha_{t+1} (w_t - w_{t-1})

L is never decreased (as in the paper). The line-search test accepts a violation of at most
``1e-12 max(1, |phi(z_t)|)`` (rounding of the pair sums; without it L would double forever once
the steps are at the level of rounding noise).

Baseline (``subgradient_solve``, the paper's Fig. 5): projected subgradient on the same F,
``w_t = max(0, w_{t-1} - eta_t G(w_{t-1}))`` with ``G = grad phi + lambda2 / s`` (the linear
term is differentiable on the orthant) and the diminishing step ``eta_t = step0 / sqrt(t)``;
``step0`` defaults to ``1 / L0`` (the paper's Lipschitz bound; the paper does not state its
step rule). Both solvers record F(w_t), the cumulative seconds and (FSMRank) L per iteration.

Convexity note: F is convex when A is positive semidefinite on the orthant directions used; an
absolute-correlation matrix need not be PSD, in which case the paper's convexity claim (and
Theorem 2) does not strictly hold; the solver runs all the same (the line search only needs
the local quadratic upper bound). ``pearson_min_eigenvalue_`` records the smallest eigenvalue of
the d x d Pearson similarity.

Scaling: the paper's features lie in [0, 1] (its L0 bound and Appendix II rely on it), so
every feature is min-max scaled on the training rows before the solve (``scale="minmax"``,
default; a no-op on LETOR's QueryLevelNorm files, needed on MSLR and raw OHSUMED) and the
same map is applied at prediction: with ``lo``, ``span`` (d,) of the training rows (span 1 for a
constant feature), ``predict(X) = X @ (w_hat / span) - lo @ (w_hat / span)``. ``scale="none"``
solves on the raw values. Feature order (``feature_order``): by the 2d weights w as the paper
sorts the extended features, i.e. feature i by max(w_i, w_{d+i}), which equals |w_hat_i|
whenever one of the two is 0.

The ranker ``FSMRank`` (``fsmrank``): fit solves at the given lambdas; ``predict(X) = X @ coef_
+ intercept_`` (the scaled model on raw features).
``default_grid`` (the paper gives none: "chosen by cross-validation") is the log grid
lambda1 in {0, 1e-3, 1e-2, 1e-1, 1} x lambda2 in {0, 1e-4, 1e-3, 1e-2, 1e-1}; the scales
follow from f(0) = 1 and |grad f(0)| = O(1) for features in [0, 1]: lambda2 / s_i above the
feature's |grad_i f(0)| removes it, so lambda2 = 0.1 already removes most features. The
selectors ``fsmrank`` and ``fsmsvm`` are in ``ltrfs.selection.fsmrank``.
"""
from __future__ import annotations

import logging
import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from ltrfs.checks import check_fit_inputs
from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, Options, Real, check_value
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.rankers.data_matrix import blas_threads, matvec, rmatvec
from ltrfs.rankers.pairs import count_pairs, levels_within_queries
from ltrfs.rankers.ranksvm_primal import squared_hinge_pairs
from ltrfs.scoring.pearson import pearson_scores

log = logging.getLogger(__name__)

SIMILARITIES = ("pearson", "identity")
IMPORTANCES = ("pearson", "ones")
SCALES = ("minmax", "none")
#: the lambda grids used when the paper gives none (see the module docstring)
LAMBDA1_GRID = (0.0, 1e-3, 1e-2, 1e-1, 1.0)
LAMBDA2_GRID = (0.0, 1e-4, 1e-3, 1e-2, 1e-1)
#: maximum number of L doublings in one line search (safety net; never reached in practice)
_MAX_DOUBLINGS = 200
#: accepted absolute violation of the line-search inequality, relative to max(1, |phi(z)|)
_LS_SLACK = 1e-12


# ----------------------------------------------------------------------------- problem


def extended_pearson(X, y, similarity: str = "pearson", importance: str = "pearson", pearson=None):
    """FSMRank's similarity A and importance s of the 2d extended features [X, -X].

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
    similarity : {"pearson", "identity"}, default "pearson"
        ``A = [[P, P], [P, P]]`` with ``P_ij = |corr(x_i, x_j)|``, or ``I_2d``.
    importance : {"pearson", "ones"}, default "pearson"
        ``s = [q, q]`` with ``q_i = |corr(x_i, y)|`` (at least ``pearson.EPS``), or ones.
    pearson : (q (d,), P (d, d)) or None
        Precomputed ``ltrfs.scoring.pearson.pearson_scores`` on the same rows.

    Returns
    -------
    (A float64 (2d, 2d), s float64 (2d,), P float64 (d, d) or None)

    References
    ----------
    Lai et al., IEEE TNNLS 2013, section III-B; Table III for the ablations.
    """
    d = np.asarray(X).shape[1]
    need = similarity == "pearson" or importance == "pearson"
    q = P = None
    if need:
        if pearson is None:
            pearson = pearson_scores(X, y)
        q, P = (np.asarray(a, dtype=np.float64) for a in pearson)
    A = np.tile(P, (2, 2)) if similarity == "pearson" else np.eye(2 * d)
    s = np.tile(q, 2) if importance == "pearson" else np.ones(2 * d)
    return np.ascontiguousarray(A), s, P


class FSMProblem:
    """FSMRank's problem ``F(w) = lambda1/2 w'Aw + lambda2 sum_i w_i / s_i + f(w)`` over w >= 0.

    Parameters
    ----------
    X : float32 or float64 ndarray, shape (m, d)
        Used as it is; products accumulate in float64.
    y : ndarray, shape (m,)
        Labels.
    query_ptr : int64 ndarray, shape (q + 1,)
    A : ndarray, shape (2d, 2d) or (d, d)
        Similarity (a (d, d) matrix is tiled to [[A, A], [A, A]]).
    s : ndarray, shape (2d,) or (d,)
        Importance (tiled).
    lambda1, lambda2 : float >= 0

    Attributes
    ----------
    p : int
        Number of labelled pairs (f = 0 when there are none).

    References
    ----------
    Lai et al., IEEE TNNLS 2013, eq. (2) (module docstring).
    """

    def __init__(self, X, y, query_ptr, A, s, lambda1: float, lambda2: float):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        self.X = np.ascontiguousarray(X)
        m, d = self.X.shape
        self.d = d
        self.query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
        self.levels = levels_within_queries(np.asarray(y), self.query_ptr)
        self.n_pairs = int(count_pairs(np.asarray(y), self.query_ptr).sum())
        self._p = float(max(self.n_pairs, 1))
        A = np.asarray(A, dtype=np.float64)
        if A.shape == (d, d):
            A = np.tile(A, (2, 2))
        if A.shape != (2 * d, 2 * d):
            raise ValueError(f"A must be ({d}, {d}) or ({2 * d}, {2 * d}); got {A.shape}")
        s = np.asarray(s, dtype=np.float64)
        if s.shape == (d,):
            s = np.tile(s, 2)
        if s.shape != (2 * d,) or not np.all(s > 0):
            raise ValueError(f"s must be ({d},) or ({2 * d},) with every entry > 0")
        self.A = np.ascontiguousarray(A)
        self.s = s
        self.lambda1 = float(lambda1)
        self.lambda2 = float(lambda2)
        self.r = self.lambda2 / s  # the linear (weighted-L1 on the orthant) term's gradient
        self._scores = np.empty(m, dtype=np.float64)
        self._gh = np.empty(d, dtype=np.float64)
        self.n_evals = 0

    def L0(self) -> float:
        """Theorem 1's bound ``(4 + 2 lambda1) d`` on the Lipschitz constant of grad phi."""
        return (4.0 + 2.0 * self.lambda1) * self.d

    @staticmethod
    def w_hat(w) -> np.ndarray:
        """The d-feature weights ``w[:d] - w[d:]`` of the 2d weights w."""
        d = len(w) // 2
        return w[:d] - w[d:]

    def scores(self, w_hat) -> np.ndarray:
        """Scores ``X @ w_hat`` (m,), float64."""
        if self.X.dtype == np.float64:
            return self.X @ w_hat
        matvec(self.X, np.ascontiguousarray(w_hat, dtype=np.float64), self._scores)
        return self._scores

    def pair_loss(self, w_hat) -> tuple[float, np.ndarray]:
        """The squared pairwise hinge part f and its score-space gradient.

        Parameters
        ----------
        w_hat : ndarray, shape (d,)

        Returns
        -------
        (float, float64 (m,))
            ``f = L / p`` and c, half the score-space gradient of L.
        """
        loss, coef = squared_hinge_pairs(self.scores(w_hat), self.levels, self.query_ptr)
        return loss / self._p, coef

    def smooth(self, w, grad: bool = True):
        """The smooth part ``phi = lambda1/2 w'Aw + f(w)`` and its gradient.

        Parameters
        ----------
        w : ndarray, shape (2d,)
        grad : bool, default True

        Returns
        -------
        (float, float64 (2d,) or None)
        """
        self.n_evals += 1
        f, coef = self.pair_loss(self.w_hat(w))
        Aw = self.A @ w
        phi = 0.5 * self.lambda1 * float(w @ Aw) + f
        if not grad:
            return phi, None
        if self.X.dtype == np.float64:
            gh = self.X.T @ coef
        else:
            rmatvec(self.X, coef, self._gh)
            gh = self._gh
        gh = (2.0 / self._p) * gh
        return phi, self.lambda1 * Aw + np.concatenate([gh, -gh])

    def objective(self, w) -> float:
        """F(w) for w >= 0."""
        return self.smooth(w, grad=False)[0] + float(self.r @ w)

    def gradient(self, w) -> np.ndarray:
        """grad F(w) = grad phi(w) + lambda2 / s (F is differentiable on the orthant)."""
        return self.smooth(w)[1] + self.r

    def kkt_violation(self, w) -> float:
        """Distance from optimality: ``max_i |min(w_i, G_i)|`` with ``G = grad F(w)``.

        0 exactly at a solution of min F over w >= 0 (G_i >= 0 everywhere, G_i = 0 where w_i > 0).

        Parameters
        ----------
        w : ndarray, shape (2d,)

        Returns
        -------
        float
        """
        G = self.gradient(w)
        return float(np.max(np.abs(np.minimum(w, G))))


@dataclass
class SolveResult:
    """Output of ``fsmrank_solve`` and ``subgradient_solve``.

    Attributes
    ----------
    w : float64 (2d,)
        The solution, >= 0.
    w_hat : float64 (d,)
        ``w[:d] - w[d:]``.
    objective : float
        F(w).
    n_iter : int
        Iterations done.
    converged : bool
        Stopped by the relative-change rule.
    objectives, seconds, lipschitz : float64 (n_iter + 1,)
        F(w_t) for t = 0..n_iter (t = 0 the start), cumulative wall time at each, and the L used
        by each iteration (FSMRank; the step 1/eta_t for the subgradient method).
    n_evals : int
        Oracle calls (pair sweeps).
    extra : dict
        Method-specific values (``best_objective`` for the subgradient method).
    """

    w: np.ndarray
    w_hat: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    objectives: np.ndarray
    seconds: np.ndarray
    lipschitz: np.ndarray
    n_evals: int
    method: str = "fsmrank"
    extra: dict = field(default_factory=dict)

    def trace(self) -> dict:
        """JSON-able convergence trace (for ``details_`` and Fig. 5).

        Returns
        -------
        dict
            ``method``, ``n_iter``, ``converged``, ``objective``, ``seconds``, ``lipschitz``,
            ``n_evals``.
        """
        return {"method": self.method, "n_iter": int(self.n_iter), "converged": bool(self.converged),
                "objective": [float(v) for v in self.objectives], "seconds": [round(float(v), 6) for v in self.seconds],
                "lipschitz": [float(v) for v in self.lipschitz], "n_evals": int(self.n_evals)}


def _check_solver_args(max_iter, tol, max_seconds):
    check_value("max_iter", max_iter, [Integer(1)])
    check_value("tol", tol, [Real(0)])
    if max_seconds is not None:
        check_value("max_seconds", max_seconds, [Real(0, None, closed="neither")])


def fsmrank_solve(problem: FSMProblem, *, max_iter: int = 400, tol: float = 1e-4, gamma: float = 2.0,
                  L0: float | None = None, max_seconds: float | None = None, w0=None) -> SolveResult:
    """Algorithm 1 of Lai et al.: accelerated proximal gradient with a line search.

    Parameters
    ----------
    problem : FSMProblem
    max_iter : int, default 400
        T.
    tol : float, default 1e-4
        Relative change of F that stops (0 runs T iterations).
    gamma : float, default 2.0
        Line-search factor.
    L0 : float or None
        Default ``(4 + 2 lambda1) d``; L starts at ``L0 / gamma^10``.
    max_seconds : float or None
        Wall-time limit, checked after each iteration.
    w0 : ndarray (2d,) >= 0 or None
        Start (default 0, the paper's).

    Returns
    -------
    SolveResult

    References
    ----------
    Lai et al., IEEE TNNLS 2013, Algorithm 1 and Theorem 2 (O(1/T^2) convergence).
    """
    _check_solver_args(max_iter, tol, max_seconds)
    if not (_is_number(gamma) and gamma > 1):
        raise ValueError(f"gamma must be a number > 1; got {gamma!r}")
    if L0 is None:
        L0 = problem.L0()
    if not (_is_number(L0) and L0 > 0):
        raise ValueError(f"L0 must be a number > 0; got {L0!r}")
    n2 = 2 * problem.d
    start = time.perf_counter()
    evals0 = problem.n_evals
    w_prev = np.zeros(n2) if w0 is None else np.maximum(np.asarray(w0, dtype=np.float64), 0.0)
    z = w_prev.copy()
    alpha = 1.0
    L = float(L0) / gamma ** 10
    F_prev = problem.objective(w_prev)
    objectives, seconds, lips = [F_prev], [time.perf_counter() - start], [L]
    converged = False
    w = w_prev
    it = 0
    for it in range(1, max_iter + 1):
        phi_z, g = problem.smooth(z)
        g_lin = g + problem.r
        for _ in range(_MAX_DOUBLINGS):
            w = np.maximum(z - g_lin / L, 0.0)  # = max(0, (L z - g - lambda2 / s) / L)
            diff = w - z
            dd = float(diff @ diff)
            phi_w, _ = problem.smooth(w, grad=False)
            if phi_w - phi_z - float(g @ diff) <= 0.5 * L * dd + _LS_SLACK * max(1.0, abs(phi_z)):
                break
            L *= gamma
        F = phi_w + float(problem.r @ w)
        objectives.append(F)
        seconds.append(time.perf_counter() - start)
        lips.append(L)
        if abs(F - F_prev) <= tol * abs(F_prev):
            converged = True
            break
        if max_seconds is not None and seconds[-1] >= max_seconds:
            break
        alpha_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * alpha * alpha))
        z = w + ((alpha - 1.0) / alpha_next) * (w - w_prev)
        w_prev, F_prev, alpha = w, F, alpha_next
    if log.isEnabledFor(logging.DEBUG):
        log.debug("FSMRank: lambda1=%g lambda2=%g, %d iterations, F=%.10g, L=%.4g, %.3f s", problem.lambda1,
                  problem.lambda2, it, objectives[-1], L, seconds[-1])
    return SolveResult(w=w, w_hat=problem.w_hat(w), objective=float(objectives[-1]), n_iter=it, converged=converged,
                       objectives=np.asarray(objectives), seconds=np.asarray(seconds), lipschitz=np.asarray(lips),
                       n_evals=problem.n_evals - evals0, method="fsmrank")


def subgradient_solve(problem: FSMProblem, *, max_iter: int = 400, tol: float = 0.0, step0: float | None = None,
                      max_seconds: float | None = None, w0=None) -> SolveResult:
    """Projected subgradient baseline on the same F (module docstring; the paper's Fig. 5).

    Step ``eta_t = step0 / sqrt(t)``.

    Parameters
    ----------
    problem : FSMProblem
    max_iter : int, default 400
    tol : float, default 0.0
        Relative change of F that stops (0: never).
    step0 : float or None
        Default ``1 / L0 = 1 / ((4 + 2 lambda1) d)``.
    max_seconds : float or None
    w0 : ndarray (2d,) >= 0 or None

    Returns
    -------
    SolveResult
        ``w`` is the last iterate; the best objective seen is in ``extra["best_objective"]``.
    """
    _check_solver_args(max_iter, tol, max_seconds)
    if step0 is None:
        step0 = 1.0 / problem.L0()
    if not (_is_number(step0) and step0 > 0):
        raise ValueError(f"step0 must be a number > 0; got {step0!r}")
    n2 = 2 * problem.d
    start = time.perf_counter()
    evals0 = problem.n_evals
    w = np.zeros(n2) if w0 is None else np.maximum(np.asarray(w0, dtype=np.float64), 0.0)
    phi, g = problem.smooth(w)
    F = phi + float(problem.r @ w)
    objectives, seconds, lips = [F], [time.perf_counter() - start], [1.0 / step0]
    best = F
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        eta = step0 / math.sqrt(it)
        w = np.maximum(w - eta * (g + problem.r), 0.0)
        phi, g = problem.smooth(w)
        F_new = phi + float(problem.r @ w)
        objectives.append(F_new)
        seconds.append(time.perf_counter() - start)
        lips.append(1.0 / eta)
        best = min(best, F_new)
        stop = abs(F_new - F) <= tol * abs(F)
        F = F_new
        if stop:
            converged = True
            break
        if max_seconds is not None and seconds[-1] >= max_seconds:
            break
    return SolveResult(w=w, w_hat=problem.w_hat(w), objective=float(F), n_iter=it, converged=converged,
                       objectives=np.asarray(objectives), seconds=np.asarray(seconds), lipschitz=np.asarray(lips),
                       n_evals=problem.n_evals - evals0, method="subgradient", extra={"best_objective": float(best)})


# ----------------------------------------------------------------------------- parameters


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)


def minmax_scaling(X, scale: str = "minmax") -> tuple[np.ndarray, np.ndarray]:
    """Per-feature offsets and spans that map X to [0, 1].

    Parameters
    ----------
    X : ndarray, shape (m, d)
    scale : {"minmax", "none"}, default "minmax"
        "none" gives (0, 1).

    Returns
    -------
    (lo float64 (d,), span float64 (d,))
        ``(X - lo) / span`` lies in [0, 1] (span 1 for a constant column).

    Examples
    --------
    >>> import numpy as np
    >>> minmax_scaling(np.array([[1.0, 5.0], [3.0, 5.0]]))
    (array([1., 5.]), array([2., 1.]))
    """
    d = np.asarray(X).shape[1]
    if scale == "none":
        return np.zeros(d), np.ones(d)
    lo = np.asarray(X.min(axis=0), dtype=np.float64)
    span = np.asarray(X.max(axis=0), dtype=np.float64) - lo
    span[~(span > 0)] = 1.0
    return lo, span


def apply_scaling(X, lo, span) -> np.ndarray:
    """``(X - lo) / span`` in X's float dtype (a copy; X itself untouched).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    lo, span : ndarray, shape (d,)

    Returns
    -------
    ndarray, shape (m, d)
    """
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    return ((X - lo.astype(dtype)) / span.astype(dtype)).astype(dtype, copy=False)


def scaled_inputs(X, y, similarity: str = "pearson", importance: str = "pearson", scale: str = "minmax",
                  pearson=None):
    """What ``FSMProblem`` needs besides the queries and lambdas, as every FSMRank fit builds it.

    A and s come from ``extended_pearson`` on X (correlation does not change under the scaling);
    X is min-max scaled on its rows (``minmax_scaling``).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
    similarity, importance, pearson
        As ``extended_pearson``.
    scale : {"minmax", "none"}, default "minmax"

    Returns
    -------
    (Xs, A, s, lo, span)
    """
    A, s, _ = extended_pearson(X, y, similarity, importance, pearson=pearson)
    lo, span = minmax_scaling(X, scale)
    return apply_scaling(X, lo, span), A, s, lo, span


def raw_model(w_hat, lo, span) -> tuple[np.ndarray, float]:
    """The model on raw features of weights learned on min-max scaled ones.

    Parameters
    ----------
    w_hat : ndarray, shape (d,)
    lo, span : ndarray, shape (d,)
        From ``minmax_scaling``.

    Returns
    -------
    (float64 (d,), float)
        ``coef = w_hat / span`` and ``intercept = -lo @ coef``.
    """
    coef = np.asarray(w_hat, dtype=np.float64) / span
    return coef, float(-(lo @ coef))


def feature_order(w, tie=None) -> tuple[np.ndarray, np.ndarray]:
    """FSMRank's feature order from the 2d weights: by ``max(w_i, w_{d+i})``, descending.

    Parameters
    ----------
    w : ndarray, shape (2d,)
    tie : ndarray, shape (d,), or None
        Ties by this descending, then lower index.

    Returns
    -------
    (int64 (d,), float64 (d,))
        (ranking, score).

    Examples
    --------
    >>> import numpy as np
    >>> feature_order(np.array([0.0, 0.3, 0.0, 0.5, 0.0, 0.0]))  # d = 3: feature 0 by w_3
    (array([0, 1, 2]), array([0.5, 0.3, 0. ]))
    """
    w = np.asarray(w, dtype=np.float64)
    d = w.size // 2
    score = np.maximum(w[:d], w[d:])
    tie = np.zeros(d) if tie is None else np.asarray(tie, dtype=np.float64)
    return np.lexsort((np.arange(d), -tie, -score)).astype(np.int64), score


#: the parameters the FSMRank ranker and the FSMRank/FSMSVM selectors share (problem and solver)
PROBLEM_PARAMETERS = {
    "similarity": [Options(*SIMILARITIES)],
    "importance": [Options(*IMPORTANCES)],
    "max_iter": [Integer(1)],
    "tol": [Real(0)],
    "n_jobs": [Integer(1)],
    "scale": [Options(*SCALES)],
}


# ----------------------------------------------------------------------------- ranker


@fill_doc
class FSMRank(LinearScores, Ranker):
    """FSMRank as a ranker: eq. (2) solved at the given lambdas, scores ``X @ coef_ + intercept_``.

    ``default_grid`` (lambda1 x lambda2, 25 points; the paper gives no grid) is chosen on vali
    by the workflow.

    Parameters
    ----------
    lambda1 : float >= 0, default 0.01
        Weight of the similarity penalty ``lambda1/2 w'Aw``.
    lambda2 : float >= 0, default 0.001
        Weight of the importance-weighted L1 term ``lambda2 sum_i w_i / s_i``.
    similarity : {"pearson", "identity"}, default "pearson"
        A: the Pearson similarity, or the identity (Table III ablation).
    importance : {"pearson", "ones"}, default "pearson"
        s: the Pearson importance, or ones (Table III ablation).
    max_iter : int >= 1, default 400
        T, the most iterations of Algorithm 1.
    tol : float >= 0, default 1e-4
        Stop when ``|F_t - F_{t-1}| <= tol |F_{t-1}|``.
    scale : {"minmax", "none"}, default "minmax"
        Features scaled to [0, 1] on the training rows (the paper's setting), or not.
    n_jobs : int >= 1, default 1
        BLAS threads (Pearson Gram matrix, float64 products).

    Attributes
    ----------
    coef_ : float64 (d,)
        The model on the raw features.
    intercept_ : float
        Its offset (``predict(X) = X @ coef_ + intercept_``; the same for every document, so it
        does not change the ranking).
    w_ : float64 (2d,)
        The solution on the scaled features [X, -X].
    scale_lo_, scale_span_ : float64 (d,)
        The min-max scaling (minimum and range on the training rows).
    objective_ : float
        F at the solution.
    n_iter_ : int
        Iterations run.
    converged_ : bool
        Whether the tolerance was met within ``max_iter``.
    trace_ : dict
        ``SolveResult.trace()``: the objective, time and Lipschitz estimate of every iteration.
    seconds_ : float
        Training time.

    References
    ----------
    Lai, Pan, Tang, Yu. FSMRank: feature selection algorithm for learning to rank. IEEE TNNLS
    2013: the problem eq. (2) on [X, -X] (section III), solved by the accelerated gradient method
    of Algorithm 1; Table III for the ablations. See docs/methods.md, section 'FSMRank'.

    Examples
    --------
    >>> from ltrfs.rankers.fsmrank import FSMRank
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = FSMRank().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.9
    """

    name = "fsmrank"
    default_grid = {"lambda1": list(LAMBDA1_GRID), "lambda2": list(LAMBDA2_GRID)}

    parameters = {"lambda1": [Real(0)], "lambda2": [Real(0)], **PROBLEM_PARAMETERS}

    def __init__(self, lambda1=0.01, lambda2=0.001, similarity="pearson", importance="pearson", max_iter=400,
                 tol=1e-4, n_jobs=1, scale="minmax"):
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.similarity = similarity
        self.importance = importance
        self.max_iter = max_iter
        self.tol = tol
        self.n_jobs = n_jobs
        self.scale = scale

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Solve eq. (2) at the given lambdas.

        %(fit_sections_unused_validation)s
        """
        self.validate_params()
        start = time.perf_counter()
        dtype = np.float32 if np.asarray(X).dtype == np.float32 else np.float64
        X, y, query_ptr = check_fit_inputs(X, y, qid, dtype=dtype)
        with blas_threads(self.n_jobs):
            Xs, A, s, lo, span = scaled_inputs(X, y, self.similarity, self.importance, self.scale)
            problem = FSMProblem(Xs, y, query_ptr, A, s, self.lambda1, self.lambda2)
            res = fsmrank_solve(problem, max_iter=int(self.max_iter), tol=float(self.tol))
        self.w_ = res.w
        self.scale_lo_, self.scale_span_ = lo, span
        self.coef_, self.intercept_ = raw_model(res.w_hat, lo, span)
        self.objective_ = res.objective
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.trace_ = res.trace()
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        return self

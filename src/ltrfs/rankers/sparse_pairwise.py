"""Sparse linear rankers on the pairwise squared hinge: the problems, solvers and paths that
FenchelRank (``ltrfs.rankers.fenchelrank``) and sparse RankSVM (``ltrfs.rankers.sparse_ranksvm``)
share (docs/methods.md, sections 'FenchelRank' and 'Sparse RankSVM').

The loss (both papers' pairwise squared hinge; P the p pairs of documents of one query with
y_i > y_j, all queries together)::

    f(w) = (1/p) sum_{(i, j) in P} max(0, 1 - w.(x_i - x_j))^2

is evaluated without ever forming a pair: ``ltrfs.rankers.ranksvm_primal.squared_hinge_pairs``
gives the pair sum and its score-space gradient in O(n log n) per query from the sorted scores
(as FSMRank does, ``ltrfs.rankers.fsmrank``), so ``grad f = (2/p) X' c``.

Problems:

- l1 ball (FenchelRank): ``min f(w)  s.t.  ||w||_1 <= r``. Solved by ``l1_ball_solve``:
  accelerated projected gradient (FISTA with backtracking, the step search of FSMRank's
  Algorithm 1 but with L also allowed to shrink, and adaptive restart; ``accelerated_prox``)
  with the exact Euclidean projection onto the l1 ball by sorting (``project_l1_ball``, Duchi
  et al. 2008). Every solve stops when
  the gradient mapping ``L (z - w)`` is at most ``tol ||grad f(0)||_inf`` in every entry (tol
  1e-4: scale-free, and unlike a small relative change of the objective it is not met by a
  solve that barely moves at a small radius) or after ``max_iter`` (500) iterations.
- Penalised (sparse RankSVM): ``min f(w) + lambda sum_j g(|w_j|)`` with g one of
  ``PENALTIES``, normalised so that ``g'(0) = 1`` (the paper's penalties up to a constant factor,
  which only rescales lambda; see ``penalty_value``). For ``l1`` (``g(t) = t``) one weighted-l1
  solve (``weighted_l1_solve``: FISTA with soft thresholding); for the concave penalties
  ``log``, ``mcp`` and ``lp``, reweighted l1 (``reweighted_l1_solve``): repeat
  ``w <- argmin f(w) + sum_j lambda g'(|w_j^old|) |w_j|``, a majorise-minimise step that never
  increases the penalised objective, until the weights stop changing or ``n_reweight`` solves.

Paths (``l1_ball_path``, ``penalty_path``): ``n_points`` log-spaced points, each solve warm
started from the previous one. Penalised: ``lambda_k = lambda_max * min_ratio^(k / (n - 1))``,
k = 0..n-1, with ``lambda_max = ||grad f(0)||_inf`` (``lambda_max``): every weight is 0 at
``lambda_max`` (the optimality condition of w = 0 is ``|grad_j f(0)| <= lambda g'(0) = lambda``
for every j) and not below it. l1 ball: the radius 0 keeps every weight at 0, so its path grows
the radius instead, ``r_k = r_max * min_ratio^((n - 1 - k) / (n - 1))``, from small to large, with
``r_max`` the l1 norm of the unconstrained minimiser of f reached by the same solver from w = 0
after at most ``max_iter`` iterations (``unconstrained_radius``; above it the constraint is
inactive).

Feature order along a path (``entry_order``): by the first point where a feature's weight is
non-zero (its entry), features entering at the same point by |w| at the densest point (the last)
descending, then by index; features that never enter come after them by index.

Scaling: features are min-max scaled on the training rows as FSMRank does (``scale="minmax"``,
a no-op on LETOR's QueryLevelNorm files); the models are returned on the raw features
(``ltrfs.rankers.fsmrank.raw_model``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ltrfs.params import Integer, Options, Real
from ltrfs.rankers.fsmrank import _matvec, _rmatvec
from ltrfs.rankers.ranksvm import count_pairs, label_levels
from ltrfs.rankers.ranksvm_primal import squared_hinge_pairs

#: docstring text the sparse rankers and selectors share (``ltrfs.docstrings.fill_doc``)
SPARSE_DOC = {
    "sparse_scale_parameters": """
scale : {"minmax", "none"}, default "minmax"
    Features scaled to [0, 1] on the training rows first, or not.
n_jobs : int >= 1, default 1
    BLAS threads.
""",
    "sparse_vali_parameters": """
convention : str, default "letor4"
    Metric convention of the vali metric.
ties : {"expected", "file_order"}, default "expected"
    How the vali metric ranks tied scores.
""",
    "sparse_reweight_parameters": """
n_reweight : int >= 1, default 5
    Most reweighted-l1 rounds (concave penalties; l1 needs one).
eps : float > 0, default 0.1
    Smoothing of log and lp.
gamma : float > 1, default 3.0
    MCP's concavity.
p : float in (0, 1), default 0.5
    The lp exponent.
""",
}

PENALTIES = ("l1", "log", "mcp", "lp")
SCALES = ("minmax", "none")
#: default number of path points and the ratio of the last to the first penalty (first to last radius)
N_POINTS = 20
MIN_RATIO = 1e-3
#: most step doublings in one backtracking search (a safety net)
_MAX_DOUBLINGS = 200
#: L is multiplied by this at the start of every iteration (then doubled until the bound holds),
#: so it follows the local curvature down again: half the oracle calls of a never-decreasing L
#: on an MQ2008 path
_L_SHRINK = 0.9
#: accepted absolute violation of the backtracking inequality, relative to max(1, f(z))
_LS_SLACK = 1e-12


class PairwiseLoss:
    """The pairwise squared hinge ``f(w) = (1/p) sum_P max(0, 1 - w.(x_i - x_j))^2`` and its gradient.

    Parameters
    ----------
    X : float32 or float64 ndarray, shape (m, d)
        Used as it is; products accumulate in float64.
    y : ndarray, shape (m,)
        Labels.
    query_ptr : int64 ndarray, shape (q + 1,)
        Query offsets.

    Attributes
    ----------
    n_pairs : int
        p, the number of labelled pairs (f = 0 when there are none).
    n_evals : int
        Oracle calls so far (each one sweep over the sorted scores of every query).
    """

    def __init__(self, X, y, query_ptr):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        self.X = np.ascontiguousarray(X)
        self.d = self.X.shape[1]
        self.query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
        self.levels = label_levels(np.asarray(y), self.query_ptr)
        self.n_pairs = int(count_pairs(np.asarray(y), self.query_ptr).sum())
        self._p = float(max(self.n_pairs, 1))
        self._g = np.empty(self.d, dtype=np.float64)
        self.n_evals = 0
        self._grad0 = None

    def __call__(self, w, grad: bool = True):
        """f(w) and (when ``grad``) its gradient.

        Parameters
        ----------
        w : ndarray, shape (d,)
        grad : bool, default True

        Returns
        -------
        (float, float64 (d,) or None)
        """
        return self.at_scores(self.scores(w), grad)

    def scores(self, w) -> np.ndarray:
        """A new float64 array ``X @ w`` (m,) (products accumulate in float64).

        Parameters
        ----------
        w : ndarray, shape (d,)

        Returns
        -------
        float64 (m,)
        """
        w = np.ascontiguousarray(w, dtype=np.float64)
        if self.X.dtype == np.float64:
            return self.X @ w
        out = np.empty(self.X.shape[0], dtype=np.float64)
        _matvec(self.X, w, out)
        return out

    def at_scores(self, scores, grad: bool = True):
        """f and (when ``grad``) its gradient at the w whose scores ``X @ w`` are given: the
        solvers form the scores of an extrapolated point from two computed ones (scores are
        linear in w), saving a pass over X.

        Parameters
        ----------
        scores : float64 ndarray, shape (m,)
        grad : bool, default True

        Returns
        -------
        (float, float64 (d,) or None)
        """
        self.n_evals += 1
        loss, coef = squared_hinge_pairs(scores, self.levels, self.query_ptr)
        if not grad:
            return loss / self._p, None
        if self.X.dtype == np.float64:
            g = self.X.T @ coef
        else:
            _rmatvec(self.X, coef, self._g)
            g = self._g.copy()
        return loss / self._p, (2.0 / self._p) * g

    def gradient_scale(self) -> float:
        """``||grad f(0)||_inf`` (at least 1e-12), computed once: the scale of the stopping rule."""
        if self._grad0 is None:
            _, g = self(np.zeros(self.d))
            self._grad0 = max(float(np.max(np.abs(g), initial=0.0)), 1e-12)
        return self._grad0

    def lipschitz_bound(self) -> float:
        """An upper bound of the Lipschitz constant of grad f: ``2 max_i ||x_i||^2 * 4`` (since
        ``||x_i - x_j||^2 <= 4 max ||x||^2`` and f averages the pairs' ``2 (x_i - x_j)(x_i - x_j)'``)."""
        sq = np.einsum("ij,ij->i", self.X, self.X, dtype=np.float64)
        return 8.0 * float(sq.max(initial=0.0)) + 1e-12


# ----------------------------------------------------------------------------- proximal maps


def soft_threshold(v, t) -> np.ndarray:
    """The proximal map of ``sum_j t_j |w_j|``: ``sign(v) max(|v| - t, 0)``.

    Parameters
    ----------
    v : ndarray, shape (d,)
    t : float or ndarray, shape (d,), >= 0

    Returns
    -------
    float64 (d,)

    Examples
    --------
    >>> import numpy as np
    >>> soft_threshold(np.array([3.0, -0.5, -2.0]), 1.0)
    array([ 2., -0., -1.])
    """
    v = np.asarray(v, dtype=np.float64)
    return np.sign(v) * np.maximum(np.abs(v) - t, 0.0)


def project_l1_ball(v, radius: float) -> np.ndarray:
    """The Euclidean projection of v onto ``{w : ||w||_1 <= radius}``, exactly, by sorting.

    Parameters
    ----------
    v : ndarray, shape (d,)
    radius : float >= 0

    Returns
    -------
    float64 (d,)
        v itself when it lies in the ball; otherwise ``soft_threshold(v, theta)`` with the theta
        >= 0 that puts it on the sphere (Duchi, Shalev-Shwartz, Singer, Chandra, ICML 2008).

    Examples
    --------
    >>> import numpy as np
    >>> project_l1_ball(np.array([3.0, -1.0, 0.5]), 2.0)
    array([ 2., -0.,  0.])
    """
    v = np.asarray(v, dtype=np.float64)
    a = np.abs(v)
    if a.sum() <= radius:
        return v.copy()
    if radius <= 0:
        return np.zeros_like(v)
    u = np.sort(a)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, len(u) + 1)
    rho = np.flatnonzero(u - (css - radius) / k > 0)[-1]
    theta = (css[rho] - radius) / (rho + 1.0)
    return soft_threshold(v, theta)


# ----------------------------------------------------------------------------- solver


@dataclass
class PathPoint:
    """One solve: the weights and how they were reached.

    Attributes
    ----------
    w : float64 (d,)
        The solution on the (scaled) features.
    objective : float
        The problem's objective at w (loss plus penalty; the loss for the l1 ball).
    loss : float
        f(w).
    n_iter : int
        Proximal-gradient iterations (all reweighting rounds together).
    converged : bool
        Whether every solve met the tolerance.
    lipschitz : float
        The final step constant L (step 1/L), carried to the next point of a path.
    extra : dict
        ``lambda`` or ``radius``, ``n_reweight`` for the reweighted solves.
    """

    w: np.ndarray
    objective: float
    loss: float
    n_iter: int
    converged: bool
    lipschitz: float
    extra: dict = field(default_factory=dict)


def accelerated_prox(loss: PairwiseLoss, prox, h, w0, *, L=None, max_iter: int = 500,
                     tol: float = 1e-4) -> PathPoint:
    """FISTA with backtracking and adaptive restart: ``min f(w) + h(w)`` for a prox-friendly h.

    Iteration t from the extrapolated point z (z = w_0 at the start)::

        g = grad f(z)
        L <- 0.9 L
        repeat:  w_t = prox_{h/L}(z - g/L);  accept if f(w_t) <= f(z) + g.(w_t - z) + L/2 ||w_t - z||^2,
                 else L <- 2L
        stop if L ||w_t - z||_inf <= tol * ||grad f(0)||_inf  (the gradient mapping at z: 0 exactly
                                                               at a solution; scale-free)
        if (z - w_t).(w_t - w_{t-1}) > 0: restart (z = w_t, alpha = 1)   (O'Donoghue & Candes 2015)
        else: alpha' = (1 + sqrt(1 + 4 alpha^2)) / 2,  z = w_t + (alpha - 1)/alpha' (w_t - w_{t-1})

    Parameters
    ----------
    loss : PairwiseLoss
        f.
    prox : callable (v, step) -> w
        The proximal map of ``step * h`` (a projection for an indicator).
    h : callable w -> float
        The non-smooth part's value (0 on the feasible set for an indicator).
    w0 : ndarray, shape (d,)
        Start (made feasible by one prox step of size 0).
    L : float or None
        Starting step constant (default ``loss.lipschitz_bound() / 2^10``; FSMRank's Algorithm 1
        never decreases its L, this solver lets it shrink by 0.9 per iteration: on an MQ2008
        path it needs half the oracle calls).
    max_iter : int, default 500
    tol : float, default 1e-4
        Stopping tolerance of the gradient mapping, relative to ``||grad f(0)||_inf``.

    Returns
    -------
    PathPoint
    """
    if L is None:
        L = loss.lipschitz_bound() / 2.0 ** 10
    target = tol * loss.gradient_scale()
    w_prev = prox(np.asarray(w0, dtype=np.float64), 0.0)
    s_prev = loss.scores(w_prev)  # scores X w are linear in w: those of z follow from w's and w_prev's
    z, s_z, alpha, w, f_w = w_prev.copy(), s_prev.copy(), 1.0, w_prev, None
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        f_z, g = loss.at_scores(s_z)
        L *= _L_SHRINK
        for _ in range(_MAX_DOUBLINGS):
            w = prox(z - g / L, 1.0 / L)
            diff = w - z
            s_w = loss.scores(w)
            f_w, _ = loss.at_scores(s_w, grad=False)
            if f_w - f_z - float(g @ diff) <= 0.5 * L * float(diff @ diff) + _LS_SLACK * max(1.0, abs(f_z)):
                break
            L *= 2.0
        if L * float(np.max(np.abs(diff), initial=0.0)) <= target:
            converged = True
            break
        if float((z - w) @ (w - w_prev)) > 0:  # the momentum points uphill: restart it
            z, s_z, alpha = w.copy(), s_w.copy(), 1.0
        else:
            alpha_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * alpha * alpha))
            beta = (alpha - 1.0) / alpha_next
            z, s_z = w + beta * (w - w_prev), s_w + beta * (s_w - s_prev)
            alpha = alpha_next
        w_prev, s_prev = w, s_w
    if f_w is None:  # max_iter 0 cannot happen (checked), kept for clarity
        f_w, _ = loss(w, grad=False)
    return PathPoint(w=w, objective=float(f_w + h(w)), loss=float(f_w), n_iter=it, converged=converged,
                     lipschitz=float(L))


def l1_ball_solve(loss: PairwiseLoss, radius: float, w0=None, **solver) -> PathPoint:
    """FenchelRank's problem ``min f(w) s.t. ||w||_1 <= radius`` by accelerated projected gradient.

    Parameters
    ----------
    loss : PairwiseLoss
    radius : float >= 0
    w0 : ndarray (d,) or None
        Start (default 0).
    **solver
        ``L``, ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    PathPoint
        ``extra["radius"]``.
    """
    w0 = np.zeros(loss.d) if w0 is None else w0
    res = accelerated_prox(loss, lambda v, step: project_l1_ball(v, radius), lambda w: 0.0, w0, **solver)
    res.extra["radius"] = float(radius)
    return res


def weighted_l1_solve(loss: PairwiseLoss, weights, w0=None, **solver) -> PathPoint:
    """``min f(w) + sum_j weights_j |w_j|`` by FISTA with soft thresholding.

    Parameters
    ----------
    loss : PairwiseLoss
    weights : ndarray, shape (d,), >= 0
        The per-feature l1 weights (lambda g'(|w_j|) in a reweighting round).
    w0 : ndarray (d,) or None
        Start (default 0).
    **solver
        ``L``, ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    PathPoint
    """
    weights = np.asarray(weights, dtype=np.float64)
    w0 = np.zeros(loss.d) if w0 is None else w0
    if not np.any(w0):  # w = 0 is optimal when |grad_j f(0)| <= weights_j for every j: exactly 0, no rounding
        f0, g0 = loss(np.zeros(loss.d))
        if np.all(np.abs(g0) <= weights * (1.0 + 1e-12)):
            L = solver.get("L")
            return PathPoint(w=np.zeros(loss.d), objective=float(f0), loss=float(f0), n_iter=0, converged=True,
                             lipschitz=float(L if L is not None else loss.lipschitz_bound() / 2.0 ** 10))
    return accelerated_prox(loss, lambda v, step: soft_threshold(v, step * weights),
                            lambda w: float(weights @ np.abs(w)), w0, **solver)


# ----------------------------------------------------------------------------- penalties


def penalty_value(w, lam: float, penalty: str = "l1", *, eps: float = 0.1, gamma: float = 3.0,
                  p: float = 0.5) -> float:
    """``lambda sum_j g(|w_j|)``, g normalised to ``g(0) = 0, g'(0) = 1``.

    Parameters
    ----------
    w : ndarray, shape (d,)
    lam : float >= 0
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
        l1: ``g(t) = t``; log: ``eps log(1 + t/eps)``; mcp (minimax concave penalty):
        ``t - t^2 / (2 gamma lam)`` for ``t <= gamma lam``, else ``gamma lam / 2``; lp (p < 1):
        ``(eps/p) ((1 + t/eps)^p - 1)``.
    eps : float > 0, default 0.1
        The smoothing of log and lp.
    gamma : float > 1, default 3.0
        MCP's concavity.
    p : float in (0, 1), default 0.5
        The lp exponent.

    Returns
    -------
    float
    """
    t = np.abs(np.asarray(w, dtype=np.float64))
    if penalty == "l1":
        g = t
    elif penalty == "log":
        g = eps * np.log1p(t / eps)
    elif penalty == "mcp":
        if lam <= 0:
            return 0.0
        g = np.where(t <= gamma * lam, t - t * t / (2.0 * gamma * lam), 0.5 * gamma * lam)
    elif penalty == "lp":
        g = (eps / p) * ((1.0 + t / eps) ** p - 1.0)
    else:
        raise ValueError(f"penalty must be one of {', '.join(PENALTIES)}; got {penalty!r}")
    return float(lam * g.sum())


def penalty_weights(w, lam: float, penalty: str = "l1", *, eps: float = 0.1, gamma: float = 3.0,
                    p: float = 0.5) -> np.ndarray:
    """The reweighted-l1 weights ``lambda g'(|w_j|)`` (the slope of the concave penalty at w).

    Parameters
    ----------
    w : ndarray, shape (d,)
    lam : float >= 0
    penalty, eps, gamma, p
        As ``penalty_value``: l1 ``1``; log ``1 / (1 + |w|/eps)``; mcp ``max(0, 1 - |w| /
        (gamma lam))``; lp ``(1 + |w|/eps)^(p - 1)``.

    Returns
    -------
    float64 (d,)
    """
    t = np.abs(np.asarray(w, dtype=np.float64))
    if penalty == "l1":
        slope = np.ones_like(t)
    elif penalty == "log":
        slope = 1.0 / (1.0 + t / eps)
    elif penalty == "mcp":
        slope = np.maximum(0.0, 1.0 - t / (gamma * lam)) if lam > 0 else np.zeros_like(t)
    elif penalty == "lp":
        slope = (1.0 + t / eps) ** (p - 1.0)
    else:
        raise ValueError(f"penalty must be one of {', '.join(PENALTIES)}; got {penalty!r}")
    return lam * slope


def reweighted_l1_solve(loss: PairwiseLoss, lam: float, penalty: str = "l1", w0=None, *, n_reweight: int = 5,
                        eps: float = 0.1, gamma: float = 3.0, p: float = 0.5, L=None, max_iter: int = 500,
                        tol: float = 1e-4) -> PathPoint:
    """Sparse RankSVM at one lambda: ``min f(w) + lambda sum_j g(|w_j|)`` by reweighted l1.

    Each round solves the weighted-l1 problem with weights ``penalty_weights(w_old)`` (the
    concave penalty's linear majoriser at w_old), warm started from w_old; ``l1`` needs one
    round. Stops when the support and weights repeat (``max |w - w_old| <= 1e-8 (1 + max|w|)``)
    or after ``n_reweight`` rounds.

    Parameters
    ----------
    loss : PairwiseLoss
    lam : float >= 0
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
    w0 : ndarray (d,) or None
        The first round's reweighting point and start (default 0: the first round is l1).
    n_reweight : int >= 1, default 5
        Most rounds.
    eps, gamma, p
        As ``penalty_value``.
    L, max_iter, tol
        As ``accelerated_prox`` (per round).

    Returns
    -------
    PathPoint
        ``objective`` the penalised objective; ``extra``: ``lambda``, ``n_reweight`` (rounds run).
    """
    w = np.zeros(loss.d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    rounds = 1 if penalty == "l1" else int(n_reweight)
    n_iter, converged, res = 0, True, None
    shape = {"eps": eps, "gamma": gamma, "p": p}
    for r in range(1, rounds + 1):
        res = weighted_l1_solve(loss, penalty_weights(w, lam, penalty, **shape), w0=w, L=L, max_iter=max_iter,
                                tol=tol)
        n_iter += res.n_iter
        converged = converged and res.converged
        L = res.lipschitz
        change = float(np.max(np.abs(res.w - w), initial=0.0))
        w = res.w
        if change <= 1e-8 * (1.0 + float(np.max(np.abs(w), initial=0.0))):
            break
    res.extra.update({"lambda": float(lam), "n_reweight": r})
    return PathPoint(w=w, objective=res.loss + penalty_value(w, lam, penalty, **shape), loss=res.loss,
                     n_iter=n_iter, converged=converged, lipschitz=float(L), extra=res.extra)


# ----------------------------------------------------------------------------- paths


def lambda_max(loss: PairwiseLoss) -> float:
    """The smallest lambda at which w = 0 solves the penalised problem: ``||grad f(0)||_inf``.

    Parameters
    ----------
    loss : PairwiseLoss

    Returns
    -------
    float
        Valid for every penalty of ``PENALTIES`` (all have ``g'(0) = 1``).
    """
    _, g = loss(np.zeros(loss.d))
    return float(np.max(np.abs(g), initial=0.0))


def path_grid(top: float, n_points: int, min_ratio: float, increasing: bool = False) -> np.ndarray:
    """``n_points`` log-spaced values from ``top`` down to ``min_ratio * top`` (or up, ``increasing``).

    Parameters
    ----------
    top : float > 0
    n_points : int >= 1
    min_ratio : float in (0, 1)
    increasing : bool, default False

    Returns
    -------
    float64 (n_points,)

    Examples
    --------
    >>> path_grid(1.0, 3, 0.01)
    array([1.  , 0.1 , 0.01])
    """
    k = np.arange(n_points, dtype=np.float64)
    grid = top * min_ratio ** (k / max(n_points - 1, 1))
    return grid[::-1].copy() if increasing else grid


def unconstrained_radius(loss: PairwiseLoss, *, max_iter: int = 500, tol: float = 1e-4) -> tuple[float, PathPoint]:
    """``r_max``: the l1 norm of the unconstrained minimiser of f reached by FISTA from w = 0.

    Parameters
    ----------
    loss : PairwiseLoss
    max_iter, tol
        As ``accelerated_prox``.

    Returns
    -------
    (float, PathPoint)
        The radius (at least 1e-12) and the solve.
    """
    res = accelerated_prox(loss, lambda v, step: v, lambda w: 0.0, np.zeros(loss.d), max_iter=max_iter, tol=tol)
    return max(float(np.abs(res.w).sum()), 1e-12), res


def l1_ball_path(loss: PairwiseLoss, radii, **solver) -> list[PathPoint]:
    """FenchelRank along increasing radii, each solve warm started from the previous one.

    Parameters
    ----------
    loss : PairwiseLoss
    radii : sequence of float >= 0
        Increasing.
    **solver
        ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    list of PathPoint
    """
    points, w, L = [], None, None
    for r in radii:
        start = time.perf_counter()
        res = l1_ball_solve(loss, float(r), w0=w, L=L, **solver)
        res.extra["seconds"] = time.perf_counter() - start
        points.append(res)
        w, L = res.w, res.lipschitz
    return points


def penalty_path(loss: PairwiseLoss, lambdas, penalty: str = "l1", **solver) -> list[PathPoint]:
    """Sparse RankSVM along decreasing lambdas, each point warm started (and, for the concave
    penalties, first reweighted) at the previous point's solution.

    Parameters
    ----------
    loss : PairwiseLoss
    lambdas : sequence of float >= 0
        Decreasing.
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
    **solver
        ``n_reweight``, ``eps``, ``gamma``, ``p``, ``max_iter``, ``tol`` of ``reweighted_l1_solve``.

    Returns
    -------
    list of PathPoint
    """
    points, w, L = [], None, None
    for lam in lambdas:
        start = time.perf_counter()
        res = reweighted_l1_solve(loss, float(lam), penalty, w0=w, L=L, **solver)
        res.extra["seconds"] = time.perf_counter() - start
        points.append(res)
        w, L = res.w, res.lipschitz
    return points


def entry_order(W) -> tuple[np.ndarray, np.ndarray]:
    """Features by where they enter a path (module docstring).

    Parameters
    ----------
    W : ndarray, shape (n_points, d)
        The weights along the path, sparsest point first.

    Returns
    -------
    (int64 (d,), int64 (d,))
        The ranking, and each feature's entry point (``n_points`` for one that never enters).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0], [0.2, 0.4, 0.0, -0.3]])
    >>> entry_order(W)       # 1 enters first; 0 and 3 together (|w| at the end 0.2 < 0.3); 2 never
    (array([1, 3, 0, 2]), array([2, 1, 3, 2]))
    """
    W = np.asarray(W, dtype=np.float64)
    n, d = W.shape
    nonzero = W != 0
    entry = np.where(nonzero.any(axis=0), np.argmax(nonzero, axis=0), n).astype(np.int64)
    last = np.abs(W[-1]) if n else np.zeros(d)
    return np.lexsort((np.arange(d), -last, entry)).astype(np.int64), entry


#: the parameters the sparse path rankers and selectors share (problem and solver)
SOLVER_PARAMETERS = {
    "max_iter": [Integer(1)],
    "tol": [Real(0)],
    "scale": [Options(*SCALES)],
    "n_jobs": [Integer(1)],
}


def scaled_loss(X, y, query_ptr, scale: str = "minmax") -> tuple[PairwiseLoss, np.ndarray, np.ndarray]:
    """The pairwise loss on min-max scaled features, as every fit of these methods builds it.

    Parameters
    ----------
    X : ndarray, shape (m, d)
        float32 stays float32 (products accumulate in float64).
    y : ndarray, shape (m,)
    query_ptr : int64 ndarray, shape (q + 1,)
    scale : {"minmax", "none"}, default "minmax"

    Returns
    -------
    (PairwiseLoss, lo float64 (d,), span float64 (d,))
        The loss on ``(X - lo) / span`` and the scaling (``ltrfs.rankers.fsmrank.minmax_scaling``).
    """
    from ltrfs.rankers.fsmrank import apply_scaling, minmax_scaling

    lo, span = minmax_scaling(X, scale)
    return PairwiseLoss(apply_scaling(X, lo, span), y, query_ptr), lo, span

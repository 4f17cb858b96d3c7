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
  et al. 2008), and a Newton step on the face of w (its support and signs, on the sphere
  ``||w||_1 = r``; ``face_newton``) whenever the support has not changed for 5 iterations: f is
  piecewise quadratic and badly conditioned along the solution's face (MQ2008), where FISTA
  alone needs thousands of iterations. A solve is converged when the Frank-Wolfe gap
  ``G(w) = grad f(w).w + r ||grad f(w)||_inf`` (``ball_gap``; ``f(w) - min f <= G(w)`` over the
  ball) is at most ``tol f(w)`` (tol 1e-6: the objective within a relative 1e-6 of the optimum);
  otherwise it stops after ``max_iter`` (500) iterations with ``converged`` False.
- Penalised (sparse RankSVM): ``min f(w) + lambda sum_j g(|w_j|)`` with g one of
  ``PENALTIES``, normalised so that ``g'(0) = 1`` (the paper's penalties up to a constant factor,
  which only rescales lambda; see ``penalty_value``). For ``l1`` (``g(t) = t``) one weighted-l1
  solve (``weighted_l1_solve``: FISTA with soft thresholding and the same Newton steps on the
  face); for the concave penalties ``log``, ``mcp`` and ``lp``, reweighted l1
  (``reweighted_l1_solve``): repeat ``w <- argmin f(w) + sum_j lambda g'(|w_j^old|) |w_j|``, a
  majorise-minimise step that never increases the penalised objective, until w is stationary,
  repeats, or after ``n_reweight`` (50) solves (MQ2008 Fold 1's log path: up to 31). Converged
  when the largest violation of the optimality conditions (``l1_kkt_violation``: ``|grad_j f +
  lambda g'(|w_j|) sign(w_j)|`` for ``w_j != 0``, ``max(|grad_j f| - lambda, 0)`` for ``w_j =
  0``) is at most ``tol lambda`` (tol 1e-5); for a concave penalty these are the conditions of a
  stationary point.

Neither rule is a small step or a small change of the objective: both are certificates at the
returned w, computed from ``grad f(w)``, which the backtracking evaluates anyway.

Paths (``l1_ball_path``, ``penalty_path``): ``n_points`` log-spaced points, each solve warm
started from the previous one. Penalised: ``lambda_k = lambda_max * min_ratio^(k / (n - 1))``,
k = 0..n-1, with ``lambda_max = ||grad f(0)||_inf`` (``lambda_max``): every weight is 0 at
``lambda_max`` (the optimality condition of w = 0 is ``|grad_j f(0)| <= lambda g'(0) = lambda``
for every j) and not below it. l1 ball: the radius 0 keeps every weight at 0, so its path grows
the radius instead, ``r_k = r_max * min_ratio^((n - 1 - k) / (n - 1))``, from small to large, with
``r_max`` the l1 norm of the unconstrained minimiser of f (``unconstrained_radius``: Newton's
method with conjugate gradients on the generalised Hessian, to ``||grad f||_inf <= 1e-10
||grad f(0)||_inf``; above r_max the constraint is inactive, and the path's last point is that
minimiser). FISTA is not used for r_max: on MQ2008 Fold 1 the minimiser's l1 norm is 43.35,
which FISTA's relative gradient test of 1e-4 stopped at 15.2 and 20000 iterations still miss by 0.2%.

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
from ltrfs.rankers.data_matrix import matvec, matvec_columns, rmatvec
from ltrfs.rankers.pairs import count_pairs, levels_within_queries
from ltrfs.rankers.ranksvm_primal import sort_within_queries, squared_hinge_hessp, squared_hinge_pairs

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
n_reweight : int >= 1, default 50
    Most reweighted-l1 rounds (concave penalties; l1 needs one); the rounds stop earlier when w
    is stationary to tol or repeats.
eps : float > 0, default 0.1
    Smoothing of log and lp.
gamma : float > 1, default 3.0
    MCP's concavity.
p : float in (0, 1), default 0.5
    The lp exponent.
""",
}

#: the largest float32 training matrix (bytes) whose transposed copy ``PairwiseLoss`` keeps for its
#: products (``PairwiseLoss.XT``): the copy doubles X's memory, so a full-size fold (MSLR-WEB30K's
#: 1.2 GB) keeps the row-by-row products and the memory its jobs were calibrated with
TRANSPOSED_BYTES = 256 * 2**20
PENALTIES = ("l1", "log", "mcp", "lp")
SCALES = ("minmax", "none")
#: default number of path points and the ratio of the last to the first penalty (first to last radius)
N_POINTS = 20
MIN_RATIO = 1e-3
#: default tolerances: the l1 ball's relative Frank-Wolfe gap, the penalised problems' KKT
#: violation relative to lambda (``accelerated_prox``, ``reweighted_l1_solve``)
TOL_BALL = 1e-6
TOL_PENALTY = 1e-5
#: most reweighted-l1 rounds of the concave penalties
N_REWEIGHT = 50
#: Newton's method for the unconstrained minimiser (r_max): most steps, relative gradient
NEWTON_MAX_ITER = 50
NEWTON_TOL = 1e-10
#: FISTA iterations with the same support and signs before a Newton step on that face
_NEWTON_AFTER = 5
#: relative residual of the conjugate gradients of a face step
_FACE_CG_RTOL = 1e-6
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
        self.levels = levels_within_queries(np.asarray(y), self.query_ptr)
        self.n_pairs = int(count_pairs(np.asarray(y), self.query_ptr).sum())
        self._p = float(max(self.n_pairs, 1))
        self._g = np.empty(self.d, dtype=np.float64)
        self.n_evals = 0
        self._grad0 = None
        self._XT = None
        self._all_columns = np.arange(self.d, dtype=np.int64)

    @property
    def XT(self) -> np.ndarray | None:
        """``X.T`` C-contiguous, made on first use, for the products ``X @ w`` column by column
        (``ltrfs.rankers.data_matrix.matvec_columns``: the same sums, 2-4x faster); None for a
        float64 X (NumPy's products) or one above ``TRANSPOSED_BYTES`` (row by row, ``matvec``)."""
        if self._XT is None and self.X.dtype == np.float32 and self.X.nbytes <= TRANSPOSED_BYTES:
            self._XT = np.ascontiguousarray(self.X.T)
        return self._XT

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
        if self.XT is None:
            matvec(self.X, w, out)
        else:
            matvec_columns(self.XT, self._all_columns, w, out)
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
            rmatvec(self.X, coef, self._g)
            g = self._g.copy()
        return loss / self._p, (2.0 / self._p) * g

    def hessp(self, scores, v, order=None) -> np.ndarray:
        """The generalised Hessian of f at the w whose scores are given, applied to v:
        ``(2/p) X' A X v``, A the pair Laplacian of the active pairs (``squared_hinge_hessp``).

        Parameters
        ----------
        scores : float64 ndarray, shape (m,)
        v : ndarray, shape (d,)
        order : int64 ndarray (m,) or None
            ``sort_within_queries(scores, query_ptr)`` (computed when None).

        Returns
        -------
        float64 (d,)
        """
        self.n_evals += 1
        u = squared_hinge_hessp(scores, self.levels, self.query_ptr, self.scores(v), order)
        if self.X.dtype == np.float64:
            out = self.X.T @ u
        else:
            rmatvec(self.X, u, self._g)
            out = self._g.copy()
        return (2.0 / self._p) * out

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


# ----------------------------------------------------------------------------- optimality


def ball_gap(w, g, radius: float) -> float:
    """The Frank-Wolfe (duality) gap of ``min f s.t. ||w||_1 <= radius`` at a feasible w.

    ``G(w) = max_{||v||_1 <= r} g.(w - v) = g.w + r ||g||_inf``, g = grad f(w). By convexity
    ``f(w) - min_{||v||_1 <= r} f(v) <= G(w)``, and G = 0 exactly at a solution.

    Parameters
    ----------
    w : ndarray, shape (d,)
        A point of the ball.
    g : ndarray, shape (d,)
        grad f(w).
    radius : float >= 0

    Returns
    -------
    float
        G(w) (>= 0 up to rounding for a feasible w).

    Examples
    --------
    >>> import numpy as np
    >>> ball_gap(np.array([1.0, 0.0]), np.array([-2.0, 0.5]), 1.0)   # the vertex of the largest |g_j|
    0.0
    >>> ball_gap(np.array([0.5, 0.0]), np.array([-2.0, 0.5]), 1.0)   # inside: 1.0 left to gain at most
    1.0
    """
    g = np.asarray(g, dtype=np.float64)
    return float(g @ np.asarray(w, dtype=np.float64) + radius * np.max(np.abs(g), initial=0.0))


def l1_kkt_violation(w, g, weights) -> float:
    """The largest violation of the optimality conditions of ``min f(w) + sum_j weights_j |w_j|``.

    Per feature: ``|g_j + weights_j sign(w_j)|`` where ``w_j != 0`` and ``max(|g_j| - weights_j,
    0)`` where ``w_j = 0`` (the distance of 0 to the subdifferential), g = grad f(w); 0 exactly
    at a solution. With v this vector, ``F(w) - F(w*) <= ||v||_inf ||w - w*||_1``.

    Parameters
    ----------
    w : ndarray, shape (d,)
    g : ndarray, shape (d,)
        grad f(w).
    weights : float or ndarray, shape (d,), >= 0

    Returns
    -------
    float
        ``||v||_inf``.

    Examples
    --------
    >>> import numpy as np
    >>> l1_kkt_violation(np.array([0.5, 0.0, 0.0]), np.array([-1.0, 0.3, -1.5]), 1.0)   # feature 2 wants in
    0.5
    """
    w = np.asarray(w, dtype=np.float64)
    g = np.asarray(g, dtype=np.float64)
    weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), w.shape)
    v = np.where(w != 0, np.abs(g + weights * np.sign(w)), np.maximum(np.abs(g) - weights, 0.0))
    return float(np.max(v, initial=0.0))


# ----------------------------------------------------------------------------- solvers


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
        Solver iterations (all reweighting rounds together).
    converged : bool
        Whether the optimality measure met the tolerance (every round's, for reweighting).
    lipschitz : float
        The final step constant L (step 1/L), carried to the next point of a path.
    optimality : float
        The relative optimality measure at w that ``converged`` compares with tol: the l1 ball's
        ``ball_gap / f(w)``, the penalised problem's ``l1_kkt_violation / lambda`` (its last
        round), the unconstrained problem's ``||grad f(w)||_inf / ||grad f(0)||_inf``.
    extra : dict
        ``lambda`` or ``radius``, ``n_reweight`` for the reweighted solves.
    """

    w: np.ndarray
    objective: float
    loss: float
    n_iter: int
    converged: bool
    lipschitz: float
    optimality: float = float("nan")
    extra: dict = field(default_factory=dict)


def accelerated_prox(loss: PairwiseLoss, prox, h, w0, optimality, *, face=None, L=None, max_iter: int = 500,
                     tol: float = TOL_BALL) -> PathPoint:
    """FISTA with backtracking and adaptive restart: ``min f(w) + h(w)`` for a prox-friendly h.

    Iteration t from the extrapolated point z (z = w_0 at the start)::

        g = grad f(z)
        L <- 0.9 L
        repeat:  w_t = prox_{h/L}(z - g/L);  accept if f(w_t) <= f(z) + g.(w_t - z) + L/2 ||w_t - z||^2,
                 else L <- 2L
        stop if optimality(w_t, f(w_t), grad f(w_t)) <= tol        (a certificate at w_t itself)
        if (z - w_t).(w_t - w_{t-1}) > 0: restart (z = w_t, alpha = 1)   (O'Donoghue & Candes 2015)
        else: alpha' = (1 + sqrt(1 + 4 alpha^2)) / 2,  z = w_t + (alpha - 1)/alpha' (w_t - w_{t-1})

    and, when the signs of w (support and sign pattern) have not changed for 5 iterations, the
    next iteration is one ``face`` step instead (a Newton step on that face, ``face_newton``;
    then w is checked and the momentum restarted from it). A refused face step doubles the
    wait before the next one. The start is checked first (a warm start that is already optimal
    costs no iteration). An iteration's cost: one oracle call (f and grad f) per backtracking
    trial and one at z; a face step, up to 2 |S| + 10 Hessian-vector products and 5 oracle calls.

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
    optimality : callable (w, f, g) -> float
        The problem's relative optimality measure at w from f(w) and grad f(w) (0 at a solution;
        ``ball_gap`` or ``l1_kkt_violation`` over their scales).
    face : callable (w, scores, f, g) -> (w, scores, f, g) or None, optional
        A step on the face of w that must lower the objective (None: refused); None: FISTA only.
    L : float or None
        Starting step constant (default ``loss.lipschitz_bound() / 2^10``; FSMRank's Algorithm 1
        never decreases its L, this solver lets it shrink by 0.9 per iteration: on an MQ2008
        path it needs half the oracle calls).
    max_iter : int, default 500
        Most iterations (FISTA and face steps together).
    tol : float, default 1e-6
        ``converged`` when ``optimality <= tol``; otherwise the solve runs to ``max_iter``.

    Returns
    -------
    PathPoint
        ``optimality`` the measure at the returned w; ``extra["newton_steps"]`` the face steps taken.
    """
    if L is None:
        L = loss.lipschitz_bound() / 2.0 ** 10
    w = prox(np.asarray(w0, dtype=np.float64), 0.0)
    s_w = loss.scores(w)  # scores X w are linear in w: those of z follow from w's and w_prev's
    f_w, g_w = loss.at_scores(s_w)
    measure = float(optimality(w, f_w, g_w))
    converged, it = measure <= tol, 0
    w_prev, s_prev = w, s_w
    z, s_z, f_z, g_z, alpha = w, s_w, f_w, g_w, 1.0
    pattern, stable, wait, newton_steps = np.sign(w), 0, _NEWTON_AFTER, 0
    while not converged and it < max_iter:
        it += 1
        if face is not None and stable >= wait:  # the support and signs settled: a Newton step on them
            stable = 0
            step = face(w, s_w, f_w, g_w)
            wait = _NEWTON_AFTER if step is not None else 2 * wait  # a refused step: wait longer for the next
            if step is not None:
                newton_steps += 1
                w, s_w, f_w, g_w = step
                measure = float(optimality(w, f_w, g_w))
                converged = measure <= tol
                w_prev, s_prev, pattern = w, s_w, np.sign(w)
                z, s_z, f_z, g_z, alpha = w, s_w, f_w, g_w, 1.0
                continue
        L *= _L_SHRINK
        for _ in range(_MAX_DOUBLINGS):
            w = prox(z - g_z / L, 1.0 / L)
            diff = w - z
            s_w = loss.scores(w)
            f_w, g_w = loss.at_scores(s_w)
            if f_w - f_z - float(g_z @ diff) <= 0.5 * L * float(diff @ diff) + _LS_SLACK * max(1.0, abs(f_z)):
                break
            L *= 2.0
        measure = float(optimality(w, f_w, g_w))
        if measure <= tol:
            converged = True
            break
        signs = np.sign(w)
        stable = stable + 1 if np.array_equal(signs, pattern) else 0
        pattern = signs
        if float((z - w) @ (w - w_prev)) > 0:  # the momentum points uphill: restart it from w
            z, s_z, f_z, g_z, alpha = w, s_w, f_w, g_w, 1.0
        else:
            alpha_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * alpha * alpha))
            beta = (alpha - 1.0) / alpha_next
            z, s_z = w + beta * (w - w_prev), s_w + beta * (s_w - s_prev)
            f_z, g_z = loss.at_scores(s_z)
            alpha = alpha_next
        w_prev, s_prev = w, s_w
    return PathPoint(w=w, objective=float(f_w + h(w)), loss=float(f_w), n_iter=it, converged=bool(converged),
                     lipschitz=float(L), optimality=measure, extra={"newton_steps": newton_steps})


def face_newton(loss: PairwiseLoss, w, s_w, f_w, g_w, h, *, lin=None, radius=None):
    """One Newton step for ``min f + h`` restricted to the face of w (its support S and signs
    sigma): the step the accelerated solver takes once the support has settled (on an
    ill-conditioned f, FISTA alone needs thousands of iterations to finish there).

    On the face, h is linear (``lin_S . w_S``: ``weights_S sigma`` for a weighted l1 norm, 0 in
    the l1 ball), so the step d (zero off S) minimises the quadratic model
    ``(g_S + lin_S).d + 1/2 d' H_SS d`` (H the generalised Hessian; conjugate gradients with
    Hessian-vector products to a relative residual of 1e-6, at most 2 |S| + 10 products), subject
    to ``sigma.d = 0`` when w is on the sphere of the ball ``||w||_1 = radius`` (the projected
    Hessian ``P H_SS P``, ``P = I - sigma sigma' / |S|``). The
    step stays on the closed face: t is at most the first t where a weight reaches 0 (it leaves
    the support) or, inside the ball, where ``||w + t d||_1`` reaches the radius; then
    ``t_max, t_max/2, ..., t_max/16``, the first with ``F(w + t d) < F(w)``. When none lowers F the
    step is refused.

    Parameters
    ----------
    loss : PairwiseLoss
    w, s_w, f_w, g_w : the point, its scores X w, f(w) and grad f(w)
    h : callable w -> float
        The non-smooth part (0 in the ball).
    lin : ndarray (d,) or None
        The linear part of h on the face (default 0).
    radius : float or None
        The ball's radius (None: no constraint).

    Returns
    -------
    (w, scores, f, grad) or None
        The new point, or None when the step is refused (or w = 0).
    """
    S = np.flatnonzero(w)
    if not len(S):
        return None
    sigma = np.sign(w[S])
    sphere = radius is not None and float(np.abs(w).sum()) >= radius * (1.0 - 1e-12)
    b = g_w[S] + (0.0 if lin is None else lin[S])
    order = sort_within_queries(s_w, loss.query_ptr)
    XS = np.ascontiguousarray(loss.X[:, S])  # the face's columns once: each product costs |S|/d of a full one
    u, out = np.empty(XS.shape[0]), np.empty(len(S))
    scale = 2.0 / loss._p

    def proj(v):
        return v - sigma * (float(sigma @ v) / len(S)) if sphere else v

    def hess(v):  # (2/p) X_S' A X_S v, A the active pairs' Laplacian at s_w
        loss.n_evals += 1
        if XS.dtype == np.float64:
            Av = squared_hinge_hessp(s_w, loss.levels, loss.query_ptr, XS @ v, order)
            return proj(scale * (XS.T @ Av))
        if loss.XT is None:
            matvec(XS, np.ascontiguousarray(v), u)
        else:
            matvec_columns(loss.XT, S, np.ascontiguousarray(v, dtype=np.float64), u)
        rmatvec(XS, squared_hinge_hessp(s_w, loss.levels, loss.query_ptr, u, order), out)
        return proj(scale * out)

    d = conjugate_gradient(hess, -proj(b), _FACE_CG_RTOL, curvature_floor=1e-300)
    if not np.any(d):
        return None
    toward_zero = sigma * d < 0
    t = min(1.0, float(np.min(-w[S][toward_zero] / d[toward_zero], initial=np.inf)))
    if radius is not None and not sphere and float(sigma @ d) > 0:
        t = min(t, (radius - float(np.abs(w).sum())) / float(sigma @ d))
    step = np.zeros(loss.d)
    step[S] = d
    F_w = f_w + h(w)
    for _ in range(5):
        v = w + t * step
        v[S] = np.where(sigma * v[S] > 0, v[S], 0.0)  # the weights that reached 0 are 0, not rounding off it
        s_v = loss.scores(v)
        f_v, g_v = loss.at_scores(s_v)
        if f_v + h(v) < F_w:
            return v, s_v, f_v, g_v
        t *= 0.5
    return None


def l1_ball_solve(loss: PairwiseLoss, radius: float, w0=None, *, tol: float = TOL_BALL, **solver) -> PathPoint:
    """FenchelRank's problem ``min f(w) s.t. ||w||_1 <= radius`` by accelerated projected gradient.

    Converged when the relative Frank-Wolfe gap ``ball_gap(w) / f(w) <= tol``, which bounds the
    relative excess of the objective: ``(f(w) - f*) / f(w) <= tol``.

    Parameters
    ----------
    loss : PairwiseLoss
    radius : float >= 0
    w0 : ndarray (d,) or None
        Start (default 0; projected onto the ball).
    **solver
        ``L``, ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    PathPoint
        ``extra["radius"]``; ``optimality`` the relative gap.
    """
    w0 = np.zeros(loss.d) if w0 is None else w0
    def face(w, s_w, f_w, g_w):
        return face_newton(loss, w, s_w, f_w, g_w, lambda v: 0.0, radius=radius)

    res = accelerated_prox(loss, lambda v, step: project_l1_ball(v, radius), lambda w: 0.0, w0,
                           lambda w, f, g: _relative(ball_gap(w, g, radius), f), face=face, tol=tol, **solver)
    res.extra["radius"] = float(radius)
    return res


def _relative(value: float, scale: float) -> float:
    """``value / scale`` with 0 / 0 = 0 (a solve at f = 0 is exact) and a positive value over 0 infinite."""
    if scale > 0:
        return value / scale
    return 0.0 if value <= 0 else math.inf


def weighted_l1_solve(loss: PairwiseLoss, weights, w0=None, *, scale=None, tol: float = TOL_PENALTY,
                      **solver) -> PathPoint:
    """``min f(w) + sum_j weights_j |w_j|`` by FISTA with soft thresholding.

    Converged when ``l1_kkt_violation(w) <= tol * scale``.

    Parameters
    ----------
    loss : PairwiseLoss
    weights : ndarray, shape (d,), >= 0
        The per-feature l1 weights (lambda g'(|w_j|) in a reweighting round).
    w0 : ndarray (d,) or None
        Start (default 0).
    scale : float > 0 or None
        The scale of the violation (default ``max(weights)``, or ``||grad f(0)||_inf`` when every
        weight is 0); the reweighted solves pass lambda.
    **solver
        ``L``, ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    PathPoint
        ``optimality`` the violation over ``scale``.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if scale is None:
        scale = float(np.max(weights, initial=0.0)) or loss.gradient_scale()
    w0 = np.zeros(loss.d) if w0 is None else w0
    if not np.any(w0):  # w = 0 is optimal when |grad_j f(0)| <= weights_j for every j: exactly 0, no rounding
        f0, g0 = loss(np.zeros(loss.d))
        if np.all(np.abs(g0) <= weights * (1.0 + 1e-12)):
            L = solver.get("L")
            return PathPoint(w=np.zeros(loss.d), objective=float(f0), loss=float(f0), n_iter=0, converged=True,
                             lipschitz=float(L if L is not None else loss.lipschitz_bound() / 2.0 ** 10),
                             optimality=0.0)
    def h(w):
        return float(weights @ np.abs(w))

    def face(w, s_w, f_w, g_w):
        return face_newton(loss, w, s_w, f_w, g_w, h, lin=weights * np.sign(w))

    return accelerated_prox(loss, lambda v, step: soft_threshold(v, step * weights), h, w0,
                            lambda w, f, g: _relative(l1_kkt_violation(w, g, weights), scale), face=face, tol=tol,
                            **solver)


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


def reweighted_l1_solve(loss: PairwiseLoss, lam: float, penalty: str = "l1", w0=None, *, n_reweight: int = N_REWEIGHT,
                        eps: float = 0.1, gamma: float = 3.0, p: float = 0.5, L=None, max_iter: int = 500,
                        tol: float = TOL_PENALTY) -> PathPoint:
    """Sparse RankSVM at one lambda: ``min f(w) + lambda sum_j g(|w_j|)`` by reweighted l1.

    Each round solves the weighted-l1 problem with weights ``penalty_weights(w_old)`` (the
    concave penalty's linear majoriser at w_old), warm started from w_old; ``l1`` needs one
    round. Stops when w is stationary to tol (below), when w repeats (``max |w - w_old| <= 1e-8
    (1 + max|w|)``) or after ``n_reweight`` rounds.

    Optimality (the returned ``optimality``, ``converged`` when at most tol): the stationarity
    violation relative to lambda, ``l1_kkt_violation(w, grad f(w), penalty_weights(w)) / lambda``,
    i.e. ``|grad_j f + lambda g'(|w_j|) sign(w_j)|`` on the support and ``max(|grad_j f| -
    lambda, 0)`` off it (g'(0) = 1). For ``l1`` these are the optimality conditions of the convex
    problem; for a concave penalty, of a stationary point (a fixed point of the reweighting).

    Parameters
    ----------
    loss : PairwiseLoss
    lam : float > 0
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
    w0 : ndarray (d,) or None
        The first round's reweighting point and start (default 0: the first round is l1).
    n_reweight : int >= 1, default 50
        Most rounds (on MQ2008 Fold 1 the log path needs up to 31 to be stationary to 1e-5).
    eps, gamma, p
        As ``penalty_value``.
    L, max_iter
        As ``accelerated_prox`` (per round).
    tol : float, default 1e-5
        Per round: ``l1_kkt_violation <= tol * lambda`` for the round's weights; at the end the
        stationarity violation above.

    Returns
    -------
    PathPoint
        ``objective`` the penalised objective; ``extra``: ``lambda``, ``n_reweight`` (rounds run).
    """
    w = np.zeros(loss.d) if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    rounds = 1 if penalty == "l1" else int(n_reweight)
    n_iter, res = 0, None
    shape = {"eps": eps, "gamma": gamma, "p": p}
    for r in range(1, rounds + 1):
        res = weighted_l1_solve(loss, penalty_weights(w, lam, penalty, **shape), w0=w, scale=lam, L=L,
                                max_iter=max_iter, tol=tol)
        n_iter += res.n_iter
        L = res.lipschitz
        change = float(np.max(np.abs(res.w - w), initial=0.0))
        w = res.w
        measure = res.optimality
        if penalty != "l1":  # stationarity of the concave problem at w (its own slopes)
            _, g = loss(w)
            measure = _relative(l1_kkt_violation(w, g, penalty_weights(w, lam, penalty, **shape)), lam)
        if measure <= tol or change <= 1e-8 * (1.0 + float(np.max(np.abs(w), initial=0.0))):
            break
    res.extra.update({"lambda": float(lam), "n_reweight": r})
    return PathPoint(w=w, objective=res.loss + penalty_value(w, lam, penalty, **shape), loss=res.loss,
                     n_iter=n_iter, converged=bool(measure <= tol), lipschitz=float(L), optimality=float(measure),
                     extra=res.extra)


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


def unconstrained_minimiser(loss: PairwiseLoss, *, max_iter: int = NEWTON_MAX_ITER,
                            tol: float = NEWTON_TOL) -> PathPoint:
    """The unconstrained minimiser of f by Newton's method (conjugate gradients on the generalised
    Hessian, Armijo backtracking) from w = 0.

    f is convex and piecewise quadratic, so once the active pairs are right a Newton step lands on
    the minimiser: on MQ2008 Fold 1, 9 steps (0.3 s) to ``||grad f||_inf = 1.9e-11 ||grad
    f(0)||_inf``, l1 norm 43.34828 (43.34829 at the rounding floor, 2.7e-16 after 10 steps);
    FISTA is still 0.2% off that norm after 20000 iterations (the Hessian's smallest non-zero
    eigenvalue there is 6.6e-7). On the generated 700-feature set of bench_sparse_rankers.py,
    13 steps to 2.8e-12, its rounding floor. Iteration: ``H d = -g`` by CG to the relative residual ``min(0.5,
    sqrt(||g|| / ||g(0)||))`` (at most 2 d + 10 products), then ``w <- w + t d`` with t = 1, 1/2,
    ... the first step with ``f(w + t d) <= f(w) + 1e-4 t g.d`` and ``f(w + t d) < f(w)`` (when no
    step lowers f, rounding has the last word and the solve stops). CG started at 0 stays in the range
    of H, so a weight whose feature is constant within every query (a direction f does not
    depend on) stays 0: among the minimisers, the one with those weights 0. (When the pairs are
    separable, f = 0 on a whole unbounded region; the minimiser is then the first point of it
    that Newton reaches, and r_max its norm.)

    Parameters
    ----------
    loss : PairwiseLoss
    max_iter : int >= 1, default 50
        Most Newton steps.
    tol : float, default 1e-10
        Converged when ``||grad f(w)||_inf <= tol * ||grad f(0)||_inf``.

    Returns
    -------
    PathPoint
        ``optimality`` the relative gradient; ``lipschitz`` the bound ``loss.lipschitz_bound()``.
    """
    g0 = loss.gradient_scale()
    w = np.zeros(loss.d)
    s = loss.scores(w)
    f, g = loss.at_scores(s)
    measure = float(np.max(np.abs(g), initial=0.0)) / g0
    it, g0_norm = 0, float(np.linalg.norm(g))
    while measure > tol and it < max_iter:
        it += 1
        order = sort_within_queries(s, loss.query_ptr)
        d = _newton_direction(loss, s, order, g, min(0.5, math.sqrt(float(np.linalg.norm(g)) / g0_norm)))
        slope, t, x = float(g @ d), 1.0, loss.scores(d)
        if not slope < 0:  # rounding: no descent left
            break
        for _ in range(60):
            f_new, g_new = loss.at_scores(s + t * x)
            if f_new < f and f_new <= f + 1e-4 * t * slope:
                break
            t *= 0.5
        else:  # no step lowers f: the rounding floor of the gradient is reached
            break
        w, s, f, g = w + t * d, s + t * x, f_new, g_new
        measure = float(np.max(np.abs(g), initial=0.0)) / g0
    return PathPoint(w=w, objective=float(f), loss=float(f), n_iter=it, converged=bool(measure <= tol),
                     lipschitz=loss.lipschitz_bound(), optimality=measure)


def conjugate_gradient(apply, rhs, rtol: float, curvature_floor: float = 0.0) -> np.ndarray:
    """Conjugate gradients for ``H d = rhs`` from d = 0, H symmetric positive semi-definite.

    Parameters
    ----------
    apply : callable
        ``v -> H v``.
    rhs : ndarray, shape (n,)
    rtol : float
        Stop when the residual's norm is at most ``rtol`` times that of ``rhs``.
    curvature_floor : float, default 0.0
        Stop when a direction's curvature ``q' H q`` is at most this (q in H's null space:
        nothing left to gain along it).

    Returns
    -------
    ndarray, shape (n,)
        d after at most ``2 n + 10`` steps (zeros when the first direction has no curvature).
    """
    d = np.zeros_like(rhs)
    r = rhs.copy()
    q = r.copy()
    rr = float(r @ r)
    target = (rtol * math.sqrt(rr)) ** 2
    for _ in range(2 * len(rhs) + 10):
        if rr <= target:
            break
        Hq = apply(q)
        qHq = float(q @ Hq)
        if qHq <= curvature_floor:
            break
        a = rr / qHq
        d += a * q
        r -= a * Hq
        rr_new = float(r @ r)
        q = r + (rr_new / rr) * q
        rr = rr_new
    return d


def _newton_direction(loss: PairwiseLoss, s, order, g, rtol: float) -> np.ndarray:
    """Conjugate gradients for ``H d = -g`` (H the generalised Hessian at scores s) from d = 0."""
    d = conjugate_gradient(lambda v: loss.hessp(s, v, order), -g, rtol)
    return d if np.any(d) else -g


def unconstrained_radius(loss: PairwiseLoss, **newton) -> tuple[float, PathPoint]:
    """``r_max``: the l1 norm of the unconstrained minimiser of f (``unconstrained_minimiser``).

    For every radius ``r >= r_max`` that minimiser solves the l1-ball problem (the constraint is
    inactive), so the radius path ends there.

    Parameters
    ----------
    loss : PairwiseLoss
    **newton
        ``max_iter``, ``tol`` of ``unconstrained_minimiser``.

    Returns
    -------
    (float, PathPoint)
        The radius (at least 1e-12) and the solve.
    """
    res = unconstrained_minimiser(loss, **newton)
    return max(float(np.abs(res.w).sum()), 1e-12), res


def l1_ball_path(loss: PairwiseLoss, radii, w_free=None, **solver) -> list[PathPoint]:
    """FenchelRank along increasing radii, each solve warm started from the previous one.

    Parameters
    ----------
    loss : PairwiseLoss
    radii : sequence of float >= 0
        Increasing.
    w_free : ndarray (d,) or None
        The unconstrained minimiser (``unconstrained_minimiser``): a radius it fits in starts
        from it (it is that radius's solution; the gap check confirms it without an iteration).
    **solver
        ``max_iter``, ``tol`` of ``accelerated_prox``.

    Returns
    -------
    list of PathPoint
    """
    points, w, L = [], None, None
    free_norm = math.inf if w_free is None else float(np.abs(w_free).sum())
    for r in radii:
        start = time.perf_counter()
        res = l1_ball_solve(loss, float(r), w0=w_free if free_norm <= r else w, L=L, **solver)
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

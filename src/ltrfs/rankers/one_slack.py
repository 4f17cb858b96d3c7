"""The 1-slack cutting-plane method of SVM-struct, shared by RankSVM and SVMMAP: the loop
(``one_slack_solve``), the exact QP over the working set of cuts, and the data fingerprint that
allows a warm start across C.

Each iteration calls the caller's separation oracle for the most violated joint constraint
("cut") at the current w. The dual of the QP over the working set of cuts,

    max_alpha  sum_t alpha_t b_t - 1/2 ||sum_t alpha_t a_t||^2,   alpha >= 0,  sum_t alpha_t <= C,

is solved exactly by a primal active-set method on the simplex (a slack variable turns the
inequality into an equality; singular reduced Hessians are handled by following
zero-curvature rays), warm-started from the previous alpha, to a KKT tolerance of 1e-3 of the
stopping tolerance (SMO finishes if it ever stalls numerically); ``w = sum_t alpha_t a_t``.
Cuts inactive for 50 QP rounds are dropped, as in SVM-struct.
"""
from __future__ import annotations

import hashlib
import logging
import warnings

import numpy as np
from numba import njit

from ltrfs.estimator import ConvergenceWarning

log = logging.getLogger(__name__)

__all__ = ["one_slack_solve", "data_fingerprint"]

#: cuts whose dual variable stayed 0 for this many QP rounds are removed (SVM-struct's value)
_INACTIVE_ROUNDS = 50
#: the working-set QP is solved to this fraction of the stopping tolerance (KKT violation)
_QP_TOL_FRACTION = 1e-3


# ----------------------------------------------------------------------------- QP


@njit(cache=True)
def _smo_simplex(G, b, alpha, tol, max_steps):  # pragma: no cover - compiled
    """Minimise f = 1/2 a'Ga - b'a over {a >= 0, sum a = const} in place, from feasible alpha.

    Picks i = argmin gradient (to increase) and, among j with alpha_j > 0, the j with the
    largest exact decrease of f along e_i - e_j (clipped step). Stops when
    max_{alpha_j > 0} g_j - min_i g_i <= tol. Returns (steps, final KKT violation).
    """
    T = b.shape[0]
    g = G @ alpha - b
    steps = 0
    viol = np.inf
    while steps < max_steps:
        if steps % 500 == 0 and steps > 0:
            g = G @ alpha - b  # refresh against drift
        i = 0
        for t in range(1, T):
            if g[t] < g[i]:
                i = t
        gmax = -np.inf
        for t in range(T):
            if alpha[t] > 0.0 and g[t] > gmax:
                gmax = g[t]
        viol = gmax - g[i]
        if viol <= tol:
            break
        best_j = -1
        best_gain = 0.0
        best_delta = 0.0
        for j in range(T):
            if alpha[j] <= 0.0 or j == i:
                continue
            diff = g[j] - g[i]
            if diff <= 0.0:
                continue
            kappa = G[i, i] + G[j, j] - 2.0 * G[i, j]
            if kappa > 1e-300 and diff / kappa < alpha[j]:
                delta = diff / kappa
                gain = 0.5 * diff * delta
            else:
                delta = alpha[j]
                gain = delta * diff - 0.5 * delta * delta * max(kappa, 0.0)
            if gain > best_gain:
                best_gain = gain
                best_j = j
                best_delta = delta
        if best_j < 0:
            break
        j = best_j
        delta = best_delta
        alpha[i] += delta
        if delta >= alpha[j]:
            alpha[j] = 0.0
        else:
            alpha[j] -= delta
        for t in range(T):
            g[t] += delta * (G[t, i] - G[t, j])
        steps += 1
    g = G @ alpha - b
    gmin = g.min()
    gmax = -np.inf
    for t in range(T):
        if alpha[t] > 0.0 and g[t] > gmax:
            gmax = g[t]
    return steps, gmax - gmin


def _sum_zero_basis(k: int) -> np.ndarray:
    """Orthonormal basis (k, k - 1) of {p in R^k : sum(p) = 0} (columns 2..k of a Householder
    reflection that maps e_1 to the normalised ones vector)."""
    u = np.full(k, 1.0 / np.sqrt(k))
    u[0] -= 1.0
    H = np.eye(k) - (2.0 / (u @ u)) * np.outer(u, u)
    return H[:, 1:]


def _active_set_simplex(G, b, alpha, tol, max_iter):
    """Primal active-set method for min 1/2 a'Ga - b'a over {a >= 0, sum a = const}.

    G (T, T) symmetric PSD (possibly singular), b (T,), alpha (T,) feasible start (modified in
    place). On the current face (the free indices F) the equality-constrained step minimises
    the quadratic over {p_F : sum p_F = 0} in an orthonormal basis of that subspace; a
    singular reduced Hessian whose null space carries a descent direction gives a
    zero-curvature ray, followed to the first bound. Blocking indices leave F; when F is
    optimal on its face (gradient spread <= tol / 10) the index with the lowest gradient
    outside F joins it. Stops at KKT violation max_{a_i>0} g_i - min_i g_i <= tol.
    Returns (iterations, KKT violation).
    """
    total = alpha.sum()
    free = alpha > 0.0
    stall = 0
    for it in range(max_iter):
        g = G @ alpha - b
        F = np.flatnonzero(free)
        gF = g[F]
        viol = gF.max() - g.min()
        if viol <= tol:
            return it, viol
        if gF.max() - gF.min() <= 0.1 * tol or len(F) == 1:
            outside = np.flatnonzero(~free)
            free[outside[np.argmin(g[outside])]] = True
            stall = 0
            continue
        Z = _sum_zero_basis(len(F))
        H = Z.T @ G[np.ix_(F, F)] @ Z
        r = Z.T @ gF
        lam, V = np.linalg.eigh(H)
        c = V.T @ r
        pos = lam > 1e-12 * max(lam[-1], 1e-300)
        null_c = np.where(pos, 0.0, c)
        if np.linalg.norm(null_c) > 1e-9 * np.linalg.norm(c):
            direction = -(Z @ (V @ null_c))  # zero curvature, strictly downhill: a ray
            step_max = np.inf
        else:
            direction = -(Z @ (V @ np.where(pos, c / np.where(pos, lam, 1.0), 0.0)))
            step_max = 1.0
        neg = direction < 0
        ratios = np.where(neg, alpha[F] / np.where(neg, -direction, 1.0), np.inf)
        j = int(np.argmin(ratios))
        step = min(step_max, ratios[j])
        if not np.isfinite(step):  # pragma: no cover - a ray on the simplex always hits a bound
            break
        alpha[F] += step * direction
        if step == ratios[j]:
            alpha[F[j]] = 0.0
            free[F[j]] = False
            stall = 0
        else:
            stall += 1
            if stall > 3:  # numerically stuck on a face: let SMO finish
                break
        np.maximum(alpha, 0.0, out=alpha)
        free &= alpha > 0.0
        alpha *= total / alpha.sum()
    g = G @ alpha - b
    return max_iter, g[alpha > 0].max() - g.min()


def _solve_working_set(A, b, alpha, C, tol):
    """Solve the dual QP over the cuts (A (T, d), b (T,)) from warm start ``alpha`` (T,).

    Returns (alpha (T,), w (d,), iterations). Internally a slack variable (index 0, a zero
    cut) absorbs C - sum(alpha), so the feasible set is the simplex scaled by C. The exact
    active-set method does the work; SMO finishes in the rare case it stalls numerically.
    """
    T = len(b)
    G = np.zeros((T + 1, T + 1))
    G[1:, 1:] = A @ A.T
    bb = np.r_[0.0, b]
    full = np.r_[max(C - alpha.sum(), 0.0), alpha]
    full *= C / full.sum()
    iters, viol = _active_set_simplex(G, bb, full, tol, 50 + 5 * T)
    if viol > tol:
        for _ in range(20):
            steps, viol = _smo_simplex(G, bb, full, tol, 200_000)
            iters += steps
            if viol <= tol:
                break
        else:  # pragma: no cover - defensive
            log.warning("RankSVM: working-set QP stopped at KKT violation %.3g (target %.3g)", viol, tol)
    alpha = full[1:].copy()
    return alpha, A.T @ alpha, iters


# ----------------------------------------------------------------------------- the cutting-plane loop


def data_fingerprint(X, y, query_ptr) -> str:
    """A hex digest of the arrays' dtypes, shapes and bytes: a warm start reuses cuts only on equal data."""
    h = hashlib.blake2b(digest_size=16)
    for arr in (X, y, query_ptr):
        arr = np.ascontiguousarray(arr)
        h.update(str((arr.dtype.str, arr.shape)).encode())
        h.update(arr.view(np.uint8).reshape(-1).data)
    return h.hexdigest()


def one_slack_solve(est, oracle, d: int, C: float, tol: float, max_iter: int, fingerprint,
                    has_constraints: bool, label: str, logger=None) -> None:
    """The 1-slack cutting-plane loop of svm_rank / svm_struct, shared by RankSVM and SVMMAP.

    Starts from w = 0, from the previous fit's cuts when ``est.warm_start`` and the data
    ``fingerprint`` match (cuts do not depend on C; the duals are rescaled by C / C_old), or
    from one cut at ``est.coef_``; stops when the risk exceeds the working set's slack by at
    most ``tol``; cuts idle for ``_INACTIVE_ROUNDS`` are dropped.

    Parameters
    ----------
    est : RankSVM or SVMMAP
        The estimator being fitted; receives the results (see Returns).
    oracle : callable
        ``oracle(w) -> (a (d,), b, risk)``: the most violated joint constraint
        ``w.a >= b - xi`` at w and the empirical risk there.
    d : int
        Number of features.
    C : float
        Regularisation constant of ``1/2 |w|^2 + C risk``.
    tol : float
        Stopping tolerance on the risk.
    max_iter : int
        Maximum number of cutting-plane iterations.
    fingerprint : object
        Identity of the training data, compared with the previous fit's for a warm start.
    has_constraints : bool
        False when no query has a pair (or a relevant and a non-relevant document): w stays 0.
    label : str
        Name of the method in log and warning messages.
    logger : logging.Logger or None, default None
        The caller's module logger; iterations are logged at DEBUG level.

    Returns
    -------
    None
        Sets ``coef_``, ``objective_`` (1/2 |w|^2 + C risk), ``n_iter_``, ``converged_``,
        ``tol_``, ``n_cuts_`` and the warm-start state on ``est``.

    References
    ----------
    Joachims, Finley and Yu. Cutting-plane training of structural SVMs. Machine Learning 77,
    2009 (the 1-slack formulation with margin rescaling).
    """
    logger = logger or log
    A = np.zeros((0, d))
    b = np.zeros(0)
    alpha = np.zeros(0)
    last_active = np.zeros(0, dtype=np.int64)
    w = np.zeros(d)
    previous = getattr(est, "_warm", None) if est.warm_start else None
    if previous is not None and previous["fingerprint"] == fingerprint and previous["A"].shape[1] == d:
        A, b = previous["A"].copy(), previous["b"].copy()
        alpha = previous["alpha"] * (C / previous["C"])
        last_active = np.zeros(len(b), dtype=np.int64)
    elif est.warm_start and getattr(est, "coef_", None) is not None and len(est.coef_) == d:
        a, bval, _ = oracle(np.asarray(est.coef_, dtype=np.float64))
        A, b, alpha = a[None, :], np.array([bval]), np.zeros(1)
        last_active = np.zeros(1, dtype=np.int64)
    qp_tol = _QP_TOL_FRACTION * tol
    if has_constraints and len(b):
        alpha, w, _ = _solve_working_set(A, b, alpha, C, qp_tol)

    converged = not has_constraints
    it = 0
    risk = 0.0
    while not converged and it < max_iter:
        it += 1
        a, bval, risk = oracle(w)
        xi = max(0.0, float(np.max(b - A @ w))) if len(b) else 0.0
        ceps = risk - xi
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s iter %d: objective %.8g  risk %.6g  xi %.6g  ceps %.3g (tol %.3g)  cuts %d",
                         label, it, 0.5 * w @ w + C * risk, risk, xi, ceps, tol, len(b))
        if ceps <= tol:
            converged = True
            break
        A = np.vstack([A, a])
        b = np.r_[b, bval]
        alpha = np.r_[alpha, 0.0]
        last_active = np.r_[last_active, it]
        alpha, w, _ = _solve_working_set(A, b, alpha, C, qp_tol)
        last_active[alpha > 0] = it
        keep = (it - last_active) < _INACTIVE_ROUNDS
        if not keep.all():
            A, b, alpha, last_active = A[keep], b[keep], alpha[keep], last_active[keep]
    if not converged:
        _, _, risk = oracle(w)
        warnings.warn(f"{label} did not converge in max_iter={max_iter} iterations "
                      f"(C={C:g}); increase max_iter", ConvergenceWarning, stacklevel=4)

    est.coef_ = w
    est.objective_ = float(0.5 * w @ w + C * risk)
    est.n_iter_ = it
    est.converged_ = bool(converged)
    est.tol_ = float(tol)
    est.n_cuts_ = int(len(b))
    if est.warm_start:
        est._warm = {"fingerprint": fingerprint, "A": A, "b": b, "alpha": alpha, "C": C}
    elif hasattr(est, "_warm"):
        del est._warm

"""Linear RankSVM in svm_rank's formulation, trained by the 1-slack cutting-plane algorithm.

Objective (Joachims 2006, "Training linear SVMs in linear time"; svm_rank ``-l 1``, the
default loss, with no bias term)::

    min_w  1/2 ||w||^2 + (C / n) * sum_q sum_{(i, j) in P_q} max(0, 1 - w.(x_i - x_j))

with ``n`` the number of training queries (all of them, as svm_rank counts them) and ``P_q``
the pairs of documents of query q with ``y_i > y_j``. This is svm_rank's ``-c C``; it equals
SVM-light's ``-z p`` with ``C_light = C / n``.

Solver: the 1-slack cutting-plane method of SVM-struct. Each iteration calls a separation
oracle that returns the most violated joint constraint ("cut") at the current w::

    w . a >= b - xi,   a = (1/n) sum_{violated (i,j)} (x_i - x_j),   b = (#violated pairs) / n

computed WITHOUT building pairs: per query, documents are sorted by score and a sweep with a
Fenwick tree over the query's label levels counts, for every document, the documents of
lower (higher) label whose score is within margin 1 -> O(n log n) per query (Numba). The
dual of the QP over the working set of cuts,

    max_alpha  sum_t alpha_t b_t - 1/2 ||sum_t alpha_t a_t||^2,   alpha >= 0,  sum_t alpha_t <= C,

is solved exactly by a primal active-set method on the simplex (a slack variable turns the
inequality into an equality; singular reduced Hessians are handled by following
zero-curvature rays), warm-started from the previous alpha, to a KKT tolerance of 1e-3 of the
stopping tolerance (SMO finishes if it ever stalls numerically); ``w = sum_t alpha_t a_t``.
Cuts inactive for 50 QP rounds are dropped, as in SVM-struct.

Stopping (as svm_rank): stop when the most violated cut is violated by at most ``tol`` more
than the working set's slack ``xi``. svm_rank rescales its ``-e`` for the swapped-pairs loss:
``tol = epsilon * (total pairs / n)`` ("adjusted stopping criterion relative to maximum loss");
this module does the same (``tol_`` records the value). At convergence the primal objective
is within ``C * tol`` of the optimum.
"""
from __future__ import annotations

import hashlib
import logging
import time
import warnings

import numpy as np
from numba import njit

from ltrfs.docstrings import fill_doc
from ltrfs.estimator import ConvergenceWarning
from ltrfs.params import Boolean, Integer, Real
from ltrfs.rankers.base import LinearScores, Ranker

log = logging.getLogger(__name__)

#: cuts whose dual variable stayed 0 for this many QP rounds are removed (SVM-struct's value)
_INACTIVE_ROUNDS = 50
#: the working-set QP is solved to this fraction of the stopping tolerance (KKT violation)
_QP_TOL_FRACTION = 1e-3


# ----------------------------------------------------------------------------- labels


def label_levels(y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """Dense rank of each row's label among its query's distinct labels.

    Only the order of labels matters to the pair loss.

    Parameters
    ----------
    y : ndarray of shape (m,)
        Relevance labels.
    query_ptr : ndarray of int64, shape (q + 1,)
        Query boundaries: query i is rows ``query_ptr[i]:query_ptr[i + 1]``.

    Returns
    -------
    ndarray of int64, shape (m,)
        The level of each row, 0 for the lowest label of its query."""
    y = np.asarray(y)
    sizes = np.diff(query_ptr)
    qidx = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((y, qidx))
    ys, qs = y[order], qidx[order]
    new = np.r_[True, (ys[1:] != ys[:-1]) | (qs[1:] != qs[:-1])]
    group = np.cumsum(new) - 1
    first = group[query_ptr[:-1][sizes > 0]]
    rank_sorted = group - np.repeat(first, sizes[sizes > 0])
    levels = np.empty(len(y), dtype=np.int64)
    levels[order] = rank_sorted
    return levels


def count_pairs(y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """Number of pairs (i, j) with y_i > y_j in every query.

    Parameters
    ----------
    y, query_ptr : ndarray
        Relevance labels (m,) and the int64 query boundaries (q + 1,).

    Returns
    -------
    ndarray of int64, shape (q,)
        The number of ordered pairs of each query."""
    y = np.asarray(y)
    sizes = np.diff(query_ptr)
    qidx = np.repeat(np.arange(len(sizes)), sizes)
    order = np.lexsort((y, qidx))
    ys, qs = y[order], qidx[order]
    new = np.flatnonzero(np.r_[True, (ys[1:] != ys[:-1]) | (qs[1:] != qs[:-1])])
    counts = np.diff(np.r_[new, len(y)]).astype(np.int64)
    sq = np.bincount(qs[new], weights=counts.astype(np.float64) ** 2, minlength=len(sizes))
    return ((sizes.astype(np.int64) ** 2 - np.rint(sq).astype(np.int64)) // 2).astype(np.int64)


# ----------------------------------------------------------------------------- oracle


@njit(cache=True)
def _fenwick_add(tree, pos, value):
    n = tree.shape[0]
    while pos < n:
        tree[pos] += value
        pos += pos & (-pos)


@njit(cache=True)
def _fenwick_prefix(tree, pos):
    total = tree[0] * 0  # zero of the tree's dtype (counts or float sums)
    while pos > 0:
        total += tree[pos]
        pos -= pos & (-pos)
    return total


@njit(cache=True)
def _pair_oracle(scores, levels, query_ptr, coef):  # pragma: no cover - compiled
    """Fill coef (m,) with (#violated pairs where the row is the higher-label document) minus
    (#violated pairs where it is the lower one); return the total number of violated pairs.

    A pair (i, j) with level_i > level_j is violated when scores[i] - scores[j] < 1.
    """
    n_violated = 0
    for q in range(query_ptr.shape[0] - 1):
        start = query_ptr[q]
        stop = query_ptr[q + 1]
        n = stop - start
        n_levels = 0
        for k in range(start, stop):
            coef[k] = 0.0
            if levels[k] + 1 > n_levels:
                n_levels = levels[k] + 1
        if n < 2 or n_levels < 2:
            continue
        order = np.argsort(scores[start:stop], kind="mergesort") + start  # ascending
        tree = np.zeros(n_levels + 1, dtype=np.int64)
        # sweep 1 (descending scores): k as the higher document; insert every j with
        # s_k - s_j < 1, then count the inserted ones of lower level.
        p = n - 1
        for t in range(n - 1, -1, -1):
            k = order[t]
            while p >= 0 and scores[k] - scores[order[p]] < 1.0:
                _fenwick_add(tree, levels[order[p]] + 1, 1)
                p -= 1
            c = _fenwick_prefix(tree, levels[k])
            coef[k] += c
            n_violated += c
        # sweep 2 (ascending scores): k as the lower document; insert every i with
        # s_i - s_k < 1, then count the inserted ones of higher level.
        tree[:] = 0
        p = 0
        inserted = 0
        for t in range(n):
            k = order[t]
            while p < n and scores[order[p]] - scores[k] < 1.0:
                _fenwick_add(tree, levels[order[p]] + 1, 1)
                inserted += 1
                p += 1
            coef[k] -= inserted - _fenwick_prefix(tree, levels[k] + 1)
    return n_violated


def pairwise_hinge(scores, y, query_ptr):
    """Pairwise hinge loss and its subgradient coefficients, in O(n log n) per query.

    Parameters
    ----------
    scores : ndarray of float, shape (m,)
        Scores ``s = X w``.
    y, query_ptr : ndarray
        Relevance labels (m,) and the int64 query boundaries (q + 1,).

    Returns
    -------
    loss : float
        ``sum_q sum_{y_i > y_j} max(0, 1 - (s_i - s_j))``.
    n_violated : int
        Number of pairs with ``s_i - s_j < 1``.
    coef : ndarray of float64, shape (m,)
        ``sum_{violated} (e_i - e_j)``, so that the subgradient of the loss with respect to w
        is ``-X.T @ coef`` and ``loss = n_violated - coef @ scores``.

    References
    ----------
    Joachims. Training linear SVMs in linear time. KDD 2006 (the O(n log n) computation of
    the most violated constraint of the pairwise loss).
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    levels = label_levels(np.asarray(y), query_ptr)
    coef = np.empty(len(scores), dtype=np.float64)
    n_violated = int(_pair_oracle(scores, levels, query_ptr, coef))
    loss = float(n_violated - coef @ scores)
    return loss, n_violated, coef


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


# ----------------------------------------------------------------------------- estimator


def _fingerprint(X, y, query_ptr) -> str:
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


@fill_doc
class RankSVM(LinearScores, Ranker):
    """Linear RankSVM (svm_rank's objective and stopping rule), pair-free cutting planes.

    Parameters
    ----------
    C : float, default 1.0
        svm_rank's ``-c``: objective ``1/2 ||w||^2 + (C/n) sum_q sum_{y_i>y_j} hinge``, n = number
        of training queries.
    epsilon : float, default 0.001
        svm_rank's ``-e``; the stopping tolerance is ``epsilon * total_pairs / n`` (svm_rank's
        rescaling for the swapped-pairs loss).
    max_iter : int, default 1000
        maximum number of cutting-plane iterations (oracle calls); a ConvergenceWarning is
        issued when it is reached.
    warm_start : bool, default False
        when True and the estimator was fitted before: reuse the previous working set of
        cuts if the training data are identical (cuts do not depend on C, so a C-path is
        cheap), otherwise seed the working set with the cut at the previous ``coef_``.
    n_jobs : int, default 1
        threads for the BLAS calls (X @ w, X.T @ coef).

    Attributes
    ----------
    %(cutting_plane_attributes)s
    tol_ : float
        the stopping tolerance used (``epsilon * pairs / n``)
    n_cuts_ : int
        cuts in the final working set
    n_features_in_ : int

    References
    ----------
    Joachims. Optimizing search engines using clickthrough data. KDD 2002 (the pairwise
    objective). Joachims. Training linear SVMs in linear time. KDD 2006 (svm_rank's 1-slack
    cutting-plane algorithm and stopping rule; module docstring).

    Examples
    --------
    >>> from ltrfs.rankers.ranksvm import RankSVM
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankSVM().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "ranksvm"
    default_grid = {"C": [1e-5 * 2**i for i in range(20)]}
    uses_validation = False  # the validation arguments of fit are accepted and unused

    parameters = {"C": [Real(0, None, closed="neither")], "epsilon": [Real(0, None, closed="neither")],
                  "max_iter": [Integer(1)], "warm_start": [Boolean()], "n_jobs": [Integer(1)]}

    def __init__(self, C=1.0, epsilon=0.001, max_iter=1000, warm_start=False, n_jobs=1):
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        C, epsilon, max_iter = float(self.C), float(self.epsilon), int(self.max_iter)
        start = time.perf_counter()
        m, d = X.shape
        n = len(query_ptr) - 1
        levels = label_levels(y, query_ptr)
        total_pairs = int(count_pairs(y, query_ptr).sum())
        tol = epsilon * total_pairs / n
        coef_rows = np.empty(m, dtype=np.float64)
        fingerprint = _fingerprint(X, y, query_ptr) if self.warm_start else None

        def oracle(w):
            s = X @ w
            n_viol = _pair_oracle(s, levels, query_ptr, coef_rows)
            a = (X.T @ coef_rows) / n
            bval = n_viol / n
            risk = bval - a @ w  # = (1/n) sum of pair hinge losses at w
            return a, bval, risk

        if total_pairs == 0:
            log.warning("RankSVM: no query has two documents with different labels; coef_ = 0")
        one_slack_solve(self, oracle, d, C, tol, max_iter, fingerprint, total_pairs > 0, "RankSVM")
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("RankSVM done: %d iterations, objective %.8g, %d cuts, %.3f s",
                  self.n_iter_, self.objective_, self.n_cuts_, self.seconds_)


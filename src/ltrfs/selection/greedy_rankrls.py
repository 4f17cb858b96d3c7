"""Greedy RankRLS (Pahikkala, Airola, Naula, Salakoski 2010; docs/methods.md, section
'Greedy RankRLS'): greedy forward selection wrapped around linear RankRLS with leave-query-out
(LQO) cross-validation as the criterion, computed by rank-one updates in O(k m n) time and O(m n) memory (two n x m float64 arrays).

RankRLS (the paper's objective, ``pair_weight="query"``)::

    w = argmin_w  sum_Q (1/(2|Q|)) sum_{i,j in Q} (y_i - y_j - w.(x_i - x_j))^2  +  lam ||w||^2

Since ``(1/(2|Q|)) sum_{i,j in Q} (e_i - e_j)^2 = e_Q^T L_Q e_Q`` with the idempotent
``L_Q = I - 1 1^T / |Q|``, this is ridge regression (no intercept) on the query-wise centred
data ``X~ = L X``, ``y~ = L y``: ``w = (X~^T X~ + lam I)^{-1} X~^T y~``.
``pair_weight="pair"`` weighs every within-query pair by 1 instead of ``1/|Q|``
(``sum_Q sum_{i<j in Q} (...)^2``, the objective of ``ltrfs.rankers.RankRLS``); that is the
same ridge regression on ``sqrt(|Q|) X~``, ``sqrt(|Q|) y~``, so everything below holds for
both after that row scaling.

LQO error of a feature set S (the selection criterion; what ``lqo_errors`` report)::

    LQO(S) = sum_Q  (1/(2|Q|)) sum_{i,j in Q} (e_i - e_j)^2  =  sum_Q ||L_Q e_Q||^2,
    e_Q = y_Q - X_{Q,S} w_{-Q},   w_{-Q} = RankRLS trained on all queries but Q (same lam),

i.e. for every held-out query Q its pairwise squared error ``sum_{i<j in Q} (e_i - e_j)^2``
divided by its size |Q| (normalised per query, in the same pair weighting as the training
loss: ``e_Q' L_Q e_Q``), and these per-query errors summed over
the queries. With ``pair_weight="pair"`` no query is divided by its size: ``sum_Q sum_{i<j in
Q} (e_i - e_j)^2``. The paper's LQO also divides the sum by the number of queries, a constant
factor: the arg min, and so the selected features, are the same.
Centring is per query, so leaving a query out changes nothing in the others' centred data.

Greedy forward selection (the paper's wrapper): S = {}; while |S| < k: add
``b = argmin_{i not in S} LQO(S + {i})`` (ties: lowest index); finally w = RankRLS(X_S).

The fast algorithm (the paper's, derived in its kernel form; names as there, with the n x m
arrays feature-major). With ``G = X~_S X~_S^T + lam I`` (m x m, never formed) it keeps::

    a = G^{-1} y~ (m,)            dual coefficients; w = X~_S^T a
    C = G^{-1} X~ (n x m)         for every feature
    U_Q = (G^{-1})_{QQ}^{-1} C_Q  per query block (n x |Q|)
    r_Q = (G^{-1})_{QQ}^{-1} a_Q  = the LQO residuals y~_Q - X~_{Q,S} w_{-Q}

(the leave-block-out identity of ridge regression), starting from a = y~/lam, C = X~/lam,
U = X~, r = y~. Adding feature i (v = X~_{:,i}) is the rank-one update G + v v^T; by
Sherman-Morrison, with ``c = 1/(1 + v.C_i)``, ``d = c C_i.y~`` and, per query,
``gamma_Q = 1/(-1/c + C_{i,Q}.U_{i,Q})``::

    r_Q <- r_Q - alpha_Q U_{i,Q},   alpha_Q = d + gamma_Q (U_{i,Q}.a_Q - d C_{i,Q}.U_{i,Q})
    LQO(S + {i}) = sum_Q ||r_Q||^2

which costs O(m) per candidate, so O(m n) per round. After choosing b, with
``t = c X~_b^T C`` (n,): ``U_Q <- U_Q - U_{b,Q} t - gamma_Q U_{b,Q} (U_{b,Q}.(C_Q - C_{b,Q} t))``,
``a <- a - d C_b``, ``C <- C - C_b t`` (again O(m n)); the per-feature ``s_j = v_j.C_j`` and
``C_j.y~`` follow as ``s_j - t_j^2 / c`` and ``C_j.y~ - t_j C_b.y~``, so X~ itself is not kept
(a selected feature's X~ column is centred again from X when it is added). Both loops are compiled with numba and
run over the candidate features in ``n_jobs`` threads.

``naive_greedy_path`` is the plain wrapper (for every round, candidate and held-out query:
centre the other queries, solve the ridge system, score the held-out query by its explicit
pairs); it is the test oracle and the speed reference.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from ltrfs import metrics
from ltrfs.checks import NeedsValidation, check_validation_split, check_X
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Integer, ListOf, Metric, Options, Real, check_value
from ltrfs.rankers.rankrls import PAIR_WEIGHTS, centered_products, query_center, row_weights, solve_rankrls
from ltrfs.selection.base import Selector
from ltrfs.tuning import ValiChoice

DEFAULT_LAM_GRID = (2.0 ** -7, 2.0 ** 2, 2.0 ** 6, 2.0 ** 8)


# --------------------------------------------------------------------------------------------
# compiled kernels


@njit(cache=True, parallel=True)
def _centre_features(X, ptr, scale, features, out):  # pragma: no cover - compiled
    """out[j] = X~ column features[j]: X[:, f] minus its query means, times ``scale`` (rows)."""
    nq = ptr.shape[0] - 1
    for jj in prange(features.shape[0]):
        f = features[jj]
        for q in range(nq):
            lo = ptr[q]
            hi = ptr[q + 1]
            total = 0.0
            for p in range(lo, hi):
                total += X[p, f]
            mean = total / (hi - lo)
            for p in range(lo, hi):
                out[jj, p] = (X[p, f] - mean) * scale[p]


@njit(cache=True, parallel=True)
def _row_dots(A, rows, v):  # pragma: no cover - compiled
    """A[rows] @ v (len(rows),) without copying the rows.

    Four rows at a time, each summed over p = 0..m-1 in order as the one-row loop does (the same
    float64 result, bit for bit): four independent sums keep the multiply-adds in flight instead
    of waiting on one running sum (as ``ltrfs.rankers.data_matrix.matvec``).
    """
    n = rows.shape[0]
    m = v.shape[0]
    out = np.empty(n)
    for blk in prange((n + 3) // 4):
        j0 = 4 * blk
        if j0 + 4 <= n:
            i0 = rows[j0]
            i1 = rows[j0 + 1]
            i2 = rows[j0 + 2]
            i3 = rows[j0 + 3]
            t0 = t1 = t2 = t3 = 0.0
            for p in range(m):
                vp = v[p]
                t0 += A[i0, p] * vp
                t1 += A[i1, p] * vp
                t2 += A[i2, p] * vp
                t3 += A[i3, p] * vp
            out[j0] = t0
            out[j0 + 1] = t1
            out[j0 + 2] = t2
            out[j0 + 3] = t3
        else:
            for jj in range(j0, n):
                i = rows[jj]
                total = 0.0
                for p in range(m):
                    total += A[i, p] * v[p]
                out[jj] = total
    return out


@njit(cache=True)
def _one_candidate_error(C, U, a, r, s, cy, ptr, i):  # pragma: no cover - compiled
    """The LQO error after adding feature i (module docstring): the reference loop."""
    nq = ptr.shape[0] - 1
    c = 1.0 / (1.0 + s[i])
    d = c * cy[i]
    e = 0.0
    for q in range(nq):
        lo = ptr[q]
        hi = ptr[q + 1]
        cu = 0.0
        ua = 0.0
        for p in range(lo, hi):
            cu += C[i, p] * U[i, p]
            ua += U[i, p] * a[p]
        gamma = 1.0 / (-1.0 / c + cu)
        alpha = d + gamma * (ua - d * cu)
        for p in range(lo, hi):
            z = r[p] - alpha * U[i, p]
            e += z * z
    return e


@njit(cache=True, parallel=True)
def _candidate_errors(C, U, a, r, s, cy, ptr, cand, out):  # pragma: no cover - compiled
    """out[j] = LQO error after adding feature cand[j] (module docstring), for every j.

    Four candidates at a time: each candidate's sums run over the same rows in the same order
    as ``_one_candidate_error`` (bit for bit the same value); interleaving four independent
    candidates keeps the additions in flight instead of waiting on one running sum.
    """
    nq = ptr.shape[0] - 1
    n = cand.shape[0]
    for blk in prange((n + 3) // 4):
        j0 = 4 * blk
        if j0 + 4 <= n:
            i0 = cand[j0]
            i1 = cand[j0 + 1]
            i2 = cand[j0 + 2]
            i3 = cand[j0 + 3]
            c0 = 1.0 / (1.0 + s[i0])
            c1 = 1.0 / (1.0 + s[i1])
            c2 = 1.0 / (1.0 + s[i2])
            c3 = 1.0 / (1.0 + s[i3])
            d0 = c0 * cy[i0]
            d1 = c1 * cy[i1]
            d2 = c2 * cy[i2]
            d3 = c3 * cy[i3]
            e0 = e1 = e2 = e3 = 0.0
            for q in range(nq):
                lo = ptr[q]
                hi = ptr[q + 1]
                cu0 = cu1 = cu2 = cu3 = 0.0
                ua0 = ua1 = ua2 = ua3 = 0.0
                for p in range(lo, hi):
                    ap = a[p]
                    u0 = U[i0, p]
                    u1 = U[i1, p]
                    u2 = U[i2, p]
                    u3 = U[i3, p]
                    cu0 += C[i0, p] * u0
                    ua0 += u0 * ap
                    cu1 += C[i1, p] * u1
                    ua1 += u1 * ap
                    cu2 += C[i2, p] * u2
                    ua2 += u2 * ap
                    cu3 += C[i3, p] * u3
                    ua3 += u3 * ap
                g0 = 1.0 / (-1.0 / c0 + cu0)
                g1 = 1.0 / (-1.0 / c1 + cu1)
                g2 = 1.0 / (-1.0 / c2 + cu2)
                g3 = 1.0 / (-1.0 / c3 + cu3)
                al0 = d0 + g0 * (ua0 - d0 * cu0)
                al1 = d1 + g1 * (ua1 - d1 * cu1)
                al2 = d2 + g2 * (ua2 - d2 * cu2)
                al3 = d3 + g3 * (ua3 - d3 * cu3)
                for p in range(lo, hi):
                    rp = r[p]
                    z0 = rp - al0 * U[i0, p]
                    z1 = rp - al1 * U[i1, p]
                    z2 = rp - al2 * U[i2, p]
                    z3 = rp - al3 * U[i3, p]
                    e0 += z0 * z0
                    e1 += z1 * z1
                    e2 += z2 * z2
                    e3 += z3 * z3
            out[j0] = e0
            out[j0 + 1] = e1
            out[j0 + 2] = e2
            out[j0 + 3] = e3
        else:
            for jj in range(j0, n):
                out[jj] = _one_candidate_error(C, U, a, r, s, cy, ptr, cand[jj])


def _round_errors(C, U, a, r, s, cy, ptr, cand, flat) -> np.ndarray:
    """The LQO errors of the candidates ``cand`` (``_candidate_errors``); those whose centred
    column is zero (``flat``) all have one error, computed once."""
    out, live = np.empty(len(cand)), cand[~flat]
    part = np.empty(len(live))
    _candidate_errors(C, U, a, r, s, cy, ptr, live, part)
    out[~flat] = part
    if flat.any():
        out[flat] = _one_candidate_error(C, U, a, r, s, cy, ptr, int(cand[flat][0]))
    return out


@njit(cache=True)
def _query_terms(C, U, a, r, s_b, cy_b, ptr, b):  # pragma: no cover - compiled
    """Add feature b to the residuals r (in place); returns (c, d, cu (q,), gamma (q,))."""
    nq = ptr.shape[0] - 1
    c = 1.0 / (1.0 + s_b)
    d = c * cy_b
    cu = np.empty(nq)
    gamma = np.empty(nq)
    for q in range(nq):
        lo = ptr[q]
        hi = ptr[q + 1]
        su = 0.0
        ua = 0.0
        for p in range(lo, hi):
            su += C[b, p] * U[b, p]
            ua += U[b, p] * a[p]
        g = 1.0 / (-1.0 / c + su)
        alpha = d + g * (ua - d * su)
        for p in range(lo, hi):
            r[p] -= alpha * U[b, p]
        cu[q] = su
        gamma[q] = g
    return c, d, cu, gamma


@njit(cache=True)
def _update_one(vb, C, U, s, cy, ptr, c, cu, gamma, Cb, Ub, cy_b, j):  # pragma: no cover - compiled
    """The rank-one update of feature j (``_update_features``): the reference loop."""
    nq = ptr.shape[0] - 1
    m = vb.shape[0]
    t = 0.0
    for p in range(m):
        t += vb[p] * C[j, p]
    t *= c
    for q in range(nq):
        lo = ptr[q]
        hi = ptr[q + 1]
        h = 0.0
        for p in range(lo, hi):
            h += Ub[p] * C[j, p]
        h = gamma[q] * (h - t * cu[q])
        for p in range(lo, hi):
            U[j, p] -= Ub[p] * (t + h)
    for p in range(m):
        C[j, p] -= Cb[p] * t
    s[j] -= t * t / c     # v_j.C_b = v_b.C_j = t / c (G symmetric)
    cy[j] -= t * cy_b


@njit(cache=True, parallel=True)
def _update_features(vb, C, U, s, cy, ptr, b, c, cu, gamma, rest):  # pragma: no cover - compiled
    """Rank-one update of C, U, s and cy for every feature in ``rest`` after adding feature b.

    Two features at a time, in one pass that sums both their ``t`` (over all rows in order) and
    their per-query ``h`` (over the query's rows in order) from C as it was, then one pass that
    updates U and C: every sum and every element the same operations in the same order as
    ``_update_one`` (bit for bit), with four independent running sums in flight.
    """
    nq = ptr.shape[0] - 1
    Cb = C[b].copy()
    Ub = U[b].copy()
    cy_b = cy[b]
    n = rest.shape[0]
    for blk in prange((n + 1) // 2):
        j0 = 2 * blk
        if j0 + 2 <= n:
            ja = rest[j0]
            jb = rest[j0 + 1]
            ha = np.empty(nq)
            hb = np.empty(nq)
            ta = 0.0
            tb = 0.0
            for q in range(nq):
                lo = ptr[q]
                hi = ptr[q + 1]
                sa = 0.0
                sb = 0.0
                for p in range(lo, hi):
                    ca = C[ja, p]
                    cb = C[jb, p]
                    vp = vb[p]
                    up = Ub[p]
                    ta += vp * ca
                    tb += vp * cb
                    sa += up * ca
                    sb += up * cb
                ha[q] = sa
                hb[q] = sb
            ta *= c
            tb *= c
            for q in range(nq):
                lo = ptr[q]
                hi = ptr[q + 1]
                hqa = gamma[q] * (ha[q] - ta * cu[q])
                hqb = gamma[q] * (hb[q] - tb * cu[q])
                for p in range(lo, hi):
                    U[ja, p] -= Ub[p] * (ta + hqa)
                    U[jb, p] -= Ub[p] * (tb + hqb)
                    C[ja, p] -= Cb[p] * ta
                    C[jb, p] -= Cb[p] * tb
            s[ja] -= ta * ta / c     # v_j.C_b = v_b.C_j = t / c (G symmetric)
            s[jb] -= tb * tb / c
            cy[ja] -= ta * cy_b
            cy[jb] -= tb * cy_b
        else:
            for jj in range(j0, n):
                _update_one(vb, C, U, s, cy, ptr, c, cu, gamma, Cb, Ub, cy_b, rest[jj])


# --------------------------------------------------------------------------------------------
# helpers

def _check_path_inputs(X, y, query_ptr, lam, k, pair_weight):
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        X = X.astype(np.float64)
    y = np.asarray(y, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be (m, n) with one label per row; got X {X.shape}, y {y.shape}")
    if query_ptr.ndim != 1 or len(query_ptr) < 2 or query_ptr[0] != 0 or query_ptr[-1] != X.shape[0] \
            or np.any(np.diff(query_ptr) < 1):
        raise ValueError("query_ptr must be increasing offsets from 0 to m with non-empty queries")
    if not np.all(np.isfinite(X)) or not np.all(np.isfinite(y)):
        raise ValueError("X and y must be finite (no NaN or inf)")
    lam = float(check_value("lam", lam, [Real(0, None, closed="neither")]))
    n = X.shape[1]
    k = n if k is None else int(check_value("k", k, [Integer(1)]))
    if k > n:
        raise ValueError(f"k must be an integer in 1..{n} (the number of features); got {k!r}")
    check_value("pair_weight", pair_weight, [Options(*PAIR_WEIGHTS)])
    return X, y, query_ptr, lam, int(k)


def _set_threads(n_jobs: int):
    previous = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(n_jobs), numba.config.NUMBA_NUM_THREADS)))
    return previous


# --------------------------------------------------------------------------------------------
# public functions


def greedy_path(X, y, query_ptr, lam: float = 1.0, k: int | None = None, *, pair_weight: str = "query",
                n_jobs: int = 1, return_details: bool = False):
    """Greedy RankRLS selection path by the fast algorithm (module docstring).

    Parameters
    ----------
    X : array-like, shape (m, n)
        Any real dtype (float32 is read as is; each feature is centred in float64).
    y : array-like, shape (m,)
        Relevance labels.
    query_ptr : array-like of int, shape (q + 1,)
    lam : float > 0, default 1.0
        Ridge weight.
    k : int or None
        Features to select (default n, the whole path).
    pair_weight : {"query", "pair"}, default "query"
        The paper's ``1/(2|Q|)`` pair weights, or weight 1 (as ``ltrfs.rankers.RankRLS``).
    n_jobs : int, default 1
        Numba threads over the candidate features.
    return_details : bool, default False
        Also return the details below.

    Returns
    -------
    order : int64 (k,)
        The feature added in each round.
    lqo_errors : float64 (k,)
        The LQO error of the selected set after each round.
    details : dict
        With ``return_details``: ``coefs`` (k arrays: the RankRLS weights (t,) on ``order[:t]``
        trained on all the data) and ``candidate_errors`` (k x n: the LQO error of every
        candidate in every round; NaN for features already selected).

    Notes
    -----
    Time O(k m n). Memory: two float64 n x m arrays (C and U) besides X (read in place); ``v.C_i`` and
    ``C_i.y~`` are kept per feature and updated with C (``v_j.C_b = v_b.C_j`` by symmetry), so
    X~ is never stored: a selected feature's row of U, no longer read, holds its X~ column for
    the weights.

    References
    ----------
    Pahikkala, Airola, Naula, Salakoski, SIGIR 2010 workshop (greedy forward selection by LQO
    with rank-one updates).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 4))
    >>> y = X[:, 1] - 0.5 * X[:, 3] + 0.1 * rng.normal(size=40)
    >>> order, errors = greedy_path(X, y, np.arange(0, 41, 10), lam=1.0, k=2)
    >>> order
    array([1, 3])
    """
    X, y, query_ptr, lam, k = _check_path_inputs(X, y, query_ptr, lam, k, pair_weight)
    m, n = X.shape
    scale = np.sqrt(row_weights(query_ptr, pair_weight))
    yt = query_center(y, query_ptr) * scale
    U = np.empty((n, m))                      # (G^{-1})_QQ^{-1} C_Q; X~ (feature-major) at G = lam I
    _centre_features(X, query_ptr, scale, np.arange(n), U)
    C = U / lam                               # G^{-1} X~
    s = np.einsum("ij,ij->i", U, C)           # v_i.C_i
    cy = C @ yt                               # C_i.y~
    a = yt / lam
    r = yt.copy()                             # LQO residuals of the empty model
    alive = np.ones(n, dtype=bool)
    # features whose centred column is 0 (constant within every query): their rows of C and U
    # are 0 and stay 0 (every update adds t = 0 times something), so each one's candidate error
    # is the same number, sum_p r_p^2 summed as ``_one_candidate_error`` sums it (computed once a
    # round), their updates change nothing and are skipped, and a round that adds one changes no
    # value of C, U, s, cy, a or r (only signs of zeros, which no sum or square sees): the next
    # round's candidate errors are this round's (bit for bit the same as computing them again)
    zero = ~U.any(axis=1)
    order = np.empty(k, dtype=np.int64)
    errors = np.empty(k, dtype=np.float64)
    coefs = []
    cand_err = np.full((k, n), np.nan) if return_details else None
    previous = _set_threads(n_jobs)
    last = None                                # (cand, out, b) of a round that added a zero feature
    try:
        for step in range(k):
            cand = np.flatnonzero(alive).astype(np.int64)
            if last is not None:
                out = last[1][last[0] != last[2]]
            else:
                out = _round_errors(C, U, a, r, s, cy, query_ptr, cand, zero[cand])
            j = int(np.argmin(out))            # first minimum = lowest feature index
            b = int(cand[j])
            order[step] = b
            errors[step] = out[j]
            if cand_err is not None:
                cand_err[step, cand] = out
            alive[b] = False
            c, d, cu, gamma = _query_terms(C, U, a, r, s[b], cy[b], query_ptr, b)
            rest = np.flatnonzero(alive & ~zero).astype(np.int64)
            vb = np.empty((1, m))
            _centre_features(X, query_ptr, scale, np.array([b]), vb)
            vb = vb[0]
            Cb = C[b].copy()
            if step + 1 < k and len(rest) and not zero[b]:
                _update_features(vb, C, U, s, cy, query_ptr, b, c, cu, gamma, rest)
            last = (cand, out, b) if zero[b] else None
            a -= d * Cb
            U[b] = vb                          # row b is no longer read: it keeps X~_b
            if return_details:
                coefs.append(_row_dots(U, order[:step + 1], a))   # w = X~_S^T a
    finally:
        numba.set_num_threads(previous)
    if return_details:
        return order, errors, {"coefs": coefs, "candidate_errors": cand_err}
    return order, errors


def lqo_error(X, y, query_ptr, features, lam: float, *, pair_weight: str = "query") -> float:
    """LQO error of one feature set by the definition (module docstring), the test oracle.

    For every query, RankRLS is trained on the other queries' centred data with an explicit ridge
    solve, and the held-out query's pairwise squared errors ``w_Q sum_{i<j in Q} (e_i - e_j)^2``
    are summed (``w_Q = 1/|Q|`` for "query", 1 for "pair").

    Parameters
    ----------
    X : array-like, shape (m, n)
    y : array-like, shape (m,)
    query_ptr : array-like of int, shape (q + 1,)
    features : sequence of int
    lam : float > 0
    pair_weight : {"query", "pair"}, default "query"

    Returns
    -------
    float

    Notes
    -----
    O(q (m s^2 + s^3 + |Q|^2)) for s features.
    """
    X = np.asarray(X, dtype=np.float64)[:, list(features)]
    y = np.asarray(y, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    nq = len(query_ptr) - 1
    total = 0.0
    for q in range(nq):
        lo, hi = query_ptr[q], query_ptr[q + 1]
        keep = np.r_[0:lo, hi:X.shape[0]]
        ptr = np.r_[query_ptr[:q + 1], query_ptr[q + 2:] - (hi - lo)]
        G, c, _ = centered_products(X[keep], y[keep], ptr, pair_weight)
        w = solve_rankrls(G, c, lam)
        e = y[lo:hi] - X[lo:hi] @ w
        diff = e[:, None] - e[None, :]
        pair_sum = 0.5 * float((diff * diff).sum())  # sum over i < j
        total += pair_sum / (hi - lo) if pair_weight == "query" else pair_sum
    return total


def naive_greedy_path(X, y, query_ptr, lam: float = 1.0, k: int | None = None, *, pair_weight: str = "query"):
    """The plain wrapper (the paper's "standard wrapper approach"): ``greedy_path``'s oracle.

    Every round, every candidate's ``lqo_error`` by retraining once per held-out query with
    explicit solves; the arg min is added (lowest index on ties).

    Parameters
    ----------
    X, y, query_ptr, lam, k, pair_weight
        As ``greedy_path``.

    Returns
    -------
    (int64 (k,), float64 (k,))
        (order, lqo_errors), as ``greedy_path``.

    Notes
    -----
    O(k n q (m k^2 + k^3)) time: a test oracle and speed reference only.
    """
    X, y, query_ptr, lam, k = _check_path_inputs(X, y, query_ptr, lam, k, pair_weight)
    n = X.shape[1]
    chosen: list[int] = []
    errors = []
    for _ in range(k):
        best, best_err = -1, math.inf
        for i in range(n):
            if i in chosen:
                continue
            err = lqo_error(X, y, query_ptr, chosen + [i], lam, pair_weight=pair_weight)
            if err < best_err:
                best, best_err = i, err
        chosen.append(best)
        errors.append(best_err)
    return np.asarray(chosen, dtype=np.int64), np.asarray(errors)


# --------------------------------------------------------------------------------------------
# selector


@fill_doc
class GreedyRankRLS(Selector):
    """Greedy RankRLS: greedy forward selection by leave-query-out error, lambda and k on vali.

    For every lambda of the grid, ``greedy_path`` runs the greedy to length k; on vali the
    RankRLS model on the first t features is scored for t = 1..k (from the path's dual
    coefficients, no refit); the best t per lambda wins (ties: smaller t), then the best lambda
    (ties: earlier in the grid). Without vali data ``lam`` must be given and the model uses all k
    features.

    Parameters
    ----------
    k : int >= 1 or None, default None
        Features selected by the greedy (the path length); None = all d (the full path). The
        model's own k (``chosen_["k"]``) is chosen on vali among 1..k.
    lam : float > 0 or None, default None
        The RankRLS lambda; None chooses it on vali from ``lam_grid`` (the paper's protocol).
    lam_grid : list of float > 0, default (2^-7, 2^2, 2^6, 2^8)
        The paper's grid, used when ``lam`` is None.
    metric : str, default "map"
        Vali metric choosing lambda and k (``ltrfs.metrics.metric_per_query``).
    convention : str, default "letor4"
        Metric convention (``ltrfs.metrics.CONVENTIONS``).
    pair_weight : {"query", "pair"}, default "query"
        "query": the paper's ``1/(2|Q|) sum_{i,j in Q}`` pair weights (ridge regression on
        query-centred data), also in the LQO error; "pair": every within-query pair weighs 1
        (``ltrfs.rankers.RankRLS``).
    n_jobs : int >= 1, default 1
        Numba threads over the candidate features.
    ties : {"expected", "file_order"}, default "expected"
        How the vali metric ranks tied scores (``ltrfs.tuning``: a degenerate model, constant
        scores in every vali query, is never chosen).

    Attributes
    ----------
    ranking_ : int64 (d,)
        The greedy order for the chosen lambda, then (when k < d) the unselected features by their
        LQO error in the last round (ascending; lowest index on ties).
    scores_ : None
    lam_ : float
        The chosen (or given) lambda.
    k_ : int
        The number of features of the model.
    coef_ : float64 (k_,)
        RankRLS weights on ``ranking_[:k_]`` (equal to RankRLS(lam_) trained on those features).
    lqo_errors_ : float64 (k,)
        The LQO error of the selected set after each round (module docstring).
    chosen_ : dict
        ``lam``, ``k``, ``vali_metric``, ``vali``.
    details_ : dict
        ``pair_weight``, the LQO definition in words, and per lambda (key ``repr(lambda)``): the
        ``order``, ``lqo_error`` after each step, ``vali`` {metric: value for k = 1..} for the
        chosen metric, MAP and MeanNDCG, and ``coef`` (the weights for each k), so the paper's
        MAP / MeanNDCG-vs-k curves can be redrawn on any split.
    %(selector_fit_attributes)s

    References
    ----------
    Pahikkala, Airola, Naula, Salakoski. Greedy RankRLS: a linear time algorithm for learning
    sparse ranking models. SIGIR 2010 workshop on feature generation and selection for
    information retrieval: the RankRLS objective, the LQO criterion (the paper averages over
    queries; the sum used here has the same arg min), the greedy forward selection algorithm and
    its O(kmn) rank-one updates. See docs/methods.md, section 'Greedy RankRLS'.

    Examples
    --------
    >>> from ltrfs.selection.greedy_rankrls import GreedyRankRLS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = GreedyRankRLS().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.chosen_["k"], sel.lam_                # k and lambda chosen on vali
    (5, 0.0078125)
    """

    name = "greedy_rankrls"
    #: the code-free state (``ltrfs.state``): the RankRLS weights of the chosen k features
    state_attributes = Selector.state_attributes + ("k_", "coef_")
    parameters = {
        "k": [Integer(1), None],
        "lam": [Real(0, None, closed="neither"), None],
        "lam_grid": [ListOf(Real(0, None, closed="neither"))],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "pair_weight": [Options(*PAIR_WEIGHTS)],
        "n_jobs": [Integer(1)],
        "ties": [Options(*metrics.TIES)],
    }

    def __init__(self, k: int | None = None, lam: float | None = None, lam_grid=DEFAULT_LAM_GRID,
                 metric: str = "map", convention: str = "letor4", pair_weight: str = "query", n_jobs: int = 1,
                 ties: str = "expected"):
        self.k = k
        self.lam = lam
        self.lam_grid = lam_grid
        self.metric = metric
        self.convention = convention
        self.pair_weight = pair_weight
        self.n_jobs = n_jobs
        self.ties = ties

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        if self.lam is not None:
            return None
        example = float(self.lam_grid[len(self.lam_grid) // 2])  # the middle of the grid
        return "greedy_rankrls chooses lambda on validation data when lam is None", {"lam": example}

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        k = d if self.k is None else int(self.k)
        if k > d:
            raise ValueError(f"{self.name}: k={k} exceeds the number of features ({d})")
        # vali in X's dtype (float32 from the workflow): a float64 copy is 0.8 GB at full MSLR size
        vali = check_validation_split(d, X_val, y_val, qid_val, dtype=X.dtype)
        has_vali = vali is not None
        if self.lam is None and not has_vali:
            raise NeedsValidation(f"{self.name}: lam=None chooses lambda on validation data, but none was given; "
                                  "pass X_val, y_val and qid_val to fit, or set lam")
        if has_vali:
            X_val, y_val, ptr_val = vali
        grid = [float(self.lam)] if self.lam is not None else [float(v) for v in self.lam_grid]
        metric_names = [self.metric] + [m for m in ("map", "meanndcg")
                                        if metrics.parse_metric(m) != metrics.parse_metric(self.metric)]
        details, paths = {}, {}
        choice = ValiChoice(f"{self.name} (lambda x k)", y_val, ptr_val, self.metric, self.convention,
                            self.ties, names=("lam", None)) if has_vali else None
        for lam in grid:
            order, errors, extra = greedy_path(X, y, query_ptr, lam, k, pair_weight=self.pair_weight,
                                               n_jobs=self.n_jobs, return_details=True)
            entry = {"order": order.tolist(), "lqo_error": errors.tolist(),
                     "coef": [w.tolist() for w in extra["coefs"]]}
            if has_vali:
                curves = {name: [] for name in metric_names}
                path_columns = X_val[:, order].astype(np.float64)  # once, not a copy per t
                for t in range(1, k + 1):  # ties: the earlier lambda, then the smaller t
                    scores = path_columns[:, :t] @ extra["coefs"][t - 1]
                    curves[self.metric].append(choice.offer((lam, t), scores))
                    for name in metric_names[1:]:
                        curves[name].append(float(metrics.metric_per_query(
                            y_val, scores, ptr_val, name, self.convention, self.ties).mean()))
                entry["vali"] = curves
            details[repr(lam)] = entry
            paths[lam] = (order, errors, extra)
        if has_vali:
            (lam, k_best), _, score = choice.best
        else:
            score, lam, k_best = math.nan, grid[0], k
        order, errors, extra = paths[lam]
        rest = np.setdiff1d(np.arange(d), order)
        if len(rest):
            last = extra["candidate_errors"][-1, rest]
            rest = rest[np.argsort(last, kind="stable")]
        self.ranking_ = np.concatenate([order, rest]).astype(np.int64)
        self.scores_ = None
        self.lam_ = lam
        self.k_ = k_best
        self.coef_ = np.asarray(extra["coefs"][k_best - 1], dtype=np.float64)
        self.lqo_errors_ = errors
        self.chosen_ = {"lam": lam, "k": k_best}
        if has_vali:
            self.chosen_.update({"vali_metric": self.metric, "vali": score})
        self.details_ = {"pair_weight": self.pair_weight, "lqo_error_definition":
                         "sum over queries of the held-out query's pairwise squared error "
                         + ("(1/|Q|) sum_{i<j}" if self.pair_weight == "query" else "sum_{i<j}"),
                         "lambdas": details}

    def predict_scores(self, X) -> np.ndarray:
        """Scores of the RankRLS model on the chosen features: ``X[:, ranking_[:k_]] @ coef_``.

        %(predict_sections)s
        """
        self._check_fitted("coef_")
        X = check_X(X, n_features=self.n_features_in_)
        return X[:, self.ranking_[:self.k_]] @ self.coef_

    def predict_path(self, X, lam: float | None = None, k: int | None = None) -> np.ndarray:
        """Scores of a path model on its first k greedy features.

        Parameters
        ----------
        X : array-like, shape (m, d)
        lam : float or None
            A grid value (default the chosen one).
        k : int or None
            Default the chosen k.

        Returns
        -------
        float64 (m,)
        """
        lam = self.lam_ if lam is None else float(lam)
        entry = self.details_["lambdas"].get(repr(lam))
        if entry is None:
            raise ValueError(f"lam={lam!r} was not on the fitted path; fitted: {', '.join(self.details_['lambdas'])}")
        k = self.k_ if k is None else int(k)
        if not 1 <= k <= len(entry["order"]):
            raise ValueError(f"k={k} is outside 1..{len(entry['order'])}")
        X = np.asarray(X, dtype=np.float64)
        return X[:, entry["order"][:k]] @ np.asarray(entry["coef"][k - 1])


# ----------------------------------------------------------------------------- report data

#: columns of a path file (``path_metrics``)
PATH_HEAD = ["lambda", "k", "ties", "qid", "n_docs", "MAP", "MeanNDCG"]


def path_metrics(selection: dict, test, *, convention: str, ties: str = "file_order") -> str:
    """Per-query test MAP and MeanNDCG of every model on a Greedy RankRLS selection path
    (Pahikkala et al. 2010, Figs. 1-4).

    Parameters
    ----------
    selection : dict
        A ``greedy_rankrls`` selection record: for every lambda (``details.lambdas``, key
        ``repr(lambda)``) its feature order and the RankRLS weights after each greedy step.
    test : RankingData
        The test split.
    convention, ties : str
        As the reported test metrics (``evaluation_ties``, official "file_order").

    Returns
    -------
    str
        A TSV, columns ``PATH_HEAD``, one row per (lambda, k, query): the model on the first k
        features of that lambda's order, with the path's own weights.
    """
    lambdas = (selection.get("details") or {}).get("lambdas")
    if not lambdas:
        raise ValueError("the selection has no per-lambda path in 'details'")
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
    return "\n".join(lines) + "\n"

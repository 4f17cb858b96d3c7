"""The data matrix of the linear pairwise models: float32 features kept as they are (no float64
copy of a large training set), products with them accumulated in float64 (compiled), and the
BLAS thread limit of a fit. Used by FSMRank, the sparse pairwise rankers and their selectors.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from threadpoolctl import threadpool_limits

from ltrfs.checks import check_X

__all__ = ["as_data_matrix", "matvec", "matvec_columns", "rmatvec", "scores_of", "blas_threads"]


@njit(cache=True)
def matvec(X, w, out):  # pragma: no cover - compiled
    """out (m,) <- X @ w with float64 accumulation (X float32 or float64).

    Four rows at a time, each summed over j = 0..d-1 in order as the one-row loop does (the
    same float64 result, bit for bit): four independent sums keep the multiply-adds in flight
    instead of waiting on one running sum (about 1.5-2x faster on a 36,000 x 700 float32 X).
    """
    m, d = X.shape
    i = 0
    while i + 4 <= m:
        a0 = a1 = a2 = a3 = 0.0
        for j in range(d):
            wj = w[j]
            a0 += X[i, j] * wj
            a1 += X[i + 1, j] * wj
            a2 += X[i + 2, j] * wj
            a3 += X[i + 3, j] * wj
        out[i], out[i + 1], out[i + 2], out[i + 3] = a0, a1, a2, a3
        i += 4
    for r in range(i, m):
        acc = 0.0
        for j in range(d):
            acc += X[r, j] * w[j]
        out[r] = acc


@njit(cache=True)
def matvec_columns(XT, cols, w, out):  # pragma: no cover - compiled
    """out (m,) <- X[:, cols] @ w with float64 accumulation, from XT = X.T (d, m) C-contiguous.

    Column by column: ``out[i] += X[i, cols[k]] * w[k]`` for k = 0, 1, ... in order, so every
    row's sum adds the same terms in the same order as ``matvec`` on ``X[:, cols]`` (the same
    float64 result, bit for bit), while the inner loop over the rows is a plain vector update
    (2-4x faster than ``matvec`` on a 20,000 x 700 float32 X). Terms with ``w[k] == 0`` are
    skipped: each is a signed zero (X is finite), and adding a zero to a sum that starts at +0.0
    (which no addition can turn into -0.0) changes nothing; a sparse w costs only its support.
    """
    m = XT.shape[1]
    for i in range(m):
        out[i] = 0.0
    for k in range(cols.shape[0]):
        wk = w[k]
        if wk == 0.0:
            continue
        j = cols[k]
        for i in range(m):
            out[i] += XT[j, i] * wk


@njit(cache=True)
def rmatvec(X, c, out):  # pragma: no cover - compiled
    """out (d,) <- X.T @ c with float64 accumulation; rows with c_i = 0 are skipped."""
    m, d = X.shape
    for j in range(d):
        out[j] = 0.0
    for i in range(m):
        ci = c[i]
        if ci != 0.0:
            for j in range(d):
                out[j] += X[i, j] * ci


def blas_threads(n_jobs):
    """A context in which BLAS uses at most ``n_jobs`` threads (``threadpoolctl``)."""
    return threadpool_limits(limits=int(n_jobs), user_api="blas")


def as_data_matrix(X, what="X", n_features=None):
    """X checked (``check_X``): float32 stays float32 (products accumulate in float64), else float64."""
    dtype = np.float32 if np.asarray(X).dtype == np.float32 else np.float64
    return check_X(X, what, n_features=n_features, dtype=dtype)


def scores_of(X, w) -> np.ndarray:
    """X @ w as float64 (m,), accumulated in float64 whether X is float32 or float64."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    if X.dtype == np.float64:
        return X @ w
    out = np.empty(X.shape[0], dtype=np.float64)
    matvec(X, w, out)
    return out

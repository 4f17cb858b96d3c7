"""Pearson importance and similarity (FSMRank's ``s`` and ``A``, the ``pearson``
filter; docs/methods.md, section 'Pearson importance and similarity').

Over all training rows (queries are ignored)::

    importance[f] = |corr(X[:, f], y)|,      similarity[i, j] = |corr(X[:, i], X[:, j])|

with corr(a, b) = sum (a - mean a)(b - mean b) / sqrt(sum (a - mean a)^2 sum (b - mean b)^2).
A feature that is constant on the rows gets importance ``EPS`` and a similarity row and column
of 0, except the diagonal 1. Every importance is at least ``EPS`` (so that FSMRank's 1/s stays
finite also for an exactly uncorrelated feature); when the labels are all equal every
importance is ``EPS``.

Accumulation is float64 in two passes over row chunks (means, then the centred Gram matrix),
so memory is O(d^2 + chunk * d) whatever the number of rows.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, check_value
from ltrfs.ranking_data import RankingData
from ltrfs.scoring.kendall import check_finite

#: importance of a constant feature (and of every feature when y is constant)
EPS = 1e-6
#: rows per chunk of the float64 accumulation
CHUNK_ROWS = 65536


def pearson_scores(X: np.ndarray, y: np.ndarray, chunk_rows: int = CHUNK_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Pearson importance and similarity of the features (FSMRank's measures).

    See the module docstring for the equations and the constant-feature rule.

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
        Labels.
    chunk_rows : int, default ``CHUNK_ROWS``
        Rows per block of the Gram-matrix products.

    Returns
    -------
    importance : float64 (d,)
        ``|corr(x_i, y)|``, in [EPS, 1].
    similarity : float64 (d, d)
        ``|corr(x_i, x_j)|``, in [0, 1], symmetric with diagonal 1.

    References
    ----------
    Lai et al., FSMRank, IEEE TNNLS 2013, section III-B.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be (m, d) and y (m,); got {X.shape} and {y.shape}")
    check_value("chunk_rows", chunk_rows, [Integer(1)])
    check_finite(X)
    m, d = X.shape
    if m == 0:
        raise ValueError("pearson_scores: X has no rows")
    yf = y.astype(np.float64)
    total = np.zeros(d)
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    for a in range(0, m, chunk_rows):
        block = X[a:a + chunk_rows].astype(np.float64)
        total += block.sum(axis=0)
        lo = np.minimum(lo, block.min(axis=0))
        hi = np.maximum(hi, block.max(axis=0))
    mean = total / m
    ymean = yf.mean()
    gram = np.zeros((d, d))
    xy = np.zeros(d)
    yy = 0.0
    for a in range(0, m, chunk_rows):
        block = X[a:a + chunk_rows].astype(np.float64)
        block -= mean
        yc = yf[a:a + chunk_rows] - ymean
        gram += block.T @ block
        xy += block.T @ yc
        yy += float(yc @ yc)
    const = (hi == lo) | (np.diag(gram) <= 0)
    var = np.where(const, 1.0, np.diag(gram))
    if yy > 0:
        importance = np.clip(np.abs(xy) / np.sqrt(var * yy), EPS, 1.0)
        importance[const] = EPS
    else:
        importance = np.full(d, EPS)
    scale = np.sqrt(var)
    similarity = np.clip(np.abs(gram) / np.outer(scale, scale), 0.0, 1.0)
    similarity[const, :] = 0.0
    similarity[:, const] = 0.0
    np.fill_diagonal(similarity, 1.0)
    return importance, similarity


@fill_doc
def scorer(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1) -> dict:
    """``SCORERS["pearson"]``: Pearson importance and similarity on the training split.

    Parameters
    ----------
    %(scorer_parameters)s
    n_threads : int, default 1
        BLAS threads of the Gram-matrix products.

    Returns
    -------
    dict
        ``{"importance": (d,), "similarity": (d, d)}``.
    """
    with threadpool_limits(limits=int(n_threads), user_api="blas"):
        importance, similarity = pearson_scores(train.X, train.y)
    return {"importance": importance, "similarity": similarity}

"""The ordered pairs of the pairwise rankers: labels as levels within each query, the number
of pairs (i, j) with y_i > y_j per query, and the Fenwick tree over label levels that sums over
such pairs in O(n log n) per query (RankSVM's separation oracle, the primal RankSVM's squared
hinge, FSMRank and the sparse pairwise rankers).
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["levels_within_queries", "count_pairs", "fenwick_add", "fenwick_prefix"]


def levels_within_queries(y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
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


@njit(cache=True)
def fenwick_add(tree, pos, value):  # pragma: no cover - compiled
    """Add ``value`` at 1-based position ``pos`` of the Fenwick tree ``tree`` (size n + 1)."""
    n = tree.shape[0]
    while pos < n:
        tree[pos] += value
        pos += pos & (-pos)


@njit(cache=True)
def fenwick_prefix(tree, pos):  # pragma: no cover - compiled
    """Sum of positions 1..pos of the Fenwick tree ``tree`` (0 for pos = 0), in its dtype."""
    total = tree[0] * 0  # zero of the tree's dtype (counts or float sums)
    while pos > 0:
        total += tree[pos]
        pos -= pos & (-pos)
    return total

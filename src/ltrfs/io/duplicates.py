"""Rows that repeat an earlier row of the same query (the reader warns about them)."""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["duplicate_rows"]


@njit(cache=True)
def _row_hashes(bits, query_ptr):
    """FNV-1a hash of each row's query number and float32 bit patterns: (m,) uint64."""
    h = np.empty(bits.shape[0], np.uint64)
    prime = np.uint64(1099511628211)
    for q in range(query_ptr.shape[0] - 1):
        for r in range(query_ptr[q], query_ptr[q + 1]):
            v = np.uint64(14695981039346656037) ^ np.uint64(q)
            for j in range(bits.shape[1]):
                v = (v ^ np.uint64(bits[r, j])) * prime
            h[r] = v
    return h


def duplicate_rows(X: np.ndarray, query_ptr: np.ndarray, docids=None) -> np.ndarray:
    """Rows that repeat an earlier row of the same query.

    A repeat has the same features bit for bit and, with ``docids``, the same docid. Rows are
    compared only within runs of equal hashes (``_row_hashes``).

    Parameters
    ----------
    X : ndarray, shape (m, d)
        Features (compared as float32 bit patterns).
    query_ptr : ndarray of int64, shape (q + 1,)
        Row offsets of the queries.
    docids : ndarray of str, shape (m,), optional
        When given, a repeat must also have the same docid.

    Returns
    -------
    ndarray of int64, shape (n, 2)
        ``(row, the first earlier such row)`` for every repeated row, by row.
    """
    if X.shape[0] < 2:
        return np.empty((0, 2), np.int64)
    bits = np.ascontiguousarray(X, dtype=np.float32).view(np.uint32)
    h = _row_hashes(bits, np.asarray(query_ptr, np.int64))
    order = np.lexsort((np.arange(len(h)), h))  # by hash, then by row
    hs = h[order]
    starts = np.flatnonzero(np.r_[True, hs[1:] != hs[:-1]])
    ends = np.r_[starts[1:], len(hs)]
    qrow = np.repeat(np.arange(len(query_ptr) - 1), np.diff(query_ptr))
    pairs = []
    for s, e in zip(starts[ends - starts > 1].tolist(), ends[ends - starts > 1].tolist()):
        rows = order[s:e].tolist()
        for i, r in enumerate(rows[1:], 1):
            for earlier in rows[:i]:
                if (qrow[earlier] == qrow[r] and np.array_equal(bits[earlier], bits[r])
                        and (docids is None or docids[earlier] == docids[r])):
                    pairs.append((r, earlier))
                    break
    return np.array(sorted(pairs), np.int64).reshape(-1, 2)

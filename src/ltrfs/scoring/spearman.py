"""Spearman similarity of features (NGAS, XGAS, HCAS, mRMR; docs/methods.md, section
'Spearman similarity').

Spearman's rho of two features is Pearson's correlation of their ranks, equal values sharing
the mean of the ranks they span (average ranks). Two readings::

    pooled     S[i, j] = |rho(X[:, i], X[:, j])| over all training rows (queries ignored)
    per_query  S[i, j] = |mean over q in Q_ij of rho_q(i, j)|

rho_q is rho over the documents of query q, and Q_ij the queries where neither feature is
constant (rho_q is undefined there); S[i, j] = 0 when Q_ij is empty. A feature constant on all
rows gets a pooled row and column of 0. The diagonal is 1 in both readings.

Vectorised: the ranks of a block of features come from one ``argsort`` (per query: a second,
stable sort by query), ties found by comparing neighbours in sorted order and each run of equal
values given its mean position at once.
Pooled, the similarity is one Gram matrix of the centred ranks (accumulated over row chunks in
float64); per query, the ranks of each query are centred and scaled to unit norm, so that the
sum over queries of rho_q is again one Gram matrix, and the counts |Q_ij| are the Gram matrix of
the "not constant in q" indicators. Nothing loops over feature pairs.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, check_value
from ltrfs.ranking_data import RankingData
from ltrfs.scoring.kendall import check_finite

#: the two readings of the similarity (``spearman_similarity``'s ``per_query``)
SIMILARITIES = ("pooled", "per_query")
#: most features ranked at a time
BLOCK_COLUMNS = 64
#: bytes of the temporaries of one block of features (about 48 per value: sort order, sorted
#: values, ranks, flags); fewer features per block on many rows, at least one
BLOCK_BYTES = 256 * 2**20
#: rows per chunk of the Gram-matrix accumulation
CHUNK_ROWS = 65536


def _check_ptr(query_ptr, m: int) -> np.ndarray:
    ptr = np.asarray(query_ptr, dtype=np.int64)
    if ptr.ndim != 1 or len(ptr) < 2 or ptr[0] != 0 or ptr[-1] != m or np.any(np.diff(ptr) <= 0):
        raise ValueError(f"query_ptr must rise strictly from 0 to the number of rows ({m})")
    return ptr


def _ranks_by_row(V: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Average ranks along each row of V (b, m) within the column ranges of ``ptr`` (queries)."""
    b, m = V.shape
    qidx = np.repeat(np.arange(len(ptr) - 1, dtype=np.uint16 if len(ptr) <= 65536 else np.int64), np.diff(ptr))
    order = np.argsort(V, axis=1)          # tied values need no order: they share one rank
    if len(ptr) > 2:                       # then by query (a radix sort of small ints), value order kept
        order = np.take_along_axis(order, np.argsort(qidx[order], axis=1, kind="stable"), axis=1)
    values = np.take_along_axis(V, order, axis=1)
    starts = np.empty((b, m), dtype=bool)  # a run of equal values (in one query) starts here
    starts[:, 0] = True
    np.not_equal(values[:, 1:], values[:, :-1], out=starts[:, 1:])
    starts[:, ptr[1:-1]] = True            # in (query, value) order the queries keep their ranges
    first = np.flatnonzero(starts)         # flat positions of the runs' first and (exclusive) last
    end = np.empty_like(first)
    end[:-1] = first[1:]
    end[-1] = b * m
    within = first % m                     # position of the run in its row
    run_rank = (within + (end - first - 1) / 2.0) + 1.0 - ptr[qidx[within]]
    ranks = np.empty((b, m))
    np.put_along_axis(ranks, order, np.repeat(run_rank, end - first).reshape(b, m), axis=1)
    return ranks


def _ranks_t(X: np.ndarray, ptr: np.ndarray, dtype=np.float64) -> np.ndarray:
    """Average ranks of X (m, d) as a (d, m) array (one contiguous row per feature)."""
    m, d = X.shape
    out = np.empty((d, m), dtype=dtype)
    step = int(np.clip(BLOCK_BYTES // (48 * m), 1, BLOCK_COLUMNS))
    for a in range(0, d, step):
        out[a:a + step] = _ranks_by_row(np.ascontiguousarray(X[:, a:a + step].T), ptr)
    return out


def average_ranks(X, query_ptr=None) -> np.ndarray:
    """Ranks of every column of X, ties sharing the mean of the ranks they span.

    Parameters
    ----------
    X : array-like, shape (m, d)
        Finite feature values.
    query_ptr : array-like of int, shape (q + 1,), or None
        Query offsets: rank within each query (1..n_q); None: over all rows (1..m).

    Returns
    -------
    float64 (m, d)
        The rank of each value in its column (and query), smallest value rank 1.

    Examples
    --------
    >>> import numpy as np
    >>> average_ranks(np.array([[3.0], [1.0], [3.0], [2.0]]))[:, 0]
    array([3.5, 1. , 3.5, 2. ])
    >>> average_ranks(np.array([[3.0], [1.0], [3.0], [2.0]]), [0, 2, 4])[:, 0]
    array([2., 1., 2., 1.])
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be (m, d); got shape {X.shape}")
    check_finite(X)
    m, d = X.shape
    if m == 0:
        return np.empty((m, d))
    ptr = np.array([0, m]) if query_ptr is None else _check_ptr(query_ptr, m)
    return _ranks_t(X, ptr).T


def _pooled(X: np.ndarray, chunk_rows: int) -> np.ndarray:
    """|rho| over all rows (module docstring)."""
    m, d = X.shape
    # ranks are multiples of 1/2, and so are their distances to the mean rank (m + 1) / 2:
    # float32 holds them exactly below 2^23 rows, at half the memory of float64
    exact32 = m < 2**23
    ranks = _ranks_t(X, np.array([0, m]), np.float32 if exact32 else np.float64)  # (d, m)
    ranks -= (m + 1) / 2.0
    gram = np.zeros((d, d))
    for a in range(0, m, chunk_rows):
        block = ranks[:, a:a + chunk_rows].astype(np.float64)
        gram += block @ block.T
    var = np.diag(gram).copy()
    const = var <= 0
    scale = np.sqrt(np.where(const, 1.0, var))
    sim = np.clip(np.abs(gram) / np.outer(scale, scale), 0.0, 1.0)
    sim[const, :] = 0.0
    sim[:, const] = 0.0
    return sim


def _query_chunks(ptr: np.ndarray, chunk_rows: int):
    """(first query, end query) of consecutive whole-query chunks of about ``chunk_rows`` rows."""
    q = len(ptr) - 1
    i = 0
    while i < q:
        j = int(np.searchsorted(ptr, ptr[i] + chunk_rows, side="right")) - 1
        j = min(max(j, i + 1), q)
        yield i, j
        i = j


def _per_query(X: np.ndarray, ptr: np.ndarray, chunk_rows: int) -> np.ndarray:
    """|mean over queries of rho_q| (module docstring)."""
    d = X.shape[1]
    total = np.zeros((d, d))
    count = np.zeros((d, d))
    for i, j in _query_chunks(ptr, chunk_rows):
        local = ptr[i:j + 1] - ptr[i]
        sizes = np.diff(local)
        ranks = _ranks_t(X[ptr[i]:ptr[j]], local)                 # (d, rows of the chunk)
        ranks -= np.repeat((sizes + 1) / 2.0, sizes)               # the query's mean rank
        norm2 = np.add.reduceat(ranks * ranks, local[:-1], axis=1)  # (d, queries); 0: constant in q
        valid = norm2 > 0
        inv = np.where(valid, 1.0 / np.sqrt(np.where(valid, norm2, 1.0)), 0.0)
        ranks *= np.repeat(inv, sizes, axis=1)
        total += ranks @ ranks.T
        v = valid.astype(np.float64)
        count += v @ v.T
    sim = np.where(count > 0, np.abs(total) / np.maximum(count, 1.0), 0.0)
    return np.clip(sim, 0.0, 1.0)


def spearman_similarity(X, query_ptr=None, per_query: bool = False, chunk_rows: int = CHUNK_ROWS) -> np.ndarray:
    """|Spearman's rho| of every pair of features, pooled or averaged over queries.

    See the module docstring for both readings and the constant-feature rules.

    Parameters
    ----------
    X : array-like, shape (m, d)
        Finite feature values, the rows of a query contiguous.
    query_ptr : array-like of int, shape (q + 1,), or None
        Query offsets; needed when ``per_query``.
    per_query : bool, default False
        False: rho over all rows; True: the mean of the per-query rho.
    chunk_rows : int, default ``CHUNK_ROWS``
        Rows per block of the Gram-matrix products (and per chunk of whole queries).

    Returns
    -------
    float64 (d, d)
        Symmetric, in [0, 1], diagonal 1.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 4.0, 1.0], [2.0, 3.0, 5.0], [3.0, 2.0, 2.0], [4.0, 1.0, 3.0]])
    >>> spearman_similarity(X).round(2)
    array([[1. , 1. , 0.4],
           [1. , 1. , 0.4],
           [0.4, 0.4, 1. ]])

    References
    ----------
    Gigli, Lucchese, Nardini, Perego. Fast feature selection for learning to rank. ICTIR 2016
    (their public code andrgig/FSA uses the pooled reading).
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be (m, d); got shape {X.shape}")
    check_value("chunk_rows", chunk_rows, [Integer(1)])
    check_finite(X)
    m = X.shape[0]
    if m == 0:
        raise ValueError("spearman_similarity: X has no rows")
    if per_query:
        if query_ptr is None:
            raise ValueError("spearman_similarity: per_query=True needs query_ptr")
        sim = _per_query(X, _check_ptr(query_ptr, m), int(chunk_rows))
    else:
        sim = _pooled(X, int(chunk_rows))
    sim = np.maximum(sim, sim.T)       # exactly symmetric
    np.fill_diagonal(sim, 1.0)
    return sim


@fill_doc
def scorer(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1) -> dict:
    """``SCORERS["spearman"]``: both readings of the Spearman similarity on the training split.

    Parameters
    ----------
    %(scorer_parameters)s
    n_threads : int, default 1
        BLAS threads of the Gram-matrix products.

    Returns
    -------
    dict
        ``{"pooled": (d, d), "per_query": (d, d)}``.
    """
    with threadpool_limits(limits=int(n_threads), user_api="blas"):
        return {"pooled": spearman_similarity(train.X),
                "per_query": spearman_similarity(train.X, train.query_ptr, per_query=True)}

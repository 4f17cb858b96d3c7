"""Kendall similarity between features (SPEC section 2; GAS's ``e_ij``).

For features i, j and a query q with n >= 2 documents, tau-b between the two rankings of the
query's documents::

    tau_b = (C - D) / sqrt((n0 - T_i) (n0 - T_j)),   n0 = n (n - 1) / 2

C (D) = pairs of documents ordered the same (opposite) way by both features, T_i = pairs tied
in feature i (sum over tie groups of t (t - 1) / 2); a pair tied in either feature is neither
concordant nor discordant. ``sim[i, j]`` is the unweighted mean of tau_b over the queries
where it is defined: a query with fewer than 2 documents, or on which feature i or j is
constant, contributes nothing to that pair. A pair to which no query contributes gets 0 (no
evidence of similarity). The matrix is symmetric with diagonal 1 (also for a feature that is
constant everywhere).

Algorithm (Knight 1966, O(n log n) per query and pair): per query every feature is sorted
once and replaced by its dense ranks; for a pair (i, j) the documents are walked in the order
of feature i, one tie group of i at a time; before a group is inserted, a Fenwick tree over the
ranks of feature j counts, for each member, the earlier documents with a smaller (concordant)
and a larger (discordant) j-rank. Counting inversions with a Fenwick tree is the same
O(n log n) count as Knight's merge sort (measured twice as fast here), and it excludes the
pairs tied in i or j without a separate joint-tie correction. When one feature of the pair has
no ties on the query it is the one walked, one document at a time.

Parallelism: the queries are cut into a fixed number of chunks of equal estimated cost
(independent of the thread count, so results are bit-identical for any ``n_threads``); Numba
hands the chunks one at a time to ``n_threads`` threads; each chunk has its own (d, d)
accumulators, summed in chunk order at the end.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ltrfs.data import DataError, RankingData

#: maximum number of query chunks (each holds a (d, d) float64 sum and int32 count)
MAX_CHUNKS = 64
#: memory budget of the per-chunk accumulators, bytes
_ACCUMULATOR_BYTES = 1 << 28


@njit(cache=True)
def _prepare_query(X, start, n, col, perm, srank, rank, ndist, ties):  # pragma: no cover - compiled
    """Dense ranks (0-based, ascending) of every feature on rows start..start+n-1.

    perm[f, a]  document (0..n-1) at sorted position a of feature f
    srank[f, a] dense rank of that document (non-decreasing in a)
    rank[f, k]  dense rank of document k
    ndist[f]    number of distinct values; ties[f] number of pairs tied in f
    """
    d = X.shape[1]
    for f in range(d):
        for a in range(n):
            col[a] = X[start + a, f]
        order = np.argsort(col[:n])
        r = 0
        run = 1
        t = 0
        first = order[0]
        perm[f, 0] = first
        srank[f, 0] = 0
        rank[f, first] = 0
        for a in range(1, n):
            k = order[a]
            if col[k] != col[order[a - 1]]:
                r += 1
                t += run * (run - 1) // 2
                run = 1
            else:
                run += 1
            perm[f, a] = k
            srank[f, a] = r
            rank[f, k] = r
        t += run * (run - 1) // 2
        ndist[f] = r + 1
        ties[f] = t


@njit(cache=True)
def _pair_tau(i, j, n, n0, perm, srank, rank, ndist, ties, seq, tree, cnt):  # pragma: no cover - compiled
    """tau-b of features i and j on the prepared query (both non-constant on it)."""
    if ndist[j] == n and ndist[i] < n:
        # tau is symmetric: walk the tie-free feature so that the fast path below applies
        i, j = j, i
    mj = ndist[j]
    for a in range(mj + 1):
        tree[a] = 0
    for a in range(mj):
        cnt[a] = 0
    for a in range(n):
        seq[a] = rank[j, perm[i, a]]
    conc = 0
    disc = 0
    if ndist[i] == n:
        # no ties in feature i: every document becomes visible right after its own count
        for a in range(n):
            r = seq[a]
            less = 0
            k = r
            while k > 0:
                less += tree[k]
                k -= k & (-k)
            conc += less
            disc += a - less - cnt[r]
            cnt[r] += 1
            k = r + 1
            while k <= mj:
                tree[k] += 1
                k += k & (-k)
        return (conc - disc) / np.sqrt(float(n0 - ties[i]) * float(n0 - ties[j]))
    inserted = 0
    gstart = 0
    for a in range(n):
        if a > 0 and srank[i, a] != srank[i, a - 1]:
            # the tie group of feature i that ended at a - 1 becomes visible to later documents
            for b in range(gstart, a):
                rb = seq[b]
                cnt[rb] += 1
                k = rb + 1
                while k <= mj:
                    tree[k] += 1
                    k += k & (-k)
            inserted += a - gstart
            gstart = a
        r = seq[a]
        less = 0
        k = r
        while k > 0:
            less += tree[k]
            k -= k & (-k)
        conc += less
        disc += inserted - less - cnt[r]
    return (conc - disc) / np.sqrt(float(n0 - ties[i]) * float(n0 - ties[j]))


@njit(cache=True, parallel=True)
def _kendall_sums(X, query_ptr, bounds, nmax, mask):  # pragma: no cover - compiled
    """Per-chunk sums of tau_b and counts of contributing queries over the pairs i < j with
    mask[i, j] (upper triangle)."""
    d = X.shape[1]
    n_chunks = bounds.shape[0] - 1
    sums = np.zeros((n_chunks, d, d), np.float64)
    counts = np.zeros((n_chunks, d, d), np.int32)
    for c in prange(n_chunks):
        col = np.empty(nmax, X.dtype)
        perm = np.empty((d, nmax), np.int32)
        srank = np.empty((d, nmax), np.int32)
        rank = np.empty((d, nmax), np.int32)
        ndist = np.empty(d, np.int64)
        ties = np.empty(d, np.int64)
        seq = np.empty(nmax, np.int32)
        tree = np.zeros(nmax + 1, np.int32)
        cnt = np.zeros(nmax, np.int32)
        for q in range(bounds[c], bounds[c + 1]):
            start = query_ptr[q]
            n = query_ptr[q + 1] - start
            if n < 2:
                continue
            _prepare_query(X, start, n, col, perm, srank, rank, ndist, ties)
            n0 = n * (n - 1) // 2
            for i in range(d):
                if ndist[i] < 2:
                    continue
                for j in range(i + 1, d):
                    if ndist[j] < 2 or not mask[i, j]:
                        continue
                    sums[c, i, j] += _pair_tau(i, j, n, n0, perm, srank, rank, ndist, ties, seq, tree, cnt)
                    counts[c, i, j] += 1
    return sums, counts


def _chunk_bounds(sizes: np.ndarray, n_chunks: int) -> np.ndarray:
    """Query index bounds (n_chunks + 1,) cutting the queries into runs of about equal cost
    n log2 n (queries of < 2 documents cost nothing)."""
    n = sizes.astype(np.float64)
    cost = np.where(n >= 2, n * np.log2(np.maximum(n, 2.0)), 0.0)
    cum = np.concatenate([[0.0], np.cumsum(cost)])
    targets = cum[-1] * np.arange(1, n_chunks) / n_chunks
    inner = np.searchsorted(cum, targets, side="left")
    return np.concatenate([[0], inner, [len(sizes)]]).astype(np.int64)


def check_finite(X: np.ndarray, what: str = "X") -> None:
    """One-line DataError naming the first feature (1-based id) holding NaN or inf."""
    bad = ~np.isfinite(X).all(axis=0)
    if bad.any():
        raise DataError(f"{what}: feature {int(np.argmax(bad)) + 1} holds NaN or inf values; "
                        "clean the data (or choose a NULL policy when reading) first")


def check_threads(n_threads) -> int:
    """``n_threads`` as an int >= 1, capped at Numba's thread pool size."""
    if isinstance(n_threads, (bool, np.bool_)) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
        raise ValueError(f"n_threads must be an integer >= 1; got {n_threads!r}")
    return int(min(n_threads, numba.config.NUMBA_NUM_THREADS))


def check_query_ptr(query_ptr, m: int) -> np.ndarray:
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    if query_ptr.ndim != 1 or len(query_ptr) < 1 or query_ptr[0] != 0 or query_ptr[-1] != m \
            or np.any(np.diff(query_ptr) < 0):
        raise ValueError(f"query_ptr must rise from 0 to the number of rows ({m})")
    return query_ptr


def kendall_similarity(X: np.ndarray, query_ptr: np.ndarray, n_threads: int = 1,
                       pairs: np.ndarray | None = None) -> np.ndarray:
    """Mean per-query Kendall tau-b between every pair of features; float64 (d, d).

    X (m, d) real (float32 is used as is, no copy); query_ptr (q + 1,) int offsets of the
    contiguous queries; n_threads Numba threads (default 1). See the module docstring for the
    equation, what contributes, and the value 0 for pairs without any contributing query.
    ``pairs`` (d, d) bool, optional: compute only the pairs i < j with ``pairs[i, j]`` (the
    other off-diagonal entries are 0); used to split the matrix across jobs.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be (m, d); got shape {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    query_ptr = check_query_ptr(query_ptr, X.shape[0])
    threads = check_threads(n_threads)
    check_finite(X)
    d = X.shape[1]
    if pairs is None:
        mask = np.ones((d, d), dtype=np.bool_)
    else:
        mask = np.ascontiguousarray(pairs, dtype=np.bool_)
        if mask.shape != (d, d):
            raise ValueError(f"pairs must be a ({d}, {d}) boolean mask; got shape {mask.shape}")
    sizes = np.diff(query_ptr)
    q = len(sizes)
    if q == 0 or d == 0 or sizes.max() < 2:
        return np.eye(d)
    n_chunks = int(max(1, min(q, MAX_CHUNKS, _ACCUMULATOR_BYTES // (12 * d * d))))
    bounds = _chunk_bounds(sizes, n_chunks)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        # chunks are handed to the threads one at a time (dynamic balance when a core is shared)
        with numba.parallel_chunksize(1):
            sums, counts = _kendall_sums(X, query_ptr, bounds, int(sizes.max()), mask)
    finally:
        numba.set_num_threads(previous)
    total = sums.sum(axis=0)
    count = counts.sum(axis=0, dtype=np.int64)
    upper = np.divide(total, count, out=np.zeros((d, d)), where=count > 0)
    sim = upper + upper.T
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, -1.0, 1.0)


def chunk_pairs(d: int, chunk: int, n_chunks: int) -> np.ndarray:
    """bool (d, d): the pairs i < j of chunk ``chunk`` of ``n_chunks`` (contiguous runs of the
    row-major upper triangle, equal in number of pairs)."""
    if isinstance(n_chunks, bool) or not isinstance(n_chunks, (int, np.integer)) or n_chunks < 1:
        raise ValueError(f"n_chunks must be an integer >= 1; got {n_chunks!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or not 0 <= chunk < n_chunks:
        raise ValueError(f"chunk must be an integer in 0..{n_chunks - 1}; got {chunk!r}")
    rows, cols = np.triu_indices(d, k=1)
    part = np.array_split(np.arange(len(rows)), n_chunks)[chunk]
    mask = np.zeros((d, d), dtype=bool)
    mask[rows[part], cols[part]] = True
    return mask


def scorer(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1) -> dict:
    """SCORERS["kendall"]: ``{"similarity": (d, d)}`` on the training split."""
    return {"similarity": kendall_similarity(train.X, train.query_ptr, n_threads=n_threads)}


def scorer_chunk(train: RankingData, vali: RankingData | None, convention: str, chunk: int, n_chunks: int,
                 n_threads: int = 1) -> dict:
    """The pairs of ``chunk_pairs(d, chunk, n_chunks)`` only: ``{"similarity": (d, d) upper
    triangle of those pairs, 0 elsewhere, "pairs": bool (d, d)}``; ``merge_chunks`` adds them up."""
    mask = chunk_pairs(train.n_features, chunk, n_chunks)
    sim = kendall_similarity(train.X, train.query_ptr, n_threads=n_threads, pairs=mask)
    return {"similarity": np.where(mask, sim, 0.0), "pairs": mask}


def merge_chunks(chunks) -> dict:
    """``{"similarity": (d, d)}`` from ``scorer_chunk`` outputs that cover every pair i < j
    exactly once (ValueError naming the first pair that is missing or covered twice)."""
    chunks = list(chunks)
    if not chunks:
        raise ValueError("merge_chunks: no chunks given")
    shapes = {np.shape(ch.get("similarity")) for ch in chunks} | {np.shape(ch.get("pairs")) for ch in chunks}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"merge_chunks: chunks are not scorer_chunk outputs of one matrix (shapes {sorted(shapes)})")
    d = next(iter(shapes))[0]
    covered = np.zeros((d, d), dtype=np.int64)
    upper = np.zeros((d, d))
    for ch in chunks:
        mask = np.asarray(ch["pairs"], dtype=bool)
        covered += mask
        upper += np.where(mask, np.asarray(ch["similarity"], dtype=np.float64), 0.0)
    want = np.triu(np.ones((d, d), dtype=np.int64), k=1)
    wrong = np.argwhere(covered != want)
    if len(wrong):
        i, j = (int(v) for v in wrong[0])
        raise ValueError(f"merge_chunks: feature pair ({i + 1}, {j + 1}) is covered {int(covered[i, j])} times")
    sim = upper + upper.T
    np.fill_diagonal(sim, 1.0)
    return {"similarity": sim}

"""Kendall similarities between features (GAS's ``e_ij``; docs/methods.md, section 'Kendall
similarity').

For features i, j and a query q with n >= 2 documents, n0 = n (n - 1) / 2 pairs, C (D) = pairs
of documents ordered strictly the same (opposite) way by both features, T_i = pairs tied in
feature i (sum over tie groups of t (t - 1) / 2); a pair tied in either feature is neither
concordant nor discordant. Two similarities:

``concordance`` (default; the paper's definition)::

    tau_q(i, j) = C / n0

A pair tied under either feature counts in the denominator only, so a feature constant on q
gives 0. ``sim[i, j]`` = mean of tau_q over all queries with n >= 2 (every one of them counts,
also where a feature is constant). In [0, 1]; (1 + tau) / 2 when q has no ties.

``tau_b`` (option)::

    tau_b = (C - D) / sqrt((n0 - T_i) (n0 - T_j))

``sim[i, j]`` is the unweighted mean of tau_b over the queries where it is defined: a query
with fewer than 2 documents, or on which feature i or j is constant, contributes nothing to
that pair. A pair to which no query contributes gets 0 (no evidence of similarity).

Both matrices are symmetric with diagonal 1 by definition, also for a feature constant
everywhere (docs/methods.md, section 'Kendall similarity'; the concordance formula itself
would give i with itself the fraction of pairs not tied in i, 0 for a constant feature). The
diagonal never enters GAS: its objective sums e_ij over i != j and its greedy reads e[k, j] only for j != k.

Algorithm (Knight 1966, O(n log n) per query and pair): per query every feature is sorted
once and replaced by its dense ranks; for a pair (i, j) the documents are walked in the order
of feature i, one tie group of i at a time; before a group is inserted, a Fenwick tree over the
ranks of feature j counts, for each member, the earlier documents with a smaller (concordant)
and a larger (discordant) j-rank. Counting inversions with a Fenwick tree is the same
O(n log n) count as Knight's merge sort (measured twice as fast here), and it excludes the
pairs tied in i or j without a separate joint-tie correction. When one feature of the pair has
no ties on the query it is the one walked, one document at a time. One pass gives C and D, so
both similarities come from the same walk, and so does the mean of D / n0 (``discordance``: the
concordance of i with -j, for GAS's ``orientation="best"``); the two fractions cost two more
(d, d) accumulators and no measurable time (bench/bench_scoring.py).

Parallelism: the queries are cut into a fixed number of chunks of equal estimated cost
(independent of the thread count, so results are bit-identical for any ``n_threads``); Numba
hands the chunks one at a time to ``n_threads`` threads; each chunk has its own (d, d)
accumulators, summed in chunk order at the end.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ltrfs.docstrings import fill_doc
from ltrfs.ranking_data import DataError, RankingData
from ltrfs.params import Integer, check_value

#: the similarities: the paper's concordant-pair fraction (default) and Kendall's tau-b
SIMILARITIES = ("concordance", "tau_b")
#: key of each similarity in the ``kendall`` scorer's output ("similarity" is tau-b, as in
#: score files written before the concordance existed)
SCORE_KEYS = {"concordance": "concordance", "tau_b": "similarity", "discordance": "discordance"}
#: maximum number of query chunks (each holds three (d, d) float64 sums and an int32 count)
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
def _pair_counts(i, j, n, perm, srank, rank, ndist, seq, tree, cnt):  # pragma: no cover - compiled
    """(C, D): pairs ordered strictly the same / the opposite way by features i and j on the
    prepared query (both non-constant on it)."""
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
        return conc, disc
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
    return conc, disc


@njit(cache=True, parallel=True)
def _kendall_sums(X, query_ptr, bounds, nmax, mask):  # pragma: no cover - compiled
    """Per-chunk sums of tau_b, counts of the queries contributing to them, and sums of C / n0
    and D / n0 over the pairs i < j with mask[i, j] (upper triangle)."""
    d = X.shape[1]
    n_chunks = bounds.shape[0] - 1
    sums = np.zeros((n_chunks, d, d), np.float64)
    counts = np.zeros((n_chunks, d, d), np.int32)
    conc_sums = np.zeros((n_chunks, d, d), np.float64)
    disc_sums = np.zeros((n_chunks, d, d), np.float64)
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
                    conc, disc = _pair_counts(i, j, n, perm, srank, rank, ndist, seq, tree, cnt)
                    sums[c, i, j] += (conc - disc) / np.sqrt(float(n0 - ties[i]) * float(n0 - ties[j]))
                    counts[c, i, j] += 1
                    conc_sums[c, i, j] += conc / n0
                    disc_sums[c, i, j] += disc / n0
    return sums, counts, conc_sums, disc_sums


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
    """Raise a one-line DataError naming the first feature (1-based id) that holds NaN or inf.

    Parameters
    ----------
    X : ndarray, shape (m, d)
    what : str, default "X"
        The name in the message.
    """
    bad = ~np.isfinite(X).all(axis=0)
    if bad.any():
        raise DataError(f"{what}: feature {int(np.argmax(bad)) + 1} holds NaN or inf values; "
                        "clean the data (or choose a NULL policy when reading) first")


def check_threads(n_threads) -> int:
    """A thread count as an int >= 1, capped at Numba's thread pool size.

    Parameters
    ----------
    n_threads : int

    Returns
    -------
    int
    """
    check_value("n_threads", n_threads, [Integer(1)])
    return int(min(n_threads, numba.config.NUMBA_NUM_THREADS))


def check_query_ptr(query_ptr, m: int) -> np.ndarray:
    """Query offsets as int64, checked against the number of rows.

    Parameters
    ----------
    query_ptr : array-like of int, shape (q + 1,)
    m : int
        Number of rows.

    Returns
    -------
    int64 (q + 1,)
    """
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    if query_ptr.ndim != 1 or len(query_ptr) < 1 or query_ptr[0] != 0 or query_ptr[-1] != m \
            or np.any(np.diff(query_ptr) < 0):
        raise ValueError(f"query_ptr must rise from 0 to the number of rows ({m})")
    return query_ptr


def check_similarity(similarity) -> str:
    """Check a similarity name.

    Parameters
    ----------
    similarity : str
        One of ``SIMILARITIES``.

    Returns
    -------
    str
        ``similarity`` unchanged (a one-line ValueError otherwise).
    """
    if similarity not in SIMILARITIES:
        raise ValueError(f"unknown similarity {similarity!r}; valid: {', '.join(SIMILARITIES)}")
    return similarity


def kendall_similarities(X: np.ndarray, query_ptr: np.ndarray, n_threads: int = 1,
                         pairs: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """GAS's Kendall similarities of every pair of features, from one pass over the queries.

    See the module docstring for the equations and what contributes.

    Parameters
    ----------
    X : ndarray, shape (m, d)
        Feature values (float32 is used as is, no copy).
    query_ptr : ndarray of int, shape (q + 1,)
        Offsets of the contiguous queries.
    n_threads : int, default 1
        Numba threads.
    pairs : bool ndarray (d, d) or None
        Compute only the pairs i < j with ``pairs[i, j]`` (the other off-diagonal entries are 0);
        used to split the matrices across jobs.

    Returns
    -------
    dict of str to float64 (d, d)
        ``"concordance"`` (the paper's C / n0), ``"tau_b"``, and ``"discordance"`` (mean of D /
        n0, diagonal 1: the concordance of i with feature j negated, which GAS's
        ``orientation="best"`` needs).

    References
    ----------
    Geng et al., SIGIR 2007, section 2.3 (similarity by Kendall's tau).
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
        return {"concordance": np.eye(d), "tau_b": np.eye(d), "discordance": np.eye(d)}
    n_chunks = int(max(1, min(q, MAX_CHUNKS, _ACCUMULATOR_BYTES // (28 * d * d))))
    bounds = _chunk_bounds(sizes, n_chunks)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        # chunks are handed to the threads one at a time (dynamic balance when a core is shared)
        with numba.parallel_chunksize(1):
            sums, counts, conc_sums, disc_sums = _kendall_sums(X, query_ptr, bounds, int(sizes.max()), mask)
    finally:
        numba.set_num_threads(previous)
    total = sums.sum(axis=0)
    count = counts.sum(axis=0, dtype=np.int64)
    upper = np.divide(total, count, out=np.zeros((d, d)), where=count > 0)
    tau_b = upper + upper.T
    np.fill_diagonal(tau_b, 1.0)
    out = {"tau_b": np.clip(tau_b, -1.0, 1.0)}
    n_queries = int(np.count_nonzero(sizes >= 2))
    for key, part in (("concordance", conc_sums), ("discordance", disc_sums)):
        upper = part.sum(axis=0) / n_queries
        sim = upper + upper.T
        np.fill_diagonal(sim, 1.0)
        out[key] = np.clip(sim, 0.0, 1.0)
    return out


def kendall_similarity(X: np.ndarray, query_ptr: np.ndarray, n_threads: int = 1,
                       pairs: np.ndarray | None = None, similarity: str = "concordance") -> np.ndarray:
    """One similarity of ``kendall_similarities``.

    Parameters
    ----------
    X, query_ptr, n_threads, pairs
        As ``kendall_similarities``.
    similarity : {"concordance", "tau_b"}, default "concordance"
        The paper's C / n0, or the mean per-query tau-b.

    Returns
    -------
    float64 (d, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0, 3.0], [2.0, 1.0, 2.0], [3.0, 0.0, 1.0]])
    >>> kendall_similarity(X, np.array([0, 3]))      # features 1 and 2 reverse feature 0
    array([[1., 0., 0.],
           [0., 1., 1.],
           [0., 1., 1.]])
    """
    check_similarity(similarity)
    return kendall_similarities(X, query_ptr, n_threads=n_threads, pairs=pairs)[similarity]


def chunk_pairs(d: int, chunk: int, n_chunks: int) -> np.ndarray:
    """The pairs i < j of one chunk of the upper triangle.

    Parameters
    ----------
    d : int
    chunk : int
        0-based chunk index.
    n_chunks : int

    Returns
    -------
    bool (d, d)
        Contiguous runs of the row-major upper triangle, equal in number of pairs.
    """
    check_value("n_chunks", n_chunks, [Integer(1)])
    check_value("chunk", chunk, [Integer(0, n_chunks - 1)])
    rows, cols = np.triu_indices(d, k=1)
    part = np.array_split(np.arange(len(rows)), n_chunks)[chunk]
    mask = np.zeros((d, d), dtype=bool)
    mask[rows[part], cols[part]] = True
    return mask


def _scores(sims: dict) -> dict:
    return {SCORE_KEYS[name]: sims[name] for name in SCORE_KEYS}


@fill_doc
def scorer(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1) -> dict:
    """``SCORERS["kendall"]``: the Kendall similarities of the training split, one pass.

    Parameters
    ----------
    %(scorer_parameters)s
    n_threads : int, default 1

    Returns
    -------
    dict
        ``{"concordance": (d, d), "similarity": (d, d) tau-b, "discordance": (d, d)}``
        (``SCORE_KEYS`` maps a similarity to its key).
    """
    return _scores(kendall_similarities(train.X, train.query_ptr, n_threads=n_threads))


@fill_doc
def scorer_chunk(train: RankingData, vali: RankingData | None, convention: str, chunk: int, n_chunks: int,
                 n_threads: int = 1) -> dict:
    """The Kendall similarities of the pairs of one chunk only (``chunk_pairs``).

    Parameters
    ----------
    %(scorer_parameters)s
    chunk, n_chunks : int
    n_threads : int, default 1

    Returns
    -------
    dict
        The keys of ``scorer`` holding the upper triangle of those pairs (0 elsewhere), and
        ``"pairs": bool (d, d)``; ``merge_chunks`` adds them up.
    """
    mask = chunk_pairs(train.n_features, chunk, n_chunks)
    sims = _scores(kendall_similarities(train.X, train.query_ptr, n_threads=n_threads, pairs=mask))
    out = {key: np.where(mask, sim, 0.0) for key, sim in sims.items()}
    out["pairs"] = mask
    return out


def merge_chunks(chunks) -> dict:
    """The keys of ``scorer`` from ``scorer_chunk`` outputs.

    Parameters
    ----------
    chunks : list of dict
        Together covering every pair i < j exactly once.

    Returns
    -------
    dict
        ``scorer``'s keys, each a full (d, d) array.

    Raises
    ------
    ValueError
        Naming the first pair that is missing or covered twice.
    """
    chunks = list(chunks)
    if not chunks:
        raise ValueError("merge_chunks: no chunks given")
    keys = list(SCORE_KEYS.values()) + ["pairs"]
    shapes = {np.shape(ch.get(key)) for ch in chunks for key in keys}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"merge_chunks: chunks are not scorer_chunk outputs of one matrix (shapes {sorted(shapes)})")
    d = next(iter(shapes))[0]
    covered = np.zeros((d, d), dtype=np.int64)
    uppers = {key: np.zeros((d, d)) for key in keys[:-1]}
    for ch in chunks:
        mask = np.asarray(ch["pairs"], dtype=bool)
        covered += mask
        for key, upper in uppers.items():
            upper += np.where(mask, np.asarray(ch[key], dtype=np.float64), 0.0)
    want = np.triu(np.ones((d, d), dtype=np.int64), k=1)
    wrong = np.argwhere(covered != want)
    if len(wrong):
        i, j = (int(v) for v in wrong[0])
        raise ValueError(f"merge_chunks: feature pair ({i + 1}, {j + 1}) is covered {int(covered[i, j])} times")
    out = {}
    for key, upper in uppers.items():
        out[key] = upper + upper.T
        np.fill_diagonal(out[key], 1.0)
    return out

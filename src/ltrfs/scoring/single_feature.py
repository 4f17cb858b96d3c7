"""Single-feature importance table, compiled (docs/methods.md, section 'Single-feature
importance').

Every query is ranked by each feature alone, in two orientations, and evaluated with the
metrics of ``ltrfs.metrics`` in a given convention:

    descending  larger value first (``metrics.evaluate(y, x, ..., ties=ties)``)
    ascending   smaller value first (``metrics.evaluate(y, -x, ..., ties=ties)``)

Equal values (``ties``): ``"expected"`` (default; selection must not credit a feature with the
data file's order) averages every metric over all orders of the tied documents;
``"file_order"`` (the official scripts) keeps them in file order in both orientations.

For a query with n documents whose labels in ranked order are ``l_1 .. l_n`` (G the gain, D the
discount, IDCG from the labels sorted descending; see ``ltrfs.metrics``)::

    DCG_i = sum_{j <= i} G(l_j) D(j)          NDCG_i = DCG_i / IDCG_i  (ideal_zero if IDCG_i = 0)
    NDCG@k = NDCG_k for k <= n;  k > n: 0 ("zero") or NDCG_n ("truncate")
    H_i = #{j <= i : l_j >= relevant_min}     P@k = H_min(k, n) / k  (k > n: 0 if "zero")
    AP = sum_{i : l_i relevant} H_i / i / H_n (0 when H_n = 0)
    MeanNDCG = (1/n) sum_{i=1..n} NDCG_i

and each table entry is the macro average over the queries. With ``ties="expected"`` a tie
group of g documents at 0-based ranks s..s+g-1 with gain sum S, r relevant documents and R_b
relevant documents ranked above it gives each of its ranks i = s + t (t = 0..g-1)::

    G(l_i) -> S/g       H_i -> R_b + (t + 1) r/g
    AP = (1/R) sum_groups sum_t (r/g) (R_b + 1 + t (r - 1)/(g - 1)) / (i + 1)   (g = 1: t = 0)

(R = relevant documents of the query; McSherry & Najork, see ``ltrfs.metrics``). The values
equal those of looping ``metrics.evaluate`` over the features (file order: to rounding of the
final mean, the per-query values are computed with the same operations in the same order;
expected: within 1e-12).

Algorithm: the ideal cumulative DCG of every query is computed once. Per feature and query the
documents are sorted once, ascending by value with ties in file order (stable). For float32
data the sort key is the value's bit pattern mapped to an unsigned integer of the same order
(-0.0 mapped to +0.0, so the two tie, as in a float comparison) and the sort is a stable LSD
radix sort with 8-bit digits (passes whose digit is shared by every key skipped; insertion sort
for queries of at most 16 documents); other real dtypes are compared as float64 in a stable
merge sort. That order is the ascending ranking; the descending ranking walks the tie groups
from the largest value down, each group in file order. One pass over the ranked labels gives
every metric of a ranking. With ``ties="expected"`` one helper finds the tie groups of the
sorted keys (size, gain sum, relevant documents) and walks them forward for the ascending
ranking and backward for the descending one (the order inside a group does not matter). Features
are processed in blocks of consecutive columns (a row's block shares cache lines); Numba's
``prange`` runs the blocks on ``n_threads`` threads. Each
feature's sums over queries are accumulated in query order (Neumaier-compensated) by one
thread, so results are bit-identical for any thread count.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from ltrfs import metrics
from ltrfs.ranking_data import DataError
from ltrfs.scoring.kendall import check_threads

__all__ = ["METRIC_NAMES", "single_feature_table"]

#: metric names in the order of ``metrics.evaluate`` (same as ``scoring.SINGLE_FEATURE_METRICS``)
METRIC_NAMES = tuple([f"p@{k}" for k in range(1, 11)] + ["map"]
                     + [f"ndcg@{k}" for k in range(1, 11)] + ["meanndcg"])
_K = 10  # P@k and NDCG@k for k = 1.._K
_NM = 2 * _K + 2  # metrics per orientation: P@1..10, MAP, NDCG@1..10, MeanNDCG
_MAP = _K
_NDCG = _K + 1
_MEAN = 2 * _K + 1

_SMALL = 16  # queries up to this size are insertion-sorted, larger ones radix-sorted


# --------------------------------------------------------------------------------------------
# compiled kernels


@njit(cache=True)
def _ideal_cumulative_dcg(y, ptr, gain, disc):  # pragma: no cover - compiled
    """float64 (m,): per query, IDCG_i at 0-based rank i (labels sorted descending)."""
    out = np.empty(y.shape[0], np.float64)
    for s in range(ptr.shape[0] - 1):
        a, b = ptr[s], ptr[s + 1]
        lab = np.sort(y[a:b])
        acc = 0.0
        n = b - a
        for i in range(n):
            acc += gain[lab[n - 1 - i]] * disc[i]
            out[a + i] = acc
    return out


@njit(cache=True, inline="always")
def _add(acc, comp, row, j, value):  # pragma: no cover - compiled
    """Neumaier-compensated acc[row, j] += value (the error term goes to comp[row, j])."""
    s = acc[row, j]
    t = s + value
    if abs(s) >= abs(value):
        comp[row, j] += (s - t) + value
    else:
        comp[row, j] += (value - t) + s
    acc[row, j] = t


@njit(cache=True, inline="always")
def _add_query(acc, comp, row, base, nd, hits_at, n, r, ap, hits, mean, zero_ndcg,
               zero_prec):  # pragma: no cover - compiled
    """Fill the ranks past a query's last document (nd: NDCG@k so far, hits_at: relevant
    documents in the top k, -1 for "P@k is 0"), then add its P@k, NDCG@k (k = 1.._K), AP
    (ap / hits) and MeanNDCG (mean / n) to acc[row, base:base + _NM]."""
    for k in range(n, _K):
        nd[k] = 0.0 if zero_ndcg else r
        hits_at[k] = -1 if zero_prec else hits
    for k in range(_K):
        _add(acc, comp, row, base + k, hits_at[k] / (k + 1.0) if hits_at[k] >= 0 else 0.0)
        _add(acc, comp, row, base + _NDCG + k, nd[k])
    _add(acc, comp, row, base + _MAP, ap / hits if hits > 0 else 0.0)
    _add(acc, comp, row, base + _MEAN, mean / n)


@njit(cache=True)
def _ranking_metrics(lab, n, icum, a, gain, disc, rel_min, zero_ndcg, zero_prec, ideal_zero,
                     acc, comp, row, base, nd, hits_at):  # pragma: no cover - compiled
    """Add the metrics of one ranked query (labels lab[:n]) to acc[row, base:base + _NM].

    icum[a + i] is the query's IDCG at 0-based rank i; nd and hits_at are (_K,) scratch.
    """
    dcg = 0.0
    hits = 0
    ap = 0.0
    mean = 0.0
    r = ideal_zero
    for i in range(n):
        l = lab[i]
        dcg += gain[l] * disc[i]
        ic = icum[a + i]
        r = dcg / ic if ic > 0.0 else ideal_zero
        mean += r
        if l >= rel_min:
            hits += 1
            ap += hits / (i + 1.0)
        if i < _K:
            nd[i] = r
            hits_at[i] = hits
    _add_query(acc, comp, row, base, nd, hits_at, n, r, ap, hits, mean, zero_ndcg, zero_prec)


@njit(cache=True)
def _tied_ranking_metrics(keys, lab, n, icum, a, gain, disc, inv, rel_min, zero_ndcg, zero_prec, ideal_zero,
                          acc, comp, row, nd, hits_at, g_size, g_gain, g_rel):  # pragma: no cover - compiled
    """As ``_ranking_metrics`` for both orientations (descending into acc[row, :_NM], ascending
    into acc[row, _NM:]), in expectation over the orders of tied documents (module docstring),
    for lab[:n] sorted ascending by keys[:n].

    The tie groups (size, gain sum, relevant documents: g_size/g_gain/g_rel scratch) are found
    once, then walked from the last (descending) and from the first (ascending); the order
    inside a group does not matter. inv[i] = 1/(i + 1); nd, hits_at (_K,) float64 scratch.
    """
    G = 0
    i = 0
    while i < n:
        key = keys[i]
        total = 0.0
        n_rel = 0
        j = i
        while j < n and keys[j] == key:
            l = lab[j]
            total += gain[l]
            if l >= rel_min:
                n_rel += 1
            j += 1
        g_size[G] = j - i
        g_gain[G] = total
        g_rel[G] = n_rel
        G += 1
        i = j
    for orient in range(2):  # 0: descending, 1: ascending
        dcg = 0.0
        ap = 0.0
        mean = 0.0
        r = ideal_zero
        above = 0  # relevant documents ranked above the current group (R_b)
        i = 0  # 0-based rank of the group's first document
        for h in range(G):
            grp = G - 1 - h if orient == 0 else h
            g = g_size[grp]
            n_rel = g_rel[grp]
            if g == 1:  # no tie: the file-order step
                dcg += g_gain[grp] * disc[i]
                ic = icum[a + i]
                r = dcg / ic if ic > 0.0 else ideal_zero
                mean += r
                above += n_rel
                if n_rel > 0:
                    ap += above * inv[i]
                if i < _K:
                    nd[i] = r
                    hits_at[i] = above
                i += 1
                continue
            if n_rel > 0:
                r_mean = n_rel / g
                spread = (n_rel - 1.0) / (g - 1.0)
                c = above + 1.0
                for t in range(g):
                    ap += r_mean * (c + t * spread) * inv[i + t]
            if i < _K:
                for t in range(min(g, _K - i)):
                    hits_at[i + t] = above + (t + 1.0) * n_rel / g
            g_mean = g_gain[grp] / g
            for t in range(g):
                dcg += g_mean * disc[i]
                ic = icum[a + i]
                r = dcg / ic if ic > 0.0 else ideal_zero
                mean += r
                if i < _K:
                    nd[i] = r
                i += 1
            above += n_rel
        base = orient * _NM
        _add_query(acc, comp, row, base, nd, hits_at, n, r, ap, above, mean, zero_ndcg, zero_prec)


@njit(cache=True)
def _sort_keys(keys, labs, n, keys2, labs2, cnt):  # pragma: no cover - compiled
    """Stable ascending sort of keys[:n] (int64 in [0, 2^32)) carrying labs[:n]; returns True
    when the result is in keys2/labs2 (else in keys/labs).

    n <= _SMALL: insertion sort. Otherwise LSD radix sort with 8-bit digits (stable by
    construction); a pass whose digit is the same for every key is skipped.
    """
    if n <= _SMALL:
        for i in range(1, n):
            k = keys[i]
            lb = labs[i]
            j = i - 1
            while j >= 0 and keys[j] > k:
                keys[j + 1] = keys[j]
                labs[j + 1] = labs[j]
                j -= 1
            keys[j + 1] = k
            labs[j + 1] = lb
        return False
    cnt[:, :] = 0
    for i in range(n):
        k = keys[i]
        cnt[0, k & 255] += 1
        cnt[1, (k >> 8) & 255] += 1
        cnt[2, (k >> 16) & 255] += 1
        cnt[3, (k >> 24) & 255] += 1
    ks, ls, kd, ld = keys, labs, keys2, labs2
    swapped = False
    for p in range(4):
        shift = 8 * p
        if cnt[p, (ks[0] >> shift) & 255] == n:
            continue
        total = 0
        for b in range(256):
            c = cnt[p, b]
            cnt[p, b] = total
            total += c
        for i in range(n):
            k = ks[i]
            g = (k >> shift) & 255
            o = cnt[p, g]
            cnt[p, g] = o + 1
            kd[o] = k
            ld[o] = ls[i]
        ks, ls, kd, ld = kd, ld, ks, ls
        swapped = not swapped
    return swapped


@njit(cache=True)
def _descending(keys, lab_asc, n, lab_desc):  # pragma: no cover - compiled
    """lab_desc[:n]: the ascending ranking reversed tie group by tie group (each group keeps
    file order), i.e. larger value first, ties in file order."""
    pos = 0
    j = n - 1
    while j >= 0:
        top = keys[j]
        g = j
        while g > 0 and keys[g - 1] == top:
            g -= 1
        for t in range(g, j + 1):
            lab_desc[pos] = lab_asc[t]
            pos += 1
        j = g - 1


@njit(cache=True, parallel=True)
def _table_float32(X, y, ptr, icum, gain, disc, inv, rel_min, zero_ndcg, zero_prec, ideal_zero,
                   block, nmax, expected):  # pragma: no cover - compiled
    """Sums over queries (d, 2 * _NM) (descending metrics, then ascending) for float32 X, and
    a (d,) flag of features holding NaN. Sort key: the value's bits mapped to an unsigned
    integer of the same order (-0.0 as +0.0). ``expected``: ties in expectation, else file order."""
    d = X.shape[1]
    q = ptr.shape[0] - 1
    n_blocks = (d + block - 1) // block
    sums = np.zeros((d, 2 * _NM), np.float64)
    has_nan = np.zeros(d, np.bool_)
    for blk in prange(n_blocks):
        f0 = blk * block
        f1 = min(d, f0 + block)
        width = f1 - f0
        acc = np.zeros((width, 2 * _NM), np.float64)
        comp = np.zeros((width, 2 * _NM), np.float64)
        vals = np.empty(nmax, np.float32)
        bits = vals.view(np.uint32)
        keys = np.empty(nmax, np.int64)
        keys2 = np.empty(nmax, np.int64)
        labs = np.empty(nmax, np.int64)
        labs2 = np.empty(nmax, np.int64)
        cnt = np.empty((4, 256), np.int64)
        lab_desc = np.empty(nmax, np.int64)
        nd = np.empty(_K, np.float64)
        hits_at = np.empty(_K, np.int64)
        hits_exp = np.empty(_K, np.float64)
        g_size = np.empty(nmax, np.int64)
        g_gain = np.empty(nmax, np.float64)
        g_rel = np.empty(nmax, np.int64)
        for s in range(q):
            a = ptr[s]
            n = ptr[s + 1] - a
            for f in range(f0, f1):
                row = f - f0
                for i in range(n):
                    vals[i] = X[a + i, f]
                for i in range(n):
                    u = np.int64(bits[i])
                    if u == 0x80000000:  # -0.0 ties with +0.0
                        u = 0
                    if (u & 0x7FFFFFFF) > 0x7F800000:
                        has_nan[f] = True
                    if u & 0x80000000:  # negative: larger magnitude sorts first
                        u = 0xFFFFFFFF - u
                    else:
                        u = u | 0x80000000
                    keys[i] = u
                    labs[i] = y[a + i]
                swapped = _sort_keys(keys, labs, n, keys2, labs2, cnt)
                if expected:
                    if swapped:
                        _tied_ranking_metrics(keys2, labs2, n, icum, a, gain, disc, inv, rel_min, zero_ndcg,
                                              zero_prec, ideal_zero, acc, comp, row, nd, hits_exp, g_size,
                                              g_gain, g_rel)
                    else:
                        _tied_ranking_metrics(keys, labs, n, icum, a, gain, disc, inv, rel_min, zero_ndcg,
                                              zero_prec, ideal_zero, acc, comp, row, nd, hits_exp, g_size,
                                              g_gain, g_rel)
                    continue
                if swapped:
                    _descending(keys2, labs2, n, lab_desc)
                    lab_asc = labs2
                else:
                    _descending(keys, labs, n, lab_desc)
                    lab_asc = labs
                _ranking_metrics(lab_desc, n, icum, a, gain, disc, rel_min, zero_ndcg, zero_prec,
                                 ideal_zero, acc, comp, row, 0, nd, hits_at)
                _ranking_metrics(lab_asc, n, icum, a, gain, disc, rel_min, zero_ndcg, zero_prec,
                                 ideal_zero, acc, comp, row, _NM, nd, hits_at)
        for row in range(width):
            for j in range(2 * _NM):
                sums[f0 + row, j] = acc[row, j] + comp[row, j]
    return sums, has_nan


@njit(cache=True)
def _stable_argsort(v, n, perm, tmp):  # pragma: no cover - compiled
    """perm[:n] = positions 0..n-1 sorted by v ascending, equal values in position order
    (insertion sort of runs of 16, then bottom-up merges)."""
    run = 16
    for i in range(n):
        perm[i] = i
    for lo in range(0, n, run):
        hi = min(n, lo + run)
        for i in range(lo + 1, hi):
            p = perm[i]
            x = v[p]
            j = i - 1
            while j >= lo and v[perm[j]] > x:
                perm[j + 1] = perm[j]
                j -= 1
            perm[j + 1] = p
    src = perm
    dst = tmp
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(n, lo + width)
            hi = min(n, lo + 2 * width)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if v[src[j]] < v[src[i]]:
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    if src is not perm:
        for i in range(n):
            perm[i] = src[i]


@njit(cache=True, parallel=True)
def _table_float64(X, y, ptr, icum, gain, disc, inv, rel_min, zero_ndcg, zero_prec, ideal_zero,
                   block, nmax, expected):  # pragma: no cover - compiled
    """As ``_table_float32`` for float64 X, with a stable merge argsort of the values."""
    d = X.shape[1]
    q = ptr.shape[0] - 1
    n_blocks = (d + block - 1) // block
    sums = np.zeros((d, 2 * _NM), np.float64)
    has_nan = np.zeros(d, np.bool_)
    for blk in prange(n_blocks):
        f0 = blk * block
        f1 = min(d, f0 + block)
        width = f1 - f0
        acc = np.zeros((width, 2 * _NM), np.float64)
        comp = np.zeros((width, 2 * _NM), np.float64)
        vals = np.empty(nmax, np.float64)
        svals = np.empty(nmax, np.float64)
        perm = np.empty(nmax, np.int64)
        tmp = np.empty(nmax, np.int64)
        lab_asc = np.empty(nmax, np.int64)
        lab_desc = np.empty(nmax, np.int64)
        nd = np.empty(_K, np.float64)
        hits_at = np.empty(_K, np.int64)
        hits_exp = np.empty(_K, np.float64)
        g_size = np.empty(nmax, np.int64)
        g_gain = np.empty(nmax, np.float64)
        g_rel = np.empty(nmax, np.int64)
        for s in range(q):
            a = ptr[s]
            n = ptr[s + 1] - a
            for f in range(f0, f1):
                row = f - f0
                for i in range(n):
                    x = np.float64(X[a + i, f])
                    if x != x:
                        has_nan[f] = True
                        x = 0.0
                    vals[i] = x
                _stable_argsort(vals, n, perm, tmp)
                for i in range(n):
                    lab_asc[i] = y[a + perm[i]]
                    svals[i] = vals[perm[i]]
                if expected:
                    _tied_ranking_metrics(svals, lab_asc, n, icum, a, gain, disc, inv, rel_min, zero_ndcg,
                                          zero_prec, ideal_zero, acc, comp, row, nd, hits_exp, g_size, g_gain,
                                          g_rel)
                    continue
                _descending(svals, lab_asc, n, lab_desc)
                _ranking_metrics(lab_desc, n, icum, a, gain, disc, rel_min, zero_ndcg, zero_prec,
                                 ideal_zero, acc, comp, row, 0, nd, hits_at)
                _ranking_metrics(lab_asc, n, icum, a, gain, disc, rel_min, zero_ndcg, zero_prec,
                                 ideal_zero, acc, comp, row, _NM, nd, hits_at)
        for row in range(width):
            for j in range(2 * _NM):
                sums[f0 + row, j] = acc[row, j] + comp[row, j]
    return sums, has_nan


# --------------------------------------------------------------------------------------------
# checks and tables


def _check_inputs(X, y, query_ptr):
    """(X float32/float64 (m, d), y int64 (m,), ptr int64 (q + 1,)) or a one-line ValueError."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D (m, d) array; got shape {X.shape}")
    if X.dtype.kind not in "fiub":
        raise ValueError(f"X must hold real numbers; got dtype {X.dtype}")
    if X.dtype != np.float32 and X.dtype != np.float64:
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)  # one compiled layout; a copy only for strided views
    m = X.shape[0]
    y = np.asarray(y)
    if y.shape != (m,):
        raise ValueError(f"y must have one label per row of X ({m}); got shape {y.shape}")
    if np.issubdtype(y.dtype, np.integer) or y.dtype == np.bool_:
        y = y.astype(np.int64)
    elif np.issubdtype(y.dtype, np.floating):
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("labels y must be integers")
        y = y.astype(np.int64)
    else:
        raise ValueError(f"labels y must be integers; got dtype {y.dtype}")
    if m and y.min() < 0:
        raise ValueError(f"labels y must be >= 0; got {int(y.min())}")
    if m and y.max() > 1000:
        raise ValueError(f"labels y must be graded relevance levels <= 1000; got {int(y.max())}")
    ptr = np.asarray(query_ptr)
    if ptr.ndim != 1 or ptr.size < 1 or not np.issubdtype(ptr.dtype, np.integer):
        raise ValueError("query_ptr must be a 1-D integer array of query offsets (q + 1,)")
    ptr = ptr.astype(np.int64)
    if ptr[0] != 0 or ptr[-1] != m or np.any(np.diff(ptr) <= 0):
        raise ValueError(f"query_ptr must rise strictly from 0 to the number of rows ({m}); "
                         f"got {ptr[0]} .. {ptr[-1]}" + (" with an empty query" if np.any(np.diff(ptr) <= 0) else ""))
    return X, y, ptr


def _block_size(d: int, itemsize: int, threads: int) -> int:
    """Features per parallel task: about one cache line of a row (16 float32, 8 float64), with a
    number of blocks divisible by the thread count when that costs little."""
    target = max(1, 64 // itemsize)
    n_blocks = threads * max(1, math.ceil(d / (threads * target)))
    return max(1, math.ceil(d / n_blocks))


def single_feature_table(X: np.ndarray, y: np.ndarray, query_ptr: np.ndarray,
                         convention="letor4", n_threads: int = 1,
                         ties: str = "expected") -> dict[str, np.ndarray]:
    """The metrics of ranking every query by each feature alone (descending and ascending).

    Each metric is the macro average over queries of the per-query metric (module docstring);
    equal (to rounding of the mean) to looping ``metrics.evaluate(..., ties=ties)`` over the
    features.

    Parameters
    ----------
    X : array-like, shape (m, d)
        Real values (C-contiguous float32 or float64 used without copy, other numeric dtypes as
        float64); NaN raises DataError naming the feature; +-inf allowed.
    y : array-like of int, shape (m,)
        Labels 0..1000.
    query_ptr : array-like of int, shape (q + 1,)
        Offsets of the contiguous, non-empty queries.
    convention : str or Convention, default "letor4"
        letor3, letor4, mslr, standard, or a ``metrics.Convention`` (e.g. from
        ``metrics.get_convention("standard", ideal_zero=1)``).
    n_threads : int, default 1
        Numba threads (capped at Numba's pool size).
    ties : {"expected", "file_order"}, default "expected"
        Equal values in expectation over their orders (as selection needs), or in file order (the
        official scripts' rule).

    Returns
    -------
    dict of str to float64 (d,)
        Keys ``"p@1".."p@10", "map", "ndcg@1".."ndcg@10", "meanndcg"`` for the descending ranking
        (larger value first) and the same with suffix ``":asc"`` for the ascending one; NaN
        everywhere when there are no queries.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3.0, 1.0], [2.0, 1.0], [1.0, 1.0]])
    >>> table = single_feature_table(X, np.array([2, 1, 0]), np.array([0, 3]))
    >>> table["map"].round(3), table["map:asc"].round(3)   # feature 1 ties all: expected MAP
    (array([1.   , 0.806]), array([0.583, 0.806]))
    """
    conv = metrics.get_convention(convention)
    if conv.short_precision == "fetched":
        raise ValueError(f"single-feature scores: the {conv.name} convention's P@k (the share among min(k, n) "
                         "documents) is an evaluation convention only; score features in another one")
    metrics.check_ties(ties)
    X, y, ptr = _check_inputs(X, y, query_ptr)
    threads = check_threads(n_threads)
    m, d = X.shape
    q = ptr.size - 1
    out_names = list(METRIC_NAMES) + [f"{name}:asc" for name in METRIC_NAMES]
    if q == 0 or d == 0:
        fill = np.nan if q == 0 else 0.0
        return {name: np.full(d, fill) for name in out_names}

    nmax = int(np.diff(ptr).max())
    rank = np.arange(1, nmax + 1, dtype=np.float64)
    if conv.discount == "log2":
        disc = 1.0 / np.log2(rank + 1.0)
    else:
        disc = np.ones(nmax)
        disc[2:] = 1.0 / np.log2(rank[2:])
    levels = np.arange(int(y.max()) + 1, dtype=np.float64)
    gain = np.exp2(levels) - 1.0 if conv.gain == "exp2" else levels
    icum = _ideal_cumulative_dcg(y, ptr, gain, disc)

    kernel = _table_float32 if X.dtype == np.float32 else _table_float64
    block = _block_size(d, X.dtype.itemsize, threads)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        sums, has_nan = kernel(X, y, ptr, icum, gain, disc, 1.0 / rank, np.int64(conv.relevant_min),
                               conv.short_ndcg == "zero", conv.short_precision == "zero",
                               float(conv.ideal_zero), np.int64(block), np.int64(nmax),
                               ties == "expected")
    finally:
        numba.set_num_threads(previous)
    if has_nan.any():
        raise DataError(f"X: feature {int(np.argmax(has_nan)) + 1} (column {int(np.argmax(has_nan))}) "
                        "holds NaN values; clean the data (or choose a NULL policy when reading) first")
    means = sums / q
    return {name: means[:, j].copy() for j, name in enumerate(out_names)}

"""FS-ED's expected divergence of a feature over the relevance classes (Gupta & Rosso 2012,
Eqs. 2-4; docs/methods.md, section 'FS-ED').

For a feature f and each relevance label r present in the training split, ``p_r`` is the Gaussian
kernel density estimate of f over the training rows with label r,

    p_r(x) = 1 / (M_r h_r) * sum_j phi((x - x_j) / h_r),    phi the standard normal density,
    h_r    = 0.9 * A * M_r^(-1/5),    A = min(std, IQR / 1.34)     (Silverman's rule of thumb)

evaluated at a set of points (``points="vali"``: the feature's values on the validation rows,
one point per row, duplicates included; ``points="grid"``: ``grid_size`` equally spaced points
over the feature's train + vali range) and normalised to sum 1 over those points. Then

    JS(p, q) = 1/2 sum_i p_i log2(p_i / a_i) + 1/2 sum_i q_i log2(q_i / a_i),  a = (p + q) / 2
    d(f)     = sum_{m < n} (n - m) * JS(p_m, p_n)

over the labels m < n present in train (weights are differences of label values, so with
labels {0, 2} only, the single pair weighs 2). JS is in bits, 0 <= JS <= 1; 0 log 0 = 0.
Labels absent from the training split contribute nothing (they have no density).

Bandwidth rule (``class_bandwidths``): std has ddof=1, IQR uses linear interpolation between
order statistics (numpy's default). When IQR = 0 but std > 0 (a feature that is mostly one
value in the class) A = std. When std = 0 too (a single row, or a class whose rows are all
equal) the class has no spread of its own: A is taken from all training rows of the feature
(same rule), still with the class's own M_r. A feature constant over the training rows has
d = 0 (every class density is the same).

Evaluation. Exact mode (``approx=False``) sums the kernels of the training rows within a window
around every point, in the log domain: with dmin the distance from x to its nearest training
value, the rows with ``(x - x_j)^2 <= dmin^2 + (CUTOFF h)^2`` are summed relative to the largest
term. Every dropped term is below ``exp(-CUTOFF^2 / 2) = 1.9e-22`` times the largest, so the
relative error of each point's density is below ``M_r * 1.9e-22`` (below float64 rounding for
classes up to a million rows), and a class lying far from every point (all kernels would
underflow) is still normalised correctly. Ties in the training values and in the points are
collapsed into (value, count) pairs, which is exact.

Approximate mode (``approx=True``): each class is linearly binned on a grid of spacing
``h / TAU`` (only occupied nodes are stored, so heavy tails cost nothing), the kernel sums are
taken at the grid nodes next to the points from tabulated kernel weights (window ``CUTOFF h``),
and linearly interpolated to the points. Cost per class ~ (nodes near the points) x
(2 CUTOFF TAU), independent of the number of rows beyond the binning pass. A class whose
largest binned value at the points is below ``APPROX_FLOOR * M_r`` (it sits in the far tail of
every point, where relative binning errors grow) is evaluated exactly instead. The binning and
interpolation errors are O(1/TAU^2) relative (and cancel to first order on average); measured
divergence differences to exact evaluation are 1e-5 to 1e-4 with TAU = 32, against the
required 1e-3 (tests; bench/bench_fs_ed.py prints them).
"""
from __future__ import annotations

import math
import numbers
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ltrfs.ranking_data import DataError, RankingData
from ltrfs.params import Integer, check_value

#: kernel window in bandwidths (see the module docstring for the error bound)
CUTOFF = 10.0
#: grid nodes per bandwidth in the approximate mode
TAU = 32
#: classes whose binned density at every point is below APPROX_FLOOR * M_r are evaluated exactly
APPROX_FLOOR = 1e-3
#: ``approx="auto"`` uses the exact mode when train rows x evaluation points <= this
AUTO_EXACT_MAX = 1e8
#: features per transposed block (at most; also capped so a block's copy stays under BLOCK_BYTES)
BLOCK = 64
BLOCK_BYTES = 1 << 27
POINTS = ("vali", "grid")

__all__ = ["expected_divergence", "class_densities", "class_bandwidths", "silverman_bandwidth",
           "kde", "js_divergence", "density_points", "scorer", "scorer_chunk", "merge_chunks",
           "chunk_features"]


# ----------------------------------------------------------------------------- numba kernels

@njit(nogil=True, cache=True)
def _spread(v):
    """A = min(std, IQR/1.34) of sorted float64 values (std if IQR = 0); 0 when constant."""
    n = v.size
    if n < 2 or v[0] == v[n - 1]:
        return 0.0
    mean = 0.0
    for i in range(n):
        mean += v[i]
    mean /= n
    ss = 0.0
    for i in range(n):
        t = v[i] - mean
        ss += t * t
    std = math.sqrt(ss / (n - 1))
    # quantiles with linear interpolation (numpy's default method)
    q = np.empty(2)
    for k, p in enumerate((0.25, 0.75)):
        pos = p * (n - 1)
        lo = int(math.floor(pos))
        hi = min(lo + 1, n - 1)
        q[k] = v[lo] + (pos - lo) * (v[hi] - v[lo])
    iqr = q[1] - q[0]
    if iqr > 0.0:
        return min(std, iqr / 1.34)
    return std


@njit(nogil=True, cache=True)
def _bandwidth(v_sorted, pooled_spread):
    """Silverman's h of one class (sorted values) with the pooled fallback; 0 if no spread at all."""
    a = _spread(v_sorted)
    if a == 0.0:
        a = pooled_spread
    return 0.9 * a * v_sorted.size ** (-0.2)


@njit(nogil=True, cache=True)
def _unique_counts(v):
    """(unique values, float64 counts) of sorted v."""
    n = v.size
    u = np.empty(n)
    c = np.empty(n)
    k = -1
    for i in range(n):
        if k < 0 or v[i] != u[k]:
            k += 1
            u[k] = v[i]
            c[k] = 1.0
        else:
            c[k] += 1.0
    return u[:k + 1].copy(), c[:k + 1].copy()


@njit(nogil=True, cache=True)
def _log_kde(u, cnt, h, pts, cut):
    """log sum_j cnt_j exp(-(x - u_j)^2 / (2 h^2)) at every point x (u sorted, unique).

    Window: the terms within (dmin^2 + (cut h)^2) of x, relative to the largest term."""
    K = u.size
    out = np.empty(pts.size)
    inv = 0.5 / (h * h)
    ch2 = (cut * h) ** 2
    for i in range(pts.size):
        x = pts[i]
        j = np.searchsorted(u, x)
        dmin = np.inf
        if j < K:
            dmin = u[j] - x
        if j > 0:
            dmin = min(dmin, x - u[j - 1])
        d2 = dmin * dmin
        r = math.sqrt(d2 + ch2)
        lo = np.searchsorted(u, x - r)
        hi = np.searchsorted(u, x + r, side="right")
        s = 0.0
        for k in range(lo, hi):
            t = x - u[k]
            s += cnt[k] * math.exp(-(t * t - d2) * inv)
        out[i] = math.log(s) - d2 * inv
    return out


@njit(nogil=True, cache=True)
def _binned_kde(u, cnt, h, pts, tau, cut):
    """sum_j cnt_j exp(-(x - u_j)^2 / (2 h^2)) at every point by linear binning on a grid of
    spacing h / tau, tabulated kernel weights over +-cut h and linear interpolation.
    Returns (values, ok); ok is False when the grid would need over 2^40 nodes."""
    o = min(u[0], pts[0])
    delta = h / tau
    span = max(u[u.size - 1], pts[pts.size - 1]) - o
    if not span / delta < 2.0 ** 40:
        return np.zeros(pts.size), False
    # occupied nodes: value u_k splits cnt_k between nodes b and b + 1 (b nondecreasing in k,
    # so a node is either new, the last one, or the one before it)
    K = u.size
    nk = np.empty(2 * K, np.int64)
    ck = np.empty(2 * K)
    last = -1
    for k in range(K):
        t = (u[k] - o) / delta
        b = int(math.floor(t))
        w = t - b
        if last >= 1 and nk[last - 1] == b:      # b and b + 1 are both there
            ck[last - 1] += cnt[k] * (1.0 - w)
            ck[last] += cnt[k] * w
            continue
        if last >= 0 and nk[last] == b:
            ck[last] += cnt[k] * (1.0 - w)
        else:
            last += 1
            nk[last] = b
            ck[last] = cnt[k] * (1.0 - w)
        last += 1
        nk[last] = b + 1
        ck[last] = cnt[k] * w
    n_occ = last + 1
    # nodes needed by the points (sorted, unique): b_i and b_i + 1; pos_i is where b_i is
    P = pts.size
    ne = np.empty(2 * P, np.int64)
    pos = np.empty(P, np.int64)
    frac = np.empty(P)
    last = -1
    for i in range(P):
        t = (pts[i] - o) / delta
        b = int(math.floor(t))
        frac[i] = t - b
        if last < 0 or ne[last] < b:
            last += 1
            ne[last] = b
        if ne[last] == b:
            last += 1
            ne[last] = b + 1
        pos[i] = last - 1
    n_eval = last + 1
    W = int(cut * tau)
    tap = np.empty(W + 1)
    for t in range(W + 1):
        z = t / tau
        tap[t] = math.exp(-0.5 * z * z)
    V = np.empty(n_eval)
    start = 0
    for l in range(n_eval):
        e = ne[l]
        while start < n_occ and nk[start] < e - W:
            start += 1
        s = 0.0
        k = start
        while k < n_occ and nk[k] <= e + W:
            s += ck[k] * tap[abs(nk[k] - e)]
            k += 1
        V[l] = s
    out = np.empty(P)
    for i in range(P):
        w = frac[i]
        out[i] = (1.0 - w) * V[pos[i]] + w * V[pos[i] + 1]
    return out, True


@njit(nogil=True, cache=True)
def _class_probs(u, cnt, h, pts, pcnt, approx, tau, cut, floor):
    """Per-row probabilities at the (unique, sorted) points: density / sum(pcnt * density)."""
    P = pts.size
    p = np.empty(P)
    if approx:
        vals, ok = _binned_kde(u, cnt, h, pts, tau, cut)
        total = 0.0
        for k in range(cnt.size):
            total += cnt[k]
        if ok and vals.max() >= floor * total:
            s = 0.0
            for i in range(P):
                s += pcnt[i] * vals[i]
            for i in range(P):
                p[i] = vals[i] / s
            return p
    logv = _log_kde(u, cnt, h, pts, cut)
    top = logv.max()
    s = 0.0
    for i in range(P):
        p[i] = math.exp(logv[i] - top)
        s += pcnt[i] * p[i]
    for i in range(P):
        p[i] /= s
    return p


@njit(nogil=True, cache=True)
def _js(p, q, pcnt):
    """Jensen-Shannon divergence in bits of per-row probabilities p, q with point multiplicities."""
    s = 0.0
    for i in range(p.size):
        a = p[i]
        b = q[i]
        both = a + b  # a / m = 2a / (a + b): (a + b) / 2 underflows to 0 for a subnormal a or b
        t = 0.0
        if a > 0.0:
            t += a * math.log2(2.0 * a / both)
        if b > 0.0:
            t += b * math.log2(2.0 * b / both)
        s += pcnt[i] * t
    return min(max(0.5 * s, 0.0), 1.0)


@njit(nogil=True, cache=True)
def _prepare_classes(x, order, class_ptr):
    """Per class: sorted float64 values of x (concatenated, at the offsets class_ptr)."""
    m = order.size
    v = np.empty(m)
    for i in range(m):
        v[i] = x[order[i]]
    C = class_ptr.size - 1
    for c in range(C):
        v[class_ptr[c]:class_ptr[c + 1]] = np.sort(v[class_ptr[c]:class_ptr[c + 1]])
    return v


@njit(nogil=True, cache=True)
def _feature_divergence(x, order, class_ptr, labels, xv, grid_size, approx, tau, cut, floor):
    """d(f) of one feature. x (m,) train column, order (m,) rows grouped by class, class_ptr
    (C+1,), labels (C,) label values, xv (mv,) vali column (may be empty in grid mode),
    grid_size 0 for vali points."""
    v = _prepare_classes(x, order, class_ptr)
    C = class_ptr.size - 1
    lo = np.inf
    hi = -np.inf
    for c in range(C):
        a = v[class_ptr[c]]
        b = v[class_ptr[c + 1] - 1]
        lo = min(lo, a)
        hi = max(hi, b)
    if C < 2 or lo == hi:
        return 0.0
    # evaluation points (sorted, unique) with multiplicities
    if grid_size > 0:
        glo = lo
        ghi = hi
        for i in range(xv.size):
            glo = min(glo, float(xv[i]))
            ghi = max(ghi, float(xv[i]))
        pts = np.linspace(glo, ghi, grid_size)
        pcnt = np.ones(grid_size)
    else:
        pv = np.empty(xv.size)
        for i in range(xv.size):
            pv[i] = xv[i]
        pts, pcnt = _unique_counts(np.sort(pv))
    # bandwidths (pooled spread only when some class has none)
    h = np.empty(C)
    pooled = -1.0
    for c in range(C):
        seg = v[class_ptr[c]:class_ptr[c + 1]]
        a = _spread(seg)
        if a == 0.0:
            if pooled < 0.0:
                pooled = _spread(np.sort(v))
            a = pooled
        h[c] = 0.9 * a * seg.size ** (-0.2)
    probs = np.empty((C, pts.size))
    for c in range(C):
        u, cnt = _unique_counts(v[class_ptr[c]:class_ptr[c + 1]])
        probs[c] = _class_probs(u, cnt, h[c], pts, pcnt, approx, tau, cut, floor)
    d = 0.0
    for a in range(C):
        for b in range(a + 1, C):
            d += (labels[b] - labels[a]) * _js(probs[a], probs[b], pcnt)
    return d


# ----------------------------------------------------------------------------- helpers

def _labels(y, what="y_train") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order grouping rows by label, class_ptr, label values float64) of integer labels y."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {y.shape}")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError(f"{what} must hold integer relevance labels")
        y = y.astype(np.int64)
    elif y.dtype.kind not in "iu":
        raise ValueError(f"{what} must hold integer relevance labels, got dtype {y.dtype}")
    order = np.argsort(y, kind="stable").astype(np.int64)
    labels, counts = np.unique(y, return_counts=True)
    class_ptr = np.r_[0, np.cumsum(counts)].astype(np.int64)
    return order, class_ptr, labels.astype(np.float64)


def _feature_index(features, d: int) -> np.ndarray:
    if features is None:
        return np.arange(d, dtype=np.int64)
    if isinstance(features, slice):
        return np.arange(d, dtype=np.int64)[features]
    idx = np.asarray(features)
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise ValueError("features must be a slice or a one-dimensional array of integer column indices")
    idx = idx.astype(np.int64)
    bad = idx[(idx < 0) | (idx >= d)]
    if bad.size:
        raise ValueError(f"features: column index {int(bad[0])} is outside 0..{d - 1}")
    return idx


def _check_finite(X, idx, what):
    for start in range(0, idx.size, BLOCK):
        cols = idx[start:start + BLOCK]
        ok = np.isfinite(X[:, cols]).all(axis=0)
        if not ok.all():
            f = int(cols[np.argmin(ok)])
            raise DataError(f"{what}: feature {f + 1} (column {f}) has NaN or infinite values")


def _resolve_approx(approx, m_train: int, n_points: int) -> bool:
    if isinstance(approx, (bool, np.bool_)):
        return bool(approx)
    if approx == "auto":
        return m_train * n_points > AUTO_EXACT_MAX
    raise ValueError(f"approx must be True, False or 'auto'; got {approx!r}")


# ----------------------------------------------------------------------------- public API

def expected_divergence(X_train, y_train, X_vali=None, features=None, *, points: str = "vali",
                        grid_size: int = 512, approx=False, n_threads: int = 1) -> np.ndarray:
    """FS-ED's expected divergence d(f) of each feature over the relevance classes.

    Parameters
    ----------
    X_train : ndarray, shape (m, d)
    y_train : ndarray of int, shape (m,)
        The rows the class densities are learnt from.
    X_vali : ndarray, shape (mv, d), or None
        The rows whose values are the evaluation points (``points="vali"``, required), or that
        widen the grid's range (``points="grid"``, optional).
    features : slice or int array or None
        Column indices (default all).
    points : {"vali", "grid"}, default "vali"
    grid_size : int, default 512
        Points of the grid (``points="grid"``).
    approx : bool or "auto", default False
        Exact, binned, or binned when m x evaluation points > ``AUTO_EXACT_MAX``.
    n_threads : int, default 1
        Threads sharing the features.

    Returns
    -------
    float64 (len(features),)
        Each >= 0 and at most the sum of label distances over class pairs.

    References
    ----------
    Gupta and Rosso, COLING 2012, section 2: d(f) is eq. (2), the divergence of two class
    densities eq. (3), the kernel density estimate eq. (4).
    """
    X_train = np.asarray(X_train)
    if X_train.ndim != 2:
        raise ValueError(f"X_train must be (m, d), got shape {X_train.shape}")
    m, d = X_train.shape
    order, class_ptr, labels = _labels(y_train)
    if order.size != m:
        raise ValueError(f"y_train has {order.size} labels for {m} rows of X_train")
    if m == 0:
        raise ValueError("X_train has no rows")
    if points not in POINTS:
        raise ValueError(f"points must be one of {', '.join(POINTS)}; got {points!r}")
    if points == "grid":
        if isinstance(grid_size, (bool, np.bool_)) or not isinstance(grid_size, numbers.Integral) or grid_size < 2:
            raise ValueError(f"grid_size must be an integer >= 2; got {grid_size!r}")
    if X_vali is None:
        if points == "vali":
            raise ValueError("points='vali' needs X_vali (the class densities are evaluated at the "
                             "validation rows' feature values)")
        X_vali = np.zeros((0, d), np.float32)
    X_vali = np.asarray(X_vali)
    if X_vali.ndim != 2 or X_vali.shape[1] != d:
        raise ValueError(f"X_vali must be (mv, {d}) like X_train; got shape {X_vali.shape}")
    if points == "vali" and X_vali.shape[0] == 0:
        raise ValueError("X_vali has no rows to evaluate the densities at")
    n_threads = int(check_value("n_threads", n_threads, [Integer(1)]))
    idx = _feature_index(features, d)
    n_points = grid_size if points == "grid" else X_vali.shape[0]
    use_approx = _resolve_approx(approx, m, n_points)
    _check_finite(X_train, idx, "X_train")
    _check_finite(X_vali, idx, "X_vali")
    gs = int(grid_size) if points == "grid" else 0
    out = np.zeros(idx.size)
    if idx.size == 0:
        return out

    def one(args):
        xt, xv, j = args
        out[j] = _feature_divergence(xt, order, class_ptr, labels, xv, gs, use_approx,
                                     float(TAU), CUTOFF, APPROX_FLOOR)

    block = max(n_threads, min(BLOCK, BLOCK_BYTES // (4 * (m + X_vali.shape[0]))))
    pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
    try:
        for start in range(0, idx.size, block):
            cols = idx[start:start + block]
            Xt = np.ascontiguousarray(X_train[:, cols].T)
            Xv = np.ascontiguousarray(X_vali[:, cols].T)
            jobs = [(Xt[i], Xv[i], start + i) for i in range(cols.size)]
            if pool is None:
                for job in jobs:
                    one(job)
            else:
                list(pool.map(one, jobs))
    finally:
        if pool is not None:
            pool.shutdown()
    return out


def silverman_bandwidth(x) -> float:
    """Silverman's rule of thumb ``0.9 * min(std, IQR/1.34) * M^(-1/5)``.

    Parameters
    ----------
    x : array-like, shape (M,)

    Returns
    -------
    float
        std with ddof=1; ``min`` replaced by std when the IQR is 0; 0.0 for a constant sample.
    """
    v = np.sort(np.asarray(x, dtype=np.float64).ravel())
    if v.size == 0:
        raise ValueError("silverman_bandwidth of an empty sample")
    return float(_bandwidth(v, 0.0))


def class_bandwidths(x_train, y_train) -> dict[int, float]:
    """The KDE bandwidth h_r of every label r, with the module's fallback.

    Parameters
    ----------
    x_train : array-like, shape (M,)
        Values of one feature.
    y_train : array-like of int, shape (M,)

    Returns
    -------
    dict of int to float
        A class without spread uses the spread of all rows; a constant feature gives 0 for every
        class.
    """
    x = np.asarray(x_train, dtype=np.float64).ravel()
    order, class_ptr, labels = _labels(y_train)
    if order.size != x.size:
        raise ValueError(f"y_train has {order.size} labels for {x.size} values")
    v = _prepare_classes(x, order, class_ptr)
    pooled = _spread(np.sort(v))
    return {int(r): float(_bandwidth(v[class_ptr[c]:class_ptr[c + 1]], pooled))
            for c, r in enumerate(labels)}


def kde(x_train, points, h: float) -> np.ndarray:
    """Gaussian KDE ``1/(M h) sum_j phi((x - x_j)/h)`` of a sample, at some points.

    Evaluated exactly up to the window error bound of the module docstring.

    Parameters
    ----------
    x_train : array-like, shape (M,)
    points : array-like, shape (P,)
    h : float
        Bandwidth.

    Returns
    -------
    float64 (P,)

    References
    ----------
    Gupta and Rosso, COLING 2012, eq. (4).
    """
    x = np.sort(np.asarray(x_train, dtype=np.float64).ravel())
    pts = np.asarray(points, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("kde of an empty sample")
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"kde bandwidth must be > 0; got {h!r}")
    u, cnt = _unique_counts(x)
    order = np.argsort(pts, kind="stable")
    vals = np.empty(pts.size)
    if pts.size:
        vals[order] = np.exp(_log_kde(u, cnt, float(h), np.ascontiguousarray(pts[order]), CUTOFF))
    return vals / (x.size * h * math.sqrt(2.0 * math.pi))


def js_divergence(p, q) -> float:
    """Jensen-Shannon divergence in bits of two discrete distributions.

    ``1/2 KL(p||a) + 1/2 KL(q||a)`` with ``a = (p + q)/2`` and 0 log 0 = 0, after normalising each
    to sum 1.

    Parameters
    ----------
    p, q : array-like, shape (P,)

    Returns
    -------
    float
        In [0, 1].

    References
    ----------
    Gupta and Rosso, COLING 2012, eq. (3).

    Examples
    --------
    >>> js_divergence([1, 0], [0, 1]), js_divergence([1, 1], [2, 2])
    (1.0, 0.0)
    """
    p = np.asarray(p, dtype=np.float64).ravel()
    q = np.asarray(q, dtype=np.float64).ravel()
    if p.shape != q.shape or p.size == 0:
        raise ValueError(f"p and q must be non-empty and of one length; got {p.size} and {q.size}")
    if np.any(p < 0) or np.any(q < 0) or not (p.sum() > 0 and q.sum() > 0):
        raise ValueError("p and q must be non-negative with a positive sum")
    return float(_js(p / p.sum(), q / q.sum(), np.ones(p.size)))


def class_densities(x_train, y_train, points=512) -> dict[int, np.ndarray]:
    """The KDE of one feature per relevance label, normalised over the evaluation points.

    The curves of FS-ED's Fig. 3: per label r, the KDE over the rows of class r (bandwidths of
    ``class_bandwidths``), normalised to integrate to 1 over the points (trapezoid rule).

    Parameters
    ----------
    x_train : array-like, shape (M,)
    y_train : array-like of int, shape (M,)
    points : sorted ndarray (P,) or int, default 512
        The abscissae, or P equally spaced points over the data range widened by 3 times the
        largest bandwidth (``density_points``; call it to know the abscissae).

    Returns
    -------
    dict of int to float64 (P,)
        A density that is 0 at every point stays 0; a constant feature gives zeros.
    """
    x = np.asarray(x_train, dtype=np.float64).ravel()
    hs = class_bandwidths(x, y_train)
    if isinstance(points, numbers.Integral) and not isinstance(points, (bool, np.bool_)):
        pts = density_points(x, y_train, int(points))
    else:
        pts = np.asarray(points, dtype=np.float64).ravel()
        if np.any(np.diff(pts) < 0):
            raise ValueError("points must be sorted ascending")
    y = np.asarray(y_train)
    out = {}
    for r, h in hs.items():
        if h == 0.0 or pts.size == 0:
            out[r] = np.zeros(pts.size)
            continue
        dens = kde(x[y == r], pts, h)
        area = np.trapezoid(dens, pts) if pts.size > 1 else 0.0
        out[r] = dens / area if area > 0 else dens
    return out


def density_points(x_train, y_train, n: int = 512) -> np.ndarray:
    """The plotting grid ``class_densities`` uses when given an int.

    Parameters
    ----------
    x_train : array-like, shape (M,)
    y_train : array-like of int, shape (M,)
    n : int, default 512

    Returns
    -------
    float64 (n,)
        Equally spaced over the range of x_train widened by 3 times the largest class bandwidth.
    """
    if n < 2:
        raise ValueError(f"the number of points must be >= 2; got {n}")
    x = np.asarray(x_train, dtype=np.float64).ravel()
    hs = class_bandwidths(x, y_train)
    pad = 3.0 * max(hs.values(), default=0.0)
    lo, hi = float(x.min()) - pad, float(x.max()) + pad
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, n)


# ----------------------------------------------------------------------------- scorers

def _check_splits(train: RankingData, vali: RankingData | None) -> None:
    if vali is None:
        raise ValueError("the divergence scorer needs the validation split: FS-ED evaluates the "
                         "class densities at the validation rows' feature values")
    if vali.n_features != train.n_features:
        raise ValueError(f"train has {train.n_features} features but vali has {vali.n_features}")


def scorer(train: RankingData, vali: RankingData | None, convention: str, *, approx="auto",
           n_threads: int = 1) -> dict[str, np.ndarray]:
    """``SCORERS["divergence"]``: the expected divergence of every feature for a fold.

    Parameters
    ----------
    train, vali : RankingData
        The class densities come from train, the evaluation points from vali.
    convention : str
        Unused (the divergence involves no ranking metric).
    approx : bool or "auto", default "auto"
        "auto" is exact up to ``AUTO_EXACT_MAX`` train rows x vali rows (MQ2008-sized folds) and
        binned beyond.
    n_threads : int, default 1

    Returns
    -------
    dict
        ``{"divergence": float64 (d,), "points": "vali"}``.
    """
    _check_splits(train, vali)
    div = expected_divergence(train.X, train.y, vali.X, approx=approx, n_threads=n_threads)
    return {"divergence": div, "points": np.array("vali")}


def chunk_features(d: int, chunk: int, n_chunks: int) -> np.ndarray:
    """Column indices of one chunk: ``np.array_split(range(d), n_chunks)[chunk]``.

    Parameters
    ----------
    d, chunk, n_chunks : int

    Returns
    -------
    int64 array
    """
    check_value("n_chunks", n_chunks, [Integer(1)])
    check_value("chunk", chunk, [Integer(0)])
    if chunk >= n_chunks:
        raise ValueError(f"chunk {chunk} is outside 0..{n_chunks - 1} (n_chunks={n_chunks})")
    return np.array_split(np.arange(d, dtype=np.int64), n_chunks)[chunk]


def scorer_chunk(train: RankingData, vali: RankingData | None, convention: str, chunk: int,
                 n_chunks: int, *, approx="auto", n_threads: int = 1) -> dict[str, np.ndarray]:
    """The divergence of the columns of one chunk only (``chunk_features``).

    Parameters
    ----------
    train, vali, convention, approx, n_threads
        As ``scorer``; ``approx="auto"`` decides from the whole split's size, so every chunk uses
        the same mode.
    chunk, n_chunks : int

    Returns
    -------
    dict
        ``{"divergence": (d,) with NaN outside the chunk, "features": int64 indices,
        "points": "vali"}``.
    """
    _check_splits(train, vali)
    idx = chunk_features(train.n_features, chunk, n_chunks)
    div = np.full(train.n_features, np.nan)
    if idx.size:
        div[idx] = expected_divergence(train.X, train.y, vali.X, idx, approx=approx, n_threads=n_threads)
    return {"divergence": div, "features": idx, "points": np.array("vali")}


def merge_chunks(chunks) -> dict[str, np.ndarray]:
    """Combine ``scorer_chunk`` outputs.

    Parameters
    ----------
    chunks : list of dict

    Returns
    -------
    dict
        ``{"divergence": (d,), "points": ...}``.

    Raises
    ------
    ValueError
        Naming the first feature not covered by exactly one chunk.
    """
    chunks = list(chunks)
    if not chunks:
        raise ValueError("merge_chunks: no chunks given")
    sizes = set()
    for i, ch in enumerate(chunks):
        if not {"divergence", "features"} <= set(ch):
            raise ValueError(f"merge_chunks: chunk {i} lacks 'divergence' or 'features' (not a scorer_chunk output)")
        sizes.add(np.asarray(ch["divergence"]).shape)
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise ValueError(f"merge_chunks: chunks disagree on the number of features: {sorted(sizes)}")
    d = next(iter(sizes))[0]
    points = {str(ch.get("points", "vali")) for ch in chunks}
    if len(points) != 1:
        raise ValueError(f"merge_chunks: chunks mix evaluation points {sorted(points)}")
    merged = np.full(d, np.nan)
    owner = np.full(d, -1, np.int64)
    for i, ch in enumerate(chunks):
        idx = np.asarray(ch["features"], dtype=np.int64).ravel()
        div = np.asarray(ch["divergence"], dtype=np.float64)
        bad = idx[(idx < 0) | (idx >= d)]
        if bad.size:
            raise ValueError(f"merge_chunks: chunk {i} names feature column {int(bad[0])} outside 0..{d - 1}")
        uniq, counts = np.unique(idx, return_counts=True)
        taken = uniq[(owner[uniq] >= 0) | (counts > 1)]
        if taken.size:
            f = int(taken[0])
            other = int(owner[f]) if owner[f] >= 0 else i
            raise ValueError(f"merge_chunks: feature {f + 1} (column {f}) is covered twice (chunks {other} and {i})")
        if not np.all(np.isfinite(div[idx])):
            f = int(idx[~np.isfinite(div[idx])][0])
            raise ValueError(f"merge_chunks: chunk {i} has no finite divergence for feature {f + 1} (column {f})")
        owner[idx] = i
        merged[idx] = div[idx]
    missing = np.flatnonzero(owner < 0)
    if missing.size:
        f = int(missing[0])
        raise ValueError(f"merge_chunks: feature {f + 1} (column {f}) is covered by no chunk "
                         f"({missing.size} features missing)")
    return {"divergence": merged, "points": np.array(points.pop())}

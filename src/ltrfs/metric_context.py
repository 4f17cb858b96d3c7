"""The score-independent part of a ranking metric over (labels, queries), for fast evaluations.

``MetricContext`` computes once everything about (labels, queries, metric) that does not depend
on the scores, so that evaluating the metric of many score vectors costs only the per-query
ranking work. Coordinate Ascent (``ltrfs.rankers.coord_ascent``) and FS-BFS
(``ltrfs.selection.fs_bfs``) evaluate thousands of line-search trials through it.

Speed: a trial changes the scores by ``t * x`` (x a feature column), so every trial of a line
search is evaluated by one compiled kernel over all queries (``MetricContext.trials``) from the
current scores, a column and the trial steps: NDCG@K and P@K keep a stable top-K per query (no
sort; with expected ties also the count, gain and relevance of the documents left out that tie
with the K-th score), MAP and MeanNDCG sort each query (stable, like ``ltrfs.metrics``; expected
ties walk the blocks of equal scores). Queries whose value cannot change (no relevant document,
or fewer than K documents where the convention gives 0) are summed once when the context is
built. Values equal ``ltrfs.metrics.metric_per_query`` within 1e-12.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ltrfs.metrics import check_ties, discount_table, gain_table, get_convention, parse_metric, segmented_sort_desc

__all__ = ["MetricContext"]

#: the metric kinds of the compiled kernels
_KINDS = {"ndcg": 0, "p": 1, "map": 2, "meanndcg": 3}


# ----------------------------------------------------------------------------- compiled kernels


@njit(cache=True)
def _query_values(kind, k, a, b, base, x, steps, gains, rel, disc, ideal, idcg_cum, out, col):  # pragma: no cover
    """Metric of query rows a:b for every trial t (scores base + steps[t] * x) into out[:, col].

    kind 0 NDCG@k (ideal = IDCG@min(k, n)), 1 P@k (divided by k), 2 AP (ideal = number of
    relevant documents), 3 MeanNDCG (idcg_cum = per-position cumulative ideal DCG).
    Ranking: score descending, equal scores in row order (a stable sort of -score).
    """
    n = b - a
    T = steps.shape[0]
    if kind <= 1:
        kk = min(k, n)
        top_s = np.empty(kk)
        top_i = np.empty(kk, np.int64)
        for t in range(T):
            st = steps[t]
            cnt = 0
            for i in range(a, b):
                sc = base[i] + st * x[i]
                if cnt < kk:
                    pos = cnt
                    cnt += 1
                elif sc > top_s[kk - 1]:
                    pos = kk - 1
                else:
                    continue
                while pos > 0 and top_s[pos - 1] < sc:  # strict: an earlier row wins a tie
                    top_s[pos] = top_s[pos - 1]
                    top_i[pos] = top_i[pos - 1]
                    pos -= 1
                top_s[pos] = sc
                top_i[pos] = i
            acc = 0.0
            if kind == 0:
                for r in range(kk):
                    acc += gains[top_i[r]] * disc[r]
                out[t, col] = acc / ideal
            else:
                for r in range(kk):
                    acc += rel[top_i[r]]
                out[t, col] = acc / k
    else:
        neg = np.empty(n)
        for t in range(T):
            st = steps[t]
            for i in range(n):
                neg[i] = -(base[a + i] + st * x[a + i])
            order = np.argsort(neg, kind="mergesort")
            acc = 0.0
            if kind == 2:
                hits = 0.0
                for r in range(n):
                    if rel[a + order[r]] > 0.0:
                        hits += 1.0
                        acc += hits / (r + 1.0)
                out[t, col] = acc / ideal
            else:
                dcg = 0.0
                for r in range(n):
                    dcg += gains[a + order[r]] * disc[r]
                    acc += dcg / idcg_cum[a + r]
                out[t, col] = acc / n


# One compiled kernel per query, on purpose (about 100 lines): the tie-block walk and the
# metric accumulation share their running sums; splitting them costs speed in the line search.
@njit(cache=True)
def _query_values_tied(kind, k, a, b, base, x, steps, gains, rel, disc, ideal, idcg_cum, out, col):  # pragma: no cover
    """As ``_query_values``, in expectation over the orders of equal scores (``ltrfs.metrics``):
    each rank of a tie block of g documents gets the block's mean gain and relevance; AP is
    McSherry & Najork's, (1/R) sum_blocks (r/g) sum_{t<g} (R_b + 1 + t (r-1)/(g-1)) / (s + t + 1).

    NDCG@k, P@k: the stable top-k list, plus the documents left out of it that tie with its
    last score (``over_*``; reset when that score rises), so the block cut by rank k is whole.
    """
    n = b - a
    T = steps.shape[0]
    if kind <= 1:
        kk = min(k, n)
        top_s = np.empty(kk)
        top_i = np.empty(kk, np.int64)
        for t in range(T):
            st = steps[t]
            cnt = 0
            over_n = 0
            over_g = 0.0
            over_r = 0.0
            for i in range(a, b):
                sc = base[i] + st * x[i]
                if cnt < kk:
                    pos = cnt
                    cnt += 1
                elif sc > top_s[kk - 1]:
                    pos = kk - 1
                    e_s = top_s[kk - 1]  # evicted; it joins the left-out ties if the last score stays
                    e_i = top_i[kk - 1]
                    if kk > 1 and top_s[kk - 2] == e_s:  # the new last score is min(sc, top_s[kk - 2])
                        over_n += 1
                        over_g += gains[e_i]
                        over_r += rel[e_i]
                    else:
                        over_n = 0
                        over_g = 0.0
                        over_r = 0.0
                else:
                    if sc == top_s[kk - 1]:
                        over_n += 1
                        over_g += gains[i]
                        over_r += rel[i]
                    continue
                while pos > 0 and top_s[pos - 1] < sc:  # strict: an earlier row wins a tie
                    top_s[pos] = top_s[pos - 1]
                    top_i[pos] = top_i[pos - 1]
                    pos -= 1
                top_s[pos] = sc
                top_i[pos] = i
            acc = 0.0
            r0 = 0
            while r0 < kk:
                r1 = r0 + 1
                while r1 < kk and top_s[r1] == top_s[r0]:
                    r1 += 1
                g_sum = 0.0
                for r in range(r0, r1):
                    g_sum += gains[top_i[r]] if kind == 0 else rel[top_i[r]]
                size = r1 - r0
                if r1 == kk:  # the block cut at rank k, with its left-out members
                    g_sum += over_g if kind == 0 else over_r
                    size += over_n
                if kind == 0:
                    for r in range(r0, r1):
                        acc += g_sum / size * disc[r]
                else:
                    acc += g_sum * (r1 - r0) / size
                r0 = r1
            out[t, col] = acc / ideal if kind == 0 else acc / k
    else:
        neg = np.empty(n)
        for t in range(T):
            st = steps[t]
            for i in range(n):
                neg[i] = -(base[a + i] + st * x[a + i])
            order = np.argsort(neg, kind="mergesort")
            acc = 0.0
            dcg = 0.0
            above = 0.0  # relevant documents ranked above the block (R_b)
            r0 = 0
            while r0 < n:
                r1 = r0 + 1
                while r1 < n and neg[order[r1]] == neg[order[r0]]:
                    r1 += 1
                g = r1 - r0
                if kind == 2:
                    n_rel = 0.0
                    for r in range(r0, r1):
                        n_rel += rel[a + order[r]]
                    if n_rel > 0.0:
                        spread = (n_rel - 1.0) / (g - 1.0) if g > 1 else 0.0
                        for r in range(r0, r1):
                            acc += n_rel / g * (above + 1.0 + (r - r0) * spread) / (r + 1.0)
                    above += n_rel
                else:
                    g_sum = 0.0
                    for r in range(r0, r1):
                        g_sum += gains[a + order[r]]
                    for r in range(r0, r1):
                        dcg += g_sum / g * disc[r]
                        acc += dcg / idcg_cum[a + r]
                r0 = r1
            out[t, col] = acc / ideal if kind == 2 else acc / n


@njit(cache=True)
def _trials_serial(kind, k, active, ptr, base, x, steps, gains, rel, disc, ideal, idcg_cum,
                   expected):  # pragma: no cover
    vals = np.empty((steps.shape[0], active.shape[0]))
    for j in range(active.shape[0]):
        q = active[j]
        if expected:
            _query_values_tied(kind, k, ptr[q], ptr[q + 1], base, x, steps, gains, rel, disc, ideal[q], idcg_cum,
                               vals, j)
        else:
            _query_values(kind, k, ptr[q], ptr[q + 1], base, x, steps, gains, rel, disc, ideal[q], idcg_cum, vals, j)
    return vals


@njit(cache=True, parallel=True)
def _trials_parallel(kind, k, active, ptr, base, x, steps, gains, rel, disc, ideal, idcg_cum,
                     expected):  # pragma: no cover
    vals = np.empty((steps.shape[0], active.shape[0]))
    for j in prange(active.shape[0]):
        q = active[j]
        if expected:
            _query_values_tied(kind, k, ptr[q], ptr[q + 1], base, x, steps, gains, rel, disc, ideal[q], idcg_cum,
                               vals, j)
        else:
            _query_values(kind, k, ptr[q], ptr[q + 1], base, x, steps, gains, rel, disc, ideal[q], idcg_cum, vals, j)
    return vals


@njit(cache=True)
def _row_sums(vals, const_sum, n_queries):  # pragma: no cover
    """Mean over all queries for every trial: (const_sum + sum of the active queries' values) / q,
    summed in query order (the same arithmetic whatever the thread count)."""
    T, na = vals.shape
    out = np.empty(T)
    for t in range(T):
        acc = const_sum
        for j in range(na):
            acc += vals[t, j]
        out[t] = acc / n_queries
    return out


# ----------------------------------------------------------------------------- metric context


class MetricContext:
    """The score-independent part of a metric over (labels, queries), for fast evaluations.

    Everything about (labels, queries, metric) that does not depend on the scores is computed
    once, so that a metric evaluation costs only the per-query ranking work. Values equal
    ``ltrfs.metrics.metric_per_query(y, scores, query_ptr, metric, convention, ties)`` (score
    descending; equal scores in expectation, or in row order; within 1e-12).

    Parameters
    ----------
    y : array-like of int, shape (m,)
        Relevance labels >= 0.
    query_ptr : array-like of int64, shape (q + 1,)
        Query boundaries.
    metric : str, default "ndcg@10"
        ``ndcg@K``, ``p@K``, ``map`` or ``meanndcg``.
    convention : str or Convention, default "letor4"
        Metric convention (a name or ``ltrfs.metrics.Convention``).
    ties : {"expected", "file_order"}, default "expected"
        Equal scores: the mean over their orders, or row order.

    Attributes
    ----------
    n_rows, n_queries : int
        m and q.
    active : ndarray of int64, shape (a,)
        The queries whose value depends on the scores.
    const : ndarray of float64, shape (q,)
        The fixed value of the other queries (0 for active ones).
    metric : str
        The metric's name.
    convention : Convention
        The metric convention.
    ties : str
        The tie rule.
    kind, k
        The parsed metric: its kind and cut-off.
    """

    def __init__(self, y, query_ptr, metric: str = "ndcg@10", convention="letor4", ties: str = "expected"):
        kind_name, k = parse_metric(metric)
        conv = get_convention(convention)
        self.ties = check_ties(ties)
        y = np.asarray(y)
        ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D; got shape {y.shape}")
        sizes = np.diff(ptr)
        if ptr.ndim != 1 or ptr.size < 2 or ptr[0] != 0 or ptr[-1] != y.shape[0] or (sizes <= 0).any():
            raise ValueError(f"query_ptr must rise strictly from 0 to the number of rows ({y.shape[0]})")
        y = y.astype(np.int64)
        if y.min() < 0:
            raise ValueError(f"labels must be >= 0; got {int(y.min())}")
        q = sizes.size
        self.metric = str(metric)
        self.convention = conv
        self.kind = _KINDS[kind_name]
        self.k = int(k) if k is not None else 0
        self.n_rows = int(y.shape[0])
        self.n_queries = int(q)
        self.ptr = ptr
        self.gains = gain_table(int(y.max()), conv)[y]
        self.rel = (y >= conv.relevant_min).astype(np.float64)
        self.disc = discount_table(int(sizes.max()), conv)
        qidx = np.repeat(np.arange(q), sizes)
        pos = np.arange(self.n_rows) - np.repeat(ptr[:-1], sizes)
        ideal_gains = segmented_sort_desc(self.gains, ptr)  # gains of the ideal ranking
        contrib = ideal_gains * self.disc[pos]
        self.idcg_cum = np.zeros(1)
        const = np.zeros(q)
        if self.kind == 0:
            k = self.k
            ideal = np.bincount(qidx[pos < k], weights=contrib[pos < k], minlength=q)
            short = (sizes < k) if conv.short_ndcg == "zero" else np.zeros(q, bool)
            active = ~short & (ideal > 0)
            const[~short & (ideal <= 0)] = float(conv.ideal_zero)
        elif self.kind == 1:
            if conv.short_precision == "fetched":
                raise ValueError(f"coord_ascent: P@k in the {conv.name} convention (the share among min(k, n) "
                                 "documents) is an evaluation convention only; train on another one")
            n_rel = np.bincount(qidx, weights=self.rel, minlength=q)
            short = (sizes < self.k) if conv.short_precision == "zero" else np.zeros(q, bool)
            ideal = np.ones(q)
            active = ~short & (n_rel > 0)
        elif self.kind == 2:
            ideal = np.bincount(qidx, weights=self.rel, minlength=q)
            active = ideal > 0
        else:
            cum = np.cumsum(contrib)
            start = np.r_[0.0, cum[ptr[1:-1] - 1]]
            self.idcg_cum = cum - np.repeat(start, sizes)
            total = np.bincount(qidx, weights=contrib, minlength=q)
            ideal = np.ones(q)
            active = total > 0
            const[~active] = float(conv.ideal_zero)
        self.ideal = np.where(active, ideal, 1.0).astype(np.float64)
        self.active = np.flatnonzero(active).astype(np.int64)
        self.const = const
        self.const_sum = float(const.sum())

    def _values(self, scores, x, steps, n_jobs):
        parallel = n_jobs > 1 and self.active.size >= 2 * n_jobs
        kernel = _trials_parallel if parallel else _trials_serial
        if parallel:
            previous = numba.get_num_threads()
            numba.set_num_threads(max(1, min(int(n_jobs), numba.config.NUMBA_NUM_THREADS)))
        try:
            return kernel(self.kind, self.k, self.active, self.ptr, scores, x, steps, self.gains,
                          self.rel, self.disc, self.ideal, self.idcg_cum, self.ties == "expected")
        finally:
            if parallel:
                numba.set_num_threads(previous)

    def _check_scores(self, scores, what="scores"):
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != (self.n_rows,):
            raise ValueError(f"{what} must have shape ({self.n_rows},); got {scores.shape}")
        return scores

    def trials(self, scores, x, steps, n_jobs: int = 1) -> np.ndarray:
        """Mean metric over all queries of ``scores + t * x`` for every t in ``steps``.

        Parameters
        ----------
        scores : ndarray of float64, shape (m,)
            Current scores (C-contiguous for speed).
        x : ndarray of float64, shape (m,)
            The direction (a feature column).
        steps : array-like of float, shape (T,)
            The trial steps t.
        n_jobs : int, default 1
            Threads of the metric kernel.

        Returns
        -------
        ndarray of float64, shape (T,)
            The mean metric of every trial.
        """
        scores = self._check_scores(scores)
        x = self._check_scores(x, "x")
        steps = np.ascontiguousarray(steps, dtype=np.float64).reshape(-1)
        vals = self._values(scores, x, steps, n_jobs)
        return _row_sums(vals, self.const_sum, float(self.n_queries))

    def mean(self, scores, n_jobs: int = 1) -> float:
        """Mean metric over all queries of one score vector.

        Parameters
        ----------
        scores : ndarray of float64, shape (m,)
            Scores of the rows.
        n_jobs : int, default 1
            Threads of the metric kernel.

        Returns
        -------
        float
            The mean metric.
        """
        scores = self._check_scores(scores)
        return float(self.trials(scores, scores, np.zeros(1), n_jobs)[0])

    def per_query(self, scores) -> np.ndarray:
        """Metric of every query, float64 (q,) (as ``ltrfs.metrics.metric_per_query``)."""
        scores = self._check_scores(scores)
        out = self.const.copy()
        out[self.active] = self._values(scores, scores, np.zeros(1), 1)[0]
        return out

"""Pairwise-loss importance of single features (GAS-L; docs/methods.md, section
'Pairwise-loss importance').

Rank every query's documents by feature f, descending. A labelled pair is two documents of one
query with different labels; it is mis-ordered when the document with the higher label has the
smaller feature value, and half mis-ordered when the two values are equal (a tie is the
expected loss of breaking it at random). Over all labelled pairs of all queries (a micro
average: a query weighs by its number of pairs)::

    loss[f] = (#{y_a > y_b, x_a < x_b} + 1/2 #{y_a > y_b, x_a = x_b}) / #{y_a > y_b}

The half count is the project's tie-aware policy (``ties="expected"`` of ``ltrfs.metrics``):
the expected loss over the orders of the tied documents.

GAS-L's importance (``pairwise_importance``): ``"inverse"`` (default; the paper: "a score
inversely proportional to the corresponding loss")::

    importance[f] = 1 / loss[f]

(2 for a constant feature); a feature with loss 0 gets the largest finite importance of the set
(max of 1 / loss over the features with loss > 0; 1 when every loss is 0), so it ranks first,
tied with the best imperfect feature, and the scale stays that of the other features. Option
``"one_minus"``: ``1 - loss`` (in [0, 1]; 1 for a perfect feature, 0.5 for a constant one).

Algorithm: per query and feature, the documents are sorted by the feature (O(n log n)) and
walked in ascending order one tie group at a time; a Fenwick tree over the label levels counts
the earlier (smaller-valued) documents with a higher label, and the label counts inside a tie
group give its half-counted pairs. No pair is materialised. Numba, parallel over features.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ltrfs.docstrings import fill_doc
from ltrfs.ranking_data import DataError, RankingData, label_levels
from ltrfs.scoring.kendall import check_finite, check_query_ptr, check_threads


@njit(cache=True, parallel=True)
def _misordered_twice(X, levels, query_ptr, n_levels, nmax):  # pragma: no cover - compiled
    """int64 (d,): 2 * strictly mis-ordered pairs + pairs tied in the feature with different labels."""
    m, d = X.shape
    q = query_ptr.shape[0] - 1
    out = np.zeros(d, np.int64)
    for f in prange(d):
        col = np.empty(nmax, X.dtype)
        tree = np.zeros(n_levels + 1, np.int64)
        group = np.zeros(n_levels, np.int64)
        total = 0
        for s in range(q):
            start = query_ptr[s]
            n = query_ptr[s + 1] - start
            if n < 2:
                continue
            for a in range(n):
                col[a] = X[start + a, f]
            order = np.argsort(col[:n])
            for k in range(n_levels + 1):
                tree[k] = 0
            seen = 0
            g = 0
            while g < n:
                value = col[order[g]]
                h = g
                in_group = 0
                # count the pairs of this tie group with different labels, and for every member
                # the earlier (strictly smaller) documents with a higher label
                while h < n and col[order[h]] == value:
                    lev = levels[start + order[h]]
                    k = lev + 1
                    not_higher = 0
                    while k > 0:
                        not_higher += tree[k]
                        k -= k & (-k)
                    total += 2 * (seen - not_higher)
                    total += in_group - group[lev]
                    group[lev] += 1
                    in_group += 1
                    h += 1
                for b in range(g, h):
                    lev = levels[start + order[b]]
                    group[lev] = 0
                    k = lev + 1
                    while k <= n_levels:
                        tree[k] += 1
                        k += k & (-k)
                seen += h - g
                g = h
        out[f] = total
    return out


def labelled_pairs(y: np.ndarray, query_ptr: np.ndarray) -> int:
    """Number of pairs of documents of one query with different labels.

    Parameters
    ----------
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)

    Returns
    -------
    int
    """
    classes, levels = label_levels(y)
    n_levels = len(classes)
    sizes = np.diff(query_ptr)
    qrow = np.repeat(np.arange(len(sizes)), sizes)
    per_level = np.bincount(qrow * n_levels + levels, minlength=len(sizes) * n_levels).astype(np.int64)
    return int((np.sum(sizes.astype(np.int64) ** 2) - np.sum(per_level ** 2)) // 2)


def pairwise_loss(X: np.ndarray, y: np.ndarray, query_ptr: np.ndarray, n_threads: int = 1) -> np.ndarray:
    """Fraction of mis-ordered labelled pairs when each query is ranked by each feature alone.

    A pair tied in the feature counts as half mis-ordered (module docstring).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
        Labels.
    query_ptr : ndarray of int, shape (q + 1,)
        Offsets of the contiguous queries.
    n_threads : int, default 1
        Numba threads.

    Returns
    -------
    float64 (d,)

    Raises
    ------
    DataError
        When no query has two documents with different labels.

    References
    ----------
    Geng et al., SIGIR 2007, section 2.2 (GAS-L's importance from the pairwise loss).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[3.0, 1.0], [2.0, 1.0], [1.0, 1.0]])
    >>> pairwise_loss(X, np.array([2, 1, 0]), np.array([0, 3]))   # perfect, then all tied
    array([0. , 0.5])
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be (m, d); got shape {X.shape}")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have one label per row of X; got {y.shape} for X {X.shape}")
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    X = np.ascontiguousarray(X)
    query_ptr = check_query_ptr(query_ptr, X.shape[0])
    threads = check_threads(n_threads)
    check_finite(X)
    pairs = labelled_pairs(y, query_ptr)
    if pairs == 0:
        raise DataError("pairwise_loss: no query has two documents with different labels, so no pair can be mis-ordered")
    classes, levels = label_levels(y)
    n_levels = len(classes)
    nmax = int(np.diff(query_ptr).max())
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        twice = _misordered_twice(X, levels, query_ptr, n_levels, nmax)
    finally:
        numba.set_num_threads(previous)
    return twice / (2.0 * pairs)


#: GAS-L importance from the pairwise loss (module docstring)
IMPORTANCES = ("inverse", "one_minus")


def pairwise_importance(loss, kind: str = "inverse", among=None) -> np.ndarray:
    """Importance from pairwise losses.

    Parameters
    ----------
    loss : array-like, shape (d,)
        Losses in [0, 1].
    kind : {"inverse", "one_minus"}, default "inverse"
        ``1 / loss`` (a loss of 0 gets the largest finite value of the set: the max of 1 / loss
        over the losses > 0 of ``loss`` and ``among``, 1 if none) or ``1 - loss``.
    among : array-like or None
        Further losses sharing the set (e.g. the ascending ones).

    Returns
    -------
    float64 (d,)
    """
    loss = np.asarray(loss, dtype=np.float64)
    if kind == "one_minus":
        return 1.0 - loss
    if kind != "inverse":
        raise ValueError(f"unknown pairwise importance {kind!r}; valid: {', '.join(IMPORTANCES)}")
    pool = loss if among is None else np.concatenate([loss.ravel(), np.asarray(among, dtype=np.float64).ravel()])
    positive = pool[pool > 0]
    top = 1.0 / positive.min() if positive.size else 1.0
    return np.divide(1.0, loss, out=np.full(loss.shape, top), where=loss > 0)


@fill_doc
def scorer(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1) -> dict:
    """``SCORERS["pairwise"]``: pairwise loss of every feature on the training split.

    GAS-L reads the loss and applies its own ``pairwise_importance``.

    Parameters
    ----------
    %(scorer_parameters)s
    n_threads : int, default 1
        Numba threads.

    Returns
    -------
    dict
        ``{"loss": (d,), "importance": 1 / loss}``.
    """
    loss = pairwise_loss(train.X, train.y, train.query_ptr, n_threads=n_threads)
    return {"loss": loss, "importance": pairwise_importance(loss)}

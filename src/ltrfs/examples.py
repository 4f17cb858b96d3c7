"""Toy data for the docstring examples: a few small queries with a planted signal.

The Examples sections of the selector and ranker classes (run as doctests by
``tests/test_doctests.py``) fit on ``example_queries()`` and score rankers on unseen queries with
``example_ndcg``, so that each example shows only the lines about its class.
"""
from __future__ import annotations

import numpy as np

from ltrfs.metrics import metric_per_query


def example_queries(seed: int = 0, n_queries: int = 10, n_docs: int = 12, n_features: int = 5):
    """A small ranking data set: standard normal features, labels 0..2 that follow features 2 and 0.

    The label of a row is ``x_2 + 0.5 x_0 + 0.5 e`` (e standard normal) cut at 0 and 1, so
    features 2 and 0 are the informative ones, in that order; the other features are noise.

    Parameters
    ----------
    seed : int
        Seed of ``numpy.random.default_rng``; another seed gives unseen queries.
    n_queries, n_docs, n_features : int
        Queries, documents per query and features (at least 3).

    Returns
    -------
    X : ndarray of float64, shape (n_queries * n_docs, n_features)
    y : ndarray of int64, shape (n_queries * n_docs,)
    qid : ndarray of int64, shape (n_queries * n_docs,)
        Query ids 1..n_queries, each on ``n_docs`` contiguous rows.

    Examples
    --------
    >>> X, y, qid = example_queries()
    >>> X.shape, sorted(set(y.tolist())), qid[:3]
    ((120, 5), [0, 1, 2], array([1, 1, 1]))
    """
    rng = np.random.default_rng(seed)
    m = n_queries * n_docs
    X = rng.normal(size=(m, n_features))
    y = np.digitize(X[:, 2] + 0.5 * X[:, 0] + 0.5 * rng.normal(size=m), [0.0, 1.0])
    return X, y, np.repeat(np.arange(1, n_queries + 1), n_docs)


def example_ndcg(ranker, seed: int = 1) -> float:
    """Mean NDCG@10 (LETOR 4.0 convention) of a fitted ranker on ``example_queries(seed)``.

    Parameters
    ----------
    ranker : Ranker
        A fitted ranker (anything with ``predict(X)``).
    seed : int
        The queries to score; 1 gives queries unseen by a ranker fitted on ``example_queries()``.

    Returns
    -------
    float
    """
    X, y, _ = example_queries(seed)
    return float(metric_per_query(y, ranker.predict(X), np.arange(0, len(y) + 1, 12), "ndcg@10").mean())

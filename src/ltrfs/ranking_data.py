"""The in-memory ranking dataset shared by every stage, and its query layout.

Rows are query-document pairs; the rows of one query are contiguous, in file order. A query
layout is given by ``query_ptr`` (q + 1,) offsets: the rows of query i are
``query_ptr[i]:query_ptr[i + 1]``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class DataError(ValueError):
    """Bad input data: the message names the file (and line) and what is wrong.

    A ``ValueError``, so that callers that catch bad values catch it too.
    """


@dataclass
class RankingData:
    """A ranking dataset: features, labels and the query layout of m rows.

    Parameters
    ----------
    X : ndarray of float32, shape (m, d)
        Features; column j holds the data file's feature id j + 1.
    y : ndarray of int32, shape (m,)
        Graded relevance labels.
    query_ptr : ndarray of int64, shape (q + 1,)
        The rows of query i are ``query_ptr[i]:query_ptr[i + 1]``; rises strictly from 0 to m.
    query_ids : ndarray of int64, shape (q,)
        The ``qid:`` value of every query, in file order.
    docids : ndarray of str, shape (m,), or None
        The text after ``#`` on each line (stripped), or None when no line has one.

    Attributes
    ----------
    n_rows, n_features, n_queries : int
        m, d and q.
    qid : ndarray of int64, shape (m,)
        The query id of every row.

    Raises
    ------
    DataError
        When the shapes or ``query_ptr`` are inconsistent.
    """

    X: np.ndarray
    y: np.ndarray
    query_ptr: np.ndarray
    query_ids: np.ndarray
    docids: np.ndarray | None = None

    def __post_init__(self):
        m = self.X.shape[0]
        if self.X.ndim != 2 or self.y.shape != (m,):
            raise DataError(f"X must be (m, d) and y (m,); got {self.X.shape} and {self.y.shape}")
        if self.query_ptr[0] != 0 or self.query_ptr[-1] != m or np.any(np.diff(self.query_ptr) <= 0):
            raise DataError("query_ptr must rise strictly from 0 to the number of rows")
        if self.query_ids.shape != (len(self.query_ptr) - 1,):
            raise DataError("query_ids must have one entry per query")

    @property
    def n_rows(self) -> int:
        """Number of rows m (query-document pairs)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features d (columns of X)."""
        return int(self.X.shape[1])

    @property
    def n_queries(self) -> int:
        """Number of queries q."""
        return int(len(self.query_ptr) - 1)

    @property
    def qid(self) -> np.ndarray:
        """int64 (m,): the query id of every row (the ``qid=`` argument of the estimators)."""
        return np.repeat(self.query_ids, np.diff(self.query_ptr))

    def query_sizes(self) -> np.ndarray:
        """Number of rows of every query, int64 (q,)."""
        return np.diff(self.query_ptr)

    def read_only(self) -> "RankingData":
        """This dataset with its arrays made read-only (in place): a job that fits several methods
        on one loaded fold (a batched select job) lets no method change what the next one reads."""
        for array in (self.X, self.y, self.query_ptr, self.query_ids, self.docids):
            if array is not None:
                array.setflags(write=False)
        return self

    def subset_queries(self, index) -> "RankingData":
        """A new dataset with the queries at positions ``index`` (in the given order)."""
        index = np.asarray(index, dtype=np.int64)
        sizes = self.query_sizes()[index]
        starts = self.query_ptr[index]
        rows = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, sizes)]) if len(index) else np.zeros(0, np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        return RankingData(
            X=self.X[rows], y=self.y[rows], query_ptr=ptr, query_ids=self.query_ids[index].copy(),
            docids=None if self.docids is None else self.docids[rows],
        )

    def select_features(self, features) -> "RankingData":
        """A view on columns ``features`` (0-based indices)."""
        return RankingData(self.X[:, np.asarray(features, dtype=np.int64)], self.y, self.query_ptr,
                           self.query_ids, self.docids)

    def view(self, features, projection=None) -> "RankingData":
        """A view on some columns, mapped to new features by a projection when one is given.

        Parameters
        ----------
        features : array-like of int, shape (n,)
            0-based column indices.
        projection : array-like of shape (n, k) or None, default None
            Maps the n columns to k new features (FS-BFS: each new feature a weighted sum of a
            feature subset).

        Returns
        -------
        RankingData
            The same rows and queries, with n (or k) features.
        """
        data = self.select_features(features)
        if projection is None:
            return data
        X = (data.X.astype(np.float64) @ np.asarray(projection, dtype=np.float64)).astype(np.float32)
        return RankingData(X, self.y, self.query_ptr, self.query_ids, self.docids)


def query_ptr_from_qid(qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The query layout of a per-row query id array whose queries are contiguous.

    Parameters
    ----------
    qid : array_like, shape (m,)
        The query id of every row.

    Returns
    -------
    query_ptr : ndarray of int64, shape (q + 1,)
        Row offsets of the queries, in row order.
    query_ids : ndarray, shape (q,)
        The id of every query (dtype of ``qid``).

    Raises
    ------
    DataError
        When a query id appears in two separate runs of rows.
    """
    qid = np.asarray(qid)
    if qid.size == 0:
        return np.zeros(1, np.int64), np.zeros(0, qid.dtype)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    ids = qid[starts]
    if len(np.unique(ids)) != len(ids):
        raise DataError("rows of one query are not contiguous")
    return np.r_[starts, qid.size].astype(np.int64), ids


def group_ids(query_ptr: np.ndarray) -> np.ndarray:
    """The position of each row's query: 0, 0, ..., 1, 1, ... (queries sorted, contiguous).

    Parameters
    ----------
    query_ptr : ndarray of int64, shape (q + 1,)
        Row offsets of the queries.

    Returns
    -------
    ndarray of int64, shape (m,)
        ``i`` on every row of query ``i``.
    """
    return np.repeat(np.arange(len(query_ptr) - 1, dtype=np.int64), np.diff(query_ptr))


def constant_within_queries(X, query_ptr) -> np.ndarray:
    """Which features are constant within every query.

    Such a feature orders no query (its single-feature metric is that of a random order).

    Parameters
    ----------
    X : array-like, shape (m, d)
        Feature values, the rows of a query contiguous.
    query_ptr : array-like of int, shape (q + 1,)
        Query offsets.

    Returns
    -------
    bool (d,)
        True for the features whose value is the same for every document of each query (all
        features when X has no rows).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 7.0]])
    >>> constant_within_queries(X, np.array([0, 2, 3]))
    array([False,  True])
    """
    X = np.asarray(X)
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    starts = np.asarray(query_ptr[:-1], dtype=np.int64)
    return np.all(np.maximum.reduceat(X, starts, axis=0) == np.minimum.reduceat(X, starts, axis=0), axis=0)


def label_levels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels and each row's index in them (over all queries).

    Parameters
    ----------
    y : ndarray, shape (m,)

    Returns
    -------
    (classes (K,), level int64 (m,))
        ``level`` is in 0..K-1 and keeps the order of the labels.

    Examples
    --------
    >>> import numpy as np
    >>> label_levels(np.array([4, 0, 2, 0]))
    (array([0, 2, 4]), array([2, 0, 1, 0]))
    """
    classes, level = np.unique(np.asarray(y), return_inverse=True)
    return classes, level.astype(np.int64).reshape(-1)

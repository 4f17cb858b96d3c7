"""RankRLS: regularised least squares on all within-query document pairs, in closed form.

Objective (Pahikkala et al., "An efficient algorithm for learning to rank from preference
graphs", Machine Learning 2009; the linear, query-restricted form of Greedy RankRLS,
Pahikkala et al. 2010; docs/methods.md, section 'RankRLS')::

    min_w  sum_q  v_q sum_{i<j in q} ((y_i - y_j) - w.(x_i - x_j))^2  +  lam ||w||^2

with ``v_q = 1 / |q|`` (``pair_weight="query"``, the default: the paper's
``sum_Q 1/(2|Q|) sum_{i,j in Q}``, i.e. ridge regression on query-centred data) or ``v_q = 1``
(``pair_weight="pair"``: every pair counts once, so a query weighs in proportion to its size).

Every pair of documents of the same query counts, INCLUDING pairs with equal labels (as in
Pahikkala's RankRLS): for those the target difference is 0, so the loss also pulls documents
of equal relevance towards equal scores. Pairs across queries do not count.

No pairs are built. For one query with residuals a (n_q,),
``sum_{i<j} (a_i - a_j)^2 = n_q ||a - mean(a)||^2``, so with the block matrix
``L = blockdiag_q(v_q (n_q I - 1 1^T))`` the loss is ``(y - X w)^T L (y - X w)`` and

    w = (X^T L X + lam I)^{-1} X^T L y,

with ``X^T L X = sum_q v_q n_q Xc_q^T Xc_q`` and ``X^T L y = sum_q v_q n_q Xc_q^T yc_q`` built from the
query-centred data ``Xc_q = X_q - mean(X_q)`` in O(m d^2) time and O(m d) memory. The d x d
system is solved by a Cholesky factorisation (``scipy.linalg.solve(..., assume_a="pos")``).
There is no intercept (it cancels in every pair difference) and no randomness.

The module-level helpers (``query_center``, ``centered_products``, ``solve_rankrls``,
``pairwise_objective``) are public so that Greedy RankRLS can reuse the centred products.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from ltrfs.params import Integer, Options, Real, check_value
from ltrfs.rankers.base import LinearScores, Ranker

log = logging.getLogger(__name__)


def query_center(A: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """A copy with each query's mean (over its rows) subtracted.

    Parameters
    ----------
    A : ndarray, shape (m,) or (m, d)
    query_ptr : ndarray of int, shape (q + 1,)

    Returns
    -------
    float64, the shape of A

    Examples
    --------
    >>> import numpy as np
    >>> query_center(np.array([1.0, 3.0, 10.0]), np.array([0, 2, 3]))
    array([-1.,  1.,  0.])
    """
    A = np.asarray(A, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    sizes = np.diff(query_ptr)
    sums = np.add.reduceat(A, query_ptr[:-1], axis=0)
    means = sums / (sizes[:, None] if A.ndim == 2 else sizes)
    return A - np.repeat(means, sizes, axis=0)


PAIR_WEIGHTS = ("query", "pair")


def row_weights(query_ptr: np.ndarray, pair_weight: str = "query") -> np.ndarray:
    """``v_q n_q`` for every row: 1 for ``"query"``, the query size for ``"pair"``.

    Parameters
    ----------
    query_ptr : ndarray of int, shape (q + 1,)
    pair_weight : {"query", "pair"}, default "query"

    Returns
    -------
    float64 (m,)
    """
    check_value("pair_weight", pair_weight, [Options(*PAIR_WEIGHTS)])
    sizes = np.diff(np.asarray(query_ptr, dtype=np.int64))
    if pair_weight == "query":
        return np.ones(int(sizes.sum()))
    return np.repeat(sizes.astype(np.float64), sizes)


def centered_products(X: np.ndarray, y: np.ndarray, query_ptr: np.ndarray, pair_weight: str = "query"):
    """The pairwise normal-equation pieces ``(X^T L X, X^T L y, y^T L y)``.

    ``L = blockdiag_q(v_q (n_q I - 1 1^T))``; so ``G = sum_q v_q n_q Xc_q^T Xc_q``, ``c = sum_q
    v_q n_q Xc_q^T yc_q`` and ``yLy = sum_q v_q n_q ||yc_q||^2`` (the weighted sum over
    within-query pairs of (y_i - y_j)^2).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    pair_weight : {"query", "pair"}, default "query"

    Returns
    -------
    (float64 (d, d), float64 (d,), float)
    """
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    Xc = query_center(X, query_ptr)
    yc = query_center(y, query_ptr)
    weight = row_weights(query_ptr, pair_weight)
    Xw = Xc * weight[:, None]
    G = Xw.T @ Xc
    G = 0.5 * (G + G.T)  # exact symmetry for the Cholesky solve
    c = Xw.T @ yc
    yLy = float((weight * yc) @ yc)
    return G, c, yLy


def solve_rankrls(G: np.ndarray, c: np.ndarray, lam: float) -> np.ndarray:
    """``w = (G + lam I)^{-1} c`` by Cholesky (G symmetric PSD, lam > 0).

    Parameters
    ----------
    G : ndarray, shape (d, d)
    c : ndarray, shape (d,)
    lam : float > 0

    Returns
    -------
    float64 (d,)
    """
    from scipy.linalg import solve  # heavy (scipy.linalg, ~0.4 s): imported on use

    A = G + lam * np.eye(G.shape[0])
    return solve(A, c, assume_a="pos", check_finite=False)


def pairwise_objective(w, X, y, query_ptr, lam: float, pair_weight: str = "query") -> float:
    """RankRLS's objective ``sum_q v_q sum_{i<j in q} (y_i - y_j - w.(x_i - x_j))^2 + lam ||w||^2``.

    Computed without forming the pairs.

    Parameters
    ----------
    w, X, y, query_ptr : ndarray
        Weights (d,), features (m, d), labels (m,) and the int query offsets (q + 1,).
    lam : float
    pair_weight : {"query", "pair"}, default "query"

    Returns
    -------
    float
    """
    w = np.asarray(w, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    r = query_center(np.asarray(y, dtype=np.float64) - np.asarray(X, dtype=np.float64) @ w, query_ptr)
    weight = row_weights(query_ptr, pair_weight)
    return float((weight * r) @ r + lam * (w @ w))


class RankRLS(LinearScores, Ranker):
    """Linear RankRLS (all within-query pairs, squared loss on label differences), closed form.

    Parameters
    ----------
    lam : float, default 1.0
        the ridge weight ``lam`` of ``lam ||w||^2`` (the paper's lambda; ``lambda`` is a Python
        keyword). The loss is a sum over queries (or pairs), not an average, so the useful range
        grows with the data; the default grid spans 2^-10..2^16.
    pair_weight : {"query", "pair"}, default "query"
        v_q = 1/|q| (docs/methods.md, section 'RankRLS'; ridge on query-centred data) or 1 (every pair once).
    n_jobs : int, default 1
        threads for the BLAS calls (threadpoolctl).

    Attributes
    ----------
    coef_ : float64 (d,)
        weights; ``predict(X) = X @ coef_``
    objective_ : float
        the pairwise objective at ``coef_`` on the training data
    n_pairs_ : int
        within-query pairs (all pairs, equal labels included)
    n_features_in_ : int
    seconds_ : float
        fit time

    References
    ----------
    Pahikkala, Tsivtsivadze, Airola, Jarvinen, Boberg. An efficient algorithm for learning to
    rank from preference graphs. Machine Learning 75, 2009; the linear, query-restricted form of
    Pahikkala et al. 2010 (Greedy RankRLS). See docs/methods.md, section 'RankRLS'.

    Examples
    --------
    >>> from ltrfs.rankers.rankrls import RankRLS
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankRLS().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "rankrls"
    # 2^-10..2^16, which contains the Greedy RankRLS paper's grid {2^-7, 2^2, 2^6, 2^8}. With
    # pair_weight="pair" the loss sums over pairs and the vali optimum on MQ2008 lies at
    # 2^10-2^14, hence the upper end 2^16.
    default_grid = {"lam": [2.0 ** k for k in range(-10, 17)]}

    parameters = {"lam": [Real(0, None, closed="neither")], "pair_weight": [Options(*PAIR_WEIGHTS)],
                  "n_jobs": [Integer(1)]}

    def __init__(self, lam=1.0, pair_weight="query", n_jobs=1):
        self.lam = lam
        self.pair_weight = pair_weight
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        """The closed form on (X, y); ``vali`` is not used (the workflow's grid search on the
        validation split chooses lam)."""
        lam = float(self.lam)
        start = time.perf_counter()
        G, c, yLy = centered_products(X, y, query_ptr, self.pair_weight)
        w = solve_rankrls(G, c, lam)
        sizes = np.diff(query_ptr)
        self.coef_ = w
        # objective from the normal-equation pieces: yLy - 2 w.c + w.G w + lam ||w||^2
        self.objective_ = float(yLy - 2.0 * (w @ c) + w @ G @ w + lam * (w @ w))
        self.n_pairs_ = int((sizes * (sizes - 1) // 2).sum())
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("RankRLS: lam=%g, %d queries, %d pairs, objective %.8g, %.4f s",
                  lam, len(sizes), self.n_pairs_, self.objective_, self.seconds_)


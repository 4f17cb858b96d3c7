"""Linear RankSVM in svm_rank's formulation, trained by the 1-slack cutting-plane algorithm.

Objective (Joachims 2006, "Training linear SVMs in linear time"; svm_rank ``-l 1``, the
default loss, with no bias term)::

    min_w  1/2 ||w||^2 + (C / n) * sum_q sum_{(i, j) in P_q} max(0, 1 - w.(x_i - x_j))

with ``n`` the number of training queries (all of them, as svm_rank counts them) and ``P_q``
the pairs of documents of query q with ``y_i > y_j``. This is svm_rank's ``-c C``; it equals
SVM-light's ``-z p`` with ``C_light = C / n``.

Solver: the 1-slack cutting-plane method of SVM-struct. Each iteration calls a separation
oracle that returns the most violated joint constraint ("cut") at the current w::

    w . a >= b - xi,   a = (1/n) sum_{violated (i,j)} (x_i - x_j),   b = (#violated pairs) / n

computed WITHOUT building pairs: per query, documents are sorted by score and a sweep with a
Fenwick tree over the query's label levels counts, for every document, the documents of
lower (higher) label whose score is within margin 1 -> O(n log n) per query (Numba). The
QP over the working set of cuts is solved exactly and idle cuts are dropped, as in SVM-struct
(``ltrfs.rankers.one_slack``, the loop SVMMAP shares).

Stopping (as svm_rank): stop when the most violated cut is violated by at most ``tol`` more
than the working set's slack ``xi``. svm_rank rescales its ``-e`` for the swapped-pairs loss:
``tol = epsilon * (total pairs / n)`` ("adjusted stopping criterion relative to maximum loss");
this module does the same (``tol_`` records the value). At convergence the primal objective
is within ``C * tol`` of the optimum.
"""
from __future__ import annotations

import logging
import time

import numpy as np
from numba import njit

from ltrfs.docstrings import fill_doc
from ltrfs.params import Boolean, Integer, Real
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.rankers.one_slack import data_fingerprint, one_slack_solve
from ltrfs.rankers.pairs import count_pairs, fenwick_add, fenwick_prefix, levels_within_queries

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- oracle


@njit(cache=True)
def _pair_oracle(scores, levels, query_ptr, coef):  # pragma: no cover - compiled
    """Fill coef (m,) with (#violated pairs where the row is the higher-label document) minus
    (#violated pairs where it is the lower one); return the total number of violated pairs.

    A pair (i, j) with level_i > level_j is violated when scores[i] - scores[j] < 1.
    """
    n_violated = 0
    for q in range(query_ptr.shape[0] - 1):
        start = query_ptr[q]
        stop = query_ptr[q + 1]
        n = stop - start
        n_levels = 0
        for k in range(start, stop):
            coef[k] = 0.0
            if levels[k] + 1 > n_levels:
                n_levels = levels[k] + 1
        if n < 2 or n_levels < 2:
            continue
        order = np.argsort(scores[start:stop], kind="mergesort") + start  # ascending
        tree = np.zeros(n_levels + 1, dtype=np.int64)
        # sweep 1 (descending scores): k as the higher document; insert every j with
        # s_k - s_j < 1, then count the inserted ones of lower level.
        p = n - 1
        for t in range(n - 1, -1, -1):
            k = order[t]
            while p >= 0 and scores[k] - scores[order[p]] < 1.0:
                fenwick_add(tree, levels[order[p]] + 1, 1)
                p -= 1
            c = fenwick_prefix(tree, levels[k])
            coef[k] += c
            n_violated += c
        # sweep 2 (ascending scores): k as the lower document; insert every i with
        # s_i - s_k < 1, then count the inserted ones of higher level.
        tree[:] = 0
        p = 0
        inserted = 0
        for t in range(n):
            k = order[t]
            while p < n and scores[order[p]] - scores[k] < 1.0:
                fenwick_add(tree, levels[order[p]] + 1, 1)
                inserted += 1
                p += 1
            coef[k] -= inserted - fenwick_prefix(tree, levels[k] + 1)
    return n_violated


def pairwise_hinge(scores, y, query_ptr):
    """Pairwise hinge loss and its subgradient coefficients, in O(n log n) per query.

    Parameters
    ----------
    scores : ndarray of float, shape (m,)
        Scores ``s = X w``.
    y, query_ptr : ndarray
        Relevance labels (m,) and the int64 query boundaries (q + 1,).

    Returns
    -------
    loss : float
        ``sum_q sum_{y_i > y_j} max(0, 1 - (s_i - s_j))``.
    n_violated : int
        Number of pairs with ``s_i - s_j < 1``.
    coef : ndarray of float64, shape (m,)
        ``sum_{violated} (e_i - e_j)``, so that the subgradient of the loss with respect to w
        is ``-X.T @ coef`` and ``loss = n_violated - coef @ scores``.

    References
    ----------
    Joachims. Training linear SVMs in linear time. KDD 2006 (the O(n log n) computation of
    the most violated constraint of the pairwise loss).
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    levels = levels_within_queries(np.asarray(y), query_ptr)
    coef = np.empty(len(scores), dtype=np.float64)
    n_violated = int(_pair_oracle(scores, levels, query_ptr, coef))
    loss = float(n_violated - coef @ scores)
    return loss, n_violated, coef


# ----------------------------------------------------------------------------- estimator


@fill_doc
class RankSVM(LinearScores, Ranker):
    """Linear RankSVM (svm_rank's objective and stopping rule), pair-free cutting planes.

    Parameters
    ----------
    C : float, default 1.0
        svm_rank's ``-c``: objective ``1/2 ||w||^2 + (C/n) sum_q sum_{y_i>y_j} hinge``, n = number
        of training queries.
    epsilon : float, default 0.001
        svm_rank's ``-e``; the stopping tolerance is ``epsilon * total_pairs / n`` (svm_rank's
        rescaling for the swapped-pairs loss).
    max_iter : int, default 1000
        maximum number of cutting-plane iterations (oracle calls); a ConvergenceWarning is
        issued when it is reached.
    warm_start : bool, default False
        when True and the estimator was fitted before: reuse the previous working set of
        cuts if the training data are identical (cuts do not depend on C, so a C-path is
        cheap), otherwise seed the working set with the cut at the previous ``coef_``.
    n_jobs : int, default 1
        threads for the BLAS calls (X @ w, X.T @ coef).

    Attributes
    ----------
    %(cutting_plane_attributes)s
    tol_ : float
        the stopping tolerance used (``epsilon * pairs / n``)
    n_cuts_ : int
        cuts in the final working set
    n_features_in_ : int

    References
    ----------
    Joachims. Optimizing search engines using clickthrough data. KDD 2002 (the pairwise
    objective). Joachims. Training linear SVMs in linear time. KDD 2006 (svm_rank's 1-slack
    cutting-plane algorithm and stopping rule; module docstring).

    Examples
    --------
    >>> from ltrfs.rankers.ranksvm import RankSVM
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankSVM().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "ranksvm"
    default_grid = {"C": [1e-5 * 2**i for i in range(20)]}
    uses_validation = False  # the validation arguments of fit are accepted and unused

    parameters = {"C": [Real(0, None, closed="neither")], "epsilon": [Real(0, None, closed="neither")],
                  "max_iter": [Integer(1)], "warm_start": [Boolean()], "n_jobs": [Integer(1)]}

    def __init__(self, C=1.0, epsilon=0.001, max_iter=1000, warm_start=False, n_jobs=1):
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        C, epsilon, max_iter = float(self.C), float(self.epsilon), int(self.max_iter)
        start = time.perf_counter()
        m, d = X.shape
        n = len(query_ptr) - 1
        levels = levels_within_queries(y, query_ptr)
        total_pairs = int(count_pairs(y, query_ptr).sum())
        tol = epsilon * total_pairs / n
        coef_rows = np.empty(m, dtype=np.float64)
        fingerprint = data_fingerprint(X, y, query_ptr) if self.warm_start else None

        def oracle(w):
            s = X @ w
            n_viol = _pair_oracle(s, levels, query_ptr, coef_rows)
            a = (X.T @ coef_rows) / n
            bval = n_viol / n
            risk = bval - a @ w  # = (1/n) sum of pair hinge losses at w
            return a, bval, risk

        if total_pairs == 0:
            log.warning("RankSVM: no query has two documents with different labels; coef_ = 0")
        one_slack_solve(self, oracle, d, C, tol, max_iter, fingerprint, total_pairs > 0, "RankSVM", logger=log)
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("RankSVM done: %d iterations, objective %.8g, %d cuts, %.3f s",
                  self.n_iter_, self.objective_, self.n_cuts_, self.seconds_)


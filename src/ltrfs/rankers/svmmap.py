"""SVM-map: a structural SVM that optimises (a hinge bound on) 1 - MAP.

Yue, Finley, Radlinski and Joachims, "A support vector method for optimizing average
precision", SIGIR 2007. Labels are made binary: a document is relevant when its label is
``>= relevant_min`` (1 by default: LETOR's convention for MAP).

Objective (the paper's OP 1, n-slack form)::

    min_w  1/2 ||w||^2 + (C / n) sum_q xi_q
    s.t.   w . (Psi(q, y_q) - Psi(q, y')) >= Delta_AP(y_q, y') - xi_q   for every q, every ranking y'

with ``Psi(q, y) = sum_{i rel, j non-rel} y_ij (x_i - x_j) / (|rel| |nonrel|)`` (``y_ij = +1``
when i is ranked above j, -1 otherwise), ``Delta_AP = 1 - AP(y')`` and ``n`` the number of
training queries (all of them, as svm_rank counts them; a query without a relevant or without a
non-relevant document has no constraint, so ``xi_q = 0``, and only enters through ``n``).

Solver: the 1-slack cutting-plane method (Joachims, Finley & Yu 2009), the formulation that
SVM-map's code gets from svm_struct, with exactly RankSVM's machinery, :mod:`ltrfs.rankers.one_slack`
(its working-set QP, cut dropping, warm start across C). Each iteration
adds the joint cut obtained by summing, over the queries, the most violated constraint of each::

    w . a >= b - xi,   a = (1/n) sum_q (Psi(q, y_q) - Psi(q, yhat_q)),   b = (1/n) sum_q Delta_AP(yhat_q)

The 1-slack and n-slack problems have the same optimum. Stopping as svm_struct: stop when the
most violated cut exceeds the working set's slack by at most ``tol``. svm_rank (and RankSVM
here) rescales ``-e`` by the maximum loss per query (its number of pairs); Delta_AP is already
at most 1 per query, so that rescaling is the identity: ``tol = epsilon`` (svm_struct's and
SVM-map's own usage). At convergence the primal objective is within ``C * tol`` of the optimum.

Most violated constraint (the separation oracle, the paper's Algorithm 2): for scores
``s = X w`` the ranking maximising ``Delta_AP(y') + w . Psi(q, y')`` keeps the relevant
documents in score order and the non-relevant ones in score order (Lemma 1); it is given by the
number ``k_j`` of relevant documents ranked above the j-th non-relevant document. The objective
splits into one term per non-relevant document::

    F_j(k) = (1/R) P_j(k) + 2/(R N) (S_k - k s_j),   P_j(k) = sum_{i<=k} [i/(i+j) - i/(i+j-1)]

(``S_k`` the sum of the k highest relevant scores; ``P_j(k) = -j (H_{k+j} - H_j) + (j-1)
(H_{k+j-1} - H_{j-1})`` with harmonic numbers H, O(1) to evaluate), and every non-relevant
document is inserted at its own best position, as Algorithm 2 does. The increments
``F_j(k) - F_j(k-1)`` are non-decreasing in j (both terms are), so the best position is
non-decreasing in j (the paper's monotonicity) and the matrix F is totally monotone: a
divide-and-conquer over j (best position of the middle j by a scan of its allowed range, then
recurse left and right on the two sub-ranges) finds all of them in O((R + N) log N) after the
two sorts, O(n log n) per query; ``method="naive"`` scans all R + 1 positions for every j
(O(R N), the reference for tests and the benchmark). Ties between positions go to the one
lowest in the ranking (the largest k: the ranking closest to the correct one).
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

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- reference helpers


def average_precision(relevant, order) -> float:
    """Average precision of one query's ranking under binary relevance.

    Parameters
    ----------
    relevant : array-like of bool, shape (n,)
        Relevance of each document.
    order : array-like of int, shape (n,)
        The ranking: document indices, best first.

    Returns
    -------
    float
        AP of the ranking; 0 when no document is relevant.
    """
    rel = np.asarray(relevant, dtype=bool)[np.asarray(order)]
    if not rel.any():
        return 0.0
    ranks = np.flatnonzero(rel) + 1
    return float(np.mean(np.arange(1, len(ranks) + 1) / ranks))


def joint_feature(X, relevant, order) -> np.ndarray:
    """The joint feature map Psi(q, y) of one query and ranking, by the definition.

    ``Psi(q, y) = sum_{i rel, j non-rel} y_ij (x_i - x_j) / (|rel| |nonrel|)`` (a double loop;
    for tests).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        The query's feature rows.
    relevant, order : array-like, shape (n,)
        Relevance of each document (bool) and the ranking (document indices, best first).

    Returns
    -------
    ndarray of float64, shape (d,)
        Psi(q, y); zero when either class is empty.

    References
    ----------
    Yue, Finley, Radlinski and Joachims. A support vector method for optimizing average
    precision. SIGIR 2007 (the joint feature map, section 3).
    """
    X = np.asarray(X, dtype=np.float64)
    rel = np.asarray(relevant, dtype=bool)
    position = np.empty(len(rel), dtype=np.int64)
    position[np.asarray(order)] = np.arange(len(rel))
    R, N = int(rel.sum()), int((~rel).sum())
    psi = np.zeros(X.shape[1])
    if R == 0 or N == 0:
        return psi
    for i in np.flatnonzero(rel):
        for j in np.flatnonzero(~rel):
            psi += (1.0 if position[i] < position[j] else -1.0) * (X[i] - X[j])
    return psi / (R * N)


# ----------------------------------------------------------------------------- oracle


@njit(cache=True)
def _score_of_position(j, k, R, N, s_j, S, H):  # pragma: no cover - compiled
    """F_j(k) (j 1-based non-relevant rank, k relevant documents above it)."""
    p = -j * (H[k + j] - H[j]) + (j - 1) * (H[k + j - 1] - H[j - 1])
    return p / R + 2.0 * (S[k] - k * s_j) / (R * N)


@njit(cache=True)
def _best_position(j, lo, hi, R, N, s_j, S, H):  # pragma: no cover - compiled
    best_k = lo
    best = _score_of_position(j, lo, R, N, s_j, S, H)
    for k in range(lo + 1, hi + 1):
        v = _score_of_position(j, k, R, N, s_j, S, H)
        if v >= best:  # ties -> the larger k (the non-relevant document lower)
            best = v
            best_k = k
    return best_k


@njit(cache=True)
def _positions_dc(R, N, s_non, S, H, kpos):  # pragma: no cover - compiled
    """kpos[j-1] = best k for every j = 1..N by divide and conquer (monotone argmax)."""
    stack = np.empty((2 * N + 4, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 1, N, 0, R
    top = 1
    while top > 0:
        top -= 1
        jlo, jhi, klo, khi = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if jlo > jhi:
            continue
        mid = (jlo + jhi) // 2
        k = _best_position(mid, klo, khi, R, N, s_non[mid - 1], S, H)
        kpos[mid - 1] = k
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = jlo, mid - 1, klo, k
        top += 1
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = mid + 1, jhi, k, khi
        top += 1


@njit(cache=True)
def _positions_naive(R, N, s_non, S, H, kpos):  # pragma: no cover - compiled
    for j in range(1, N + 1):
        kpos[j - 1] = _best_position(j, 0, R, R, N, s_non[j - 1], S, H)


@njit(cache=True)
def _map_oracle(scores, relevant, query_ptr, H, naive, coef, delta):  # pragma: no cover - compiled
    """Most violated constraint of every query at scores s = X w.

    Fills coef (m,) with the rows' coefficients of Psi(q, y_q) - Psi(q, yhat_q) (so that this
    difference is X_q.T @ coef_q) and delta (q,) with Delta_AP(yhat_q) (0 for a query without
    a constraint). Returns the number of queries with constraints.
    """
    n_active = 0
    for q in range(query_ptr.shape[0] - 1):
        start = query_ptr[q]
        stop = query_ptr[q + 1]
        delta[q] = 0.0
        R = 0
        for t in range(start, stop):
            coef[t] = 0.0
            if relevant[t]:
                R += 1
        N = stop - start - R
        if R == 0 or N == 0:
            continue
        n_active += 1
        rel_idx = np.empty(R, dtype=np.int64)
        non_idx = np.empty(N, dtype=np.int64)
        a = 0
        b = 0
        for t in range(start, stop):
            if relevant[t]:
                rel_idx[a] = t
                a += 1
            else:
                non_idx[b] = t
                b += 1
        # descending scores, ties in file order (stable sort of the negated scores)
        rel_idx = rel_idx[np.argsort(-scores[rel_idx], kind="mergesort")]
        non_idx = non_idx[np.argsort(-scores[non_idx], kind="mergesort")]
        S = np.zeros(R + 1)
        for i in range(R):
            S[i + 1] = S[i] + scores[rel_idx[i]]
        s_non = scores[non_idx]
        kpos = np.empty(N, dtype=np.int64)
        if naive:
            _positions_naive(R, N, s_non, S, H, kpos)
        else:
            _positions_dc(R, N, s_non, S, H, kpos)
        # m_i = number of non-relevant documents above the i-th relevant one (k_j < i)
        count = np.zeros(R + 1, dtype=np.int64)
        for j in range(N):
            count[kpos[j]] += 1
        scale = 2.0 / (R * N)
        ap = 0.0
        above = 0
        for i in range(1, R + 1):
            above += count[i - 1]
            ap += i / (i + above)
            coef[rel_idx[i - 1]] = scale * above
        for j in range(N):
            coef[non_idx[j]] = -scale * (R - kpos[j])
        delta[q] = 1.0 - ap / R
    return n_active


def _harmonic(n: int) -> np.ndarray:
    """H float64 (n + 1,): H[0] = 0, H[k] = 1 + 1/2 + ... + 1/k."""
    return np.r_[0.0, np.cumsum(1.0 / np.arange(1, n + 1))]


def most_violated(scores, y, query_ptr, relevant_min: int = 1, method: str = "greedy"):
    """The most violated constraint of every query at scores (the loss-augmented inference).

    Parameters
    ----------
    scores : ndarray of float, shape (m,)
        Scores ``X w``.
    y : ndarray of shape (m,)
        Relevance labels.
    query_ptr : ndarray of int64, shape (q + 1,)
        Query boundaries.
    relevant_min : int, default 1
        Labels ``>= relevant_min`` are relevant.
    method : {"greedy", "naive"}, default "greedy"
        ``"greedy"``: O(n log n) per query; ``"naive"``: every position for every
        non-relevant document, O(R N).

    Returns
    -------
    delta : ndarray of float64, shape (q,)
        ``Delta_AP(yhat_q) = 1 - AP(yhat_q)`` (0 for a query without relevant or without
        non-relevant documents).
    coef : ndarray of float64, shape (m,)
        ``Psi(q, y_q) - Psi(q, yhat_q) = X_q.T @ coef_q``. The maximised value of query q is
        ``Delta + w.Psi(q, yhat_q) = delta[q] + w.Psi(q, y_q) - coef_q @ scores_q``.

    References
    ----------
    Yue, Finley, Radlinski and Joachims. A support vector method for optimizing average
    precision. SIGIR 2007 (Algorithm 2 and Lemma 1; module docstring).
    """
    if method not in ("greedy", "naive"):
        raise ValueError(f"method must be 'greedy' or 'naive'; got {method!r}")
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    relevant = np.ascontiguousarray(np.asarray(y) >= relevant_min)
    sizes = np.diff(query_ptr)
    H = _harmonic(int(sizes.max()) if len(sizes) else 0)
    coef = np.empty(len(scores))
    delta = np.empty(len(sizes))
    _map_oracle(scores, relevant, query_ptr, H, method == "naive", coef, delta)
    return delta, coef


# ----------------------------------------------------------------------------- estimator


@fill_doc
class SVMMAP(LinearScores, Ranker):
    """SVM-map (Yue et al. 2007): linear structural SVM with the 1 - AP loss, 1-slack cutting planes.

    Parameters
    ----------
    C : float, default 1.0
        ``1/2 ||w||^2 + (C/n) sum_q xi_q``, n = number of training queries (SVM-map's and
        svm_struct's ``-c`` with the loss averaged over queries).
    epsilon : float, default 0.001
        svm_struct's ``-e``: the stopping tolerance on the joint slack (Delta_AP <= 1 per query,
        so no rescaling: ``tol_ = epsilon``).
    relevant_min : int, default 1
        labels >= relevant_min are relevant (binary relevance, as MAP).
    max_iter : int, default 1000
        maximum number of cutting-plane iterations (oracle calls); a ConvergenceWarning is
        issued when it is reached.
    warm_start : bool, default False
        as :class:`~ltrfs.rankers.ranksvm.RankSVM`: reuse the previous working set of cuts on
        identical training data (cuts do not depend on C), otherwise seed it with the cut at
        the previous ``coef_``.
    n_jobs : int, default 1
        threads for the BLAS calls (X @ w, X.T @ coef).

    Attributes
    ----------
    %(cutting_plane_attributes)s
    tol_ : float
        the stopping tolerance used (``epsilon``)
    n_cuts_ : int
        cuts in the final working set
    n_constrained_ : int
        training queries with both relevant and non-relevant documents
    n_features_in_ : int
    seconds_ : float

    References
    ----------
    Yue, Finley, Radlinski, Joachims. A support vector method for optimizing average
    precision. SIGIR 2007 (the structural SVM with the 1 - AP loss); the 1-slack cutting-plane
    algorithm of Joachims, Finley, Yu, Cutting-plane training of structural SVMs, Machine
    Learning 77, 2009.

    Examples
    --------
    >>> from ltrfs.rankers.svmmap import SVMMAP
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = SVMMAP().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "svmmap"
    # RankSVM's grid shape (20 values, factors of 2) moved up by 2^10: Delta_AP <= 1 per query
    # and Psi is an average of differences, so the useful C are larger than svm_rank's
    default_grid = {"C": [1e-5 * 2**i for i in range(10, 30)]}
    uses_validation = False  # the validation arguments of fit are accepted and unused

    parameters = {"C": [Real(0, None, closed="neither")], "epsilon": [Real(0, None, closed="neither")],
                  "relevant_min": [Integer(1)], "max_iter": [Integer(1)], "warm_start": [Boolean()],
                  "n_jobs": [Integer(1)]}

    def __init__(self, C=1.0, epsilon=0.001, relevant_min=1, max_iter=1000, warm_start=False, n_jobs=1):
        self.C = C
        self.epsilon = epsilon
        self.relevant_min = relevant_min
        self.max_iter = max_iter
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        C, epsilon, max_iter = float(self.C), float(self.epsilon), int(self.max_iter)
        start = time.perf_counter()
        m, d = X.shape
        n = len(query_ptr) - 1
        relevant = np.ascontiguousarray(y >= int(self.relevant_min))
        H = _harmonic(int(np.diff(query_ptr).max()))
        tol = epsilon
        coef_rows = np.empty(m)
        delta = np.empty(n)
        fingerprint = data_fingerprint(X, relevant, query_ptr) if self.warm_start else None
        n_active = int(_map_oracle(np.zeros(m), relevant, query_ptr, H, False, coef_rows, delta))

        def oracle(w):
            s = X @ w
            _map_oracle(s, relevant, query_ptr, H, False, coef_rows, delta)
            a = (X.T @ coef_rows) / n
            bval = float(delta.sum()) / n
            risk = bval - a @ w  # = (1/n) sum_q max_y' [Delta + w.Psi(y')] - w.Psi(y_q) >= 0
            return a, bval, risk

        if n_active == 0:
            log.warning("SVMMAP: no query has both relevant (label >= %d) and non-relevant documents; "
                        "coef_ = 0", self.relevant_min)
        one_slack_solve(self, oracle, d, C, tol, max_iter, fingerprint, n_active > 0, "SVMMAP", log)
        self.n_constrained_ = n_active
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("SVMMAP done: %d iterations, objective %.8g, %d cuts, %.3f s",
                  self.n_iter_, self.objective_, self.n_cuts_, self.seconds_)

"""RankBoost (Freund, Iyer, Schapire & Singer, JMLR 2003) with RankLib's weak rankers and update.

Training pairs: within one query, every pair (i, j) of documents with ``y_i > y_j`` (i should
rank above j). Initial pair weights are uniform, ``D_1(i, j) = 1 / #pairs`` over all queries.
Round t picks a weak ranker ``h(x) = 1[x_f > theta]`` maximising (by default) ``|r|`` with::

    r = sum_{(i, j)} D_t(i, j) (h(x_i) - h(x_j)) = sum_x pi_t(x) h(x),
    pi_t(x) = sum_{j: y_j < y_x} D_t(x, j) - sum_{i: y_i > y_x} D_t(i, x)      (the "potential")

and weights it by RankLib's ``alpha_t = 1/2 ln((Z + R) / (Z - R))``. In RankLib, Z is the
normaliser of the previous round's update (the sum of the unnormalised pair weights; Z = 1
before the first round) and ``R = Z * r`` with r computed on the normalised weights, so Z
cancels: ``alpha_t = 1/2 ln((1 + r) / (1 - r))`` (odd in r: a negative r gives a negative
weight, i.e. the weak ranker "x_f <= theta"). The pair weights are then updated and
normalised::

    D_{t+1}(i, j) = D_t(i, j) exp(-alpha_t (h_t(x_i) - h_t(x_j))) / Z_t.

Model: ``F(x) = sum_t alpha_t h_t(x)``.

Candidate thresholds (RankLib's ``-tc 10``): with fmin / fmax the feature's range on the
training data and ``step = (fmax - fmin) / n_thresholds``, the thresholds are fmax,
fmax - step, ..., fmax - (n_thresholds - 1) step (each obtained from the previous by one
subtraction, as RankLib does) and fmin - 1e8, scanned in that (descending) order; features are
scanned in column order and the first maximum wins: candidates within 1e-12 of the best
criterion count as tied and the earlier one is taken (RankLib's strict ``>`` scan, made
independent of floating-point summation order; with uniform initial weights r is a multiple
of 1/#pairs, so exact ties are common).

Pair-free computation (exact, not an approximation). Unrolling the update gives the product
form ``D_t(i, j) = exp(F_t(x_j) - F_t(x_i)) / N_t`` for every pair (y_i > y_j), with
``F_t = sum_{s<t} alpha_s h_s`` the current model and N_t the sum over all pairs. Hence::

    pi_t(x) = [exp(-F(x)) sum_{y_j < y_x} exp(F(x_j)) - exp(F(x)) sum_{y_i > y_x} exp(-F(x_i))] / N_t

where the sums run over the documents of x's query. Per query the documents are sorted once
by label; each round a sweep over the label groups gives both sums for every document in
O(n) (compiled with Numba), in log space (running log-sum-exp), so nothing overflows however
large F grows. r for every (feature, threshold) is then a cumulative sum of the potentials
binned by threshold interval (O(m d) per round). Memory is O(m d) for the bin codes and O(m)
for the rest; no pair is ever stored. ``tests/rankers/test_rankboost.py`` checks equality of the chosen
(f, theta, alpha) and the scores against an explicit-pairs implementation of RankLib's loop.

Model choice: with a validation split the metric (``metric``, ``convention``) of the model
after every round is computed and the best prefix of weak rankers is kept (first best,
strict improvement, as RankLib); training stops early when it has not improved for
``early_stopping_rounds`` rounds (RankLib itself always runs all rounds).
"""
from __future__ import annotations

import logging
import math
import time

import numpy as np
from numba import njit

from ltrfs.checks import check_X
from ltrfs.docstrings import fill_doc
from ltrfs.metrics import TIES
from ltrfs.params import ConventionLike, Integer, Metric, Options
from ltrfs.rankers.base import Ranker
from ltrfs.ranking_data import group_ids
from ltrfs.tuning import DegenerateGridError, vali_score

log = logging.getLogger(__name__)

#: |r| is clipped to 1 - _R_EPS so that alpha stays finite when a weak ranker orders every pair
_R_EPS = 1e-12
#: RankLib's offset of the last threshold below the feature's minimum (h = 1 on every document)
_BELOW_MIN = 1.0e8
_SELECT = ("abs", "max")
#: candidates whose criterion is within this of the best count as tied (r is in [-1, 1])
_TIE_TOL = 1e-12


# ----------------------------------------------------------------------------- kernels


@njit(cache=True)
def _logaddexp(a, b):  # pragma: no cover - compiled
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@njit(cache=True)
def _log_pair_sums(F, y, order, query_ptr, log_up, log_down):  # pragma: no cover - compiled
    """For every row x (in place, float64 (m,)):

    log_up[x]   = -F(x) + log sum_{j in q(x), y_j < y_x} exp(F(x_j))   (x as the upper document)
    log_down[x] =  F(x) + log sum_{i in q(x), y_i > y_x} exp(-F(x_i))  (x as the lower document)

    -inf when the sum is empty. ``order`` lists the rows of each query sorted by label
    ascending (query blocks in query_ptr positions).
    """
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        # ascending labels: accumulate exp(F) of strictly lower label groups
        acc = -np.inf
        p = a
        while p < b:
            e = p
            lab = y[order[p]]
            while e < b and y[order[e]] == lab:
                e += 1
            grp = -np.inf
            for k in range(p, e):
                row = order[k]
                log_up[row] = acc - F[row] if acc != -np.inf else -np.inf
                grp = _logaddexp(grp, F[row])
            acc = _logaddexp(acc, grp)
            p = e
        # descending labels: accumulate exp(-F) of strictly higher label groups
        acc = -np.inf
        p = b - 1
        while p >= a:
            e = p
            lab = y[order[p]]
            while e >= a and y[order[e]] == lab:
                e -= 1
            grp = -np.inf
            for k in range(p, e, -1):
                row = order[k]
                log_down[row] = acc + F[row] if acc != -np.inf else -np.inf
                grp = _logaddexp(grp, -F[row])
            acc = _logaddexp(acc, grp)
            p = e


@njit(cache=True)
def _bin_potentials(codes, pi, out):  # pragma: no cover - compiled
    """out[f, k] = sum of pi over rows whose bin code for feature f is k (out zeroed here)."""
    out[:, :] = 0.0
    m, d = codes.shape
    for x in range(m):
        p = pi[x]
        if p == 0.0:
            continue
        for f in range(d):
            out[f, codes[x, f]] += p


# ----------------------------------------------------------------------------- helpers


def ranklib_thresholds(X: np.ndarray, n_thresholds: int) -> np.ndarray:
    """RankLib's candidate thresholds per feature, descending.

    ``[fmax, fmax - step, ..., fmax - (n - 1) step, fmin - 1e8]`` with ``step = (fmax - fmin) /
    n``, each inner value obtained from the previous one by subtracting step (RankLib's
    arithmetic).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    n_thresholds : int

    Returns
    -------
    float64 (d, n_thresholds + 1)
    """
    X = np.asarray(X, dtype=np.float64)
    fmax = X.max(axis=0)
    fmin = X.min(axis=0)
    step = np.abs(fmax - fmin) / n_thresholds
    T = np.empty((X.shape[1], n_thresholds + 1))
    T[:, 0] = fmax
    for j in range(1, n_thresholds):
        T[:, j] = T[:, j - 1] - step
    T[:, n_thresholds] = fmin - _BELOW_MIN
    return T


def threshold_codes(X: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """For each value, the index of the first (descending) threshold it exceeds.

    So ``h_k(x) = 1[x > t_k]`` is 1 iff ``code <= k``.

    Parameters
    ----------
    X : ndarray, shape (m, d)
    thresholds : ndarray, shape (d, n + 1)
        From ``ranklib_thresholds``.

    Returns
    -------
    int (m, d)
    """
    m, d = X.shape
    K = thresholds.shape[1]
    codes = np.empty((m, d), dtype=np.min_scalar_type(K))
    for f in range(d):
        codes[:, f] = (X[:, f, None] <= thresholds[f][None, :]).sum(axis=1)
    return codes


def label_sorted_order(y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """Rows sorted by (query, label ascending), stable.

    Parameters
    ----------
    y, query_ptr : ndarray
        Labels (m,) and the int query offsets (q + 1,).

    Returns
    -------
    int64 (m,)
    """
    return np.lexsort((y, group_ids(query_ptr))).astype(np.int64)


def pair_potentials(F, y, query_ptr, order=None) -> tuple[np.ndarray, float]:
    """Potentials of the normalised pair weights ``D(i, j) ∝ exp(F_j - F_i)``, and log N.

    Parameters
    ----------
    F : ndarray, shape (m,)
        Current scores.
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    order : ndarray or None
        ``label_sorted_order(y, query_ptr)``, reused when given.

    Returns
    -------
    (float64 (m,), float)
        pi (sums to 0 per query) and ``log N``, ``N = sum over pairs (y_i > y_j, same query) of
        exp(F_j - F_i)``; with no pair at all, pi = 0 and log N = -inf.

    References
    ----------
    Freund et al., JMLR 2003 (the distribution D over pairs and its potential).
    """
    F = np.ascontiguousarray(F, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    if order is None:
        order = label_sorted_order(y, query_ptr)
    up = np.empty(len(F))
    down = np.empty(len(F))
    _log_pair_sums(F, y, order, query_ptr, up, down)
    top = up.max() if len(up) else -np.inf
    if top == -np.inf:
        return np.zeros(len(F)), -np.inf
    log_n = top + math.log(np.exp(up - top).sum())
    return np.exp(up - log_n) - np.exp(down - log_n), float(log_n)


# ----------------------------------------------------------------------------- estimator


@fill_doc
class RankBoost(Ranker):
    """RankBoost with threshold weak rankers, RankLib's variant (see the module docstring).

    Parameters
    ----------
    n_rounds : int, default 300
        boosting rounds (RankLib ``-round``).
    n_thresholds : int, default 10
        equal-width steps of each feature's training range (RankLib ``-tc``).
    early_stopping_rounds : int or None, default 100
        with a validation split, stop when the validation metric has not improved for this
        many rounds; None runs all rounds. The best-on-validation prefix is kept either way.
    metric : str, default "ndcg@10"
        validation metric (``ndcg@K``, ``p@K``, ``map``, ``meanndcg``).
    convention : str, default "letor4"
        metric convention of ``ltrfs.metrics``.
    select : {"abs", "max"}, default "abs"
        "abs" picks the weak ranker maximising |r| (Freund et al.; a negative r gives a
        negative alpha); "max" maximises r itself as RankLib does (weights never negative,
        so a feature can only count positively).
    n_jobs : int, default 1
        BLAS threads (the Numba kernels are single-threaded).
    ties : {"expected", "file_order"}, default "expected"
        how the validation metric ranks tied scores (``ltrfs.metrics``).

    Attributes
    ----------
    features_ : int64 (T,)
        column of each kept weak ranker
    thresholds_ : float64 (T,)
        its threshold theta (h = 1[x_f > theta])
    alphas_ : float64 (T,)
        its weight
    r_ : float64 (T,)
        its r on the training pairs when it was chosen
    n_iter_ : int
        rounds run
    best_iteration_ : int
        0-based index of the last kept weak ranker (T - 1)
    best_score_ : float or None validation metric of the kept model
    vali_scores_ : float64 (n_iter_,)
        validation metric after every round (empty without one)
    n_features_in_ : int
    seconds_ : float
        training time

    References
    ----------
    Freund, Iyer, Schapire, Singer. An efficient boosting algorithm for combining preferences.
    JMLR 4, 2003 (RankBoost with threshold weak rankers); RankLib's RankBoost for the weak-ranker
    search and update (module docstring).

    Examples
    --------
    >>> from ltrfs.rankers.rankboost import RankBoost
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankBoost().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.84
    """

    name = "rankboost"
    #: the code-free state (``ltrfs.state``): the weak rankers
    state_attributes = ("n_features_in_", "features_", "thresholds_", "alphas_")
    default_grid: dict = {}

    parameters = {
        "n_rounds": [Integer(1)],
        "n_thresholds": [Integer(1)],
        "early_stopping_rounds": [Integer(1), None],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "select": [Options(*_SELECT)],
        "n_jobs": [Integer(1)],
        "ties": [Options(*TIES)],
    }

    def __init__(self, n_rounds=300, n_thresholds=10, early_stopping_rounds=100, metric="ndcg@10",
                 convention="letor4", select="abs", n_jobs=1, ties="expected"):
        self.n_rounds = n_rounds
        self.n_thresholds = n_thresholds
        self.early_stopping_rounds = early_stopping_rounds
        self.metric = metric
        self.convention = convention
        self.select = select
        self.n_jobs = n_jobs
        self.ties = ties

    def _fit(self, X, y, query_ptr, vali):
        start = time.perf_counter()
        m, d = X.shape
        T = ranklib_thresholds(X, self.n_thresholds)
        codes = threshold_codes(X, T)
        order = label_sorted_order(y, query_ptr)
        K = T.shape[1]
        binned = np.empty((d, K))
        F = np.zeros(m)
        feats, thetas, alphas, rs = [], [], [], []
        vali_scores = []
        best_score, best_len, since_best = -np.inf, 0, 0
        Fv = np.zeros(len(vali[0])) if vali is not None else None
        n_iter = 0
        for t in range(self.n_rounds):
            pi, log_n = pair_potentials(F, y, query_ptr, order)
            if log_n == -np.inf:
                log.warning("RankBoost: no query has two documents with different labels; empty model")
                break
            _bin_potentials(codes, pi, binned)
            r = np.cumsum(binned, axis=1)
            r[:, K - 1] = 0.0  # h = 1 on every document: exactly 0 (the sum of pi per query is 0)
            crit = np.abs(r) if self.select == "abs" else r
            # first candidate (row-major: features in order, thresholds descending) within
            # _TIE_TOL of the maximum, so that ties do not depend on summation order
            flat = int(np.argmax(crit.ravel() >= crit.max() - _TIE_TOL))
            f, k = divmod(flat, K)
            r_best = float(r[f, k])
            rc = min(max(r_best, -1.0 + _R_EPS), 1.0 - _R_EPS)
            alpha = 0.5 * math.log((1.0 + rc) / (1.0 - rc))
            theta = float(T[f, k])
            feats.append(f)
            thetas.append(theta)
            alphas.append(alpha)
            rs.append(r_best)
            F += alpha * (X[:, f] > theta)
            n_iter = t + 1
            if vali is not None:
                Xv, yv, ptr_v = vali
                Fv += alpha * (Xv[:, f] > theta)
                score, degenerate = vali_score(yv, Fv, ptr_v, self.metric, self.convention, self.ties)
                score = -np.inf if degenerate else score  # a degenerate prefix is never kept
                vali_scores.append(score)
                if score > best_score:
                    best_score, best_len, since_best = score, t + 1, 0
                else:
                    since_best += 1
                log.debug("RankBoost round %d: feature %d theta %.6g r %.6g alpha %.6g vali %s %.4f",
                          t + 1, f, theta, r_best, alpha, self.metric, score)
                if self.early_stopping_rounds is not None and since_best >= self.early_stopping_rounds:
                    break
            else:
                log.debug("RankBoost round %d: feature %d theta %.6g r %.6g alpha %.6g",
                          t + 1, f, theta, r_best, alpha)
        if vali is not None and feats and best_len == 0:
            raise DegenerateGridError("rankboost: every prefix of the model gives the same score to all "
                                      "documents of every vali query (a degenerate model)")
        keep = best_len if vali is not None else len(feats)
        self.features_ = np.asarray(feats[:keep], dtype=np.int64)
        self.thresholds_ = np.asarray(thetas[:keep], dtype=np.float64)
        self.alphas_ = np.asarray(alphas[:keep], dtype=np.float64)
        self.r_ = np.asarray(rs[:keep], dtype=np.float64)
        self.n_iter_ = n_iter
        self.best_iteration_ = keep - 1
        self.best_score_ = float(best_score) if vali is not None and keep else None
        self.vali_scores_ = np.asarray(vali_scores, dtype=np.float64)
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("RankBoost done: %d rounds, %d weak rankers kept, %.3f s", n_iter, keep, self.seconds_)

    def check_state(self) -> None:
        """A one-line ValueError unless the weak rankers' arrays have one length and name features
        of the model."""
        n, d = len(self.alphas_), int(self.n_features_in_)
        if len(self.features_) != n or len(self.thresholds_) != n:
            raise ValueError(f"rankboost: {len(self.features_)} features, {len(self.thresholds_)} thresholds "
                             f"and {n} weights")
        if n and not (0 <= self.features_.min() and self.features_.max() < d):
            raise ValueError(f"rankboost: a weak ranker's feature is outside 0..{d - 1}")

    def predict(self, X) -> np.ndarray:
        """Scores ``sum_t alpha_t 1[x_(f_t) > theta_t]``.

        %(predict_sections)s
        """
        self._check_fitted("alphas_")
        X = check_X(X, n_features=self.n_features_in_)
        out = np.zeros(X.shape[0])
        for f, theta, alpha in zip(self.features_, self.thresholds_, self.alphas_):
            out += alpha * (X[:, f] > theta)
        return out

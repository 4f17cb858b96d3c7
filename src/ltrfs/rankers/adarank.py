"""AdaRank (Xu & Li, SIGIR 2007) with RankLib's training loop.

Weak rankers are single features (h(x) = x_f, documents ranked by the feature value). With
query weights P_t(q) (uniform at the start) and E(q, g) in [0, 1] the per-query value of the
optimised measure for the ranking given by scores g, round t picks the feature with the
highest weighted performance ``sum_q P_t(q) E(q, x_f)`` (first maximum in column order) and::

    alpha_t = 1/2 ln( sum_q P_t(q) (1 + E(q, h_t)) / sum_q P_t(q) (1 - E(q, h_t)) )
    f_t     = f_{t-1} + alpha_t h_t

Query weights, ``weight_update="ranklib"`` (default; RankLib's code)::

    P_{t+1}(q) = P_t(q) exp(-alpha_t E(q, f_t)) / sum_q' exp(-alpha_t E(q', f_t))

i.e. ``P_{t+1}(q) ∝ exp(-sum_{s<=t} alpha_s E(q, f_s))`` (the normaliser does not change the
choice of feature nor alpha, both being invariant to scaling P). ``weight_update="paper"``
uses Xu & Li's ``P_{t+1}(q) = exp(-E(q, f_t)) / sum_q' exp(-E(q', f_t))``.

RankLib's training loop, reproduced here:

- Phase 1 ("enqueue", RankLib's default): when the best feature equals the one chosen in the
  previous round, that feature is put in a queue (excluded from then on), the previous round
  is rolled back (its weak ranker removed, query weights and last training score restored)
  and the round counts as an iteration.
- Stopping: after adding a weak ranker, with M_t the training mean of E(q, f_t), training
  stops (and that weak ranker is dropped) when ``M_t + tolerance <= M_{t-1}``, i.e. when the
  training measure falls by ``tolerance`` or more (RankLib's test; M_0 = -1).
- Phase 2: the queued features are released one at a time (the last queued first) and
  training resumes from the same iteration count without the roll-back rule; instead, a
  feature chosen ``max_consecutive`` times in a row with an unchanged training measure is
  removed from the pool until the measure changes or another feature is chosen.
- All phases share the iteration budget ``n_rounds``.

Model choice: with a validation split, the model after every accepted round is evaluated
(``vali_metric``, default the optimised ``metric``, in ``convention``) and the best one is
kept (strict improvement, first best). RankLib also evaluates the weak ranker that the stop
rule then removes, and resets its best score on every roll-back; this module does neither
(only models that exist are candidates, the best of them all is kept).

Measures: E is computed with ``ltrfs.metrics.metric_per_query`` in ``convention`` (default
letor4: gain 2^y - 1, discount 1 for ranks 1-2 then 1/log2(i); NDCG@k is 0 for a query with
fewer than k documents) with ``ties="expected"`` by default: a weak ranker or model that ties
documents gets the expected measure over the orders of the tied documents, not the credit of
the data file's order (``ties="file_order"`` is RankLib's behaviour). ``adarank_ndcg`` optimises NDCG@5,
the measure of AdaRank.NDCG in Xu & Li's experiments; on MQ2008 no training query has fewer
than 5 documents while half have fewer than 10 (whose NDCG@10 is constantly 0 under letor4, so
they would only dilute alpha). ``adarank_map`` optimises MAP. The per-query measure of every
single feature is computed once before the first round (d calls of metric_per_query); each
round then costs one (q, d) x (q,) product, one evaluation of f_t on the training queries and,
with a validation split, one on the validation queries.
"""
from __future__ import annotations

import logging
import math
import time

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.metrics import TIES, metric_per_query
from ltrfs.params import Boolean, ConventionLike, Integer, Metric, Options, Real
from ltrfs.tuning import vali_score
from ltrfs.rankers.base import LinearScores, Ranker

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
    "adarank_parameters_and_sections": """
%(adarank_parameters)s

Attributes
----------
%(adarank_attributes)s

References
----------
%(adarank_paper)s
""",
    "adarank_parameters": """
n_rounds : int, default 500
    iteration budget (RankLib ``-round``; roll-backs count).
tolerance : float, default 0.002
    stop when the training measure falls by this much or more (RankLib ``-tolerance``).
max_consecutive : int, default 5
    phase-2 limit of consecutive selections of one feature at unchanged training measure
    (RankLib ``-max``).
enqueue : bool, default True
    RankLib's "train with enqueue" (phase 1 with roll-backs, then phase 2); False runs
    phase 2 only (RankLib ``-noeq``).
weight_update : {"ranklib", "paper"}, default "ranklib"
    query-weight update (see the module docstring).
vali_metric : str or None, default None
    model-choice metric on the validation split; None uses ``metric``.
convention : str, default "letor4"
    metric convention of ``ltrfs.metrics`` (for E and the validation metric).
ties : {"expected", "file_order"}, default "expected"
    how E and the validation metric rank tied scores; a degenerate model (constant scores
    within every vali query) is never kept.
n_jobs : int, default 1
    BLAS threads.
""",
    "adarank_attributes": """
features_ : int64 (T,)
    column of each weak ranker of the kept model, in order
alphas_ : float64 (T,)
    their weights (a feature may appear several times)
coef_ : float64 (d,)
    the equivalent linear model, predict(X) = X @ coef_
query_weights_ : float64 (q,) the query weights P at the end of training (sum 1)
train_scores_ : float64 (A,)
    training mean of E after each accepted round
vali_scores_ : float64 (A,)
    validation metric after each accepted round (empty without)
n_iter_ : int
    iterations used (including roll-backs)
n_rollbacks_ : int
    phase-1 roll-backs (features queued)
best_iteration_ : int
    0-based index of the last weak ranker kept (T - 1)
best_score_ : float or None validation metric of the kept model
n_features_in_ : int
seconds_ : float
    training time
""",
    "adarank_paper": """
Xu and Li. AdaRank: a boosting algorithm for information retrieval. SIGIR 2007 (the
algorithm with single-feature weak rankers), with RankLib's training loop (module
docstring).
""",
}


log = logging.getLogger(__name__)

_UPDATES = ("ranklib", "paper")
#: the denominator of alpha is floored at this (a feature perfect on every weighted query)
_DEN_FLOOR = 1e-12


def feature_metric_matrix(X, y, query_ptr, metric, convention="letor4", ties="expected") -> np.ndarray:
    """E(q, x_f): the per-query metric of ranking by each feature alone.

    Parameters
    ----------
    X : array-like of shape (m, d)
        Feature matrix.
    y : array-like of shape (m,)
        Relevance labels.
    query_ptr : array-like of int64, shape (q + 1,)
        Query boundaries.
    metric : str
        The metric (``ltrfs.metrics.metric_per_query``).
    convention : str or Convention, default "letor4"
        Metric convention.
    ties : {"expected", "file_order"}, default "expected"
        How a feature's tied values are ranked.

    Returns
    -------
    ndarray of float64, shape (q, d)

    References
    ----------
    Xu and Li. AdaRank: a boosting algorithm for information retrieval. SIGIR 2007 (the
    performance of a single-feature weak ranker on each query).
    """
    X = np.asarray(X)
    out = np.empty((len(query_ptr) - 1, X.shape[1]))
    for f in range(X.shape[1]):
        out[:, f] = metric_per_query(y, X[:, f], query_ptr, metric, convention, ties)
    return out


@fill_doc(**_DOC)
class AdaRank(LinearScores, Ranker):
    """AdaRank with single-feature weak rankers and RankLib's loop (see the module docstring).

    Parameters
    ----------
    metric : str, default "ndcg@5"
        the optimised measure E (``ndcg@K``, ``map``, ``p@K``, ``meanndcg``).
    %(adarank_parameters)s

    Attributes
    ----------
    %(adarank_attributes)s
    """

    name = "adarank"
    default_grid: dict = {}

    parameters = {
        "metric": [Metric()],
        "n_rounds": [Integer(1)],
        "tolerance": [Real(0)],
        "max_consecutive": [Integer(1)],
        "enqueue": [Boolean()],
        "weight_update": [Options(*_UPDATES)],
        "vali_metric": [Metric(), None],
        "convention": [ConventionLike()],
        "n_jobs": [Integer(1)],
        "ties": [Options(*TIES)],
    }

    def __init__(self, metric="ndcg@5", n_rounds=500, tolerance=0.002, max_consecutive=5, enqueue=True,
                 weight_update="ranklib", vali_metric=None, convention="letor4", n_jobs=1,
                 ties="expected"):
        self.metric = metric
        self.n_rounds = n_rounds
        self.tolerance = tolerance
        self.max_consecutive = max_consecutive
        self.enqueue = enqueue
        self.weight_update = weight_update
        self.vali_metric = vali_metric
        self.convention = convention
        self.n_jobs = n_jobs
        self.ties = ties

    # ------------------------------------------------------------------ training loop

    def _fit(self, X, y, query_ptr, vali):
        start = time.perf_counter()
        E_feat = feature_metric_matrix(X, y, query_ptr, self.metric, self.convention, self.ties)  # (q, d)
        q = E_feat.shape[0]
        st = {
            "P": np.full(q, 1.0 / q), "feats": [], "alphas": [], "last_train": -1.0,
            "last_feature": -1, "backup_P": np.full(q, 1.0 / q), "backup_train": -1.0,
            "queue": [], "used": set(), "count": 0, "best": -np.inf,
            "train_scores": [], "vali_scores": [], "rollbacks": 0,
        }
        data = (X, y, query_ptr, E_feat, vali)
        if self.enqueue:
            t = self._rounds(st, data, 1, True)
            while st["queue"]:
                st["queue"].pop()
                t = self._rounds(st, data, t, False)
        else:
            t = self._rounds(st, data, 1, False)
        self._keep(st, t, X.shape[1], vali is not None, start)

    def _rounds(self, st: dict, data, t: int, with_enqueue: bool) -> int:
        """Boosting rounds from round ``t`` until the training metric stops rising, every
        feature is queued or used, or ``n_rounds``; updates the state ``st``; the next round."""
        X, y, query_ptr, E_feat, vali = data
        metric, conv = self.metric, self.convention
        while t <= self.n_rounds:
            f = _best_weak_ranker(st, E_feat)
            if f is None:
                break
            if with_enqueue and _roll_back_repeat(st, f, t):
                t += 1
                continue
            P = st["P"]
            Eh = E_feat[:, f]
            num = float(P @ (1.0 + Eh))
            den = max(float(P @ (1.0 - Eh)), _DEN_FLOOR * float(P.sum()))
            alpha = 0.5 * math.log(num / den)
            st["feats"].append(f)
            st["alphas"].append(alpha)
            Ef = metric_per_query(y, _model_scores(X, st["feats"], st["alphas"]), query_ptr, metric, conv,
                                  self.ties)
            trained = float(Ef.mean())
            delta = trained + self.tolerance - st["last_train"]
            if not with_enqueue:
                self._count_repeats(st, f, trained)
            if delta <= 0:
                st["feats"].pop()
                st["alphas"].pop()
                log.debug("AdaRank iter %d: feature %d alpha %.6g: training %s %.6f fell from %.6f: stop",
                          t, f, alpha, metric, trained, st["last_train"])
                break
            st["last_train"] = trained
            st["train_scores"].append(trained)
            if self.weight_update == "ranklib":
                w = P * np.exp(-alpha * Ef)  # RankLib divides by sum(exp(-alpha E)), which
                st["P"] = w / w.sum()         # shrinks P ~1/q per round until it underflows
            else:
                w = np.exp(-Ef)
                st["P"] = w / w.sum()
            msg = "" if vali is None else self._track_vali(st, vali)
            log.debug("AdaRank iter %d: feature %d alpha %.6g training %s %.6f%s",
                      t, f, alpha, metric, trained, msg)
            t += 1
        return t

    def _count_repeats(self, st: dict, f: int, trained: float) -> None:
        """Without the queue (RankLib's second phase): a feature chosen ``max_consecutive`` times
        in a row without changing the training metric is set aside until the metric changes."""
        if trained != st["last_train"]:
            st["count"] = 0
            st["used"].clear()
        elif st["last_feature"] == f:
            st["count"] += 1
            if st["count"] == self.max_consecutive:
                st["count"] = 0
                st["used"].add(f)
        else:
            st["count"] = 0
            st["used"].clear()
        st["last_feature"] = f

    def _track_vali(self, st: dict, vali) -> str:
        """Score the current model on the validation split, keep it when it is the best
        non-degenerate one so far; the log text."""
        vmetric = self.vali_metric or self.metric
        Xv, yv, ptr_v = vali
        sv = _model_scores(Xv, st["feats"], st["alphas"])
        score, degenerate = vali_score(yv, sv, ptr_v, vmetric, self.convention, self.ties)
        st["vali_scores"].append(score)
        if score > st["best"] and not degenerate:
            st["best"] = score
            st["best_model"] = (list(st["feats"]), list(st["alphas"]))
        return f" vali {vmetric} {score:.4f}"

    def _keep(self, st: dict, t: int, d: int, has_vali: bool, start: float) -> None:
        """Set the fitted attributes from the final state (the best vali model when there is one)."""
        if has_vali and "best_model" in st:
            feats, alphas = st["best_model"]
            self.best_score_ = float(st["best"])
        else:
            feats, alphas = st["feats"], st["alphas"]
            self.best_score_ = None
        self.features_ = np.asarray(feats, dtype=np.int64)
        self.alphas_ = np.asarray(alphas, dtype=np.float64)
        coef = np.zeros(d)
        np.add.at(coef, self.features_, self.alphas_)
        self.coef_ = coef
        self.query_weights_ = st["P"] / st["P"].sum()
        self.train_scores_ = np.asarray(st["train_scores"], dtype=np.float64)
        self.vali_scores_ = np.asarray(st["vali_scores"], dtype=np.float64)
        self.n_rollbacks_ = int(st["rollbacks"])
        self.n_iter_ = int(min(t, self.n_rounds + 1) - 1)
        self.best_iteration_ = len(feats) - 1
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("AdaRank done: %d iterations, %d weak rankers kept, %.3f s",
                  self.n_iter_, len(feats), self.seconds_)


def _model_scores(A, feats, alphas):
    """Scores A @ coef of the weak rankers ``feats`` with weights ``alphas`` (a feature may repeat)."""
    coef = np.zeros(A.shape[1])
    np.add.at(coef, np.asarray(feats, dtype=np.int64), np.asarray(alphas, dtype=np.float64))
    return A @ coef


def _best_weak_ranker(st: dict, E_feat) -> int | None:
    """The feature with the largest P-weighted metric among those neither queued nor set aside
    (the first maximum, as RankLib's strict '<' scan); None when every feature is."""
    allowed = np.ones(E_feat.shape[1], dtype=bool)
    for f in st["queue"]:
        allowed[f] = False
    for f in st["used"]:
        allowed[f] = False
    if not allowed.any():
        return None
    weighted = np.where(allowed, E_feat.T @ st["P"], -np.inf)
    return int(np.argmax(weighted))


def _roll_back_repeat(st: dict, f: int, t: int) -> bool:
    """With the queue (RankLib's first phase): a feature chosen twice in a row is queued and the
    previous round rolled back (True); otherwise the round's backup is taken (False)."""
    if f == st["last_feature"]:
        st["queue"].append(f)
        if st["feats"]:
            st["feats"].pop()
            st["alphas"].pop()
        st["P"] = st["backup_P"].copy()
        st["last_train"] = st["backup_train"]
        st["rollbacks"] += 1
        log.debug("AdaRank iter %d: feature %d chosen twice in a row: queued, previous round rolled back", t, f)
        return True
    st["last_feature"] = f
    st["backup_P"] = st["P"].copy()
    st["backup_train"] = st["last_train"]
    return False


@fill_doc(**_DOC)
class AdaRankNDCG(AdaRank):
    """AdaRank optimising NDCG@5 (``adarank_ndcg``).

    The parameters, defaults and learned attributes are those of ``AdaRank`` (``metric``
    defaults to "ndcg@5").

    Parameters
    ----------
    metric : str, default "ndcg@5"
        the optimised measure E (``ndcg@K``, ``map``, ``p@K``, ``meanndcg``).
    %(adarank_parameters_and_sections)s

    Examples
    --------
    >>> from ltrfs.rankers.adarank import AdaRankNDCG
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = AdaRankNDCG().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.86
    """

    name = "adarank_ndcg"


@fill_doc(**_DOC)
class AdaRankMAP(AdaRank):
    """AdaRank optimising MAP (``adarank_map``).

    The parameters and learned attributes are those of ``AdaRank``; only the default of
    ``metric`` differs ("map").

    Parameters
    ----------
    metric : str, default "map"
        the optimised measure E (``ndcg@K``, ``map``, ``p@K``, ``meanndcg``).
    %(adarank_parameters_and_sections)s

    Examples
    --------
    >>> from ltrfs.rankers.adarank import AdaRankMAP
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = AdaRankMAP().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.88
    """

    name = "adarank_map"

    def __init__(self, metric="map", n_rounds=500, tolerance=0.002, max_consecutive=5, enqueue=True,
                 weight_update="ranklib", vali_metric=None, convention="letor4", n_jobs=1,
                 ties="expected"):
        super().__init__(metric=metric, n_rounds=n_rounds, tolerance=tolerance,
                         max_consecutive=max_consecutive, enqueue=enqueue, weight_update=weight_update,
                         vali_metric=vali_metric, convention=convention, n_jobs=n_jobs, ties=ties)

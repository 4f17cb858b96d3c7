"""Relevance and Spearman redundancy: what NGAS, XGAS, HCAS (Gigli et al., ICTIR 2016) and
mRMR (Shirzad & Keyvanpour 2015) share (docs/methods.md, sections 'NGAS, XGAS, HCAS' and 'mRMR').

Each of these methods searches over two inputs:

    R(f)     the mean over training queries of the metric (default NDCG@10) of ranking the query
             by feature f alone, descending (the single-feature table,
             ``ltrfs.scoring.single_feature_table``, in the dataset's convention and tie rule);
             or (``relevance="lambdamart_vali"``) the vali metric of a LambdaMART trained on f
             alone, as the authors of NGAS/XGAS/HCAS measure it on test;
    S(f, g)  |Spearman's rho| of f and g on the training split (``ltrfs.scoring.spearman``): over
             all rows pooled (default, as the authors' code) or the mean per-query rho.

Only the features that are not constant within every training query (``Selector``'s rule) take
part in the search; the constant ones follow them in ``ranking_`` in feature order. Every tie
in the searches goes to the lowest feature id. ``RelevanceRedundancy._search(R, S)`` is the one
method a subclass writes: the order of the searched features, given their R and S.
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.checks import NeedsValidation, check_validation_split
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Integer, Options
from ltrfs.scoring.spearman import SIMILARITIES, spearman_similarity
from ltrfs.selection.base import Selector, single_feature_scores

#: how R is measured (``RelevanceRedundancy``'s ``relevance``)
RELEVANCES = ("single_feature", "lambdamart_vali")
#: numpydoc of the parameters every method of this family shares (``fill_doc`` fragments)
DOC = {
    "rr_parameters": """
metric : str, default "ndcg@10"
    R: the metric (a key of ``ltrfs.scoring.SINGLE_FEATURE_METRICS``, any case).
relevance : {"single_feature", "lambdamart_vali"}, default "single_feature"
    R: the metric of ranking each training query by the feature alone, or (as the authors of
    NGAS/XGAS/HCAS, but on vali instead of test) the vali metric of a LambdaMART of ``n_trees``
    trees trained on the feature alone (one model per feature; needs the validation split).
n_trees : int >= 1, default 100
    Trees of each per-feature LambdaMART (``relevance="lambdamart_vali"``; learning rate 0.1,
    10 leaves, no early stopping).
random_state : int >= 0, default 0
    Seed of the per-feature LambdaMART models.
similarity : {"pooled", "per_query"}, default "pooled"
    S: |Spearman's rho| over all training rows, or |mean over queries of rho_q| (queries where
    either feature is constant left out).
convention : str, default "letor4"
    Metric convention of R (``ltrfs.metrics``; the workflow passes the dataset's).
ties : {"expected", "file_order"}, default "expected"
    Documents tied under a feature in R: the mean over their orders, or row order.
n_jobs : int >= 1, default 1
    BLAS threads of the similarity's matrix products (when it is not read from the cache).""",
    "gigli_references": """
References
----------
Gigli, Lucchese, Nardini, Perego. Fast feature selection for learning to rank. ICTIR 2016
(doi 10.1145/2970398.2970433); the authors' code andrgig/FSA.""",
    "rr_attributes": """
ranking_ : int64 (d,)
    0-based feature ids, most useful first; the features constant within every training query
    last, in feature order.
scores_ : float64 (d,)
    R of every feature.
similarity_ : float64 (d, d)
    S of every pair of features.
searched_ : int64 (n,)
    The features that took part in the search (not constant within every training query).
chosen_ : dict
    ``metric``, ``relevance`` and ``similarity``.
%(selector_fit_attributes)s""",
}


def start_search(relevance, similarity) -> tuple[np.ndarray, np.ndarray, list[int], np.ndarray]:
    """The checked inputs of a greedy search, its first pick and the mask of unpicked features.

    Parameters
    ----------
    relevance : array-like, shape (n,)
        R.
    similarity : array-like, shape (n, n)
        S.

    Returns
    -------
    (float64 (n,), float64 (n, n), list of int, bool (n,))
        R, S, the picks so far (argmax R, the lowest index among equals; none when n = 0) and
        True for every feature not picked.
    """
    r = np.asarray(relevance, dtype=np.float64)
    s = np.asarray(similarity, dtype=np.float64)
    n = len(r)
    if s.shape != (n, n):
        raise ValueError(f"similarity must be ({n}, {n}); got shape {s.shape}")
    free = np.ones(n, dtype=bool)
    order = [int(np.argmax(r))] if n else []
    free[order] = False
    return r, s, order, free


def first_best(values, candidates) -> int:
    """The candidate with the largest value, the lowest id among equals.

    Parameters
    ----------
    values : float64 (n,)
        Value of every feature (indexed by feature).
    candidates : int array (c,), c >= 1
        Feature ids, ascending.

    Returns
    -------
    int
    """
    return int(candidates[np.argmax(values[candidates])])


@fill_doc(**DOC)
class RelevanceRedundancy(Selector):
    """Base class of the searches over relevance R and Spearman similarity S (module docstring).

    A subclass writes ``_search(R, S)``; ``fit`` measures R and S (from the workflow's cache when
    it fits), runs the search on the features that are not constant within every training query
    and appends the constant ones.

    Parameters
    ----------
    %(rr_parameters)s
    """

    requires = ("single_feature", "spearman")
    parameters = {
        "metric": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "relevance": [Options(*RELEVANCES)],
        "n_trees": [Integer(1)],
        "random_state": [Integer(0)],
        "similarity": [Options(*SIMILARITIES)],
        "convention": [ConventionLike()],
        "ties": [Options(*metrics.TIES)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, metric: str = "ndcg@10", relevance: str = "single_feature", n_trees: int = 100,
                 random_state: int = 0, similarity: str = "pooled", convention: str = "letor4",
                 ties: str = "expected", n_jobs: int = 1):
        self.metric = metric
        self.relevance = relevance
        self.n_trees = n_trees
        self.random_state = random_state
        self.similarity = similarity
        self.convention = convention
        self.ties = ties
        self.n_jobs = n_jobs

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        if self.relevance != "lambdamart_vali":
            return None
        return (f"{self.name} scores a LambdaMART of every feature on validation data when relevance is "
                "'lambdamart_vali'", {"relevance": "single_feature"})

    def relevance_scores(self, X, y, query_ptr, precomputed, vali=None) -> np.ndarray:
        """R (d,): from the training split's single-feature table, or per-feature models on vali.

        Parameters
        ----------
        X : ndarray, shape (m, d)
        y : ndarray, shape (m,)
        query_ptr : ndarray of int, shape (q + 1,)
        precomputed : dict
            The workflow's cached scorers (``single_feature`` is used when it fits).
        vali : (X_val, y_val, qid_val) or None
            The validation split (``relevance="lambdamart_vali"``).

        Returns
        -------
        float64 (d,)
        """
        metric = str(self.metric).lower()
        if self.relevance == "single_feature":
            table = single_feature_scores(X, y, query_ptr, precomputed, self.convention, self.ties)
            return np.asarray(table[metric], dtype=np.float64)
        if vali is None or any(v is None for v in vali):
            raise NeedsValidation(f"{self.name}: relevance='lambdamart_vali' scores a model of every feature on "
                                  "validation data, but none was given; pass X_val, y_val and qid_val to fit, or "
                                  "set relevance='single_feature'")
        from ltrfs.rankers.lambdamart import LambdaMART  # XGBoost: only this option needs it

        Xv, yv, ptr_v = check_validation_split(X.shape[1], *vali)
        qid = np.repeat(np.arange(len(query_ptr) - 1), np.diff(query_ptr))

        def on_vali(scores) -> float:
            return float(metrics.metric_per_query(yv, scores, ptr_v, metric, self.convention, self.ties).mean())

        relevance = np.full(X.shape[1], on_vali(np.zeros(len(yv))))  # a constant feature's model: one score
        for f in np.setdiff1d(np.arange(X.shape[1]), self.constant_features_):
            model = LambdaMART(n_estimators=int(self.n_trees), early_stopping_rounds=None,
                               random_state=int(self.random_state), n_jobs=int(self.n_jobs))
            relevance[f] = on_vali(model.fit(X[:, [f]], y, qid).predict(Xv[:, [f]]))
        return relevance

    def similarity_scores(self, X, query_ptr, precomputed) -> np.ndarray:
        """S (d, d) of the training split, from ``precomputed`` when it fits.

        Parameters
        ----------
        X : ndarray, shape (m, d)
        query_ptr : ndarray of int, shape (q + 1,)
        precomputed : dict
            The workflow's cached scorers (``spearman``).

        Returns
        -------
        float64 (d, d)
        """
        from threadpoolctl import threadpool_limits  # BLAS threads of the Gram products

        d = X.shape[1]
        cached = (precomputed.get("spearman") or {}).get(self.similarity)
        if cached is not None and np.shape(cached) == (d, d):
            return np.asarray(cached, dtype=np.float64)
        with threadpool_limits(limits=int(self.n_jobs), user_api="blas"):
            return spearman_similarity(X, query_ptr, per_query=self.similarity == "per_query")

    def _search(self, relevance: np.ndarray, similarity: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        relevance = self.relevance_scores(X, y, query_ptr, precomputed, (X_val, y_val, qid_val))
        similarity = self.similarity_scores(X, query_ptr, precomputed)
        idle = self.constant_features_
        active = np.setdiff1d(np.arange(d), idle)
        self.chosen_ = {"metric": str(self.metric).lower(), "relevance": self.relevance,  # _search may add
                        "similarity": self.similarity}
        order = self._search(relevance[active], similarity[np.ix_(active, active)]) if len(active) else []
        self.ranking_ = np.concatenate([active[np.asarray(order, dtype=np.int64)], idle]).astype(np.int64)
        self.scores_ = relevance
        self.similarity_ = similarity
        self.searched_ = active.astype(np.int64)

"""Permutation importance on the validation split, for any ranker (docs/methods.md, section
'LambdaMART importance, permutation and RFE').

No single paper: Breiman's permutation importance (Random forests, Machine Learning 2001),
measured with a ranking metric. A ranker of ``ltrfs.rankers.RANKERS`` (``ranker``, LambdaMART by
default, with ``ranker_params``; no grid search: the parameters as given, the validation split
passed on for the ranker's early stopping) is fitted once on the training split. Its score on the
validation split is the mean over the vali queries of ``metric`` (NDCG@10) in the dataset's
``convention``, tied scores ordered by ``ties``. The importance of feature j is the mean drop of
that score when column j of the vali rows is permuted within each query::

    drop(j) = M(X_val) - (1/R) sum_{r=1..R} M(X_val with column j permuted by pi_r)

Permutations: repeat r draws ``pi_r`` from ``numpy.random.default_rng([random_state, r])``: one
uniform key per vali row, and each query's rows ordered by their keys
(``within_query_permutation``). The same ``pi_r`` permutes every feature in repeat r (as
scikit-learn's ``permutation_importance`` does), so the same seed gives the same permutations.
Only values of one query are exchanged, so the metric's per-query structure is kept.

A feature that the model does not use has drop exactly 0. For XGBoost models (LambdaMART, MART)
the features that no kept tree splits on are known from the booster, and their drop is set to 0
without predicting; any other ranker is re-scored for every feature. A drop can be negative (the
permuted column did better). Ranking: drop descending, ties by feature index (lowest first),
features constant within every training query last (``ltrfs.selection.base``).

Cost: 1 model fit + ``n_repeats`` x (number of features the model uses, at most d) predictions
of the vali rows; a progress line with the time left is logged every 10 s.
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics
from ltrfs.checks import NeedsValidation, check_validation_split
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Integer, Mapping, Metric, Options
from ltrfs.progress import Progress
from ltrfs.rankers import RANKERS
from ltrfs.ranking_data import group_ids
from ltrfs.selection.base import Selector
from ltrfs.selection.lambdamart_importance import booster_importance, check_ranker_params, fit_ranker
from ltrfs.tuning import SELECTION_TIES


def within_query_permutation(query_ptr, rng) -> np.ndarray:
    """A random permutation of the rows that moves rows only within their query.

    Each row gets a uniform key from ``rng``; each query's rows are ordered by their keys.

    Parameters
    ----------
    query_ptr : int64 (q + 1,)
        Query offsets.
    rng : numpy.random.Generator

    Returns
    -------
    int64 (m,)
        ``perm``: row i of the permuted data is row ``perm[i]`` of the original, and
        ``perm[i]`` lies in the query of row i.

    Examples
    --------
    >>> import numpy as np
    >>> perm = within_query_permutation(np.array([0, 3, 5]), np.random.default_rng(0))
    >>> sorted(perm[:3].tolist()), sorted(perm[3:].tolist())
    ([0, 1, 2], [3, 4])
    """
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    keys = rng.random(int(query_ptr[-1]))
    return np.lexsort((keys, group_ids(query_ptr))).astype(np.int64)


def used_features(model, d: int) -> np.ndarray:
    """Which features a fitted ranker's predictions can depend on.

    Parameters
    ----------
    model : Ranker
        Fitted.
    d : int
        Its number of features.

    Returns
    -------
    bool (d,)
        For a model with an XGBoost booster (``booster_.get_score``): the features some kept tree
        splits on; for any other model: all True.
    """
    booster = getattr(model, "booster_", None)
    if booster is not None and hasattr(booster, "get_score"):
        return booster_importance(booster, d, "weight") > 0
    return np.ones(d, dtype=bool)


def permutation_drops(predict, score, X_val, query_ptr, features, n_repeats: int, random_state: int,
                      progress: Progress | None = None) -> tuple[np.ndarray, float]:
    """The drop of ``score`` when each of ``features`` is permuted within the queries.

    Repeat r permutes with ``within_query_permutation(query_ptr, default_rng([random_state, r]))``,
    the same permutation for every feature; one working copy of ``X_val`` is permuted one column
    at a time and restored.

    Parameters
    ----------
    predict : callable
        Rows (m, d) -> scores (m,): the fitted model.
    score : callable
        Scores (m,) -> the mean vali metric.
    X_val : ndarray, shape (m, d)
    query_ptr : int64 (q + 1,)
    features : sequence of int
        The columns to permute; the others get drop 0.
    n_repeats : int
    random_state : int
    progress : ltrfs.progress.Progress or None
        Stepped once per prediction.

    Returns
    -------
    drops : float64 (n_repeats, d)
    baseline : float
        The score of the unpermuted rows.
    """
    baseline = score(predict(X_val))
    drops = np.zeros((int(n_repeats), X_val.shape[1]), dtype=np.float64)
    permuted = X_val.copy()
    for r in range(int(n_repeats)):
        perm = within_query_permutation(query_ptr, np.random.default_rng([int(random_state), r]))
        for j in features:
            permuted[:, j] = X_val[perm, j]
            drops[r, j] = baseline - score(predict(permuted))
            permuted[:, j] = X_val[:, j]
            if progress is not None:
                progress.step(note=f"repeat {r + 1}")
    return drops, baseline


@fill_doc
class PermutationImportance(Selector):
    """Features by the drop of a ranker's vali metric when each one is permuted within queries.

    Parameters
    ----------
    ranker : str, default "lambdamart"
        The model, any key of ``ltrfs.rankers.RANKERS``.
    ranker_params : dict or None, default None
        Its parameters (None: its defaults); no grid search.
    n_repeats : int >= 1, default 5
        Permutations per feature (R).
    metric : str, default "ndcg@10"
        The vali metric (``ndcg@K``, ``p@K``, ``map``, ``meanndcg``).
    convention : str, default "letor4"
        Metric convention (``ltrfs.metrics``); the workflow passes the dataset's.
    ties : {"expected", "file_order"}, default "expected"
        How the metric orders documents of equal score.
    random_state : int >= 0, default 0
        Seed of the permutations and of the model (unless ``ranker_params`` sets one).
    n_jobs : int >= 1, default 1
        The ranker's threads.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by mean drop, descending (ties: lowest index first; constant ones last).
    scores_ : float64 (d,)
        The mean drop of the vali metric.
    drops_ : float64 (n_repeats, d)
        The drop of every repeat (0 for the features the model does not use).
    model_ : Ranker
        The fitted ranker.
    chosen_ : dict
        ``ranker``, ``baseline`` (the vali metric unpermuted), ``n_fits`` (1) and
        ``n_predictions``.
    %(selector_fit_attributes)s

    References
    ----------
    Breiman, Random forests, Machine Learning 45, 2001 (permutation importance); Fisher, Rudin and
    Dominici, All models are wrong, but many are useful, JMLR 2019 (model reliance). See
    docs/methods.md, section 'LambdaMART importance, permutation and RFE'.

    Examples
    --------
    >>> from ltrfs.selection.permutation import PermutationImportance
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = PermutationImportance().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    """

    name = "permutation"
    parameters = {
        "ranker": [Options(*RANKERS)],
        "ranker_params": [Mapping(), None],
        "n_repeats": [Integer(1)],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "ties": [Options(*metrics.TIES)],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, ranker: str = "lambdamart", ranker_params=None, n_repeats: int = 5, metric: str = "ndcg@10",
                 convention: str = "letor4", ties: str = SELECTION_TIES, random_state: int = 0, n_jobs: int = 1):
        self.ranker = ranker
        self.ranker_params = ranker_params
        self.n_repeats = n_repeats
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.random_state = random_state
        self.n_jobs = n_jobs

    def validate_params(self):
        """Check the parameters, ``ranker_params`` by building the ranker from them."""
        super().validate_params()
        check_ranker_params(self.name, self.ranker, self.ranker_params)

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        return f"{self.name} permutes the validation rows", {}

    def _score(self, y_val, scores, ptr_val) -> float:
        return float(metrics.metric_per_query(y_val, scores, ptr_val, self.metric, self.convention, self.ties).mean())

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        vali = check_validation_split(d, X_val, y_val, qid_val, dtype=np.float32)
        if vali is None:
            raise NeedsValidation(f"{self.name} permutes the validation rows, but none were given; "
                                  "pass X_val, y_val and qid_val to fit")
        Xv, yv, ptr_v = vali
        self.model_ = fit_ranker(self.ranker, self.ranker_params, self.random_state, self.n_jobs,
                                 X, y, query_ptr, X_val, y_val, qid_val)
        used = np.flatnonzero(used_features(self.model_, d))
        progress = Progress(f"{self.name} ({self.ranker})", int(self.n_repeats) * len(used), unit="predictions")
        self.drops_, baseline = permutation_drops(self.model_.predict, lambda scores: self._score(yv, scores, ptr_v),
                                                  Xv, ptr_v, used, self.n_repeats, self.random_state, progress)
        self.scores_ = self.drops_.mean(axis=0)
        self.ranking_ = np.argsort(-self.scores_, kind="stable").astype(np.int64)
        self.chosen_ = {"ranker": self.ranker, "baseline": baseline, "metric": self.metric, "n_fits": 1,
                        "n_predictions": int(self.n_repeats) * len(used) + 1}

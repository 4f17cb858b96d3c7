"""Recursive feature elimination with LambdaMART (docs/methods.md, section 'LambdaMART
importance, permutation and RFE').

No single paper: recursive feature elimination (Guyon, Weston, Barnhill and Vapnik, Gene
selection for cancer classification using support vector machines, Machine Learning 2002) with
the project's LambdaMART ranker (``ltrfs.rankers.LambdaMART``, XGBoost ``rank:ndcg``, early
stopping on the validation split; ``ranker_params`` changes it) and XGBoost's importance of its
kept trees (``importance``, total gain by default). Algorithm, starting from all d features::

    S = all features
    repeat:
        fit LambdaMART on the columns S (early stopping on vali); score it on vali:
            curve[|S|] = mean over the vali queries of metric (NDCG@10, the dataset's convention)
        if |S| = 1: stop
        n_drop = max(1, floor(step x |S|))      (step a fraction; an integer step drops that many)
        drop the n_drop features of S with the least importance in this model

The schedule (``elimination_sizes``) visits |S| = d, d - n_drop(d), ..., 1: with the default
step 0.1 on MQ2008's 46 features, 46, 42, 38, 35, 32, 29, 27, 25, 23, 21, 19, 18, ..., 1 (29
sizes). ``ranking_`` is the reverse order of elimination: the last survivor first, and the
features dropped in one round ordered by their importance in that round (descending; equal
importances, e.g. the zeros of features no tree splits on, by feature index, lowest first: among
equals the highest indices are dropped first). The features left at any visited size s are the
first s of ``ranking_``, so every visited subset is a prefix. ``rfe_curve_`` holds the vali score
of every visited size and ``chosen_["best_size"]`` the best (ties to the smaller size; a model
that gives equal scores inside every vali query is never chosen). Features constant within every
training query go last afterwards (``ltrfs.selection.base``), as for every method. The model of
the best size is kept (``best_model_``, ``best_features_``): ``predict_scores`` ranks with it
(ranker ``own``).

Cost: one LambdaMART fit per visited size (``len(elimination_sizes(d, step))`` fits: 29 for 46
features, 55 for 700 features at step 0.1), each on fewer columns than the last; a progress line
with the time left is logged every 10 s.
"""
from __future__ import annotations

import math

import numpy as np

from ltrfs import metrics
from ltrfs.checks import NeedsValidation, check_validation_split
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Integer, Mapping, Metric, Options, Real
from ltrfs.progress import Progress
from ltrfs.selection.base import Selector
from ltrfs.selection.lambdamart_importance import (IMPORTANCE_TYPES, booster_importance, check_ranker_params,
                                                   fit_ranker)
from ltrfs.tuning import SELECTION_TIES, vali_score


def elimination_sizes(d: int, step=0.1) -> list[int]:
    """The subset sizes recursive elimination visits, from d down to 1.

    Parameters
    ----------
    d : int >= 1
        Number of features.
    step : float in (0, 1) or int >= 1, default 0.1
        A fraction of the remaining features dropped per round (rounded down, at least 1), or a
        fixed number per round.

    Returns
    -------
    list of int
        ``[d, ..., 1]``, strictly decreasing; its length is the number of model fits.

    Examples
    --------
    >>> elimination_sizes(46)[:12]
    [46, 42, 38, 35, 32, 29, 27, 25, 23, 21, 19, 18]
    >>> elimination_sizes(5, step=2)
    [5, 3, 1]
    """
    sizes = [int(d)]
    while sizes[-1] > 1:
        n = sizes[-1]
        drop = int(step) if isinstance(step, (int, np.integer)) else int(math.floor(step * n + 1e-9))
        sizes.append(max(1, n - max(1, drop)))
    return sizes


@fill_doc
class LambdaMARTRFE(Selector):
    """Recursive elimination of the least important features of a LambdaMART model.

    Parameters
    ----------
    step : float in (0, 1) or int >= 1, default 0.1
        The fraction of the remaining features dropped per round (at least 1), or a number.
    importance : {"total_gain", "gain", "weight", "cover", "total_cover"}, default "total_gain"
        XGBoost's importance (``Booster.get_score``) that decides what is dropped.
    metric : str, default "ndcg@10"
        The vali metric of every visited size.
    convention : str, default "letor4"
        Metric convention (``ltrfs.metrics``); the workflow passes the dataset's.
    ties : {"expected", "file_order"}, default "expected"
        How the vali metric orders documents of equal score.
    ranker_params : dict or None, default None
        Parameters of the LambdaMART ranker (``ltrfs.rankers.LambdaMART``); None: its defaults.
    random_state : int >= 0, default 0
        Seed of the models (unless ``ranker_params`` sets one).
    n_jobs : int >= 1, default 1
        XGBoost threads.

    Attributes
    ----------
    ranking_ : int64 (d,)
        The reverse elimination order (constant features last).
    scores_ : float64 (d,)
        The size of the subset whose model dropped the feature (1 for the last survivor): the
        smaller, the longer it survived.
    rfe_curve_ : dict of int to float
        Vali metric of the model of every visited size.
    best_model_ : ltrfs.rankers.LambdaMART
        The model of the vali-best size (``predict_scores``, ranker ``own``).
    best_features_ : int64 (s,)
        Its features (the first s of the elimination order), in index order.
    chosen_ : dict
        ``best_size``, ``rfe_curve``, ``n_fits``, ``importance``, ``metric``.
    %(selector_fit_attributes)s

    References
    ----------
    Guyon, Weston, Barnhill and Vapnik, Gene selection for cancer classification using support
    vector machines, Machine Learning 46, 2002 (recursive feature elimination); Burges,
    MSR-TR-2010-82 (LambdaMART). See docs/methods.md, section 'LambdaMART importance,
    permutation and RFE'.

    Examples
    --------
    >>> from ltrfs.selection.lambdamart_rfe import LambdaMARTRFE
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = LambdaMARTRFE(step=1).fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> int(sel.ranking_[0])              # the last survivor: the strongest informative feature
    2
    >>> sorted(sel.rfe_curve_)            # one fit per size
    [1, 2, 3, 4, 5]
    """

    name = "lambdamart_rfe"
    #: the model of the vali-best size is kept (ranker ``own``): LambdaMART's state and its columns
    state_attributes = Selector.state_attributes + ("best_model_", "best_features_")
    parameters = {
        "step": [Real(0, 1, closed="neither"), Integer(1)],
        "importance": [Options(*IMPORTANCE_TYPES)],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "ties": [Options(*metrics.TIES)],
        "ranker_params": [Mapping(), None],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, step=0.1, importance: str = "total_gain", metric: str = "ndcg@10", convention: str = "letor4",
                 ties: str = SELECTION_TIES, ranker_params=None, random_state: int = 0, n_jobs: int = 1):
        self.step = step
        self.importance = importance
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.ranker_params = ranker_params
        self.random_state = random_state
        self.n_jobs = n_jobs

    @classmethod
    def fit_columns(cls, d: int, params: dict) -> float:
        """The columns of every model fit, ``sum(elimination_sizes(d, step))`` (``step`` from
        ``params``, default 0.1).

        %(fit_columns_sections)s

        Examples
        --------
        >>> LambdaMARTRFE.fit_columns(46, {}), LambdaMARTRFE.fit_columns(46, {"step": 0.2})
        (508.0, 242.0)
        """
        return float(sum(elimination_sizes(d, (params or {}).get("step", cls().step))))

    def validate_params(self):
        """Check the parameters, ``ranker_params`` by building the LambdaMART ranker from them."""
        super().validate_params()
        check_ranker_params(self.name, "lambdamart", self.ranker_params, xgboost_only=True)

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        return f"{self.name} scores every subset size on validation data", {}

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        vali = check_validation_split(d, X_val, y_val, qid_val, dtype=np.float32)
        if vali is None:
            raise NeedsValidation(f"{self.name} scores every subset size on validation data, but none was given; "
                                  "pass X_val, y_val and qid_val to fit")
        Xv, yv, ptr_v = vali
        sizes = elimination_sizes(d, self.step)
        progress = Progress(self.name, len(sizes), unit="model fits")
        remaining = np.arange(d, dtype=np.int64)
        dropped: list[np.ndarray] = []  # blocks in elimination order, each most important first
        curve, degenerate = {}, set()
        best = None  # (usable, value, model, features): the best size so far, ties to the later (smaller) one
        for n_next in [*sizes[1:], 0]:
            model = fit_ranker("lambdamart", self.ranker_params, self.random_state, self.n_jobs,
                               X[:, remaining], y, query_ptr, Xv[:, remaining], yv, qid_val)
            value, flat = vali_score(yv, model.predict(Xv[:, remaining]), ptr_v, self.metric, self.convention,
                                     self.ties)
            curve[len(remaining)] = value
            if flat:
                degenerate.add(len(remaining))
            if best is None or (not flat, value) >= best[:2]:
                best = (not flat, value, model, remaining)
            imp = booster_importance(model.booster_, len(remaining), self.importance)
            order = np.argsort(-imp, kind="stable")  # most important first, equal ones by index
            dropped.append(remaining[order[n_next:]])
            progress.step(note=f"{len(remaining)} feature{'s' * (len(remaining) > 1)}, vali {self.metric} {value:.4f}")
            remaining = np.sort(remaining[order[:n_next]])
        self.ranking_ = np.concatenate(dropped[::-1]).astype(np.int64)
        self.scores_ = np.empty(d, dtype=np.float64)
        for block, size in zip(dropped, sizes):
            self.scores_[block] = size
        self.rfe_curve_ = curve
        self.best_model_, self.best_features_ = best[2], np.asarray(best[3], dtype=np.int64)
        self.chosen_ = {"best_size": len(self.best_features_), "rfe_curve": {int(s): float(v) for s, v in curve.items()},
                        "n_fits": len(sizes), "importance": self.importance, "metric": self.metric,
                        "degenerate_sizes": sorted(int(s) for s in degenerate)}

    def predict_scores(self, X) -> np.ndarray:
        """Scores of the LambdaMART model of the vali-best size, on its features (ranker ``own``).

        %(predict_sections)s
        """
        self._check_fitted("best_model_")
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"{self.name}: X must have {self.n_features_in_} feature columns; got shape {X.shape}")
        return self.best_model_.predict(X[:, self.best_features_])

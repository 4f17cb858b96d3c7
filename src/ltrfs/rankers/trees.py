"""Pointwise tree-ensemble rankers: MART (gradient-boosted regression trees, XGBoost) and Random
Forests (scikit-learn), both regressing the relevance label.

MART / GBRT (Friedman 2001; RankLib's ``-ranker 0``): additive regression trees fitted to the
squared error of the label,

    F_0 = base score,   F_t = F_{t-1} + eta * f_t,   f_t ~ argmin sum_i (y_i - F_{t-1}(x_i) - f(x_i))^2

through ``xgboost.train`` (``objective="reg:squarederror"``, ``tree_method="hist"``, leaf-wise
growth with ``max_leaves``). Preset = RankLib's MART defaults: 1000 trees, 10 leaves, learning
rate 0.1, minimum leaf support 1 (the squared-error hessian is 1 per row, so
``min_child_weight=1`` means at least one row per leaf), 256 threshold candidates per feature
(XGBoost's ``max_bin`` default is also 256), no penalty on leaf values (``reg_lambda=0``: a
leaf predicts the mean residual of its rows, as RankLib's leaves do). With a validation
split, the metric (``ndcg@10`` by default, computed by ``ltrfs.metrics`` in the ``letor4``
convention, on XGBoost's cached vali predictions through ``custom_metric``) is evaluated after
every tree; training stops when it has not improved for ``early_stopping_rounds`` rounds and
the booster is sliced to the first round reaching the best value (as RankLib keeps its best
model on the validation data).

Random Forests (Breiman 2001; RankLib's ``-ranker 8``, a bag of single regression trees):
``sklearn.ensemble.RandomForestRegressor`` on the labels. Preset after RankLib's RFRanker:
300 trees, bootstrap samples of the training size (with replacement), feature sampling rate
0.3, at most 100 leaves per tree, minimum leaf support 1. One difference: RankLib draws the
30% of features once per tree, scikit-learn draws ``max_features`` anew at every split.
"""
from __future__ import annotations

import logging
import numbers
import time

import numpy as np

from ltrfs import boosters
from ltrfs.checks import check_fit_inputs, check_validation_split, check_X
from ltrfs.docstrings import fill_doc
from ltrfs.metrics import TIES
from ltrfs.params import Boolean, ConventionLike, Integer, Mapping, Metric, Options, Real
from ltrfs.rankers.base import Ranker
from ltrfs.rankers.lambdamart import extra_xgb_params
from ltrfs.tuning import DegenerateGridError, vali_score

log = logging.getLogger(__name__)

#: MART parameters that ``params`` may not repeat, with the XGBoost synonyms of them
_MART_OWN = {"n_estimators", "learning_rate", "max_leaves", "min_child_weight", "reg_lambda", "subsample",
             "random_state", "n_jobs", "early_stopping_rounds"}
_MART_SYNONYMS = {"eta": "learning_rate", "seed": "random_state", "nthread": "n_jobs",
                  "num_boost_round": "n_estimators", "max_leaf_nodes": "max_leaves", "lambda": "reg_lambda",
                  "eval_metric": "metric"}


@fill_doc
class MART(Ranker):
    """MART / GBRT: boosted regression trees on the labels (XGBoost), RankLib's MART preset.

    %(boosted_trees_parameters)s
    min_child_weight : float, default 1.0
        minimum hessian sum per leaf = minimum rows per leaf
    reg_lambda : float, default 0.0
        L2 penalty on leaf values (RankLib has none)
    subsample : float, default 1.0
        row subsampling per tree (randomness -> random_state)
    early_stopping_rounds : int or None, default 100
        with a validation split, stop when the vali metric has not improved for this many
        rounds. With a validation split the trees up to the best round are always kept;
        None grows all ``n_estimators`` trees first.
    metric : str, default "ndcg@10"
        validation metric (ltrfs.metrics name)
    convention : str, default "letor4"
        metric convention
    ties : str, default "expected"
        tied scores in the vali metric: expected over their
        orders, or "file_order"; a degenerate round (constant
        scores in every vali query) is never kept
    random_state : int, default 0
        seed
    n_jobs : int, default 1
        XGBoost threads
    params : dict or None
        other XGBoost parameters (e.g. ``max_bin``, ``base_score``)

    Attributes
    ----------
    booster_ : xgboost.Booster
        the model, sliced to trees 0..best_iteration_
    best_iteration_ : int
        0-based index of the last tree kept
    best_score_ : float or None
        vali metric at best_iteration_
    n_iter_ : int
        trees grown before stopping
    evals_result_ : list[float]
        vali metric after every round (empty without a validation split)
    n_features_in_ : int
    seconds_ : float
        fit time

    References
    ----------
    Friedman. Greedy function approximation: a gradient boosting machine. Annals of
    Statistics 29(5), 2001 (regression trees on the squared error of the label; RankLib's MART).

    Examples
    --------
    >>> from ltrfs.rankers.trees import MART
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = MART().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.85
    """

    name = "mart"
    #: the code-free state (``ltrfs.state``): the booster in XGBoost's JSON format
    state_attributes = ("n_features_in_", "booster_")
    default_grid: dict = {}

    parameters = {
        "n_estimators": [Integer(1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "max_leaves": [Integer(2)],
        "min_child_weight": [Real(0)],
        "reg_lambda": [Real(0)],
        "subsample": [Real(0, 1, closed="right")],
        "early_stopping_rounds": [Integer(1), None],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
        "params": [Mapping(), None],
        "ties": [Options(*TIES)],
    }

    def __init__(self, n_estimators=1000, learning_rate=0.1, max_leaves=10, min_child_weight=1.0,
                 reg_lambda=0.0, subsample=1.0, early_stopping_rounds=100, metric="ndcg@10",
                 convention="letor4", random_state=0, n_jobs=1, params=None, ties="expected"):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_leaves = max_leaves
        self.min_child_weight = min_child_weight
        self.reg_lambda = reg_lambda
        self.subsample = subsample
        self.early_stopping_rounds = early_stopping_rounds
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.params = params

    def validate_params(self):
        """Check the declared parameters and the XGBoost ``params`` (``extra_xgb_params``)."""
        super().validate_params()
        extra_xgb_params(self.params, _MART_OWN, _MART_SYNONYMS, "MART")

    def _xgb_params(self) -> dict:
        """The ``xgboost.train`` parameters (the ranker's parameters, validated by ``fit``)."""
        out = {"objective": "reg:squarederror", "tree_method": "hist", "grow_policy": "lossguide",
               "max_depth": 0, "max_leaves": int(self.max_leaves), "eta": float(self.learning_rate),
               "min_child_weight": float(self.min_child_weight), "lambda": float(self.reg_lambda),
               "subsample": float(self.subsample), "seed": int(self.random_state), "nthread": int(self.n_jobs),
               "verbosity": 0}
        out.update(extra_xgb_params(self.params, _MART_OWN, _MART_SYNONYMS, "MART"))
        return out

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Fit the trees, with early stopping on the validation split if given.

        ``qid`` is validated but unused by the (pointwise) loss.

        %(fit_sections)s
        """
        import xgboost as xgb  # heavy (XGBoost, ~1.2 s): imported on use

        self.validate_params()
        params = self._xgb_params()
        n_estimators = int(self.n_estimators)
        early = None if self.early_stopping_rounds is None else int(self.early_stopping_rounds)
        X, y, _ = check_fit_inputs(X, y, qid, dtype=np.float32)
        vali = check_validation_split(X.shape[1], X_val, y_val, qid_val, dtype=np.float32)
        have_val = vali is not None
        start = time.perf_counter()
        dtrain = xgb.DMatrix(X, label=y.astype(np.float32), nthread=params["nthread"])
        history: list[float] = []
        kw = {}
        if have_val:
            Xv, yv, ptr_v = vali
            dval = xgb.DMatrix(Xv, label=yv.astype(np.float32), nthread=params["nthread"])
            metric, convention, ties = self.metric, self.convention, self.ties

            def vali_metric(predt, dmatrix):
                value, degenerate = vali_score(yv, np.asarray(predt, dtype=np.float64), ptr_v, metric,
                                               convention, ties)
                history.append(-np.inf if degenerate else value)
                log.debug("MART round %d: vali %s = %.6f", len(history) - 1, metric, value)
                return metric, value

            params = dict(params, disable_default_eval_metric=1)
            kw = {"evals": [(dval, "vali")], "custom_metric": vali_metric, "maximize": True,
                  "early_stopping_rounds": early}
        booster = xgb.train(params, dtrain, num_boost_round=n_estimators, verbose_eval=False, **kw)
        n_rounds = booster.num_boosted_rounds()
        if have_val and history:
            # the first round reaching the best value (XGBoost's rule when early stopping is on,
            # and the same rule applied to the full history when it is off)
            best = int(np.argmax(history))
            if history[best] == -np.inf:
                raise DegenerateGridError(f"{self.name}: every round gives the same score to all documents "
                                          "of every vali query (a degenerate model)")
            self.best_score_ = float(history[best])
        else:
            best = n_rounds - 1
            self.best_score_ = None
        self.booster_ = booster[: best + 1] if best + 1 < n_rounds else booster
        self.booster_.set_param({"nthread": params["nthread"]})
        self.best_iteration_ = best
        self.n_iter_ = n_rounds
        self.evals_result_ = history
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("MART: %d rounds grown, best iteration %d (vali %s %s), %.2f s",
                  n_rounds, best, self.metric, self.best_score_, self.seconds_)
        return self

    def check_state(self) -> None:
        """A one-line ValueError unless ``booster_`` (read back from a file) is an XGBoost booster
        for ``n_features_in_`` features."""
        boosters.check_booster(self.booster_, "xgboost", self.n_features_in_, self.name)

    def predict(self, X) -> np.ndarray:
        """Scores from the trees 0..best_iteration_.

        %(predict_sections)s
        """
        self._check_fitted("booster_")
        X = check_X(X, n_features=self.n_features_in_, dtype=np.float32)
        return np.asarray(self.booster_.inplace_predict(X), dtype=np.float64)


@fill_doc
class RandomForest(Ranker):
    """Random Forests regression of the label (scikit-learn), RankLib's RFRanker preset.

    Parameters
    ----------
    n_estimators : int, default 300
        trees (RankLib's bags)
    max_features : float or int, default 0.3
        features tried per split (fraction or count)
    max_leaf_nodes : int or None, default 100
        leaves per tree (RankLib's RF ``-leaf``)
    min_samples_leaf : int, default 1
        minimum rows per leaf (RankLib's ``-mls``)
    bootstrap : bool, default True
        sample rows with replacement for every tree
    max_samples : float or None, default None
        bootstrap size (None = training size, RankLib's srate 1.0)
    random_state : int, default 0
        seed of the bootstrap samples and of the features tried per split
    n_jobs : int, default 1
        threads (scikit-learn/joblib)

    Attributes
    ----------
    model_ : sklearn.ensemble.RandomForestRegressor
    n_features_in_ : int
    seconds_ : float
        fit time

    References
    ----------
    Breiman. Random forests. Machine Learning 45, 2001 (regression forests of the label, as
    RankLib's RFRanker).

    Examples
    --------
    >>> from ltrfs.rankers.trees import RandomForest
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RandomForest(n_estimators=50).fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.88
    """

    name = "random_forest"
    #: the code-free state (``ltrfs.state``): the trees' arrays (``ltrfs.state.TreeEnsemble``)
    state_attributes = ("n_features_in_", "model_")
    default_grid: dict = {}

    parameters = {
        "n_estimators": [Integer(1)],
        "max_features": [Real(0, 1, closed="right"), Integer(1)],
        "max_leaf_nodes": [Integer(2), None],
        "min_samples_leaf": [Integer(1)],
        "bootstrap": [Boolean()],
        "max_samples": [Real(0, 1, closed="right"), None],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, n_estimators=300, max_features=0.3, max_leaf_nodes=100, min_samples_leaf=1,
                 bootstrap=True, max_samples=None, random_state=0, n_jobs=1):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.random_state = random_state
        self.n_jobs = n_jobs

    def validate_params(self):
        """Check the declared parameters, and that ``max_samples`` comes with ``bootstrap=True``."""
        super().validate_params()
        if self.max_samples is not None and not self.bootstrap:
            raise ValueError(f"{self.name}: max_samples needs bootstrap=True")

    def sklearn_params(self) -> dict:
        """The ``RandomForestRegressor`` keyword arguments this ranker uses.

        Returns
        -------
        dict
        """
        self.validate_params()
        mf = self.max_features
        return {"n_estimators": int(self.n_estimators),
                "max_features": int(mf) if isinstance(mf, numbers.Integral) else float(mf),
                "max_leaf_nodes": None if self.max_leaf_nodes is None else int(self.max_leaf_nodes),
                "min_samples_leaf": int(self.min_samples_leaf), "bootstrap": bool(self.bootstrap),
                "max_samples": None if self.max_samples is None else float(self.max_samples),
                "random_state": int(self.random_state), "n_jobs": int(self.n_jobs)}

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Fit the forest.

        ``qid`` is validated but unused (pointwise); no early stopping in a forest.

        %(fit_sections_unused_validation)s
        """
        from sklearn.ensemble import RandomForestRegressor  # heavy (scikit-learn, ~1-2 s): imported on use

        kwargs = self.sklearn_params()
        X, y, _ = check_fit_inputs(X, y, qid, dtype=np.float32)
        start = time.perf_counter()
        self.model_ = RandomForestRegressor(**kwargs).fit(X, y.astype(np.float64))
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("random_forest: %d trees on %d rows, %.2f s", kwargs["n_estimators"], X.shape[0], self.seconds_)
        return self

    def check_state(self) -> None:
        """A one-line ValueError unless ``model_`` (read back from a file) is a forest
        (``ltrfs.state.TreeEnsemble``) of ``n_features_in_`` features and one output."""
        model = self.model_
        if type(model).__name__ != "TreeEnsemble" or model.n_features_in_ != self.n_features_in_ \
                or model.classes_ is not None:
            raise ValueError(f"{self.name}: model_ is not a regression forest of {self.n_features_in_} features")

    def predict(self, X) -> np.ndarray:
        """Scores: the mean of the trees' predictions.

        %(predict_sections)s
        """
        self._check_fitted("model_")
        X = check_X(X, n_features=self.n_features_in_, dtype=np.float32)
        return np.asarray(self.model_.predict(X), dtype=np.float64)

"""LambdaMART through XGBoost (``xgboost.XGBRanker``, objective ``rank:ndcg``).

Preset (Gupta & Rosso's LambdaMART: 1000 trees, learning rate 0.1, 10 leaves): histogram
trees grown leaf-wise (``tree_method="hist"``, ``grow_policy="lossguide"``, ``max_leaves=10``,
``max_depth=0``), ``n_estimators=1000``, ``learning_rate=0.1``. With a validation split,
training stops when XGBoost's ``ndcg@10`` on it has not improved for ``early_stopping_rounds``
rounds, and only the trees up to the best round are kept (the booster is sliced, so
``predict`` and the pickled model use exactly those trees). Without a validation split all
``n_estimators`` trees are grown.

XGBoost 3.x facts this wrapper relies on: ``fit(X, y, qid=...)`` needs the rows of a query
contiguous and the qid array sorted, so the wrapper passes its own sorted group index
(0, 0, ..., 1, 1, ...) rather than the caller's query ids; ``eval_set``/``eval_qid`` carry the
validation split; the last metric of the last eval set drives early stopping, and
``best_iteration`` is 0-based. Labels must be integers in 0..31 (exponential gain 2^y - 1).
Pair construction and the remaining LambdaMART settings are XGBoost's defaults
(``lambdarank_pair_method="topk"``, 32 pairs per document, ``lambdarank_normalization=True``,
``reg_lambda=1``); change them through ``params``.

``backend="lightgbm"`` trains the same preset with LightGBM's ``LGBMRanker`` (objective
``lambdarank``, ``num_leaves`` = max_leaves, ``min_sum_hessian_in_leaf`` = min_child_weight,
early stopping on LightGBM's ``ndcg@10`` on vali, the best iteration kept); ``params`` then
holds further LightGBM parameters. LightGBM is an optional dependency
(``pip install -e ".[lightgbm]"``).
"""
from __future__ import annotations

import logging
import time

import numpy as np

from ltrfs import boosters
from ltrfs.checks import check_fit_inputs, check_validation_split, check_X
from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, Mapping, Options, Real
from ltrfs.rankers.base import Ranker
from ltrfs.ranking_data import group_ids

log = logging.getLogger(__name__)

#: wrapper parameters that ``params`` may not repeat (they have their own argument)
_OWN = ("n_estimators", "learning_rate", "max_leaves", "early_stopping_rounds", "min_child_weight",
        "subsample", "random_state", "n_jobs", "device")
#: keys the wrapper sets itself, with the XGBoost synonyms that would contradict them
_FIXED_SYNONYMS = {"eta": "learning_rate", "seed": "random_state", "nthread": "n_jobs",
                   "num_boost_round": "n_estimators", "max_leaf_nodes": "max_leaves"}
_MAX_LABEL = 31
#: keys of ``params`` that draw no random numbers (XGBoost's and LightGBM's): with no other key
#: and ``subsample`` 1 a fit is the same for every seed (``uses_seed``)
SEED_FREE_PARAMS = frozenset({"lambdarank_truncation_level", "max_bin", "reg_lambda", "reg_alpha", "lambda_l1",
                              "lambda_l2", "min_split_loss", "min_gain_to_split", "max_depth", "min_data_in_leaf",
                              "label_gain", "lambdarank_norm", "ndcg_exp_gain", "max_delta_step"})
BACKENDS = ("xgboost", "lightgbm")
DEVICES = ("cpu", "cuda")


@fill_doc
class LambdaMART(Ranker):
    """LambdaMART (XGBoost ``rank:ndcg``) with the FS-ED preset.

    %(boosted_trees_parameters)s
    early_stopping_rounds : int or None, default 100
        with a validation split, stop when vali ndcg@10 has not improved for this many rounds;
        None disables early stopping.
    min_child_weight : float, default 0.1
        minimum hessian sum in a leaf. LambdaMART's hessians are small (|delta NDCG|-weighted
        sigma'(.) terms: about 0.07 per row on MQ2008 Fold 1), so XGBoost's default of 1
        means roughly 14 rows per leaf; 0.1 (about 1-2 rows) is close to RankLib's
        "minimum leaf support 1". On MQ2008 Fold 1 the values 0, 0.1 and 1 give the same model.
    subsample : float, default 1.0
        row subsampling per tree (randomness -> random_state)
    random_state : int, default 0
        seed
    n_jobs : int, default 1
        XGBoost threads (``nthread``)
    params : dict or None
        any other XGBoost parameter (e.g. ``reg_lambda``,
        ``lambdarank_pair_method``, ``objective``), or
        LightGBM parameter with backend "lightgbm"
    backend : {"xgboost", "lightgbm"}, default "xgboost"
        the library that trains the trees (LightGBM must be installed for "lightgbm")
    device : {"cpu", "cuda"}, default "cpu"
        where XGBoost trains: "cuda" on an NVIDIA GPU (XGBoost's ``device``; the models
        predict on the CPU as any other). Without a GPU, or with an XGBoost built without
        CUDA, XGBoost says so in a warning and trains on the CPU; backend "lightgbm" has no
        GPU path here

    Attributes
    ----------
    booster_ : xgboost.Booster
        the model, sliced to the trees 0..best_iteration_ (a
        lightgbm.Booster with backend "lightgbm", used up to it)
    best_iteration_ : int
        0-based index of the last tree used
    best_score_ : float or None
        vali ndcg@10 (XGBoost's convention) at best_iteration_
    evals_result_ : dict
        per-round vali metric (empty without a validation split)
    n_features_in_ : int

    References
    ----------
    Burges. From RankNet to LambdaRank to LambdaMART: an overview. Microsoft Research
    Technical Report MSR-TR-2010-82, 2010; the preset is Gupta and Rosso, COLING 2012, section
    3.1.3 (eq. 5; 1000 trees, learning rate 0.1, 10 leaves).

    Examples
    --------
    >>> from ltrfs.rankers.lambdamart import LambdaMART
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = LambdaMART().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.87
    """

    name = "lambdamart"
    #: the code-free state (``ltrfs.state``): the booster in XGBoost's JSON or LightGBM's text format
    state_attributes = ("n_features_in_", "booster_", "best_iteration_")
    default_grid: dict = {}

    parameters = {
        "n_estimators": [Integer(1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "max_leaves": [Integer(2)],
        "early_stopping_rounds": [Integer(1), None],
        "min_child_weight": [Real(0)],
        "subsample": [Real(0, 1, closed="right")],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
        "params": [Mapping(), None],
        "backend": [Options(*BACKENDS)],
        "device": [Options(*DEVICES)],
    }

    def __init__(self, n_estimators=1000, learning_rate=0.1, max_leaves=10, early_stopping_rounds=100,
                 min_child_weight=0.1, subsample=1.0, random_state=0, n_jobs=1, params=None, backend="xgboost",
                 device="cpu"):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_leaves = max_leaves
        self.early_stopping_rounds = early_stopping_rounds
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.params = params
        self.backend = backend
        self.device = device

    def validate_params(self):
        """Check the parameters, LightGBM's presence for ``backend="lightgbm"``, and ``params``."""
        super().validate_params()
        if self.backend == "lightgbm":
            if self.device != "cpu":
                raise ValueError(f"LambdaMART: device {self.device!r} trains XGBoost on a GPU; backend 'lightgbm' "
                                 "has no GPU path here (set backend: xgboost)")
            import_lightgbm()
        extra_xgb_params(self.params, _OWN, _FIXED_SYNONYMS, "LambdaMART")

    def uses_seed(self) -> bool:
        """Whether the fit draws random numbers: with ``subsample`` below 1, or with any key of
        ``params`` outside ``SEED_FREE_PARAMS`` (column sampling, sampled pairs, bagging, ...)."""
        return float(self.subsample) < 1 or any(key not in SEED_FREE_PARAMS for key in (self.params or {}))

    def _xgb_params(self) -> dict:
        """The XGBRanker keyword arguments (the parameters, validated by ``fit``)."""
        out = {"objective": "rank:ndcg", "tree_method": "hist", "grow_policy": "lossguide",
               "max_leaves": int(self.max_leaves), "max_depth": 0, "n_estimators": int(self.n_estimators),
               "learning_rate": float(self.learning_rate), "min_child_weight": float(self.min_child_weight),
               "subsample": float(self.subsample), "random_state": int(self.random_state),
               "n_jobs": int(self.n_jobs), "eval_metric": "ndcg@10", "device": self.device}
        out.update(extra_xgb_params(self.params, _OWN, _FIXED_SYNONYMS, "LambdaMART"))
        return out

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Fit the trees, with early stopping on the validation split if given.

        %(fit_sections)s
        """
        import xgboost as xgb  # heavy (XGBoost, ~1.2 s): imported on use

        self.validate_params()
        params = self._xgb_params()
        X, y, query_ptr = check_fit_inputs(X, y, qid, dtype=np.float32)
        _check_label_range(y, "y")
        vali = check_validation_split(X.shape[1], X_val, y_val, qid_val, dtype=np.float32)
        early = None if self.early_stopping_rounds is None else int(self.early_stopping_rounds)
        fit_kw = {}
        if vali is not None:
            Xv, yv, ptr_v = vali
            _check_label_range(yv, "y_val")
            fit_kw = {"eval_set": [(Xv, yv)], "eval_qid": [group_ids(ptr_v)]}
        else:
            early = None
        start = time.perf_counter()
        if self.backend == "lightgbm":
            return self._fit_lightgbm(X, y, query_ptr, vali, early, start, params)
        model = xgb.XGBRanker(early_stopping_rounds=early, **params)
        model.fit(X, y, qid=group_ids(query_ptr), verbose=False, **fit_kw)
        booster = model.get_booster()
        n_rounds = booster.num_boosted_rounds()
        if early is not None:
            best = int(model.best_iteration)
            self.best_score_ = float(model.best_score)
        else:
            best = n_rounds - 1
            self.best_score_ = None
        self.evals_result_ = model.evals_result() if fit_kw else {}
        self.booster_ = booster[: best + 1] if best + 1 < n_rounds else booster
        self.booster_.set_param({"nthread": params["n_jobs"]})
        if self.device != "cpu":  # trained on a GPU: predict on the CPU without XGBoost's device warning
            self.booster_.set_param({"device": "cpu"})
        self.best_iteration_ = best
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("LambdaMART: %d rounds grown, best iteration %d (vali ndcg@10 %s), %.2f s",
                  n_rounds, best, self.best_score_, self.seconds_)
        return self

    def _fit_lightgbm(self, X, y, query_ptr, vali, early, start, p):
        """The same preset with LightGBM; ``p`` the checked parameters (``_xgb_params``)."""
        lgb = import_lightgbm()
        params = {"objective": "lambdarank", "learning_rate": p["learning_rate"], "num_leaves": p["max_leaves"],
                  "max_depth": -1, "min_sum_hessian_in_leaf": p["min_child_weight"], "min_data_in_leaf": 1,
                  "bagging_fraction": p["subsample"], "bagging_freq": 1 if p["subsample"] < 1 else 0,
                  "seed": p["random_state"], "num_threads": p["n_jobs"], "deterministic": True,
                  "force_row_wise": True, "verbose": -1, "metric": "ndcg", "eval_at": [10],
                  **dict(self.params or {})}
        train_set = lgb.Dataset(X, y, group=np.diff(query_ptr))
        evals: dict = {}
        kw = {}
        if vali is not None:
            Xv, yv, ptr_v = vali
            callbacks = [lgb.record_evaluation(evals)]
            if early is not None:
                callbacks.append(lgb.early_stopping(early, first_metric_only=True, verbose=False))
            kw = {"valid_sets": [lgb.Dataset(Xv, yv, group=np.diff(ptr_v), reference=train_set)],
                  "valid_names": ["vali"], "callbacks": callbacks}
        booster = lgb.train(params, train_set, num_boost_round=p["n_estimators"], **kw)
        history = evals.get("vali", {}).get("ndcg@10", [])
        best = int(np.argmax(history)) if history else booster.current_iteration() - 1
        self.booster_ = booster
        self.best_iteration_ = best
        self.best_score_ = float(history[best]) if history else None
        self.evals_result_ = {"vali": {"ndcg@10": list(history)}} if history else {}
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("LambdaMART (LightGBM): %d rounds grown, best iteration %d (vali ndcg@10 %s), %.2f s",
                  booster.current_iteration(), best, self.best_score_, self.seconds_)
        return self

    def check_state(self) -> None:
        """A one-line ValueError unless ``booster_`` (read back from a file) is a booster of the
        backend for ``n_features_in_`` features with a tree ``best_iteration_``."""
        n_trees = boosters.check_booster(self.booster_, self.backend, self.n_features_in_, self.name)
        best = self.best_iteration_
        if type(best) is not int or not 0 <= best < n_trees:
            raise ValueError(f"{self.name}: best_iteration_ {str(best)[:40]} is outside 0..{n_trees - 1}")

    def predict(self, X) -> np.ndarray:
        """Scores from the trees 0..best_iteration_.

        %(predict_sections)s
        """
        self._check_fitted("booster_")
        X = check_X(X, n_features=self.n_features_in_, dtype=np.float32)
        if getattr(self, "backend", "xgboost") == "lightgbm":
            return np.asarray(self.booster_.predict(X, num_iteration=self.best_iteration_ + 1), dtype=np.float64)
        return np.asarray(self.booster_.inplace_predict(X), dtype=np.float64)


def import_lightgbm():
    """The ``lightgbm`` module, or a one-line ValueError telling how to install it."""
    try:
        import lightgbm  # optional dependency (ltrfs[lightgbm])
    except ImportError:
        raise ValueError('backend "lightgbm" needs LightGBM: pip install -e ".[lightgbm]" '
                         '(or pip install lightgbm)') from None
    return lightgbm


def extra_xgb_params(params, own, synonyms: dict, model: str) -> dict:
    """A wrapper's dict of further XGBoost parameters, checked.

    Parameters
    ----------
    params : dict or None
    own : collection of str
        Keys the wrapper has its own argument for (refused).
    synonyms : dict
        XGBoost name -> wrapper name (refused too).
    model : str
        Named in the error.

    Returns
    -------
    dict
        ``params`` as a dict ({} for None), once no key is refused.

    Raises
    ------
    ValueError
        One line, for a refused key.
    """
    extra = dict(params or {})
    for key in extra:
        if key in own:
            raise ValueError(f"params[{key!r}] repeats the {model} parameter {key!r}; set that instead")
        if key in synonyms:
            raise ValueError(f"params[{key!r}] is XGBoost's name for {synonyms[key]!r}; "
                             f"set the {model} parameter {synonyms[key]!r} instead")
    return extra


def _check_label_range(y: np.ndarray, what: str) -> None:
    if y.min() < 0 or y.max() > _MAX_LABEL:
        bad = int(np.flatnonzero((y < 0) | (y > _MAX_LABEL))[0])
        raise ValueError(f"{what}: LambdaMART (rank:ndcg) needs labels in 0..{_MAX_LABEL}; "
                         f"row {bad} has {y[bad]}")

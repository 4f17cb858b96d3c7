"""LambdaMART importance: total gain and mean |TreeSHAP| of one XGBoost ``rank:ndcg`` model
(docs/methods.md, section 'LambdaMART importance, permutation and RFE').

No single paper: these are the tree-model importances that learning-to-rank studies use as
baselines. One model is fitted on all d features: the project's LambdaMART ranker
(``ltrfs.rankers.LambdaMART``: XGBoost ``rank:ndcg``, 1000 trees, learning rate 0.1, 10 leaves,
early stopping on the validation split's ndcg@10 after 100 rounds without improvement, only the
trees up to the best round kept); ``ranker_params`` changes any of its parameters.

``lambdamart_gain`` (``LambdaMARTGain``): the importance of feature j is the total gain of the
kept trees' splits on j, XGBoost's own ``Booster.get_score(importance_type="total_gain")``::

    gain(j) = sum over the splits s on feature j of the loss reduction of s

``lambdamart_shap`` (``LambdaMARTShap``): the mean absolute TreeSHAP contribution of j over the
rows of the validation split (``explain="train"``: the training rows), XGBoost's own
``Booster.predict(..., pred_contribs=True)`` (Lundberg et al.'s exact TreeSHAP; its last column,
the bias, is left out)::

    shap(j) = (1/n) sum over the n rows i of |phi_ij|,   sum_j phi_ij + bias = the model's score of row i

A feature that no kept tree splits on has gain 0 and SHAP 0. Features of equal importance
(these zeros among them) are ordered by feature index, the lowest first, after the rule that
puts features constant within every training query last (``ltrfs.selection.base``).

Validation split: the model stops early on it (and SHAP explains its rows); without one, ``fit``
stops with a one-line error unless ``ranker_params`` sets ``early_stopping_rounds: null`` (all
``n_estimators`` trees are then grown; SHAP also needs ``explain="train"``).

Cost: one LambdaMART fit (plus, for SHAP, one ``pred_contribs`` pass over the explained rows,
O(trees x leaves x depth^2) per row).
"""
from __future__ import annotations

import numpy as np

from ltrfs.checks import NeedsValidation, check_validation_split
from ltrfs.context import with_context
from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, Mapping, Options
from ltrfs.rankers import RANKERS, make_ranker
from ltrfs.ranking_data import group_ids
from ltrfs.selection.base import Selector

#: XGBoost's importance types (``Booster.get_score``)
IMPORTANCE_TYPES = ("total_gain", "gain", "weight", "cover", "total_cover")

_DOC = {
    "lambdamart_ranker_parameters": """
ranker_params : dict or None, default None
    Parameters of the LambdaMART ranker (``ltrfs.rankers.LambdaMART``: ``n_estimators``,
    ``learning_rate``, ``max_leaves``, ``early_stopping_rounds``, ``params``, ...); None: its
    defaults (config/config.yaml's ``lambdamart``).
random_state : int >= 0, default 0
    Seed of the model (unless ``ranker_params`` sets ``random_state``).
n_jobs : int >= 1, default 1
    XGBoost threads.""",
}


def fit_ranker(name: str, params, random_state, n_jobs: int, X, y, query_ptr, X_val, y_val, qid_val):
    """A ranker of ``ltrfs.rankers.RANKERS`` fitted on the training split, the validation split
    passed on (early stopping, the ranker's own choices).

    Parameters
    ----------
    name : str
        A key of ``RANKERS``.
    params : dict or None
        Its parameters; ``random_state`` fills a seed they leave open, ``n_jobs`` always sets
        the threads (``ltrfs.context.with_context``).
    random_state : int or None
    n_jobs : int
    X, y : ndarray
        Training rows and labels.
    query_ptr : int64 (q + 1,)
        Training query offsets.
    X_val, y_val, qid_val : array-like or None
        The validation split.

    Returns
    -------
    Ranker
        Fitted.
    """
    ranker = make_ranker(name, **with_context(RANKERS[name], params, random_state=random_state, n_jobs=n_jobs))
    return ranker.fit(X, y, group_ids(query_ptr), X_val=X_val, y_val=y_val, qid_val=qid_val)


def check_ranker_params(owner: str, name: str, params, xgboost_only: bool = False) -> None:
    """A one-line ValueError, naming ``owner``, unless ranker ``name`` takes ``params``.

    Parameters
    ----------
    owner : str
        The selector, named in the message.
    name : str
        A key of ``RANKERS``.
    params : dict or None
    xgboost_only : bool, default False
        Also refuse a ``backend`` other than XGBoost (the selector reads XGBoost's trees).
    """
    try:
        make_ranker(name, **(params or {})).validate_params()
    except ValueError as exc:
        raise ValueError(f"{owner}: ranker_params: {exc}") from None
    if xgboost_only and (params or {}).get("backend", "xgboost") != "xgboost":
        raise ValueError(f"{owner} reads XGBoost's trees; ranker_params may not set backend {params['backend']!r}")


def booster_importance(booster, d: int, importance_type: str = "total_gain") -> np.ndarray:
    """XGBoost's importance of every feature, 0 where no tree splits on it.

    Parameters
    ----------
    booster : xgboost.Booster
        Fitted on d unnamed features (XGBoost names them f0..f{d-1}).
    d : int
    importance_type : str, default "total_gain"
        One of ``IMPORTANCE_TYPES`` (``Booster.get_score``).

    Returns
    -------
    float64 (d,)
    """
    score = booster.get_score(importance_type=importance_type)
    return np.array([score.get(f"f{j}", 0.0) for j in range(d)], dtype=np.float64)


def mean_abs_contributions(booster, X, block_rows: int = 65536) -> np.ndarray:
    """Mean over the rows of X of each feature's absolute TreeSHAP contribution.

    XGBoost's ``pred_contribs=True`` (exact TreeSHAP), in blocks of rows; the bias column is
    left out.

    Parameters
    ----------
    booster : xgboost.Booster
    X : ndarray, shape (n, d)
    block_rows : int, default 65536
        Rows per ``predict`` call (the contributions of a block take block_rows x (d + 1) floats).

    Returns
    -------
    float64 (d,)
    """
    import xgboost as xgb  # heavy (XGBoost, ~1.2 s): imported on use

    X = np.asarray(X, dtype=np.float32)
    total = np.zeros(X.shape[1], dtype=np.float64)
    for start in range(0, X.shape[0], block_rows):
        contribs = booster.predict(xgb.DMatrix(X[start:start + block_rows]), pred_contribs=True)
        total += np.abs(contribs[:, :-1]).sum(axis=0, dtype=np.float64)
    return total / max(X.shape[0], 1)


def early_stops(ranker_params) -> bool:
    """Whether LambdaMART with these parameters stops early on a validation split.

    Parameters
    ----------
    ranker_params : dict or None

    Returns
    -------
    bool
        False only when ``early_stopping_rounds`` is set to None.
    """
    return (ranker_params or {}).get("early_stopping_rounds", 100) is not None


@fill_doc(**_DOC)
class LambdaMARTGain(Selector):
    """Features by the total gain of their splits in a LambdaMART model on all features.

    Parameters
    ----------
    %(lambdamart_ranker_parameters)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by importance, descending (ties: lowest index first; constant ones last).
    scores_ : float64 (d,)
        The importance (0 for a feature no kept tree splits on).
    model_ : ltrfs.rankers.LambdaMART
        The fitted ranker (``model_.booster_`` the kept trees).
    chosen_ : dict
        ``importance`` (its kind), ``n_trees`` (kept) and ``n_fits`` (1).
    %(selector_fit_attributes)s

    References
    ----------
    Burges, From RankNet to LambdaRank to LambdaMART: an overview, MSR-TR-2010-82; Chen and
    Guestrin, XGBoost: a scalable tree boosting system, KDD 2016. See docs/methods.md, section
    'LambdaMART importance, permutation and RFE'.

    Examples
    --------
    >>> from ltrfs.selection.lambdamart_importance import LambdaMARTGain
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = LambdaMARTGain().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    """

    name = "lambdamart_gain"
    parameters = {
        "ranker_params": [Mapping(), None],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, ranker_params=None, random_state: int = 0, n_jobs: int = 1):
        self.ranker_params = ranker_params
        self.random_state = random_state
        self.n_jobs = n_jobs

    def validate_params(self):
        """Check the parameters, ``ranker_params`` by building the LambdaMART ranker from them."""
        super().validate_params()
        check_ranker_params(self.name, "lambdamart", self.ranker_params, xgboost_only=True)

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        if not early_stops(self.ranker_params):
            return None
        return (f"{self.name} stops LambdaMART early on validation data",
                {"ranker_params": {"early_stopping_rounds": None}})

    def _check_vali(self, d, X_val, y_val, qid_val):
        """The validation split checked (None when absent and not needed)."""
        vali = check_validation_split(d, X_val, y_val, qid_val, dtype=np.float32)
        if vali is None and self.needs_validation() is not None:
            reason, fix = self.needs_validation()
            raise NeedsValidation(f"{reason}, but none was given; pass X_val, y_val and qid_val to fit, "
                                  f"or set {', '.join(f'{k}={v!r}' for k, v in fix.items())}")
        return vali

    def _importance(self, X, vali) -> tuple[np.ndarray, str]:
        """(importance (d,), its kind for ``chosen_``)."""
        return booster_importance(self.model_.booster_, X.shape[1], "total_gain"), "total_gain"

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        vali = self._check_vali(X.shape[1], X_val, y_val, qid_val)
        self.model_ = fit_ranker("lambdamart", self.ranker_params, self.random_state, self.n_jobs,
                                 X, y, query_ptr, X_val, y_val, qid_val)
        self.scores_, kind = self._importance(X, vali)
        self.ranking_ = np.argsort(-self.scores_, kind="stable").astype(np.int64)
        self.chosen_ = {"importance": kind, "n_trees": int(self.model_.best_iteration_) + 1,
                        "n_fits": 1}


@fill_doc(**_DOC)
class LambdaMARTShap(LambdaMARTGain):
    """Features by their mean absolute TreeSHAP contribution in a LambdaMART model on all features.

    Parameters
    ----------
    explain : {"vali", "train"}, default "vali"
        The rows whose contributions are averaged: the validation split's or the training
        split's.
    %(lambdamart_ranker_parameters)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by importance, descending (ties: lowest index first; constant ones last).
    scores_ : float64 (d,)
        Mean |contribution| over the explained rows (0 for a feature no kept tree splits on).
    model_ : ltrfs.rankers.LambdaMART
        The fitted ranker (``model_.booster_`` the kept trees).
    chosen_ : dict
        ``importance`` ("mean_abs_shap:vali" or ":train"), ``n_trees`` (kept), ``n_fits`` (1).
    %(selector_fit_attributes)s

    References
    ----------
    Lundberg, Erion, Chen et al., From local explanations to global understanding with
    explainable AI for trees, Nature Machine Intelligence 2020 (TreeSHAP); Burges,
    MSR-TR-2010-82. See docs/methods.md, section 'LambdaMART importance, permutation and RFE'.

    Examples
    --------
    >>> from ltrfs.selection.lambdamart_importance import LambdaMARTShap
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = LambdaMARTShap().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    """

    name = "lambdamart_shap"
    parameters = {**LambdaMARTGain.parameters, "explain": [Options("vali", "train")]}

    def __init__(self, explain: str = "vali", ranker_params=None, random_state: int = 0, n_jobs: int = 1):
        super().__init__(ranker_params=ranker_params, random_state=random_state, n_jobs=n_jobs)
        self.explain = explain

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        if self.explain == "vali":
            return (f"{self.name} explains the validation rows (explain='vali')",
                    {"explain": "train", "ranker_params": {"early_stopping_rounds": None}})
        return super().needs_validation()

    def _importance(self, X, vali) -> tuple[np.ndarray, str]:
        rows = vali[0] if self.explain == "vali" else X
        return mean_abs_contributions(self.model_.booster_, rows), f"mean_abs_shap:{self.explain}"

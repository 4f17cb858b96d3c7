"""Feature selectors by name: ``SELECTORS[name]`` is the class (imported from its module when
first asked for), ``make_selector`` builds one."""
from __future__ import annotations

from ltrfs.names import LazyRegistry, build_estimator
from ltrfs.selection.base import Selector

#: method algorithm name -> selector class, each imported on first use
SELECTORS = LazyRegistry({
    "waf": "ltrfs.selection.waf:WAF",
    "random": "ltrfs.selection.random_k:RandomK",
    "importance": "ltrfs.selection.importance:ImportanceTopK",
    "fs_ed": "ltrfs.selection.fs_ed:FSED",
    "gas": "ltrfs.selection.gas:GAS",
    "gas_e": "ltrfs.selection.gas:GASE",
    "gas_l": "ltrfs.selection.gas:GASL",
    "ig": "ltrfs.selection.filters:InformationGain",
    "chi": "ltrfs.selection.filters:ChiSquare",
    "pearson": "ltrfs.selection.filters:PearsonTopK",
    "l1_logistic": "ltrfs.selection.l1_logistic:L1Logistic",
    "svm_rfe": "ltrfs.selection.svm_rfe:SVMRFE",
    "ordinal_cr": "ltrfs.selection.ordinal_cr:OrdinalCR",
    "rf_importance": "ltrfs.selection.forest:RFImportance",
    "gbm_importance": "ltrfs.selection.boosting:GBMImportance",
    "greedy_rankrls": "ltrfs.selection.greedy_rankrls:GreedyRankRLS",
    "fsmrank": "ltrfs.selection.fsmrank:FSMRankSelector",
    "fsmsvm": "ltrfs.selection.fsmrank:FSMSVM",
    "fs_bfs": "ltrfs.selection.fs_bfs:FSBFS",
    "ngas": "ltrfs.selection.ngas:NGAS",
    "xgas": "ltrfs.selection.xgas:XGAS",
    "hcas": "ltrfs.selection.hcas:HCAS",
    "mrmr": "ltrfs.selection.mrmr:MRMR",
    "fenchelrank": "ltrfs.selection.fenchelrank:FenchelRankSelector",
    "sparse_ranksvm": "ltrfs.selection.sparse_ranksvm:SparseRankSVMSelector",
    "lambdamart_gain": "ltrfs.selection.lambdamart_importance:LambdaMARTGain",
    "lambdamart_shap": "ltrfs.selection.lambdamart_importance:LambdaMARTShap",
    "permutation": "ltrfs.selection.permutation:PermutationImportance",
    "lambdamart_rfe": "ltrfs.selection.lambdamart_rfe:LambdaMARTRFE",
    "g_l2x": "ltrfs.neural.g_l2x:GL2X",
    "l2x": "ltrfs.neural.l2x:L2X",
    "invase": "ltrfs.neural.invase:INVASE",
    "concrete_autoencoder": "ltrfs.neural.concrete_autoencoder:ConcreteAutoencoder",
    "tabnet": "ltrfs.neural.tabnet:TabNetSelector",
    "lassonet": "ltrfs.neural.lasso_net:LassoNetSelector",
    "ifg": "ltrfs.neural.ifg:InstanceFeatureGroups",
})


#: family -> the selection algorithms whose feature scores come from that kind of model: none
#: (``filter``: a statistic of each feature, or of pairs of features), a linear model's weights or
#: path, trees' importances, a neural network's masks or weights; ``baseline``: all features and a
#: random subset. The leaderboard's cross table crosses them with the rankers' families
#: (``ltrfs.rankers.RANKER_FAMILIES``).
SELECTOR_FAMILIES = {
    "baseline": ("waf", "random"),
    "filter": ("importance", "fs_ed", "gas", "gas_e", "gas_l", "ig", "chi", "pearson", "ngas", "xgas", "hcas",
               "mrmr"),
    "linear": ("l1_logistic", "svm_rfe", "ordinal_cr", "greedy_rankrls", "fsmrank", "fsmsvm", "fs_bfs",
               "fenchelrank", "sparse_ranksvm"),
    "tree": ("rf_importance", "gbm_importance", "lambdamart_gain", "lambdamart_shap", "permutation",
             "lambdamart_rfe"),
    "neural": ("g_l2x", "l2x", "invase", "tabnet", "lassonet", "concrete_autoencoder", "ifg"),
}


#: the selection algorithms whose fit reads only the scorers' tables of a fold (the baselines and the
#: filters): seconds at most on any fold, however many its rows. The workflow fits those of a fold
#: in one job (config ``select_batch``, ``ltrfs.pipeline.planning.select``).
SCORES_ONLY = frozenset(SELECTOR_FAMILIES["baseline"] + SELECTOR_FAMILIES["filter"])


def selector_family(algorithm: str) -> str:
    """The family of a selection algorithm (``SELECTOR_FAMILIES``).

    Examples
    --------
    >>> selector_family("lambdamart_shap"), selector_family("g_l2x")
    ('tree', 'neural')
    """
    return next(family for family, members in SELECTOR_FAMILIES.items() if algorithm in members)


def make_selector(name: str, **params) -> Selector:
    """A selector from its method name and parameters.

    Parameters
    ----------
    name : str
        A key of ``SELECTORS`` (``ltrfs params NAME`` lists its parameters).
    **params
        Constructor parameters.

    Returns
    -------
    Selector

    Raises
    ------
    ValueError
        One line, naming an unknown method or parameter.

    Examples
    --------
    >>> make_selector("gas_e", c=0.1).c
    0.1
    >>> make_selector("gas_x")
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    return build_estimator("method", SELECTORS, name, params)


def has_own_predictions(algorithm: str) -> bool:
    """Whether a selection algorithm can rank by itself (ranker ``own``).

    Examples
    --------
    >>> has_own_predictions("fsmrank"), has_own_predictions("gas_e")
    (True, False)
    """
    return hasattr(SELECTORS[algorithm], "predict_scores")


__all__ = ["SELECTORS", "SELECTOR_FAMILIES", "SCORES_ONLY", "Selector", "make_selector", "has_own_predictions",
           "selector_family"]

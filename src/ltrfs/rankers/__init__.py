"""Learning-to-rank models with one interface: ``fit(X, y, qid, X_val=None, y_val=None,
qid_val=None)`` and ``predict(X) -> float64 (m,)`` (see ``ltrfs.rankers.base``).

``RANKERS`` maps the configuration name of every ranker to its class; ``make_ranker`` builds
one by name with one-line errors for an unknown name or parameter; ``ranker_grid`` and
``checked_grid`` give the grid points of a configured ranker (``{"algorithm", "params",
"grid"}``).

=====================  ==========================================================  ==============
name                   model                                                        module
=====================  ==========================================================  ==============
``ranksvm``            linear, pairwise hinge, svm_rank's 1-slack cutting planes    ranksvm
``ranksvm_primal``     linear, pairwise squared hinge, truncated Newton in primal   ranksvm_primal
``rankboost``          RankBoost, threshold weak rankers (RankLib)                   rankboost
``ranknet``            one hidden layer, pairwise cross-entropy                      ranknet
``lambdamart``         XGBoost ``rank:ndcg``, FS-ED preset                           lambdamart
``mart``               XGBoost regression trees on the labels (RankLib's MART)       trees
``coord_ascent``       Coordinate Ascent on a ranking metric (RankLib)               coord_ascent
``adarank_ndcg``       AdaRank optimising NDCG@5                                     adarank
``adarank_map``        AdaRank optimising MAP                                        adarank
``listnet``            linear, top-one probability cross entropy                     listnet
``random_forest``      scikit-learn random forest of regression trees (RankLib's)    trees
``rankrls``            least squares on all within-query pairs, closed form          rankrls
``linear_regression``  pointwise least squares                                       pointwise
``logistic``           logistic regression on binarised labels                       pointwise
``fsmrank``            FSMRank: non-negative weighted-L1 on [X, -X], accelerated PG  fsmrank
``svmmap``             linear structural SVM, 1 - AP loss (SVM-map), 1-slack       svmmap
``fenchelrank``        linear, pairwise squared hinge in an l1 ball                  fenchelrank
``sparse_ranksvm``     linear, pairwise squared hinge + l1/log/MCP/lp penalty       sparse_ranksvm
``mlp``                MLP, listwise/pairwise/pointwise loss (PyTorch extra)        mlp
=====================  ==========================================================  ==============
"""
from __future__ import annotations

from ltrfs.names import LazyRegistry, build_estimator, unknown_name
from ltrfs.rankers.base import Ranker
from ltrfs.tuning import checked_points, grid_points

#: ranker algorithm name -> ranker class, each imported on first use
RANKERS = LazyRegistry({
    "ranksvm": "ltrfs.rankers.ranksvm:RankSVM",
    "ranksvm_primal": "ltrfs.rankers.ranksvm_primal:RankSVMPrimal",
    "rankboost": "ltrfs.rankers.rankboost:RankBoost",
    "ranknet": "ltrfs.rankers.ranknet:RankNet",
    "lambdamart": "ltrfs.rankers.lambdamart:LambdaMART",
    "mart": "ltrfs.rankers.trees:MART",
    "coord_ascent": "ltrfs.rankers.coord_ascent:CoordinateAscent",
    "adarank_ndcg": "ltrfs.rankers.adarank:AdaRankNDCG",
    "adarank_map": "ltrfs.rankers.adarank:AdaRankMAP",
    "listnet": "ltrfs.rankers.listnet:ListNet",
    "random_forest": "ltrfs.rankers.trees:RandomForest",
    "rankrls": "ltrfs.rankers.rankrls:RankRLS",
    "linear_regression": "ltrfs.rankers.pointwise:LinearRegressionRanker",
    "logistic": "ltrfs.rankers.pointwise:LogisticRanker",
    "fsmrank": "ltrfs.rankers.fsmrank:FSMRank",
    "svmmap": "ltrfs.rankers.svmmap:SVMMAP",
    "fenchelrank": "ltrfs.rankers.fenchelrank:FenchelRank",
    "sparse_ranksvm": "ltrfs.rankers.sparse_ranksvm:SparseRankSVM",
    "mlp": "ltrfs.neural.mlp:MLPRanker",
})


#: family -> the ranking algorithms of that kind of model (``own``, a selection method's own model,
#: has none): the columns of the leaderboard's cross table (``ltrfs.selection.SELECTOR_FAMILIES``)
RANKER_FAMILIES = {
    "linear": ("ranksvm", "ranksvm_primal", "coord_ascent", "adarank_ndcg", "adarank_map", "listnet", "rankrls",
               "linear_regression", "logistic", "fsmrank", "svmmap", "fenchelrank", "sparse_ranksvm"),
    "tree": ("lambdamart", "mart", "random_forest", "rankboost"),
    "neural": ("ranknet", "mlp"),
}


def ranker_family(algorithm: str) -> str | None:
    """The family of a ranking algorithm (``RANKER_FAMILIES``); None for one of none (``own``).

    Examples
    --------
    >>> ranker_family("lambdamart"), ranker_family("mlp"), ranker_family("own")
    ('tree', 'neural', None)
    """
    return next((family for family, members in RANKER_FAMILIES.items() if algorithm in members), None)


def make_ranker(name: str, **params) -> Ranker:
    """A ranker from its name and parameters: ``RANKERS[name](**params)``.

    Parameters
    ----------
    name : str
        A key of ``RANKERS`` (``ltrfs params NAME`` lists its parameters).
    **params
        Constructor parameters.

    Returns
    -------
    Ranker

    Raises
    ------
    ValueError
        One line, naming an unknown ranker or parameter.

    Examples
    --------
    >>> make_ranker("rankrls", lam=2.0).lam
    2.0
    """
    return build_estimator("ranker", RANKERS, name, params)


def ranker_class(algorithm: str) -> type[Ranker]:
    """``RANKERS[algorithm]``; a one-line ValueError naming the valid ones otherwise."""
    if algorithm not in RANKERS:
        raise ValueError(unknown_name("ranker", algorithm, RANKERS))
    return RANKERS[algorithm]


def ranker_grid(ranker: dict) -> list[dict]:
    """The grid points of a configured ranker: its ``grid``, or else the class's default grid
    over the hyperparameters that ``params`` does not fix (``ltrfs.tuning.grid_points``)."""
    return grid_points(ranker_class(ranker["algorithm"]), ranker.get("params"), ranker.get("grid"))


def checked_grid(ranker: dict) -> list[dict]:
    """``ranker_grid(ranker)``, the ranker of every point built and its parameters validated (a
    one-line ValueError naming the parameter): what the config check and ``ltrfs train`` do
    before any data is read."""
    params = ranker.get("params") or {}
    return checked_points(lambda **point: make_ranker(ranker["algorithm"], **params, **point), ranker_grid(ranker))


__all__ = ["RANKERS", "RANKER_FAMILIES", "Ranker", "ranker_family", "make_ranker", "ranker_class", "ranker_grid", "checked_grid",
           *RANKERS.class_names()]


def __getattr__(name: str):
    """``from ltrfs.rankers import RankSVM``: a ranker class by its class name, imported on use."""
    registered = RANKERS.class_names().get(name)
    if registered is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return RANKERS[registered]

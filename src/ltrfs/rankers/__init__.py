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
=====================  ==========================================================  ==============
"""
from __future__ import annotations

from ltrfs.names import build_estimator, unknown_name
from ltrfs.rankers.adarank import AdaRankMAP, AdaRankNDCG
from ltrfs.rankers.base import Ranker
from ltrfs.rankers.coord_ascent import CoordinateAscent
from ltrfs.rankers.fenchelrank import FenchelRank
from ltrfs.rankers.fsmrank import FSMRank
from ltrfs.rankers.lambdamart import LambdaMART
from ltrfs.rankers.listnet import ListNet
from ltrfs.rankers.pointwise import LinearRegressionRanker, LogisticRanker
from ltrfs.rankers.rankboost import RankBoost
from ltrfs.rankers.ranknet import RankNet
from ltrfs.rankers.rankrls import RankRLS
from ltrfs.rankers.ranksvm import RankSVM
from ltrfs.rankers.ranksvm_primal import RankSVMPrimal
from ltrfs.rankers.sparse_ranksvm import SparseRankSVM
from ltrfs.rankers.svmmap import SVMMAP
from ltrfs.rankers.trees import MART, RandomForest
from ltrfs.tuning import checked_points, grid_points

RANKERS: dict[str, type[Ranker]] = {cls.name: cls for cls in (
    RankSVM, RankSVMPrimal, RankBoost, RankNet, LambdaMART, MART, CoordinateAscent, AdaRankNDCG,
    AdaRankMAP, ListNet, RandomForest, RankRLS, LinearRegressionRanker, LogisticRanker, FSMRank,
    SVMMAP, FenchelRank, SparseRankSVM)}


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


__all__ = ["RANKERS", "Ranker", "make_ranker", "ranker_class", "ranker_grid", "checked_grid", *(cls.__name__ for cls in RANKERS.values())]

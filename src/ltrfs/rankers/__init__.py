"""Learning-to-rank models with one interface: ``fit(X, y, qid, X_val=None, y_val=None,
qid_val=None)`` and ``predict(X) -> float64 (m,)`` (see ``ltrfs.rankers.base``).

``RANKERS`` maps the configuration name of every ranker to its class; ``make_ranker`` builds
one by name with one-line errors for an unknown name or parameter.
"""
from __future__ import annotations

from ltrfs.rankers.base import Ranker
from ltrfs.rankers.lambdamart import LambdaMART
from ltrfs.rankers.ranksvm import RankSVM
from ltrfs.util import build_estimator

RANKERS: dict[str, type[Ranker]] = {
    RankSVM.name: RankSVM,
    LambdaMART.name: LambdaMART,
}


def make_ranker(name: str, **params) -> Ranker:
    """``RANKERS[name](**params)``; one-line ValueError naming an unknown name or parameter."""
    return build_estimator("ranker", RANKERS, name, params)


__all__ = ["RANKERS", "Ranker", "RankSVM", "LambdaMART", "make_ranker"]

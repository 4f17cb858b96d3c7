"""Feature selectors by name: ``SELECTORS[name]`` is the class, ``make_selector`` builds one."""
from __future__ import annotations

from ltrfs.names import build_estimator
from ltrfs.selection.base import Selector
from ltrfs.selection.boosting import GBMImportance
from ltrfs.selection.fenchelrank import FenchelRankSelector
from ltrfs.selection.filters import ChiSquare, InformationGain, PearsonTopK
from ltrfs.selection.forest import RFImportance
from ltrfs.selection.fs_bfs import FSBFS
from ltrfs.selection.fs_ed import FSED
from ltrfs.selection.fsmrank import FSMSVM, FSMRankSelector
from ltrfs.selection.gas import GAS, GASE, GASL
from ltrfs.selection.greedy_rankrls import GreedyRankRLS
from ltrfs.selection.hcas import HCAS
from ltrfs.selection.importance import ImportanceTopK
from ltrfs.selection.l1_logistic import L1Logistic
from ltrfs.selection.lambdamart_importance import LambdaMARTGain, LambdaMARTShap
from ltrfs.selection.lambdamart_rfe import LambdaMARTRFE
from ltrfs.selection.mrmr import MRMR
from ltrfs.selection.ngas import NGAS
from ltrfs.selection.ordinal_cr import OrdinalCR
from ltrfs.selection.permutation import PermutationImportance
from ltrfs.selection.random_k import RandomK
from ltrfs.selection.sparse_ranksvm import SparseRankSVMSelector
from ltrfs.selection.svm_rfe import SVMRFE
from ltrfs.selection.waf import WAF
from ltrfs.selection.xgas import XGAS

SELECTORS: dict[str, type[Selector]] = {cls.name: cls for cls in (
    WAF, RandomK, ImportanceTopK, FSED, GAS, GASE, GASL, InformationGain, ChiSquare, PearsonTopK,
    L1Logistic, SVMRFE, OrdinalCR, RFImportance, GBMImportance, GreedyRankRLS, FSMRankSelector, FSMSVM, FSBFS,
    NGAS, XGAS, HCAS, MRMR, FenchelRankSelector, SparseRankSVMSelector,
    LambdaMARTGain, LambdaMARTShap, PermutationImportance, LambdaMARTRFE)}


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


__all__ = ["SELECTORS", "Selector", "make_selector", "has_own_predictions"]

"""mRMR for ranking: minimum redundancy, maximum relevance (Shirzad & Keyvanpour, "A feature
selection method based on minimum redundancy maximum relevance for learning to rank", AI &
Robotics (IRANOPEN) 2015, doi 10.1109/RIOS.2015.7270735; after Peng, Long & Ding, TPAMI 27(8),
2005; docs/methods.md, section 'mRMR').

With relevance R and similarity S (``ltrfs.selection.redundancy``; both in [0, 1], used
unscaled), over the searched features, greedy::

    pick argmax R
    repeat: pick argmax over unpicked f of  R(f) - mean over picked g of S(f, g)   ("difference")
                                      or   R(f) / mean over picked g of S(f, g)    ("quotient")

(Peng et al.'s MID and MIQ forms). In the quotient a mean similarity below ``EPS`` counts as
``EPS``, so features dissimilar to everything picked come first, by relevance. Ties go to the
lowest feature id. Every k-subset is a prefix of ``ranking_``; the running sum of similarities
makes one search O(n^2) for n searched features.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Options
from ltrfs.selection.redundancy import DOC, RelevanceRedundancy, start_search

#: the two criteria (Peng et al.'s MID and MIQ)
CRITERIA = ("difference", "quotient")
#: smallest mean similarity in the quotient
EPS = 1e-12


def mrmr_order(relevance, similarity, criterion: str = "difference") -> np.ndarray:
    """The mRMR pick order of n features (module docstring).

    Parameters
    ----------
    relevance : array-like, shape (n,)
        R.
    similarity : array-like, shape (n, n)
        S (symmetric).
    criterion : {"difference", "quotient"}, default "difference"
        R - mean S, or R / mean S.

    Returns
    -------
    int64 (n,)
        Indices into ``relevance``, in pick order.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> mrmr_order([0.5, 0.45, 0.3], S).tolist()     # 0.3 - 0.1 > 0.45 - 0.9
    [0, 2, 1]
    """
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; valid: {', '.join(CRITERIA)}")
    r, s, order, free = start_search(relevance, similarity)
    total = s[order].sum(axis=0)            # sum over picked g of S(f, g), for every f
    for size in range(1, len(r)):
        mean = total / size
        score = r - mean if criterion == "difference" else r / np.maximum(mean, EPS)
        pick = int(np.argmax(np.where(free, score, -np.inf)))
        free[pick] = False
        total += s[pick]
        order.append(pick)
    return np.asarray(order, dtype=np.int64)


@fill_doc(**DOC)
class MRMR(RelevanceRedundancy):
    """mRMR: greedily the feature of largest relevance minus (or over) its mean similarity to the picks.

    Parameters
    ----------
    criterion : {"difference", "quotient"}, default "difference"
        R - mean S (MID, the default) or R / mean S (MIQ).
    %(rr_parameters)s

    Attributes
    ----------
    %(rr_attributes)s

    References
    ----------
    Shirzad and Keyvanpour. A feature selection method based on minimum redundancy maximum
    relevance for learning to rank. AI & Robotics (IRANOPEN) 2015. Peng, Long and Ding. Feature
    selection based on mutual information: criteria of max-dependency, max-relevance, and
    min-redundancy. IEEE TPAMI 27(8), 2005.

    Examples
    --------
    >>> from ltrfs.selection.mrmr import MRMR
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = MRMR().fit(X, y, qid)
    >>> int(sel.ranking_[0])               # the most relevant feature first
    2
    """

    name = "mrmr"
    parameters = {**RelevanceRedundancy.parameters, "criterion": [Options(*CRITERIA)]}

    def __init__(self, criterion: str = "difference", metric: str = "ndcg@10", relevance: str = "single_feature",
                 n_trees: int = 100, random_state: int = 0, similarity: str = "pooled", convention: str = "letor4",
                 ties: str = "expected", n_jobs: int = 1):
        super().__init__(metric=metric, relevance=relevance, n_trees=n_trees, random_state=random_state,
                         similarity=similarity, convention=convention, ties=ties, n_jobs=n_jobs)
        self.criterion = criterion

    def _search(self, relevance, similarity):
        self.chosen_["criterion"] = self.criterion
        return mrmr_order(relevance, similarity, self.criterion)

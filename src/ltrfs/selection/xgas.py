"""XGAS: the extended greedy search of Gigli, Lucchese, Nardini, Perego, "Fast feature selection
for learning to rank", ICTIR 2016 (docs/methods.md, section 'NGAS, XGAS, HCAS').

With relevance R and similarity S (``ltrfs.selection.redundancy``), over the searched features
and a fraction c (default 0.05)::

    pick argmax R
    repeat until every feature is picked:
        u = the number of unpicked features
        p = max(1, round-half-up(c * u))
        among the p unpicked features least similar to the last pick, pick the most relevant

Ties go to the lowest feature id (equal similarities: the lower id is the less similar; equal
relevance: the lower id is picked), as in the authors' public code (andrgig/FSA, XGAS.py). Every
k-subset is a prefix of ``ranking_``; one search costs O(n^2 log n) for n searched features.
"""
from __future__ import annotations

import math

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Real
from ltrfs.selection.redundancy import DOC, RelevanceRedundancy, first_best, start_search


def candidates_per_step(c: float, unpicked: int) -> int:
    """p = max(1, round-half-up(c x unpicked)), the number of candidates of an XGAS step.

    Parameters
    ----------
    c : float in (0, 1]
    unpicked : int

    Returns
    -------
    int

    Examples
    --------
    >>> candidates_per_step(0.05, 10), candidates_per_step(0.05, 30), candidates_per_step(0.05, 50)
    (1, 2, 3)
    """
    return max(1, math.floor(c * unpicked + 0.5 + 1e-9))  # 1e-9: a product meant as x.5 may land just below


def xgas_order(relevance, similarity, c: float = 0.05) -> np.ndarray:
    """The XGAS pick order of n features (module docstring).

    Parameters
    ----------
    relevance : array-like, shape (n,)
        R.
    similarity : array-like, shape (n, n)
        S (symmetric).
    c : float in (0, 1], default 0.05
        The fraction of the unpicked features that are candidates at each step.

    Returns
    -------
    int64 (n,)
        Indices into ``relevance``, in pick order.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> xgas_order([0.5, 0.4, 0.3], S, c=1.0).tolist()
    [0, 1, 2]
    """
    r, s, order, free = start_search(relevance, similarity)
    n = len(r)
    for u in range(n - 1, 0, -1):
        unpicked = np.flatnonzero(free)
        p = candidates_per_step(c, u)
        nearest = unpicked[np.argsort(s[order[-1], unpicked], kind="stable")[:p]]
        pick = first_best(r, np.sort(nearest))
        free[pick] = False
        order.append(pick)
    return np.asarray(order, dtype=np.int64)


@fill_doc(**DOC)
class XGAS(RelevanceRedundancy):
    """XGAS: among the c-fraction of features least similar to the last pick, the most relevant.

    Parameters
    ----------
    c : float in (0, 1], default 0.05
        The fraction of the unpicked features that are candidates at each step (the paper's).
    %(rr_parameters)s

    Attributes
    ----------
    %(rr_attributes)s

    %(gigli_references)s

    Examples
    --------
    >>> from ltrfs.selection.xgas import XGAS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = XGAS().fit(X, y, qid)
    >>> int(sel.ranking_[0])               # the most relevant feature first
    2
    """

    name = "xgas"
    parameters = {**RelevanceRedundancy.parameters, "c": [Real(0, 1, closed="right")]}

    def __init__(self, c: float = 0.05, metric: str = "ndcg@10", relevance: str = "single_feature",
                 n_trees: int = 100, random_state: int = 0, similarity: str = "pooled", convention: str = "letor4",
                 ties: str = "expected", n_jobs: int = 1):
        super().__init__(metric=metric, relevance=relevance, n_trees=n_trees, random_state=random_state,
                         similarity=similarity, convention=convention, ties=ties, n_jobs=n_jobs)
        self.c = c

    def _search(self, relevance, similarity):
        self.chosen_["c"] = float(self.c)
        return xgas_order(relevance, similarity, float(self.c))

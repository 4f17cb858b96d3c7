"""NGAS: the naive greedy search of Gigli, Lucchese, Nardini, Perego, "Fast feature selection
for learning to rank", ICTIR 2016 (docs/methods.md, section 'NGAS, XGAS, HCAS').

With relevance R and similarity S (``ltrfs.selection.redundancy``), over the searched features::

    pick argmax R
    repeat until every feature is picked:
        l     = the last pick
        f_min = argmin over unpicked f of S(l, f)
        if f_min is the only unpicked feature: pick it
        f_max = argmax over unpicked f != f_min of S(f_min, f)
        pick f_min if R(f_min) >= R(f_max), else f_max

Ties go to the lowest feature id, as in the authors' public code (andrgig/FSA, NGAS.py), which
this follows. The pick order does not depend on the subset size, so every k-subset is a prefix
of ``ranking_``; one search costs O(n^2) for n searched features.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.selection.redundancy import DOC, RelevanceRedundancy, start_search


def ngas_order(relevance, similarity) -> np.ndarray:
    """The NGAS pick order of n features (module docstring).

    Parameters
    ----------
    relevance : array-like, shape (n,)
        R.
    similarity : array-like, shape (n, n)
        S (symmetric).

    Returns
    -------
    int64 (n,)
        Indices into ``relevance``, in pick order.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> ngas_order([0.5, 0.4, 0.3], S).tolist()  # f_min = 2 loses to its nearest, 1, on R
    [0, 1, 2]
    """
    r, s, order, free = start_search(relevance, similarity)
    n = len(r)
    for _ in range(n - 1):
        f_min = int(np.argmin(np.where(free, s[order[-1]], np.inf)))
        free[f_min] = False
        if not free.any():
            order.append(f_min)
            break
        f_max = int(np.argmax(np.where(free, s[f_min], -np.inf)))
        pick = f_min if r[f_min] >= r[f_max] else f_max
        free[f_min] = True
        free[pick] = False
        order.append(pick)
    return np.asarray(order, dtype=np.int64)


@fill_doc(**DOC)
class NGAS(RelevanceRedundancy):
    """NGAS: from the last pick, the least similar feature or its most similar one, by relevance.

    Parameters
    ----------
    %(rr_parameters)s

    Attributes
    ----------
    %(rr_attributes)s

    %(gigli_references)s

    Examples
    --------
    >>> from ltrfs.selection.ngas import NGAS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = NGAS().fit(X, y, qid)
    >>> int(sel.ranking_[0])               # the most relevant feature first
    2
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "ngas"

    def _search(self, relevance, similarity):
        return ngas_order(relevance, similarity)

"""Random-k: a seeded random order of the features, the chance baseline of a selector."""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer
from ltrfs.selection.base import Selector


@fill_doc
class RandomK(Selector):
    """Random k: the first k features of a seeded random permutation (the chance baseline).

    Parameters
    ----------
    random_state : int >= 0 or None, default 0
        Seed of ``numpy.random.default_rng``; None draws a fresh seed on every ``fit``.

    Attributes
    ----------
    ranking_ : int64 (d,)
        The permutation.
    scores_ : None
    %(selector_plain_attributes)s

    References
    ----------
    A baseline of this package, not of a paper: docs/methods.md lists it among the reference
    selectors, and the tables and metric-vs-k figures show it beside the papers' methods.

    Examples
    --------
    >>> from ltrfs.selection.random_k import RandomK
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = RandomK(random_state=0).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 4])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> # a seed gives the same order on every fit; another seed, another order
    """

    name = "random"
    parameters = {"random_state": [Integer(0), None]}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.ranking_ = np.random.default_rng(self.random_state).permutation(X.shape[1]).astype(np.int64)

"""WAF: "without any feature selection", the all-features baseline of every paper."""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.selection.base import Selector


@fill_doc
class WAF(Selector):
    """All features, no selection: the "without any feature selection" baseline (WAF).

    Every paper compares its selectors with the ranker trained on all features; as a selector that
    is the identity. ``k`` is ignored (``uses_k = False``): ``support`` and ``transform`` always
    give every feature.

    Attributes
    ----------
    ranking_ : int64 (d,)
        ``0, 1, ..., d - 1`` (the file order).
    scores_ : None
    %(selector_plain_attributes)s

    References
    ----------
    Geng, Liu, Qin, Li. Feature selection for ranking. SIGIR 2007, section 3.4 ("With All
    Features (WAF)"). Gupta and Rosso. Expected divergence based feature selection for learning
    to rank. COLING 2012, section 3 (WAF, the all-features baseline). See docs/methods.md.

    Examples
    --------
    >>> from ltrfs.selection.waf import WAF
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = WAF().fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([0, 1])
    >>> sel.transform(X, k=2).shape
    (120, 5)
    """

    name = "waf"
    uses_k = False

    def __init__(self):  # no hyperparameters
        pass

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.ranking_ = np.arange(X.shape[1], dtype=np.int64)

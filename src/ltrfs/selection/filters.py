"""Classification-style filter baselines: top-k features by information gain (``ig``),
chi-square (``chi``) or absolute Pearson correlation with the label (``pearson``).

IG and CHI (GAS paper's baselines) treat the relevance labels as classes and discretise each
feature into ``bins`` equal-frequency bins (``ltrfs.scoring.discrete``); Pearson uses
``|corr(X[:, f], y)|`` over all training rows (``ltrfs.scoring.pearson``). Queries are ignored
by all three. Ties in the score keep the lower feature index first.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer
from ltrfs.scoring import discrete
from ltrfs.scoring.pearson import pearson_scores
from ltrfs.selection.base import Selector


#: docstring text the classes below share (``ltrfs.docstrings``)
_DOC = {
    "bins_parameters": """
Parameters
----------
bins : int >= 2, default 10
    Number of equal-frequency bins per feature.
""",
}


class _DiscreteTopK(Selector):
    requires = ("discrete",)
    parameters = {"bins": [Integer(2)]}
    _key = ""

    def __init__(self, bins: int = discrete.BINS):
        self.bins = bins

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        cached = precomputed.get("discrete")
        # the cached scores are this method's only when they used the same number of bins
        if cached is not None and int(np.asarray(cached.get("bins", -1))) == int(self.bins) \
                and np.shape(cached.get(self._key)) == (d,):
            scores = np.asarray(cached[self._key], dtype=np.float64)
        else:
            ig, chi = discrete.discrete_scores(X, y, int(self.bins))
            scores = ig if self._key == "ig" else chi
        self.scores_ = scores
        self.ranking_ = np.argsort(-scores, kind="stable").astype(np.int64)


@fill_doc(**_DOC)
class InformationGain(_DiscreteTopK):
    """Top k features by information gain of the feature, cut into bins, about the label.

    ``IG = H(Y) - H(Y | bin)`` in bits, with the relevance labels as classes and the feature cut
    into ``bins`` equal-frequency bins (``ltrfs.scoring.discrete``); queries are ignored. Ties keep
    the lower feature index first.

    %(bins_parameters)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by IG, descending.
    scores_ : float64 (d,)
        The information gain.
    %(selector_plain_attributes)s

    References
    ----------
    Geng et al., SIGIR 2007, section 3.4 (IG as a baseline of GAS). See docs/methods.md.

    Examples
    --------
    >>> from ltrfs.selection.filters import InformationGain
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = InformationGain(bins=10).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "ig"
    _key = "ig"


@fill_doc(**_DOC)
class ChiSquare(_DiscreteTopK):
    """Top k features by the chi-square statistic of the (bin x label) contingency table.

    The feature is cut into ``bins`` equal-frequency bins and the relevance labels are the classes
    (``ltrfs.scoring.discrete``); queries are ignored. Ties keep the lower feature index first.

    %(bins_parameters)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by the statistic, descending.
    scores_ : float64 (d,)
        The chi-square statistic.
    %(selector_plain_attributes)s

    References
    ----------
    Geng et al., SIGIR 2007, section 3.4 (CHI as a baseline of GAS). See docs/methods.md.

    Examples
    --------
    >>> from ltrfs.selection.filters import ChiSquare
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = ChiSquare(bins=10).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "chi"
    _key = "chi"


@fill_doc
class PearsonTopK(Selector):
    """Top k features by the absolute Pearson correlation of feature and label.

    ``|corr(X[:, f], y)|`` over all training rows (``ltrfs.scoring.pearson``; a constant feature
    gets 1e-6); queries are ignored. Ties keep the lower feature index first. No
    hyperparameters.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by absolute correlation, descending.
    scores_ : float64 (d,)
        The absolute correlation.
    %(selector_plain_attributes)s

    References
    ----------
    A baseline of this package. The Pearson correlation coefficient is FSMRank's importance and
    similarity measure (Lai, Pan, Tang, Yu. FSMRank: feature selection algorithm for learning
    to rank. IEEE TNNLS 2013, section III-B); ``ltrfs.scoring.pearson`` computes both.

    Examples
    --------
    >>> from ltrfs.selection.filters import PearsonTopK
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = PearsonTopK().fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "pearson"
    requires = ("pearson",)

    def __init__(self):  # no hyperparameters
        pass

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        cached = precomputed.get("pearson")
        if cached is not None and np.shape(cached.get("importance")) == (d,):
            scores = np.asarray(cached["importance"], dtype=np.float64)
        else:
            scores = pearson_scores(X, y)[0]
        self.scores_ = scores
        self.ranking_ = np.argsort(-scores, kind="stable").astype(np.int64)

"""Classification-style filter baselines: top-k features by information gain (``ig``),
chi-square (``chi``) or absolute Pearson correlation with the label (``pearson``).

IG and CHI (GAS paper's baselines) treat the relevance labels as classes and discretise each
feature into ``bins`` equal-frequency bins (``ltrfs.scoring.discrete``); Pearson uses
``|corr(X[:, f], y)|`` over all training rows (``ltrfs.scoring.pearson``). Queries are ignored
by all three. Ties in the score keep the lower feature index first.
"""
from __future__ import annotations

import numpy as np

from ltrfs.params import Integer
from ltrfs.scoring import discrete
from ltrfs.scoring.pearson import pearson_scores
from ltrfs.selection.base import Selector


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


class InformationGain(_DiscreteTopK):
    """Top-k by IG = H(Y) - H(Y | bin) (bits) of the feature cut into ``bins`` (default 10)
    equal-frequency bins. ``scores_`` (d,) holds the IG."""

    name = "ig"
    _key = "ig"


class ChiSquare(_DiscreteTopK):
    """Top-k by the chi-square statistic of the bin x label table, ``bins`` (default 10)
    equal-frequency bins. ``scores_`` (d,) holds the statistic."""

    name = "chi"
    _key = "chi"


class PearsonTopK(Selector):
    """Top-k by |corr(feature, label)| over the training rows (constant features get 1e-6).
    ``scores_`` (d,) holds the absolute correlation."""

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

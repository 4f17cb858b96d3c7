"""The selector interface shared by every feature-selection method.

A selector follows scikit-learn's estimator style: the constructor takes hyperparameters
only; ``fit(X, y, qid=..., X_val=..., y_val=..., qid_val=...)`` learns and sets attributes
ending in ``_``:

    ranking_  int64 (d,)    0-based feature indices, most useful first
    scores_   float64 (d,)  the method's score of every feature (by feature index), or None
    seconds_  float         wall-clock seconds spent in ``fit``
    chosen_   dict          hyperparameters the method chose itself (e.g. on vali)

``support(k)`` gives the 0-based indices of the k-feature subset, ``transform(X, k)`` the
k-feature view of X.
"""
from __future__ import annotations

import time

import numpy as np
from ltrfs.estimator import Estimator

from ltrfs.data import query_ptr_from_qid


class Selector(Estimator):
    #: name used in configs and on the command line
    name: str = ""
    #: per-fold scorers (``ltrfs.scoring.SCORERS``) the method reads when the workflow has them
    requires: tuple[str, ...] = ()
    #: False for methods whose output does not depend on k (WAF keeps every feature)
    uses_k: bool = True
    #: True when the k-subsets are prefixes of ``ranking_`` (the greedy/top-k methods)
    prefix_consistent: bool = True

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None, precomputed=None):
        """Learn the feature order. ``precomputed`` maps scorer name -> dict of arrays."""
        X = np.asarray(X)
        y = np.asarray(y)
        if X.ndim != 2 or len(y) != len(X):
            raise ValueError(f"X must be (m, d) with one label per row; got X {X.shape}, y {y.shape}")
        query_ptr, _ = query_ptr_from_qid(np.asarray(qid))
        start = time.perf_counter()
        self.chosen_ = {}
        self.scores_ = None
        self._fit(X, y, query_ptr, X_val, y_val, qid_val, precomputed or {})
        self.seconds_ = time.perf_counter() - start
        self.n_features_in_ = X.shape[1]
        return self

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):  # pragma: no cover
        raise NotImplementedError

    def support(self, k: int | None = None) -> np.ndarray:
        """0-based indices of the k selected features (all features when k is None)."""
        if not self.uses_k or k is None:
            return np.sort(self.ranking_)
        if not 1 <= k <= len(self.ranking_):
            raise ValueError(f"k={k} is outside 1..{len(self.ranking_)} (the number of features)")
        return np.asarray(self.ranking_[:k], dtype=np.int64)

    def transform(self, X, k: int | None = None) -> np.ndarray:
        return np.asarray(X)[:, self.support(k)]

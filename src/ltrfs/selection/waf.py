"""WAF: "without any feature selection", the all-features baseline of every paper."""
from __future__ import annotations

import numpy as np

from ltrfs.selection.base import Selector


class WAF(Selector):
    """Keeps every feature; ``ranking_`` is the file order, k is ignored."""

    name = "waf"
    uses_k = False

    def __init__(self):  # no hyperparameters
        pass

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.ranking_ = np.arange(X.shape[1], dtype=np.int64)

"""Random-k: a seeded random order of the features, the chance baseline of a selector."""
from __future__ import annotations

import numpy as np

from ltrfs.params import Integer
from ltrfs.selection.base import Selector


class RandomK(Selector):
    """The first k features of a random permutation drawn with ``random_state`` (None: a fresh
    seed on every fit)."""

    name = "random"
    parameters = {"random_state": [Integer(0), None]}

    def __init__(self, random_state: int = 0):
        self.random_state = random_state

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.ranking_ = np.random.default_rng(self.random_state).permutation(X.shape[1]).astype(np.int64)

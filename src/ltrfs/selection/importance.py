"""Single-feature importance top-k (SPEC section 2): rank the features by the metric that
each one reaches alone on the training queries, keep the best k."""
from __future__ import annotations

import numpy as np

from ltrfs import scoring
from ltrfs.selection.base import Selector


class ImportanceTopK(Selector):
    """Top-k features by single-feature ``metric`` (default NDCG@10) on train.

    ``orientation``: ``descending`` ranks by the feature value as it is (the papers' choice),
    ``best`` also tries the ascending order and keeps the better one. ``convention`` is the
    metric convention (``ltrfs.metrics``); the workflow passes the dataset's. Ties in
    importance keep the lower feature index first.
    """

    name = "importance"
    requires = ("single_feature",)

    def __init__(self, metric: str = "ndcg@10", orientation: str = "descending",
                 convention: str = "letor4"):
        self.metric = metric
        self.orientation = orientation
        self.convention = convention

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        table = precomputed.get("single_feature")
        if table is None:
            table = scoring.single_feature_table(X, y, query_ptr, convention=self.convention)
        imp, sign = scoring.importance(table, self.metric, self.orientation)
        self.scores_ = imp
        self.sign_ = sign
        self.ranking_ = np.argsort(-imp, kind="stable").astype(np.int64)

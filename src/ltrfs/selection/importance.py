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

    def validate_params(self):
        from ltrfs.metrics import CONVENTIONS

        if self.metric.lower() not in scoring.SINGLE_FEATURE_METRICS:
            raise ValueError(f"unknown importance metric {self.metric!r}; valid: {', '.join(scoring.SINGLE_FEATURE_METRICS)}")
        if self.orientation not in ("descending", "best"):
            raise ValueError(f"unknown orientation {self.orientation!r}; valid: descending, best")
        if self.convention not in CONVENTIONS:
            raise ValueError(f"unknown convention {self.convention!r}; valid: {', '.join(CONVENTIONS)}")

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.validate_params()
        table = precomputed.get("single_feature")
        # a cached table computed in another metric convention is not this method's
        if table is not None and str(table.get("convention", self.convention)) != self.convention:
            table = None
        if table is None:
            table = scoring.single_feature_table(X, y, query_ptr, convention=self.convention)
        imp, sign = scoring.importance(table, self.metric, self.orientation)
        self.scores_ = imp
        self.sign_ = sign
        self.ranking_ = np.argsort(-imp, kind="stable").astype(np.int64)

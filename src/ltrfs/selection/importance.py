"""Single-feature importance top-k (docs/methods.md, section 'Single-feature
importance'): rank the features by the metric that each one reaches alone on the training
queries, keep the best k."""
from __future__ import annotations

import numpy as np

from ltrfs import scoring
from ltrfs.metrics import check_ties
from ltrfs.selection.base import Selector, single_feature_scores


class ImportanceTopK(Selector):
    """Top-k features by single-feature ``metric`` (default NDCG@10) on train.

    ``orientation``: ``descending`` ranks by the feature value as it is (the papers' choice),
    ``best`` also tries the ascending order and keeps the better one. ``convention`` is the
    metric convention (``ltrfs.metrics``); the workflow passes the dataset's. ``ties``
    ("expected", default, or "file_order") is how a query ranked by one feature orders the
    documents whose values are equal: in expectation over their orders, so that the data file's
    order earns a feature nothing. Ties in importance keep the lower feature index first.
    """

    name = "importance"
    requires = ("single_feature",)

    def __init__(self, metric: str = "ndcg@10", orientation: str = "descending",
                 convention: str = "letor4", ties: str = "expected"):
        self.metric = metric
        self.orientation = orientation
        self.convention = convention
        self.ties = ties

    def validate_params(self):
        from ltrfs.metrics import CONVENTIONS

        if self.metric.lower() not in scoring.SINGLE_FEATURE_METRICS:
            raise ValueError(f"unknown importance metric {self.metric!r}; valid: {', '.join(scoring.SINGLE_FEATURE_METRICS)}")
        if self.orientation not in ("descending", "best"):
            raise ValueError(f"unknown orientation {self.orientation!r}; valid: descending, best")
        if self.convention not in CONVENTIONS:
            raise ValueError(f"unknown convention {self.convention!r}; valid: {', '.join(CONVENTIONS)}")
        check_ties(self.ties)

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.validate_params()
        table = single_feature_scores(X, y, query_ptr, precomputed, self.convention, self.ties)
        imp, sign = scoring.importance(table, self.metric, self.orientation)
        self.scores_ = imp
        self.sign_ = sign
        self.ranking_ = np.argsort(-imp, kind="stable").astype(np.int64)

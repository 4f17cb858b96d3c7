"""Single-feature importance top-k (docs/methods.md, section 'Single-feature
importance'): rank the features by the metric that each one reaches alone on the training
queries, keep the best k."""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.params import Convention, Options
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
    parameters = {
        "metric": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "orientation": [Options("descending", "best")],
        "convention": [Convention()],
        "ties": [Options(*metrics.TIES)],
    }

    def __init__(self, metric: str = "ndcg@10", orientation: str = "descending",
                 convention: str = "letor4", ties: str = "expected"):
        self.metric = metric
        self.orientation = orientation
        self.convention = convention
        self.ties = ties

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        table = single_feature_scores(X, y, query_ptr, precomputed, self.convention, self.ties)
        imp, sign = scoring.importance(table, self.metric, self.orientation)
        self.scores_ = imp
        self.sign_ = sign
        self.ranking_ = np.argsort(-imp, kind="stable").astype(np.int64)

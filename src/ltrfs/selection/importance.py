"""Single-feature importance top-k (docs/methods.md, section 'Single-feature
importance'): rank the features by the metric that each one reaches alone on the training
queries, keep the best k."""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Options
from ltrfs.selection.base import Selector, single_feature_scores


@fill_doc
class ImportanceTopK(Selector):
    """Top k features by the metric each one reaches alone on the training queries.

    Each training query is ranked by the feature's values (descending, or also ascending with
    ``orientation="best"``) and the metric is averaged over the queries; the k features of highest
    metric are the k-subset (ties: lower feature index first), so the subsets are prefixes of
    ``ranking_``.

    Parameters
    ----------
    metric : str, default "ndcg@10"
        The single-feature metric, any key of ``ltrfs.scoring.SINGLE_FEATURE_METRICS``
        (``p@1``..``p@10``, ``map``, ``ndcg@1``..``ndcg@10``, ``meanndcg``; any case).
    orientation : {"descending", "best"}, default "descending"
        "descending" ranks by the value as it is (the papers' reading); "best" also tries the
        ascending order and keeps the better of the two.
    convention : str, default "letor4"
        Metric convention (``ltrfs.metrics.CONVENTIONS``: letor3, letor4, mslr, standard); the
        workflow passes the dataset's.
    ties : {"expected", "file_order"}, default "expected"
        How documents with equal feature values are ordered: in expectation over their orders (so
        that the data file's order earns a feature nothing), or in file order.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by importance, descending.
    scores_ : float64 (d,)
        The importance (the metric, of the better orientation with "best").
    sign_ : float64 (d,)
        +1, or -1 where the ascending order won (``orientation="best"``).
    %(selector_plain_attributes)s

    Notes
    -----
    A precomputed ``single_feature`` table (the workflow's ``score`` stage) is used when it was
    computed in the same convention and tie rule; otherwise the table is computed here
    (``ltrfs.scoring.single_feature_table``).

    References
    ----------
    Geng et al., SIGIR 2007, section 2.2 (importance of a feature: an evaluation measure of the
    ranking by that feature alone); Gupta and Rosso, COLING 2012, section 2 (``s(f)`` of eq. 1).
    See docs/methods.md, section 'Single-feature importance'.

    Examples
    --------
    >>> from ltrfs.selection.importance import ImportanceTopK
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = ImportanceTopK(metric="ndcg@10").fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "importance"
    requires = ("single_feature",)
    parameters = {
        "metric": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "orientation": [Options("descending", "best")],
        "convention": [ConventionLike()],
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

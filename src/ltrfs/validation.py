"""Choosing a model on the validation split: one mechanism for every tuned method and ranker.

A vali grid (a ranker's C, FSMRank's lambdas, GAS's c, Greedy RankRLS's lambda and k, a number
of features t, a boosting round) is scored by the mean over vali queries of a metric, computed
with ``ties="expected"`` by default (``ltrfs.metrics``): a model that ties documents earns the
expected value over the orders of the tied documents, not the credit of the data file's order.

A model whose scores are constant within every vali query (all-zero weights, one tied value)
is *degenerate*: it ranks nothing. It is recorded with its score but never chosen; when every
point of a grid is degenerate, ``ValiChoice.best`` raises ``DegenerateGridError`` naming the
method and the grid.

    choice = ValiChoice("fsmrank", y_val, ptr_val, metric="map", convention="letor4")
    for point in grid:
        choice.offer(point, model.predict(X_val), payload=model)
    point, model, value = choice.best
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics

__all__ = ["SELECTION_TIES", "DegenerateGridError", "constant_within_queries", "vali_score", "ValiChoice"]

#: how selection and tuning rank tied documents (the reported test metrics use "file_order")
SELECTION_TIES = "expected"


class DegenerateGridError(ValueError):
    """Every candidate of a vali grid gives constant scores within every vali query."""


def constant_within_queries(scores, query_ptr) -> bool:
    """True when the scores (m,) are equal inside every query (``query_ptr`` (q + 1,) offsets):
    the ranking is the file order alone, whatever the metric says."""
    scores = np.asarray(scores, dtype=np.float64)
    ptr = np.asarray(query_ptr, dtype=np.int64)
    if scores.size < 2:
        return True
    same_as_previous = scores[1:] == scores[:-1]
    same_as_previous[ptr[1:-1] - 1] = True  # a query boundary is no change inside a query
    return bool(same_as_previous.all())


def vali_score(y, scores, query_ptr, metric: str, convention="letor4",
               ties: str = SELECTION_TIES) -> tuple[float, bool]:
    """(mean of ``metric`` over the queries, degenerate?) of one candidate's scores (m,)."""
    value = float(metrics.metric_per_query(y, scores, query_ptr, metric, convention, ties).mean())
    return value, constant_within_queries(scores, query_ptr)


class ValiChoice:
    """The best non-degenerate candidate of a vali grid (ties keep the earlier candidate).

    what        the method or ranker, named in the error when every candidate is degenerate
    y, query_ptr  the vali labels (m,) and query offsets (q + 1,)
    metric, convention, ties  as ``ltrfs.metrics.metric_per_query``

    ``offer(point, scores, payload=None, keep=None)`` scores one candidate and returns its vali
    value (``keep``, e.g. ``copy.deepcopy``, is applied to the payload when it becomes the best:
    for a model that is refitted in place at the next grid point);
    ``trials`` lists every offer as ``{"params": point, "vali": value, "degenerate": bool}``;
    ``best`` is ``(point, payload, value)`` of the best non-degenerate offer.
    """

    def __init__(self, what: str, y, query_ptr, metric: str, convention="letor4",
                 ties: str = SELECTION_TIES):
        self.what = what
        self.y = np.asarray(y)
        self.query_ptr = np.asarray(query_ptr)
        self.metric = metric
        self.convention = convention
        self.ties = metrics.check_ties(ties)
        self.trials: list[dict] = []
        self._best = None

    def score(self, scores) -> tuple[float, bool]:
        return vali_score(self.y, scores, self.query_ptr, self.metric, self.convention, self.ties)

    def offer(self, point, scores, payload=None, keep=None) -> float:
        value, degenerate = self.score(scores)
        return self.offer_value(point, value, degenerate, payload, keep)

    def offer_value(self, point, value: float, degenerate: bool, payload=None, keep=None) -> float:
        """Record a candidate scored elsewhere (``vali_score``); returns ``value``."""
        self.trials.append({"params": point, "vali": value, "degenerate": bool(degenerate)})
        if not degenerate and (self._best is None or value > self._best[2]):
            self._best = (point, payload if keep is None else keep(payload), value)
        return value

    @property
    def found(self) -> bool:
        return self._best is not None

    @property
    def best(self):
        if self._best is None:
            grid = ", ".join(str(t["params"]) for t in self.trials[:6])
            more = f" and {len(self.trials) - 6} more" if len(self.trials) > 6 else ""
            raise DegenerateGridError(
                f"{self.what}: every vali candidate ({grid}{more}) gives the same score to all documents "
                "of every vali query (a degenerate model); widen the grid (e.g. smaller penalties)")
        return self._best

"""Hyperparameters chosen on the validation split: one mechanism for every tuned method and
ranker (``ValiChoice``), and the grid search of a ranker (``grid_points``, ``search``).

A vali grid (a ranker's C, FSMRank's lambdas, GAS's c, Greedy RankRLS's lambda and k, a number
of features t, a boosting round) is scored by the mean over vali queries of a metric, computed
with ``ties="expected"`` by default (``ltrfs.metrics``): a model that ties documents earns the
expected value over the orders of the tied documents, not the credit of the data file's order.

A choice at an edge of its grid (the largest C of a RankSVM grid) is told in one warning line
(logger ``ltrfs``: the job's log in the workflow, ``ltrfs: warning: ...`` on the command line),
naming the parameter and the edge (``grid_edges``): the best value may lie beyond the grid.

A model whose scores are constant within every vali query (all-zero weights, one tied value)
is *degenerate*: it ranks nothing. It is recorded with its score but never chosen; when every
point of a grid is degenerate, ``ValiChoice.best`` raises ``DegenerateGridError`` naming the
method and the grid.

    choice = ValiChoice("fsmrank", y_val, ptr_val, metric="map", convention="letor4")
    for point in grid:
        choice.offer(point, model.predict(X_val), payload=model)
    point, model, value = choice.best

``search`` runs that loop for a ranker class over its grid (``grid_points``), refitting in
place where the solver can restart from its previous state.
"""
from __future__ import annotations

import copy
import itertools
import logging
import time

import numpy as np

from ltrfs import metrics
from ltrfs.ranking_data import constant_within_queries

__all__ = ["SELECTION_TIES", "DegenerateGridError", "vali_score", "grid_edges",
           "ValiChoice", "expand_grid", "grid_points", "checked_points", "search"]

log = logging.getLogger("ltrfs")

#: how selection and tuning rank tied documents (the reported test metrics use "file_order")
SELECTION_TIES = "expected"


class DegenerateGridError(ValueError):
    """Every candidate of a vali grid gives constant scores within every vali query."""


def vali_score(y, scores, query_ptr, metric: str, convention="letor4",
               ties: str = SELECTION_TIES) -> tuple[float, bool]:
    """The vali value of one candidate's scores, and whether the candidate is degenerate.

    Parameters
    ----------
    y : array-like of shape (m,)
        Vali labels.
    scores : array-like of shape (m,)
        The candidate's scores.
    query_ptr : array-like of int64, shape (q + 1,)
        Vali query offsets.
    metric : str
        The vali metric.
    convention : str or Convention, default "letor4"
        Metric convention.
    ties : {"expected", "file_order"}, default "expected"
        As ``ltrfs.metrics.metric_per_query``.

    Returns
    -------
    value : float
        Mean of ``metric`` over the queries.
    degenerate : bool
        Whether the scores are constant within every query.
    """
    value = float(metrics.metric_per_query(y, scores, query_ptr, metric, convention, ties).mean())
    column = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
    return value, bool(constant_within_queries(column, query_ptr)[0])


def _as_mapping(point, names) -> dict:
    """A grid point as parameter name -> value: a dict as it is, a scalar or tuple by ``names``."""
    if isinstance(point, dict):
        return point
    if names is None:
        return {}
    if isinstance(names, str):
        return {names: point}
    return {name: value for name, value in zip(names, point) if name is not None}


def grid_edges(points, chosen, names=None) -> list[str]:
    """What to tell when a chosen grid point is at an edge of its grid.

    A parameter counts when the points give it at least 3 distinct numbers (with 2, every choice
    is an edge) and the chosen value is the smallest or the largest of them. A smallest value of
    0 is a bound, not a guess (a penalty or a weight cannot go below it), and is not told.

    Parameters
    ----------
    points : list
        The grid points offered (dicts, or scalars/tuples named by ``names``).
    chosen : dict, scalar or tuple
        The chosen point.
    names : str, sequence of str or None, or None
        The parameter of a scalar point, or of each entry of a tuple point (None: not a grid
        parameter, e.g. a number of features); dict points name their own.

    Returns
    -------
    list of str
        One line per parameter at an edge, e.g. ``"C = 5.24 chosen on vali is the largest value
        of its grid (0.01 .. 5.24, 20 values); the best C may lie beyond it: widen the grid"``.

    Examples
    --------
    >>> print(*grid_edges([{"C": 0.1}, {"C": 1}, {"C": 10}], {"C": 10}))
    C = 10 chosen on vali is the largest value of its grid (0.1 .. 10, 3 values); the best C may lie
    beyond it: widen the grid
    >>> grid_edges([{"C": 0.1}, {"C": 1}, {"C": 10}], {"C": 1})
    []
    """
    chosen = _as_mapping(chosen, names)
    lines = []
    for name, value in chosen.items():
        values = {v for point in points for key, v in _as_mapping(point, names).items()
                  if key == name and isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))}
        if len(values) < 3 or not isinstance(value, (int, float, np.number)) or isinstance(value, (bool, np.bool_)):
            continue
        low, high = min(values), max(values)
        edge = "largest" if value == high else "smallest" if value == low and value != 0 else None
        if edge:
            lines.append(f"{name} = {value:g} chosen on vali is the {edge} value of its grid ({low:g} .. {high:g}, "
                         f"{len(values)} values); the best {name} may lie beyond it: widen the grid")
    return lines


class ValiChoice:
    """The best non-degenerate candidate of a vali grid (ties keep the earlier candidate).

    Parameters
    ----------
    what : str
        The method or ranker, named in the error when every candidate is degenerate.
    y : array-like of shape (m,)
        The vali labels.
    query_ptr : array-like of int64, shape (q + 1,)
        The vali query offsets.
    metric : str
        The vali metric.
    convention : str or Convention, default "letor4"
        As ``ltrfs.metrics.metric_per_query``.
    ties : {"expected", "file_order"}, default "expected"
        As ``ltrfs.metrics.metric_per_query``.
    names : str, sequence of str or None, default None
        The parameter of scalar points, or of each entry of tuple points (``grid_edges``); dict
        points name their own. ``best`` warns once (logger ``ltrfs``) when the chosen point is at
        an edge of the grid.

    Attributes
    ----------
    trials : list of dict
        Every offer as ``{"params": point, "vali": value, "degenerate": bool}``.
    best : tuple
        ``(point, payload, value)`` of the best non-degenerate offer (raises
        ``DegenerateGridError`` when there is none).
    found : bool
        Whether a non-degenerate offer was made.

    Examples
    --------
    >>> import numpy as np
    >>> choice = ValiChoice("demo", np.array([1, 0, 0, 1]), np.array([0, 2, 4]), metric="map")
    >>> choice.offer({"C": 1}, np.array([0.0, 0.0, 0.0, 0.0]))  # constant: degenerate
    0.75
    >>> choice.offer({"C": 10}, np.array([2.0, 1.0, 0.0, 1.0]), payload="model")
    1.0
    >>> choice.best
    ({'C': 10}, 'model', 1.0)
    """

    def __init__(self, what: str, y, query_ptr, metric: str, convention="letor4",
                 ties: str = SELECTION_TIES, names=None):
        self.what = what
        self.names = names
        self._edges_told = False
        self.y = np.asarray(y)
        self.query_ptr = np.asarray(query_ptr)
        self.metric = metric
        self.convention = convention
        self.ties = metrics.check_ties(ties)
        self.trials: list[dict] = []
        self._best = None

    def score(self, scores) -> tuple[float, bool]:
        """The vali value of ``scores`` and whether they are degenerate (``vali_score``)."""
        return vali_score(self.y, scores, self.query_ptr, self.metric, self.convention, self.ties)

    def offer(self, point, scores, payload=None, keep=None) -> float:
        """Score one candidate on vali and record it.

        Parameters
        ----------
        point : dict
            The candidate's grid point.
        scores : array-like of shape (m,)
            Its scores on the vali rows.
        payload : object, default None
            What ``best`` returns with the point (e.g. the model).
        keep : callable or None, default None
            Applied to the payload when it becomes the best (e.g. ``copy.deepcopy``, for a model that
            is refitted in place at the next grid point).

        Returns
        -------
        float
            The candidate's vali value.
        """
        value, degenerate = self.score(scores)
        return self.offer_value(point, value, degenerate, payload, keep)

    def offer_value(self, point, value: float, degenerate: bool, payload=None, keep=None) -> float:
        """Record a candidate scored elsewhere (``vali_score``).

        Parameters
        ----------
        point : dict
            The candidate's grid point.
        value : float
            Its vali value.
        degenerate : bool
            Whether its scores are constant within every vali query.
        payload, keep
            As ``offer``.

        Returns
        -------
        float
            ``value``.
        """
        self.trials.append({"params": point, "vali": value, "degenerate": bool(degenerate)})
        if not degenerate and (self._best is None or value > self._best[2]):
            self._best = (point, payload if keep is None else keep(payload), value)
        return value

    @property
    def found(self) -> bool:
        """Whether a non-degenerate candidate was offered."""
        return self._best is not None

    @property
    def best(self):
        """``(point, payload, value)`` of the best non-degenerate candidate; ``DegenerateGridError`` when none."""
        if self._best is None:
            grid = ", ".join(str(t["params"]) for t in self.trials[:6])
            more = f" and {len(self.trials) - 6} more" if len(self.trials) > 6 else ""
            raise DegenerateGridError(
                f"{self.what}: every vali candidate ({grid}{more}) gives the same score to all documents "
                "of every vali query (a degenerate model); widen the grid (e.g. smaller penalties)")
        if not self._edges_told:
            self._edges_told = True
            for line in grid_edges([t["params"] for t in self.trials], self._best[0], self.names):
                log.warning("%s: %s", self.what, line)
        return self._best


# ----------------------------------------------------------------------------- grid search

def expand_grid(grid: dict | None) -> list[dict]:
    """The points of a grid, in grid order.

    >>> expand_grid({"C": [1, 2], "x": [3]})
    [{'C': 1, 'x': 3}, {'C': 2, 'x': 3}]
    """
    if not grid:
        return [{}]
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def grid_points(cls, params: dict | None = None, grid: dict | None = None) -> list[dict]:
    """The grid points of a configured estimator.

    Parameters
    ----------
    cls : type
        The estimator class; its ``default_grid`` (dict of lists) is used when ``grid`` is None.
    params : dict, optional
        Fixed parameters: the default grid leaves them out.
    grid : dict of lists, optional
        The configured grid.

    Returns
    -------
    list of dict
        ``expand_grid`` of the grid; a ``ValueError`` names a key whose values are not a
        non-empty list.
    """
    if grid is None:
        fixed = params or {}
        grid = {key: values for key, values in getattr(cls, "default_grid", {}).items() if key not in fixed}
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"grid {key!r} must be a non-empty list, got {values!r}")
    return expand_grid(grid)


def checked_points(make, points: list[dict]) -> list[dict]:
    """The grid points, after the estimator of every point is built and its parameters validated.

    What the config check and ``ltrfs train`` do before any data is read.

    Parameters
    ----------
    make : callable
        Builds an estimator: ``make(**point)``.
    points : list of dict
        The grid points.

    Returns
    -------
    list of dict
        ``points``.

    Raises
    ------
    ValueError
        One line naming the parameter, for the first invalid point.
    """
    for point in points:
        make(**point).validate_params()
    return points


def search(make, points: list[dict], train, vali, *, what: str, metric: str, convention: str,
           ties: str = SELECTION_TIES, warm_start: bool = False):
    """Fit ``make(**point)`` on train at every grid point; keep the best on vali.

    Parameters
    ----------
    make : callable
        ``make(**point)`` builds the estimator, every other parameter bound (context included,
        ``ltrfs.context``).
    points : list of dict
        The grid (``grid_points``).
    train, vali : RankingData
        ``vali`` None: ``points`` must have one point, fitted without early stopping or choice.
    what : str
        The estimator's name, in the log and in the error when every model is degenerate.
    metric, convention, ties : str
        The vali metric, its convention and how tied scores are ranked (``ValiChoice``).
    warm_start : bool, default False
        The estimator can restart from its previous state (RankSVM keeps its cutting planes,
        valid for every C): it is refitted in place along the grid (``set_params``), and the best
        is kept as a copy.

    Returns
    -------
    model, point, trials
        The fitted estimator, its grid point, and every point as {params, vali, degenerate,
        seconds}. Ties keep the earlier point; a degenerate model is never chosen.
    """
    if vali is None and len(points) > 1:
        raise ValueError(f"a grid of {len(points)} points needs a validation split to choose from")
    choice = None if vali is None else ValiChoice(what, vali.y, vali.query_ptr, metric, convention, ties)
    model = None
    for point in points:
        start = time.perf_counter()
        if warm_start and model is not None:
            model.set_params(**point)
        else:
            model = make(**point)
        if vali is None:
            model.fit(train.X, train.y, train.qid)
            return model, point, [{"params": point, "vali": None, "seconds": round(time.perf_counter() - start, 4)}]
        model.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
        # a model refitted in place at the next grid point is kept as a copy when it is the best
        value = choice.offer(point, model.predict(vali.X), payload=model, keep=copy.deepcopy if warm_start else None)
        seconds = time.perf_counter() - start
        choice.trials[-1]["seconds"] = round(seconds, 4)
        log.info("  %s %s: vali %s = %.4f%s (%.2f s)", what, point, metric, value,
                 " (degenerate: constant scores)" if choice.trials[-1]["degenerate"] else "", seconds)
    point, model, _ = choice.best
    return model, point, choice.trials

"""Tests of ltrfs.tuning: degenerate models are never chosen on vali, and a grid of only
degenerate models stops with a one-line error naming the method."""
from __future__ import annotations

import numpy as np
import pytest

from ltrfs.ranking_data import constant_within_queries
from ltrfs.tuning import DegenerateGridError, ValiChoice, vali_score

PTR = np.array([0, 3, 5])
Y = np.array([0, 1, 2, 1, 0])


def test_constant_within_queries():
    scores = np.array([[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, -2.0, -2.0], [0.0, -2.0, -1.0]])
    assert constant_within_queries(scores, PTR).tolist() == [True, True, False]  # the middle: a constant per query
    assert constant_within_queries(np.array([[3.0]]), np.array([0, 1])).tolist() == [True]
    assert vali_score(Y, scores[:, 1], PTR, "p@1")[1] and not vali_score(Y, scores[:, 2], PTR, "p@1")[1]


def test_vali_score_is_tie_aware_by_default():
    # all tied: file order ranks labels [0, 1, 2] and [1, 0]; expected order is their mean
    value, degenerate = vali_score(Y, np.zeros(5), PTR, "p@1")
    assert degenerate and value == pytest.approx((2 / 3 + 1 / 2) / 2)
    value, _ = vali_score(Y, np.zeros(5), PTR, "p@1", ties="file_order")
    assert value == pytest.approx((0 + 1) / 2)


def test_degenerate_candidate_never_wins_even_with_the_best_score():
    choice = ValiChoice("demo", Y, PTR, "p@1", ties="file_order")
    perfect_by_file_order = np.array([0.0, 0.0, 0.0, 5.0, 5.0])  # file order puts label 0 first in query 1
    choice.offer({"c": 0}, np.array([3.0, 2.0, 1.0, 1.0, 2.0]), payload="worst")  # p@1 = 0
    choice.offer({"c": 1}, perfect_by_file_order, payload="tied")
    choice.offer({"c": 2}, np.array([1.0, 2.0, 3.0, 1.0, 0.0]), payload="good")  # p@1 = 1
    choice.offer({"c": 3}, np.array([1.0, 2.0, 3.0, 2.0, 0.0]), payload="equal")  # same value: earlier kept
    point, payload, value = choice.best
    assert point == {"c": 2} and payload == "good" and value == 1.0
    assert [t["degenerate"] for t in choice.trials] == [False, True, False, False]


def test_all_degenerate_grid_is_a_one_line_error():
    choice = ValiChoice("fsmrank", Y, PTR, "map")
    for lam in (0.1, 1.0):
        choice.offer({"lambda2": lam}, np.zeros(5))
    assert not choice.found
    with pytest.raises(DegenerateGridError, match=r"^fsmrank: every vali candidate \({'lambda2': 0.1}, "
                                                  r"{'lambda2': 1.0}\) gives the same score") as err:
        choice.best
    assert "\n" not in str(err.value)


def test_grid_edges_name_the_parameter_and_the_edge():
    from ltrfs.tuning import grid_edges

    grid = [{"C": c, "eta": e} for c in (0.01, 0.1, 5.24) for e in (0.1, 0.3)]
    assert grid_edges(grid, {"C": 5.24, "eta": 0.3}) == [
        "C = 5.24 chosen on vali is the largest value of its grid (0.01 .. 5.24, 3 values); the best C may lie "
        "beyond it: widen the grid"]  # eta has 2 values: every choice of it is an edge, so none is told
    assert grid_edges(grid, {"C": 0.01, "eta": 0.1})[0].startswith("C = 0.01 chosen on vali is the smallest value")
    assert grid_edges(grid, {"C": 0.1, "eta": 0.3}) == []
    assert grid_edges([0, 0.5, 1], 0, names="c") == []  # 0 is a bound, not a guess
    assert grid_edges([0, 0.5, 1], 1, names="c")[0].startswith("c = 1 chosen on vali is the largest")
    points = [(lam, t) for lam in (0.1, 1.0, 10.0) for t in (1, 2, 3)]
    assert grid_edges(points, (0.1, 3), names=("lam", None)) == [
        "lam = 0.1 chosen on vali is the smallest value of its grid (0.1 .. 10, 3 values); the best lam may lie "
        "beyond it: widen the grid"]  # t (a number of features) is not a grid parameter
    assert grid_edges(points, (0.1, 3)) == []  # unnamed scalars: nothing to name
    assert grid_edges([{"solver": s} for s in "abc"], {"solver": "c"}) == []


def test_a_choice_at_the_edge_warns_once_in_the_job_log(caplog):
    """The warning goes to logger ``ltrfs``, whose records reach the root handler that a workflow
    job's ``log_to`` installs (and the command line's ``ltrfs: warning:`` line)."""
    choice = ValiChoice("ranksvm", Y, PTR, "p@1", ties="file_order")
    for c, scores in ((0.01, [3.0, 2.0, 1.0, 1.0, 2.0]), (0.1, [1.0, 2.0, 3.0, 1.0, 0.0]),
                      (5.24, [1.0, 2.0, 4.0, 2.0, 0.0])):
        choice.offer({"C": c}, np.array(scores))
    with caplog.at_level("WARNING", logger="ltrfs"):
        assert choice.best[0] == {"C": 0.1}  # ties keep the earlier point: C = 0.1, inside the grid
    assert caplog.records == []
    inner = ValiChoice("ranksvm", Y, PTR, "p@1", ties="file_order")
    for c, scores in ((0.01, [3.0, 2.0, 1.0, 1.0, 2.0]), (0.1, [3.0, 2.0, 1.0, 2.0, 1.0]),
                      (5.24, [1.0, 2.0, 3.0, 1.0, 0.0])):
        inner.offer({"C": c}, np.array(scores))
    with caplog.at_level("WARNING", logger="ltrfs"):
        inner.best
        inner.best
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ltrfs", "WARNING", "ranksvm: C = 5.24 chosen on vali is the largest value of its grid (0.01 .. 5.24, "
                             "3 values); the best C may lie beyond it: widen the grid")]

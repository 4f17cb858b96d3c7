"""Tests of ltrfs.tuning: degenerate models are never chosen on vali, and a grid of only
degenerate models stops with a one-line error naming the method."""
from __future__ import annotations

import numpy as np
import pytest

from ltrfs.tuning import DegenerateGridError, ValiChoice, constant_within_queries, vali_score

PTR = np.array([0, 3, 5])
Y = np.array([0, 1, 2, 1, 0])


def test_constant_within_queries():
    assert constant_within_queries(np.zeros(5), PTR)
    assert constant_within_queries(np.array([1.0, 1.0, 1.0, -2.0, -2.0]), PTR)  # a constant per query
    assert not constant_within_queries(np.array([1.0, 1.0, 1.0, -2.0, -1.0]), PTR)
    assert constant_within_queries(np.array([3.0]), np.array([0, 1]))


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

"""mRMR for ranking (Shirzad & Keyvanpour 2015): a hand-computed case, the greedy against a plain
loop in both criteria, and the house rules."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import planted
from ltrfs.selection import make_selector
from ltrfs.selection.mrmr import EPS, mrmr_order
from test_gigli import TINY_S35, random_problem, tiny_fit


def plain_mrmr(R, S, criterion):
    """Every step recomputes the mean similarity to the picks from scratch."""
    picked = [max(range(len(R)), key=lambda f: (R[f], -f))]
    free = [f for f in range(len(R)) if f != picked[0]]
    while free:
        def score(f):
            mean = sum(S[f, g] for g in picked) / len(picked)
            return R[f] - mean if criterion == "difference" else R[f] / max(mean, EPS)

        pick = max(free, key=lambda f: (score(f), -f))
        picked.append(pick)
        free.remove(pick)
    return picked


def test_mrmr_tiny_order_by_hand():
    """R = (0.5, 0.6, 0.4, 0.3), S x 35 as in test_gigli. First f1. Then R - S(., f1):
    f0 0.5 - 33/35 = -0.443, f2 0.4 - 27/35 = -0.371, f3 0.3 - 3/35 = 0.214: f3. Then
    R - mean S over {f1, f3}: f0 0.5 - 34/70 = 0.014, f2 0.4 - 40/70 = -0.171: f0. Last f2."""
    assert tiny_fit("mrmr").ranking_.tolist() == [1, 3, 0, 2]
    # quotient: f3 0.3 / (3/35) = 3.5 leads; then f0 0.5 / (34/70) = 1.03 > f2 0.4 / (40/70) = 0.7
    assert tiny_fit("mrmr", criterion="quotient").ranking_.tolist() == [1, 3, 0, 2]
    R = np.array([0.5, 0.6, 0.4, 0.3])
    np.testing.assert_allclose(R[[0, 2, 3]] - TINY_S35[1, [0, 2, 3]] / 35, [-0.4428571, -0.3714286, 0.2142857],
                               atol=1e-7)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("criterion", ["difference", "quotient"])
def test_mrmr_matches_a_plain_loop(seed, criterion):
    R, S = random_problem(seed, 35)
    S[3, :] = S[:, 3] = 0.0                                 # dissimilar to all: a zero mean in the quotient
    S[3, 3] = 1.0
    assert mrmr_order(R, S, criterion).tolist() == plain_mrmr(R, S, criterion)


def test_quotient_with_zero_similarity_ranks_by_relevance():
    S = np.eye(4)
    assert mrmr_order([0.2, 0.9, 0.5, 0.7], S, "quotient").tolist() == [1, 3, 2, 0]


def test_mrmr_bad_criterion_is_one_line():
    data = planted(d=3)
    with pytest.raises(ValueError, match=r"^mrmr: criterion must be one of") as excinfo:
        make_selector("mrmr", criterion="ratio").fit(data.X, data.y, data.qid)
    assert "\n" not in str(excinfo.value)
    with pytest.raises(ValueError, match=r"unknown criterion 'ratio'"):
        mrmr_order([0.1], np.eye(1), "ratio")


def test_mrmr_records_its_choices():
    data = planted(d=4, informative=(2,), seed=3)
    sel = make_selector("mrmr", criterion="quotient", similarity="per_query").fit(data.X, data.y, data.qid)
    assert sel.chosen_ == {"metric": "ndcg@10", "relevance": "single_feature", "similarity": "per_query",
                           "criterion": "quotient"}
    assert int(sel.ranking_[0]) == 2


def test_empty_and_single_searches():
    from ltrfs.selection.ngas import ngas_order
    from ltrfs.selection.xgas import xgas_order

    for order in (mrmr_order, ngas_order, xgas_order):
        assert order(np.zeros(0), np.zeros((0, 0))).tolist() == []
        assert order([0.3], np.eye(1)).tolist() == [0]
        with pytest.raises(ValueError, match=r"similarity must be \(2, 2\); got shape \(3, 3\)"):
            order([0.1, 0.2], np.eye(3))

"""Selection must not learn the data file's order: on data written in label order (ranking a
query by file order is perfect), a feature constant within every query is ranked after every
other feature by every selector, and no vali grid chooses a degenerate model."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from ltrfs import metrics, scoring
from ltrfs.ranking_data import RankingData
from ltrfs.datasets import synthetic
from ltrfs.pipeline.select import fit_selector
from ltrfs.selection import SELECTORS
from ltrfs.tuning import DegenerateGridError
from test_selection import PLANTED_FLOORS

N_CONSTANT = 3  # zero everywhere, one value per query, and a column of ones


def label_ordered(data: RankingData) -> RankingData:
    """The same queries with each query's rows sorted by label, descending, and three constant
    features appended."""
    qidx = np.repeat(np.arange(data.n_queries), np.diff(data.query_ptr))
    order = np.lexsort((-data.y, qidx))
    per_query = qidx.astype(np.float32)[:, None]
    X = np.hstack([data.X[order], np.zeros((data.n_rows, 1), np.float32), per_query,
                   np.ones((data.n_rows, 1), np.float32)])
    return RankingData(X, data.y[order], data.query_ptr, data.query_ids)


@pytest.fixture(scope="module")
def splits():
    full, _ = synthetic.make(n_queries=150, seed=4)
    full = label_ordered(full)
    return full.subset_queries(np.arange(100)), full.subset_queries(np.arange(100, 150))


def test_file_order_is_perfect_and_a_constant_feature_gets_only_the_random_order(splits):
    train, _ = splits
    zero = np.zeros(train.n_rows)
    perfect = metrics.metric_per_query(train.y, train.y, train.query_ptr, "ndcg@10", "standard")
    np.testing.assert_array_equal(metrics.metric_per_query(train.y, zero, train.query_ptr, "ndcg@10", "standard"),
                                  perfect)  # 1, or 0 for a query without a relevant document
    table = scoring.single_feature_table(train.X, train.y, train.query_ptr, "standard")
    expected = metrics.metric_per_query(train.y, zero, train.query_ptr, "ndcg@10", "standard", ties="expected").mean()
    d = train.n_features
    np.testing.assert_allclose(table["ndcg@10"][d - N_CONSTANT:], expected, atol=1e-12)
    assert expected < perfect.mean() - 0.3


@pytest.mark.parametrize("name", sorted(PLANTED_FLOORS))
def test_no_selector_puts_a_constant_feature_in_its_top_k(splits, name):
    train, vali = splits
    d = train.n_features
    constant = set(range(d - N_CONSTANT, d))
    params = PLANTED_FLOORS[name][0]
    scores = {s: scoring.compute(s, train, "standard", vali) for s in SELECTORS[name].requires}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = fit_selector({"algorithm": name, "params": params}, train, vali, seed=1, convention="standard",
                           precomputed=scores)
    assert sel.constant_features_.tolist() == sorted(constant)
    if getattr(sel, "projection_", None) is not None:  # FS-BFS: no group uses a constant feature
        used = set(np.flatnonzero(np.abs(sel.projection_).sum(axis=1)).tolist())
        assert not used & constant
    else:
        assert set(sel.ranking_[d - N_CONSTANT:].tolist()) == constant


def test_fsmrank_never_chooses_the_all_zero_model(splits):
    """lambda2 = 1e3 zeroes every weight: its constant scores rank vali by file order, which is
    perfect here, so a plain argmax would choose it."""
    train, vali = splits
    method = {"algorithm": "fsmrank", "params": {"lambda1_grid": [0.0], "lambda2_grid": [1e-3, 1e3]}}
    for ties in ("expected", "file_order"):
        sel = fit_selector(method, train, vali, seed=1, convention="standard", ties=ties)
        grid = {row["lambda2"]: row for row in sel.details_["grid"]}
        assert grid[1e3]["nonzero"] == 0 and grid[1e3]["degenerate"]
        if ties == "file_order":  # the degenerate model has the best vali value and still loses
            assert grid[1e3]["vali"] > grid[1e-3]["vali"]
        assert sel.chosen_["lambda2"] == 1e-3 and np.count_nonzero(sel.coef_) > 0
    only_zero = {"algorithm": "fsmrank", "params": {"lambda1": 0.0, "lambda2_grid": [1e3, 1e4]}}
    with pytest.raises(DegenerateGridError, match=r"fsmrank \(lambda1 x lambda2 grid\): every vali candidate"):
        fit_selector(only_zero, train, vali, seed=1, convention="standard")

"""lambdamart_rfe: the elimination schedule, the order against a naive re-implementation, the
prefix property, the vali curve and the validation-split policy."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import planted

from ltrfs import metrics
from ltrfs.checks import NeedsValidation
from ltrfs.rankers import LambdaMART
from ltrfs.selection import make_selector
from ltrfs.selection.lambdamart_rfe import LambdaMARTRFE, elimination_sizes

SMALL = {"n_estimators": 40}


@pytest.mark.parametrize("d", [1, 2, 9, 10, 11, 19, 20, 46, 136, 700])
def test_schedule_drops_ten_percent_of_the_remaining_at_least_one(d):
    sizes = elimination_sizes(d)
    assert sizes[0] == d and sizes[-1] == 1
    for n, n_next in zip(sizes, sizes[1:]):
        assert n - n_next == max(1, math.floor(n / 10))


def test_schedule_examples_and_integer_steps():
    assert elimination_sizes(46) == [46, 42, 38, 35, 32, 29, 27, 25, 23, 21, *range(19, 0, -1)]
    assert elimination_sizes(30, step=0.25) == [30, 23, 18, 14, 11, 9, 7, 6, 5, 4, 3, 2, 1]
    assert elimination_sizes(7, step=3) == [7, 4, 1]
    assert elimination_sizes(6, step=10) == [6, 1]
    assert len(elimination_sizes(700)) == 55


def naive_rfe(train, vali, step, params, seed=0):
    """The algorithm written out: refit LambdaMART on the remaining columns, score it on vali
    (NDCG@10, letor4, expected ties), drop the max(1, floor(step n)) (an integer step: step,
    keeping at least one) of least total gain (equal
    gains: the highest column dropped first); ranking = reverse elimination order, each round's
    drops most important first."""
    remaining = list(range(train.X.shape[1]))
    blocks, curve = [], {}
    while remaining:
        model = LambdaMART(**params, random_state=0).fit(train.X[:, remaining], train.y, train.qid,
                                                         X_val=vali.X[:, remaining], y_val=vali.y, qid_val=vali.qid)
        scores = model.predict(vali.X[:, remaining])
        curve[len(remaining)] = metrics.metric_per_query(vali.y, scores, vali.query_ptr, "ndcg@10", "letor4",
                                                         "expected").mean()
        gain = model.booster_.get_score(importance_type="total_gain")
        by_importance = sorted(remaining, key=lambda f: (-gain.get(f"f{remaining.index(f)}", 0.0), f))
        n = len(remaining)
        per_round = step if isinstance(step, int) else math.floor(step * n)
        n_drop = n if n == 1 else min(n - 1, max(1, per_round))
        blocks.append(by_importance[n - n_drop:])
        remaining = sorted(by_importance[:n - n_drop])
    return [f for block in reversed(blocks) for f in block], curve


@pytest.fixture(scope="module")
def data():
    """Labels from features 2 and 6 only, 12 features; queries 0-39 train, 40-59 vali."""
    full = planted(n_queries=60, d=12, informative=(2, 6), seed=8)
    return full.subset_queries(np.arange(40)), full.subset_queries(np.arange(40, 60))


@pytest.mark.parametrize("step", [0.25, 2])
def test_order_and_curve_equal_the_naive_elimination(data, step):
    train, vali = data
    sel = LambdaMARTRFE(step=step, ranker_params=SMALL).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                            qid_val=vali.qid)
    ranking, curve = naive_rfe(train, vali, step, SMALL)
    assert sel.ranking_.tolist() == ranking
    assert sorted(sel.rfe_curve_, reverse=True) == elimination_sizes(12, step) == list(curve)
    np.testing.assert_allclose([sel.rfe_curve_[s] for s in curve], list(curve.values()), atol=1e-12)
    assert sel.chosen_["n_fits"] == len(curve)
    best = max(curve, key=lambda s: (curve[s], -s))
    assert sel.chosen_["best_size"] == best
    assert set(sel.ranking_[:2].tolist()) == {2, 6}


def test_every_visited_subset_is_a_prefix_and_scores_say_when_dropped(data):
    train, vali = data
    sel = LambdaMARTRFE(step=0.25, ranker_params=SMALL).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                            qid_val=vali.qid)
    sizes = elimination_sizes(12, 0.25)
    for size, next_size in zip(sizes, [*sizes[1:], 0]):
        dropped_here = np.flatnonzero(sel.scores_ == size)
        assert sorted(dropped_here.tolist()) == sorted(sel.ranking_[next_size:size].tolist())
    assert sel.scores_[sel.ranking_[0]] == 1


def test_needs_validation_data_in_one_line(data):
    train, _ = data
    with pytest.raises(NeedsValidation, match=r"^lambdamart_rfe scores every subset size on validation data, but "
                                              r"none was given; pass X_val, y_val and qid_val to fit$"):
        make_selector("lambdamart_rfe").fit(train.X, train.y, train.qid)


@pytest.mark.parametrize("params, message", [
    ({"step": 0}, r"step"), ({"step": 1.5}, r"step"), ({"importance": "shap"}, r"importance"),
    ({"ranker_params": {"backend": "lightgbm"}}, r"^lambdamart_rfe( reads XGBoost's trees; ranker_params may not set backend .lightgbm.$|: ranker_params: .*LightGBM)"),
])
def test_bad_parameters_give_one_line(data, params, message):
    train, vali = data
    with pytest.raises(ValueError, match=message) as excinfo:
        make_selector("lambdamart_rfe", **params).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                      qid_val=vali.qid)
    assert "\n" not in str(excinfo.value)


def test_progress_lines_count_model_fits_and_say_the_time_left(data, caplog):
    train, vali = data
    with caplog.at_level("INFO", logger="ltrfs.progress"):
        LambdaMARTRFE(step=4, ranker_params=SMALL).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                       qid_val=vali.qid)
    lines = [r.getMessage() for r in caplog.records if r.name == "ltrfs.progress"]
    assert lines and lines[-1].startswith("lambdamart_rfe: 4 of 4 model fits (100%)")  # sizes 12, 8, 4, 1
    assert "left (1 feature, vali ndcg@10 " in lines[-1]


def test_own_model_is_the_best_sizes_lambdamart_and_survives_its_file(data):
    """predict_scores = the vali-best size's model on its features; the code-free state
    (ltrfs.state) reads back to the same scores."""
    from ltrfs import state

    train, vali = data
    sel = LambdaMARTRFE(step=0.25, ranker_params=SMALL).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                            qid_val=vali.qid)
    best = sel.chosen_["best_size"]
    assert sel.chosen_["rfe_curve"][best] == max(sel.rfe_curve_.values())
    assert sel.best_features_.tolist() == sorted(sel.ranking_[:best].tolist())
    refit = LambdaMART(**SMALL, random_state=0).fit(train.X[:, sel.best_features_], train.y, train.qid,
                                                    X_val=vali.X[:, sel.best_features_], y_val=vali.y,
                                                    qid_val=vali.qid)
    np.testing.assert_allclose(sel.predict_scores(vali.X), refit.predict(vali.X[:, sel.best_features_]), rtol=1e-6)
    back = state.estimator_from_state(state.estimator_state(sel))
    np.testing.assert_array_equal(back.predict_scores(vali.X), sel.predict_scores(vali.X))
    with pytest.raises(ValueError, match=r"^lambdamart_rfe: X must have 12 feature columns; got shape \(5, 3\)$"):
        sel.predict_scores(np.zeros((5, 3)))

"""permutation: within-query permutation importance against a naive loop, seeds, unused
features, the validation-split policy."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import planted

from ltrfs import metrics
from ltrfs.checks import NeedsValidation
from ltrfs.selection import make_selector
from ltrfs.selection.permutation import PermutationImportance, within_query_permutation

SMALL = {"n_estimators": 60}


@pytest.fixture(scope="module")
def data():
    """Labels from features 1 and 3 only, 6 features; queries 0-39 train, 40-69 vali."""
    full = planted(n_queries=70, d=6, informative=(1, 3), seed=7)
    return full.subset_queries(np.arange(40)), full.subset_queries(np.arange(40, 70))


def naive_drops(model, X_val, y_val, ptr, n_repeats, seed, metric="ndcg@10", convention="letor4",
                ties="expected") -> np.ndarray:
    """The definition, one query and one feature at a time: repeat r's keys from
    default_rng([seed, r]); each query's rows reordered by their keys; every feature re-scored."""
    def score(X):
        return metrics.metric_per_query(y_val, model.predict(X), ptr, metric, convention, ties).mean()

    base = score(X_val)
    out = np.empty((n_repeats, X_val.shape[1]))
    for r in range(n_repeats):
        keys = np.random.default_rng([seed, r]).random(len(y_val))
        for j in range(X_val.shape[1]):
            X = X_val.copy()
            for q in range(len(ptr) - 1):
                rows = np.arange(ptr[q], ptr[q + 1])
                X[rows, j] = X_val[rows[np.argsort(keys[rows], kind="stable")], j]
            out[r, j] = base - score(X)
    return out


@pytest.mark.parametrize("ranker, params", [("lambdamart", SMALL), ("ranksvm", {"C": 0.1}), ("linear_regression", None)])
def test_drops_equal_the_naive_loop(data, ranker, params):
    train, vali = data
    sel = PermutationImportance(ranker=ranker, ranker_params=params, n_repeats=3, random_state=11).fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    want = naive_drops(sel.model_, vali.X, vali.y, vali.query_ptr, 3, 11)
    np.testing.assert_allclose(sel.drops_, want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sel.scores_, want.mean(0), atol=1e-12)
    assert set(sel.ranking_[:2].tolist()) == {1, 3}
    assert sel.chosen_["ranker"] == ranker and sel.chosen_["n_fits"] == 1


def test_same_seed_same_drops_other_seed_other_drops(data):
    train, vali = data
    kw = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    a, b, c = (PermutationImportance(ranker_params=SMALL, n_repeats=2, random_state=s).fit(
        train.X, train.y, train.qid, **kw) for s in (4, 4, 5))
    np.testing.assert_array_equal(a.drops_, b.drops_)
    assert not np.array_equal(a.drops_, c.drops_)


def test_a_feature_the_model_never_uses_drops_exactly_zero():
    """Three one-split trees use at most 3 of 8 features; the others drop exactly 0 (skipped:
    one prediction per used feature and repeat), and so they do in the naive loop."""
    full = planted(n_queries=60, d=8, informative=(2, 5), seed=2)
    train, vali = full.subset_queries(np.arange(40)), full.subset_queries(np.arange(40, 60))
    sel = PermutationImportance(ranker_params={"n_estimators": 3, "max_leaves": 2}, n_repeats=2).fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    used = {int(k[1:]) for k in sel.model_.booster_.get_score(importance_type="weight")}
    unused = sorted(set(range(8)) - used)
    assert len(unused) >= 5
    assert np.all(sel.drops_[:, unused] == 0.0)
    assert np.all(naive_drops(sel.model_, vali.X, vali.y, vali.query_ptr, 2, 0)[:, unused] == 0.0)
    assert sel.chosen_["n_predictions"] == 2 * len(used) + 1
    zero = [j for j in range(8) if sel.scores_[j] == 0]  # ties, the unused among them: index order
    assert [j for j in sel.ranking_.tolist() if j in zero] == zero


def test_within_query_permutation_moves_rows_only_inside_their_query():
    ptr = np.array([0, 4, 5, 12, 20])
    perm = within_query_permutation(ptr, np.random.default_rng(3))
    assert sorted(perm.tolist()) == list(range(20))
    for q in range(4):
        assert sorted(perm[ptr[q]:ptr[q + 1]].tolist()) == list(range(ptr[q], ptr[q + 1]))
    np.testing.assert_array_equal(perm, within_query_permutation(ptr, np.random.default_rng(3)))
    assert not np.array_equal(perm, np.arange(20))


def test_needs_validation_data_in_one_line(data):
    train, _ = data
    with pytest.raises(NeedsValidation, match=r"^permutation permutes the validation rows, but none were given; "
                                              r"pass X_val, y_val and qid_val to fit$"):
        make_selector("permutation").fit(train.X, train.y, train.qid)


@pytest.mark.parametrize("params, message", [
    ({"ranker": "lambdamrt"}, r"^permutation: ranker must be one of .*lambdamart.*; got .lambdamrt.$"),
    ({"ranker": "ranksvm", "ranker_params": {"n_estimators": 5}}, r"^permutation: ranker_params: ranker 'ranksvm' has no parameter 'n_estimators'"),
    ({"n_repeats": 0}, r"n_repeats"),
])
def test_bad_parameters_give_one_line(data, params, message):
    train, vali = data
    with pytest.raises(ValueError, match=message) as excinfo:
        make_selector("permutation", **params).fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y,
                                                   qid_val=vali.qid)
    assert "\n" not in str(excinfo.value)


def test_progress_lines_count_predictions_and_say_the_time_left(data, caplog):
    train, vali = data
    with caplog.at_level("INFO", logger="ltrfs.progress"):
        sel = PermutationImportance(ranker="ranksvm", n_repeats=2).fit(train.X, train.y, train.qid, X_val=vali.X,
                                                                       y_val=vali.y, qid_val=vali.qid)
    lines = [r.getMessage() for r in caplog.records if r.name == "ltrfs.progress"]
    assert sel.chosen_["n_predictions"] == 13  # a linear model: every feature re-scored
    assert lines and lines[-1].startswith("permutation (ranksvm): 12 of 12 predictions (100%)")
    assert lines[-1].endswith("left (repeat 2)")

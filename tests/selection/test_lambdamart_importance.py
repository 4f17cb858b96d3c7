"""lambdamart_gain and lambdamart_shap: XGBoost's own total gain and TreeSHAP, the tie and
constant rules, the validation-split policy, planted features first."""
from __future__ import annotations

import numpy as np
import pytest
import xgboost as xgb
from conftest import planted

from ltrfs.checks import NeedsValidation
from ltrfs.datasets import synthetic
from ltrfs.ranking_data import RankingData
from ltrfs.selection import make_selector
from ltrfs.selection.lambdamart_importance import LambdaMARTGain, LambdaMARTShap

SMALL = {"n_estimators": 60}  # fast models; early stopping stays on


def split(data: RankingData, n_train: int):
    return data.subset_queries(np.arange(n_train)), data.subset_queries(np.arange(n_train, data.n_queries))


def vali_kwargs(vali: RankingData) -> dict:
    return {"X_val": vali.X, "y_val": vali.y, "qid_val": vali.qid}


@pytest.fixture(scope="module")
def data():
    """Labels from features 1 and 3 only, 8 features; queries 0-59 train, 60-89 vali."""
    return split(planted(n_queries=90, d=8, informative=(1, 3), seed=3), 60)


def test_gain_is_the_boosters_own_total_gain(data):
    train, vali = data
    sel = LambdaMARTGain(ranker_params=SMALL).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
    booster = sel.model_.booster_
    own = booster.get_score(importance_type="total_gain")
    assert own, "the model has splits"
    want = np.array([own.get(f"f{j}", 0.0) for j in range(8)])
    np.testing.assert_array_equal(sel.scores_, want)
    assert set(sel.ranking_[:2].tolist()) == {1, 3}
    assert sel.chosen_ == {"importance": "total_gain", "n_trees": booster.num_boosted_rounds(), "n_fits": 1}
    assert sel.chosen_["n_trees"] < 60 or sel.model_.best_iteration_ == 59  # the sliced booster is read


def direct_mean_abs_contributions(booster, X) -> np.ndarray:
    contribs = booster.predict(xgb.DMatrix(np.asarray(X, np.float32)), pred_contribs=True)
    # the contributions and the bias add up to the model's score (TreeSHAP's local accuracy)
    np.testing.assert_allclose(contribs.sum(1), booster.predict(xgb.DMatrix(np.asarray(X, np.float32))),
                               rtol=1e-4, atol=1e-4)
    return np.abs(contribs[:, :-1].astype(np.float64)).mean(0)


@pytest.mark.parametrize("explain", ["vali", "train"])
def test_shap_is_the_mean_absolute_pred_contribs_without_the_bias(data, explain):
    train, vali = data
    sel = LambdaMARTShap(explain=explain, ranker_params=SMALL).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
    rows = vali.X if explain == "vali" else train.X
    np.testing.assert_allclose(sel.scores_, direct_mean_abs_contributions(sel.model_.booster_, rows), rtol=1e-6)
    assert sel.chosen_["importance"] == f"mean_abs_shap:{explain}"
    assert set(sel.ranking_[:2].tolist()) == {1, 3}


def test_shap_blocks_of_rows_give_the_same_mean(data):
    from ltrfs.selection.lambdamart_importance import mean_abs_contributions

    train, vali = data
    sel = LambdaMARTShap(ranker_params=SMALL).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
    np.testing.assert_allclose(mean_abs_contributions(sel.model_.booster_, vali.X, block_rows=7), sel.scores_,
                               rtol=1e-6)


def test_shap_equals_shaps_tree_explainer(data):
    shap = pytest.importorskip("shap")
    train, vali = data
    sel = LambdaMARTShap(ranker_params=SMALL).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
    values = shap.TreeExplainer(sel.model_.booster_).shap_values(vali.X)
    np.testing.assert_allclose(sel.scores_, np.abs(values).mean(0), rtol=1e-4, atol=1e-6)


def test_unused_features_get_zero_and_go_in_index_order():
    """Three one-split trees use at most 3 of 10 features: every other feature has gain and SHAP
    exactly 0 and follows the used ones in index order."""
    train, vali = split(planted(n_queries=60, d=10, informative=(4, 7), seed=5), 40)
    params = {"n_estimators": 3, "max_leaves": 2, "early_stopping_rounds": None}
    for cls in (LambdaMARTGain, LambdaMARTShap):
        sel = cls(ranker_params=params).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
        used = set(sel.model_.booster_.get_score(importance_type="weight"))
        unused = [j for j in range(10) if f"f{j}" not in used]
        assert len(unused) >= 7 and np.all(sel.scores_[unused] == 0) and np.all(np.delete(sel.scores_, unused) > 0)
        assert sel.ranking_[len(sel.ranking_) - len(unused):].tolist() == unused
        assert sel.ranking_[0] in (4, 7)


def test_constant_features_go_last_in_the_methods_order():
    """Features 0, 2 and 5 are constant on the training split (gain 0); feature 4 takes one value
    per query (constant within every query, its gain whatever the trees give it): all four last,
    ordered as the method orders them (importance, then index)."""
    data = planted(n_queries=60, d=6, informative=(1, 3), seed=5)
    X = data.X.copy()
    X[:, [0, 2, 5]] = 0.5
    X[:, 4] = np.repeat(np.arange(60), np.diff(data.query_ptr)) / 60
    train, vali = split(RankingData(X, data.y, data.query_ptr, data.query_ids), 40)
    for cls in (LambdaMARTGain, LambdaMARTShap):
        sel = cls(ranker_params=SMALL).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
        assert np.all(sel.scores_[[0, 2, 5]] == 0)
        assert sorted(sel.constant_features_.tolist()) == [0, 2, 4, 5]
        assert set(sel.ranking_[:2].tolist()) == {1, 3}
        assert sel.ranking_[2:].tolist() == sorted([0, 2, 4, 5], key=lambda j: (-sel.scores_[j], j))


def test_without_validation_data_a_one_line_error_and_the_fix_works(data):
    train, _ = data
    for name, fix in (("lambdamart_gain", {"ranker_params": {"early_stopping_rounds": None, "n_estimators": 30}}),
                      ("lambdamart_shap", {"explain": "train",
                                           "ranker_params": {"early_stopping_rounds": None, "n_estimators": 30}})):
        with pytest.raises(NeedsValidation, match=r"^lambdamart_(gain|shap) .*, but none was given; pass X_val, "
                                                   r"y_val and qid_val to fit, or set .*early_stopping_rounds"):
            make_selector(name).fit(train.X, train.y, train.qid)
        sel = make_selector(name, **fix).fit(train.X, train.y, train.qid)
        assert sel.chosen_["n_trees"] == 30 and set(sel.ranking_[:2].tolist()) == {1, 3}
    assert make_selector("lambdamart_shap", ranker_params={"early_stopping_rounds": None}).needs_validation()[0] == \
        "lambdamart_shap explains the validation rows (explain='vali')"


@pytest.mark.parametrize("params, message", [
    ({"ranker_params": {"depth": 3}}, r"^lambdamart_gain: ranker_params: ranker 'lambdamart' has no parameter 'depth'"),
    ({"ranker_params": {"backend": "lightgbm"}}, r"^lambdamart_gain( reads XGBoost's trees; ranker_params may not set backend .lightgbm.$|: ranker_params: .*LightGBM)"),
    ({"ranker_params": {"n_estimators": 0}}, r"^lambdamart_gain: ranker_params: .*n_estimators"),
])
def test_bad_ranker_params_give_one_line(params, message, data):
    train, vali = data
    with pytest.raises(ValueError, match=message) as excinfo:
        make_selector("lambdamart_gain", **params).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
    assert "\n" not in str(excinfo.value)


def test_planted_features_first_on_synthetic_data():
    """8 informative + 8 redundant signal features (noisy mixtures of informative ones) and 14
    noise: the top 8 of both importances are signal features, led by an informative one."""
    full, truth = synthetic.make(n_queries=200, seed=2)
    train, vali = split(full, 140)
    informative = {f - 1 for f in truth["informative"]}
    signal = informative | {f - 1 for f in truth["redundant"]}
    for cls in (LambdaMARTGain, LambdaMARTShap):
        sel = cls(ranker_params={"n_estimators": 200}).fit(train.X, train.y, train.qid, **vali_kwargs(vali))
        assert set(sel.ranking_[:8].tolist()) <= signal, cls.name
        assert sel.ranking_[0] in informative and len(informative & set(sel.ranking_[:8].tolist())) >= 4, cls.name

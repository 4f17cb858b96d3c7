"""Tests of the pointwise rankers (linear_regression, logistic) and the tree ensembles (mart,
random_forest): agreement with the scikit-learn / numpy models they wrap, MART's early
stopping and best-iteration slicing, determinism, validation messages, and ranking quality on
``ltrfs.datasets.synthetic.make`` data (better than random scores and the best single feature)."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LogisticRegression

from ltrfs.datasets.synthetic import make
from ltrfs.estimator import NotFittedError
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.pointwise import LinearRegressionRanker, LogisticRanker
from ltrfs.rankers.trees import MART, RandomForest


@pytest.fixture(scope="module")
def split():
    data, _ = make(n_queries=300, n_informative=6, n_redundant=4, n_noise=10, strength_max=0.6,
                   strength_min=0.4, seed=0)
    return (data.subset_queries(np.arange(0, 150)), data.subset_queries(np.arange(150, 200)),
            data.subset_queries(np.arange(200, 300)))


def ndcg10(d, scores):
    return float(metric_per_query(d.y, scores, d.query_ptr, "ndcg@10", "letor4").mean())


FAST = {
    "linear_regression": (LinearRegressionRanker, {}),
    "logistic": (LogisticRanker, {"C": 1.0}),
    "mart": (MART, {"n_estimators": 300, "early_stopping_rounds": 30}),
    "random_forest": (RandomForest, {"n_estimators": 40}),
}


@pytest.mark.parametrize("name", list(FAST))
def test_beats_random_and_best_single_feature_and_is_deterministic(split, name):
    train, vali, test = split
    cls, params = FAST[name]
    assert cls.name == name
    model = cls(**params).fit(train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    scores = model.predict(test.X)
    assert scores.dtype == np.float64 and scores.shape == (test.n_rows,)
    ours = ndcg10(test, scores)
    rng = np.random.default_rng(0)
    random_score = np.mean([ndcg10(test, rng.random(test.n_rows)) for _ in range(5)])
    best_single = max(max(ndcg10(test, test.X[:, f]), ndcg10(test, -test.X[:, f])) for f in range(test.n_features))
    assert ours > random_score + 0.2
    assert ours > best_single + 0.03
    again = clone(model).fit(train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    np.testing.assert_array_equal(again.predict(test.X), scores)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(test.X), scores)
    assert model.seconds_ >= 0


# ----------------------------------------------------------------------------- pointwise


def test_linear_regression_equals_lstsq_and_ridge_closed_form():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4))
    y = rng.integers(0, 3, 60)
    qid = np.repeat(np.arange(6), 10)
    A = np.c_[X, np.ones(60)]
    ref = np.linalg.lstsq(A, y.astype(float), rcond=None)[0]
    model = LinearRegressionRanker().fit(X, y, qid)
    np.testing.assert_allclose(model.coef_, ref[:4], rtol=1e-9, atol=1e-12)
    assert model.intercept_ == pytest.approx(ref[4], abs=1e-10)
    np.testing.assert_allclose(model.predict(X), A @ ref, rtol=1e-9, atol=1e-12)
    # ridge with intercept: centre, solve (Xc'Xc + alpha I) w = Xc'yc
    alpha = 3.0
    Xc, yc = X - X.mean(0), y - y.mean()
    w = np.linalg.solve(Xc.T @ Xc + alpha * np.eye(4), Xc.T @ yc)
    ridge = LinearRegressionRanker(alpha=alpha).fit(X, y, qid)
    np.testing.assert_allclose(ridge.coef_, w, rtol=1e-8)
    assert ridge.intercept_ == pytest.approx(y.mean() - X.mean(0) @ w, rel=1e-8)
    # hand-worked: y = 2 x + 1 exactly
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    exact = LinearRegressionRanker().fit(x, [1, 3, 5, 7], [1, 1, 2, 2])
    assert exact.coef_ == pytest.approx([2.0]) and exact.intercept_ == pytest.approx(1.0)


def test_logistic_equals_sklearn_and_binarises_labels():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 5))
    y = np.clip(np.rint(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=200)), 0, 3).astype(int)
    qid = np.repeat(np.arange(10), 20)
    for relevant_min, C in ((1, 1.0), (2, 0.1)):
        model = LogisticRanker(C=C, relevant_min=relevant_min).fit(X, y, qid)
        ref = LogisticRegression(C=C, solver="lbfgs", max_iter=1000, tol=1e-4, random_state=0)
        ref.fit(X, (y >= relevant_min).astype(int))
        np.testing.assert_allclose(model.predict(X), ref.decision_function(X), rtol=1e-10, atol=1e-12)
        assert model.n_iter_ >= 1
    # the probability gives the same order as the score
    p = ref.predict_proba(X)[:, 1]
    s = LogisticRanker(C=0.1, relevant_min=2).fit(X, y, qid).predict(X)
    np.testing.assert_array_equal(np.argsort(p, kind="stable"), np.argsort(s, kind="stable"))


def test_logistic_single_class_is_refused():
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match="no training row") as err:
        LogisticRanker().fit(X, [0, 0, 0, 0, 0, 0], [1, 1, 1, 2, 2, 2])
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="every training row"):
        LogisticRanker(relevant_min=1).fit(X, [1, 2, 1, 1, 2, 1], [1, 1, 1, 2, 2, 2])


def test_pointwise_validation_messages():
    with pytest.raises(ValueError, match="alpha"):
        LinearRegressionRanker(alpha=-1).validate_params()
    with pytest.raises(ValueError, match="fit_intercept"):
        LinearRegressionRanker(fit_intercept="yes").validate_params()
    with pytest.raises(ValueError, match="C "):
        LogisticRanker(C=0).validate_params()
    with pytest.raises(ValueError, match="relevant_min"):
        LogisticRanker(relevant_min=1.5).validate_params()
    with pytest.raises(ValueError, match="class_weight"):
        LogisticRanker(class_weight="auto").validate_params()
    with pytest.raises(NotFittedError):
        LogisticRanker().predict(np.ones((2, 2)))
    assert LogisticRanker.default_grid["C"] and LinearRegressionRanker.default_grid == {}


# ----------------------------------------------------------------------------- trees


def test_random_forest_equals_sklearn(split):
    train, _, test = split
    model = RandomForest(n_estimators=15, random_state=3).fit(train.X, train.y, train.qid)
    ref = RandomForestRegressor(n_estimators=15, max_features=0.3, max_leaf_nodes=100, min_samples_leaf=1,
                                bootstrap=True, random_state=3, n_jobs=1)
    ref.fit(train.X, train.y.astype(float))
    np.testing.assert_array_equal(model.predict(test.X), ref.predict(test.X))
    assert model.sklearn_params()["max_features"] == 0.3
    other = RandomForest(n_estimators=15, random_state=4).fit(train.X, train.y, train.qid)
    assert not np.array_equal(other.predict(test.X), model.predict(test.X))


def test_mart_early_stopping_keeps_best_iteration(split):
    import xgboost as xgb

    train, vali, test = split
    patience = 20
    model = MART(n_estimators=400, early_stopping_rounds=patience).fit(
        train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    hist = np.asarray(model.evals_result_)
    best = model.best_iteration_
    # stopped `patience` rounds after the first best, and kept exactly the trees up to it
    assert model.n_iter_ == len(hist) < 400
    assert best == int(np.argmax(hist)) and model.n_iter_ == best + 1 + patience
    assert model.booster_.num_boosted_rounds() == best + 1
    assert (hist[best + 1:] <= hist[best]).all()
    # the recorded vali metric is ltrfs' ndcg@10 (letor4) of the kept model
    assert model.best_score_ == pytest.approx(ndcg10(vali, model.predict(vali.X)), abs=1e-12)
    # the kept model equals one trained for best + 1 rounds without validation
    plain = MART(n_estimators=best + 1).fit(train.X, train.y, train.qid)
    np.testing.assert_allclose(plain.predict(test.X), model.predict(test.X), rtol=1e-6, atol=1e-6)
    assert plain.best_iteration_ == best and plain.evals_result_ == [] and plain.best_score_ is None
    # and it matches a direct xgboost fit with the same preset
    booster = xgb.train({"objective": "reg:squarederror", "tree_method": "hist", "grow_policy": "lossguide",
                         "max_depth": 0, "max_leaves": 10, "eta": 0.1, "min_child_weight": 1.0, "lambda": 0.0,
                         "seed": 0, "nthread": 1}, xgb.DMatrix(train.X, label=train.y), num_boost_round=best + 1)
    np.testing.assert_allclose(booster.inplace_predict(test.X), model.predict(test.X), rtol=1e-6, atol=1e-6)


def test_mart_without_early_stopping_still_keeps_vali_best_and_other_metric(split):
    train, vali, _ = split
    model = MART(n_estimators=40, early_stopping_rounds=None, metric="map").fit(
        train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    assert model.n_iter_ == 40 and len(model.evals_result_) == 40
    assert model.best_iteration_ == int(np.argmax(model.evals_result_))
    map_ = metric_per_query(vali.y, model.predict(vali.X), vali.query_ptr, "map", "letor4").mean()
    assert model.best_score_ == pytest.approx(map_, abs=1e-12)


def test_tree_validation_messages():
    with pytest.raises(ValueError, match="max_leaves"):
        MART(max_leaves=1).validate_params()
    with pytest.raises(ValueError, match="metric"):
        MART(metric="ndcg@zero").validate_params()
    with pytest.raises(ValueError, match="convention"):
        MART(convention="letor9").validate_params()
    with pytest.raises(ValueError, match="learning_rate"):
        MART(params={"eta": 0.3}).validate_params()
    with pytest.raises(ValueError, match="n_jobs"):
        MART(n_jobs=0).validate_params()
    with pytest.raises(ValueError, match="X_val"):
        MART(n_estimators=2).fit(np.ones((4, 2)), [0, 1, 0, 1], [1, 1, 2, 2], X_val=np.ones((2, 2)))
    with pytest.raises(ValueError, match="max_features"):
        RandomForest(max_features=1.5).validate_params()
    with pytest.raises(ValueError, match="max_leaf_nodes"):
        RandomForest(max_leaf_nodes=1).validate_params()
    with pytest.raises(ValueError, match="random_state"):
        RandomForest(random_state=-1).validate_params()
    with pytest.raises(NotFittedError):
        MART().predict(np.ones((2, 2)))
    with pytest.raises(NotFittedError):
        RandomForest().predict(np.ones((2, 2)))

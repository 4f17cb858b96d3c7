"""Tests of ltrfs.rankers.listnet: the top-one cross-entropy loss against an explicit softmax loop
and a hand-worked case, its gradient against finite differences, the RankLib-style SGD epoch
against a naive loop, determinism, model choice on vali, and ranking quality on synthetic data."""
from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from sklearn.base import clone

from ltrfs.estimator import NotFittedError
from ltrfs.rankers.listnet import ListNet, _sgd_epoch, listnet_loss, listnet_objective, segment_softmax
from conftest import ndcg10, ptr_of, qid_of, random_problem


def naive_loss(scores, y, sizes):
    """sum_q -sum_j P_y(j) log P_s(j) with explicit loops and math.exp."""
    total, a = 0.0, 0
    for n in sizes:
        zy = sum(math.exp(y[a + k]) for k in range(n))
        zs = sum(math.exp(scores[a + k]) for k in range(n))
        for j in range(n):
            total -= math.exp(y[a + j]) / zy * math.log(math.exp(scores[a + j]) / zs)
        a += n
    return total




# ----------------------------------------------------------------------------- loss


def test_hand_worked_two_documents():
    # labels (1, 0), equal scores: P_y = (e, 1) / (1 + e), P_s = (1/2, 1/2) -> loss = log 2
    loss, grad = listnet_loss(np.zeros(2), np.array([1, 0]), np.array([0, 2]))
    p1 = math.e / (1 + math.e)
    assert loss == pytest.approx(math.log(2), rel=1e-12)
    np.testing.assert_allclose(grad, [0.5 - p1, 0.5 - (1 - p1)], rtol=1e-12)
    # linear scores X w with X = [[1], [0]], w = 0: dL/dw = 1 * (1/2 - p1), one query
    obj, g = listnet_objective(np.zeros(1), np.array([[1.0], [0.0]]), np.array([1, 0]), np.array([0, 2]))
    assert obj == pytest.approx(math.log(2), rel=1e-12)
    assert g[0] == pytest.approx(0.5 - p1, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loss_matches_explicit_softmax_loop(seed):
    X, y, sizes = random_problem(seed)
    scores = np.random.default_rng(seed + 10).normal(scale=3, size=len(y))
    loss, grad = listnet_loss(scores, y, ptr_of(sizes))
    assert loss == pytest.approx(naive_loss(scores, y, sizes), rel=1e-12)
    p, logp = segment_softmax(scores, ptr_of(sizes))
    np.testing.assert_allclose(np.add.reduceat(p, ptr_of(sizes)[:-1]), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(logp), p, rtol=1e-12)
    # shifting one query's scores by a constant leaves the loss unchanged (no overflow either)
    shifted = scores.copy()
    shifted[: sizes[0]] += 800.0
    assert listnet_loss(shifted, y, ptr_of(sizes))[0] == pytest.approx(loss, rel=1e-10)


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_gradient_matches_finite_differences(alpha):
    X, y, sizes = random_problem(5, n_queries=4, d=3)
    w = np.array([0.3, -0.7, 1.1])
    _, grad = listnet_objective(w, X, y, ptr_of(sizes), alpha)
    eps = 1e-6
    numeric = np.array([(listnet_objective(w + eps * e, X, y, ptr_of(sizes), alpha)[0]
                         - listnet_objective(w - eps * e, X, y, ptr_of(sizes), alpha)[0]) / (2 * eps)
                        for e in np.eye(3)])
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)
    obj = listnet_objective(w, X, y, ptr_of(sizes), alpha)[0]
    expected = naive_loss(X @ w, y, sizes) / len(sizes) + 0.5 * alpha * w @ w
    assert obj == pytest.approx(expected, rel=1e-12)


def test_sgd_epoch_matches_naive_per_query_steps():
    X, y, sizes = random_problem(7, n_queries=6, d=3)
    ptr = ptr_of(sizes)
    p_y, _ = segment_softmax(y.astype(float), ptr)
    w = np.array([0.1, 0.2, -0.3])
    expected_w, expected_loss = w.copy(), 0.0
    lr, alpha = 0.05, 0.01
    for a, b in zip(ptr[:-1], ptr[1:]):
        s = X[a:b] @ expected_w
        ps = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        expected_loss -= p_y[a:b] @ np.log(ps)
        expected_w = expected_w - lr * (X[a:b].T @ (ps - p_y[a:b]) + alpha * expected_w)
    got = w.copy()
    loss = _sgd_epoch(np.ascontiguousarray(X), p_y, ptr, got, lr, alpha)
    np.testing.assert_allclose(got, expected_w, rtol=1e-12)
    assert loss == pytest.approx(expected_loss, rel=1e-12)


# ----------------------------------------------------------------------------- estimator


def test_fit_reaches_the_minimum_and_predict_uses_original_units():
    X, y, sizes = random_problem(3, n_queries=30, d=4)
    X = X * np.array([1.0, 10.0, 0.1, 3.0]) + 5.0
    model = ListNet(alpha=0.01, tol=1e-12).fit(X, y, qid_of(sizes))
    # at the optimum of the standardised problem the gradient vanishes
    Z = (X - model.mean_) / model.scale_
    w_std = model.coef_ * model.scale_
    _, g = listnet_objective(w_std, Z, y, ptr_of(sizes), 0.01)
    assert np.abs(g).max() < 1e-5
    np.testing.assert_allclose(model.predict(X), Z @ w_std, atol=1e-9)
    assert model.train_loss_[-1] <= model.train_loss_[0]
    assert model.best_iteration_ == model.n_iter_ and model.best_score_ is None
    assert model.seconds_ > 0


def test_lbfgs_reaches_lower_loss_than_ranklib_sgd():
    X, y, sizes = random_problem(4, n_queries=40, d=5)
    lb = ListNet().fit(X, y, qid_of(sizes))
    sgd = ListNet(solver="sgd", max_iter=200, learning_rate=1e-3).fit(X, y, qid_of(sizes))
    assert lb.train_loss_[-1] <= sgd.train_loss_[-1] + 1e-9
    assert sgd.train_loss_[-1] < sgd.train_loss_[0]  # SGD does descend


@pytest.mark.parametrize("solver", ["lbfgs", "sgd"])
def test_determinism_and_seed(solver, synthetic_splits):
    (X, y, qid, _), (Xv, yv, qv, _), _ = synthetic_splits
    kw = dict(solver=solver, max_iter=30, learning_rate=1e-4)
    a = ListNet(random_state=1, **kw).fit(X, y, qid, Xv, yv, qv)
    b = ListNet(random_state=1, **kw).fit(X, y, qid, Xv, yv, qv)
    c = ListNet(random_state=2, **kw).fit(X, y, qid, Xv, yv, qv)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.val_scores_ == b.val_scores_
    assert not np.array_equal(a.coef_, c.coef_)


def test_beats_random_and_best_single_feature(synthetic_splits):
    (X, y, qid, _), (Xv, yv, qv, _), (Xt, yt, _, pt) = synthetic_splits
    model = ListNet().fit(X, y, qid, Xv, yv, qv)
    ours = ndcg10(yt, model.predict(Xt), pt)
    Xt64 = Xt.astype(np.float64)
    best_single = max(max(ndcg10(yt, Xt64[:, f], pt), ndcg10(yt, -Xt64[:, f], pt)) for f in range(Xt.shape[1]))
    rand = np.mean([ndcg10(yt, np.random.default_rng(s).random(len(yt)), pt) for s in range(5)])
    assert ours > best_single + 0.03
    assert ours > rand + 0.2


@pytest.mark.parametrize("solver", ["lbfgs", "sgd"])
def test_validation_keeps_the_best_iteration(solver, synthetic_splits):
    (X, y, qid, _), (Xv, yv, qv, pv), _ = synthetic_splits
    yv_rev = yv.max() - yv  # reversed vali labels: training hurts vali, the best is early
    kw = dict(solver=solver, learning_rate=1e-3, max_iter=60)
    for labels in (yv, yv_rev):
        model = ListNet(patience=5, **kw).fit(X, y, qid, Xv, labels, qv)
        best = model.best_iteration_
        history = model.val_scores_
        assert model.best_score_ == pytest.approx(ndcg10(labels, model.predict(Xv), pv), abs=1e-12)
        assert model.best_score_ >= max(history) - 1e-15
        if labels is yv:
            assert best >= 1  # with the true labels training helps vali: the checks below run
        if best >= 1:
            assert history[best - 1] == model.best_score_
            assert all(v < model.best_score_ for v in history[: best - 1])
        if model.n_iter_ < 60:  # stopped by patience
            assert model.n_iter_ == best + 5
        # the kept weights are those of iteration `best`: training without vali for `best`
        # iterations from the same seed gives them
        if best >= 1:
            ref = ListNet(**{**kw, "max_iter": best}).fit(X, y, qid)
            np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    assert model.best_iteration_ < 10  # reversed labels: an early iterate wins


def test_parameters_and_errors():
    X, y, sizes = random_problem(0)
    model = ListNet(alpha=0.5, solver="sgd", random_state=3)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        model.predict(X)
    for bad, msg in [(dict(solver="adam"), "solver"), (dict(max_iter=0), "max_iter"),
                     (dict(alpha=-1.0), "alpha"), (dict(metric="ndcg"), "metric"),
                     (dict(convention="trec"), "convention"), (dict(patience=0), "patience"),
                     (dict(n_jobs=0), "n_jobs"), (dict(learning_rate=0), "learning_rate")]:
        with pytest.raises(ValueError, match=msg):
            ListNet(**bad).validate_params()
    with pytest.raises(ValueError, match="X_val"):
        ListNet().fit(X, y, qid_of(sizes), X_val=X)
    with pytest.raises(ValueError, match="features"):
        ListNet().fit(X, y, qid_of(sizes), X[:, :2], y, qid_of(sizes))
    fitted = ListNet(max_iter=5).fit(X, y, qid_of(sizes))
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])
    assert fitted.predict(X).dtype == np.float64


def test_debug_logging_per_iteration(caplog):
    X, y, sizes = random_problem(1, n_queries=8)
    with caplog.at_level(logging.DEBUG, logger="ltrfs.rankers.listnet"):
        ListNet(max_iter=3).fit(X, y, qid_of(sizes), X, y, qid_of(sizes))
    assert sum("ListNet iter" in r.message for r in caplog.records) >= 1

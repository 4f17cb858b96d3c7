"""Tests of ltrfs.rankers.ranknet: the compiled pair kernel against an explicit pair loop and a
hand-worked case, the factorised network gradient against finite differences, determinism,
in-model standardisation, early stopping on vali, and ranking quality on synthetic data."""
from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from sklearn.base import clone

from ltrfs.estimator import NotFittedError
from ltrfs.rankers.pairs import count_pairs
from ltrfs.rankers.ranknet import RankNet, forward, loss_and_grad, pair_loss
from conftest import ndcg10, ptr_of, qid_of, random_problem


def naive_pairs(scores, y, sizes, sigma):
    """Explicit list of pairs (i, j), y_i > y_j, of every query: summed C_ij and d/ds."""
    loss, grad, n, a = 0.0, np.zeros(len(scores)), 0, 0
    for size in sizes:
        for i in range(a, a + size):
            for j in range(a, a + size):
                if y[i] > y[j]:
                    diff = scores[i] - scores[j]
                    loss += math.log(1 + math.exp(-sigma * diff))
                    g = -sigma / (1 + math.exp(sigma * diff))
                    grad[i] += g
                    grad[j] -= g
                    n += 1
        a += size
    return loss, n, grad




# ----------------------------------------------------------------------------- pair kernel


def test_hand_worked_pairs():
    # equal scores: C = log 2, lambda_1 = -sigma / 2
    loss, n, lam = pair_loss(np.zeros(2), np.array([1, 0]), np.array([0, 2]), sigma=1.0)
    assert (loss, n) == (pytest.approx(math.log(2), rel=1e-14), 1)
    np.testing.assert_allclose(lam, [-0.5, 0.5], rtol=1e-14)
    # labels 2, 1, 1 with scores 2, 0, 1 and sigma 2: pairs (0,1) d=2 and (0,2) d=1; the tie 1-1 is no pair
    loss, n, lam = pair_loss(np.array([2.0, 0.0, 1.0]), np.array([2, 1, 1]), np.array([0, 3]), sigma=2.0)
    assert n == 2
    assert loss == pytest.approx(math.log1p(math.exp(-4)) + math.log1p(math.exp(-2)), rel=1e-14)
    l01, l02 = -2 / (1 + math.exp(4)), -2 / (1 + math.exp(2))
    np.testing.assert_allclose(lam, [l01 + l02, -l01, -l02], rtol=1e-14)
    # extreme score gaps do not overflow
    loss, _, lam = pair_loss(np.array([-800.0, 800.0]), np.array([1, 0]), np.array([0, 2]))
    assert loss == pytest.approx(1600.0) and np.all(np.isfinite(lam))


@pytest.mark.parametrize("seed,sigma", [(0, 1.0), (1, 0.5), (2, 3.0)])
def test_pair_kernel_matches_explicit_pairs(seed, sigma):
    X, y, sizes = random_problem(seed, n_queries=8)
    scores = np.random.default_rng(seed).normal(scale=2, size=len(y))
    loss, n, lam = pair_loss(scores, y, ptr_of(sizes), sigma)
    ref_loss, ref_n, ref_grad = naive_pairs(scores, y, sizes, sigma)
    assert n == ref_n == int(count_pairs(y, ptr_of(sizes)).sum())
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    np.testing.assert_allclose(lam, ref_grad, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("alpha", [0.0, 0.2])
def test_network_gradient_matches_finite_differences(alpha):
    X, y, sizes = random_problem(4, n_queries=4, d=3)
    rng = np.random.default_rng(0)
    params = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4))
    loss, grads, n_pairs = loss_and_grad(params, X, y, ptr_of(sizes), sigma=1.5, alpha=alpha)
    # the loss is the explicit-pair loss of the network's scores, averaged over pairs, plus L2
    ref = naive_pairs(forward(params, X)[1], y, sizes, 1.5)[0] / n_pairs
    ref += 0.5 * alpha * (np.sum(params[0] ** 2) + params[2] @ params[2])
    assert loss == pytest.approx(ref, rel=1e-12)
    eps = 1e-6
    for k, p in enumerate(params):
        numeric = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            plus = [q.copy() for q in params]
            minus = [q.copy() for q in params]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            numeric[idx] = (loss_and_grad(tuple(plus), X, y, ptr_of(sizes), 1.5, alpha)[0]
                            - loss_and_grad(tuple(minus), X, y, ptr_of(sizes), 1.5, alpha)[0]) / (2 * eps)
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------------------- estimator


def test_determinism_and_seed(synthetic_splits):
    (X, y, qid, _), (Xv, yv, qv, _), (Xt, _, _, _) = synthetic_splits
    a = RankNet(epochs=5, random_state=4).fit(X, y, qid, Xv, yv, qv)
    b = RankNet(epochs=5, random_state=4).fit(X, y, qid, Xv, yv, qv)
    c = RankNet(epochs=5, random_state=5).fit(X, y, qid, Xv, yv, qv)
    np.testing.assert_array_equal(a.W1_, b.W1_)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    assert a.train_loss_ == b.train_loss_
    assert not np.array_equal(a.W1_, c.W1_)


def test_standardisation_inside_the_model():
    X, y, sizes = random_problem(6, n_queries=20, d=3)
    X[:, 2] = 7.0  # a constant column
    model = RankNet(epochs=10, hidden_units=3).fit(X, y, qid_of(sizes))
    scaled = RankNet(epochs=10, hidden_units=3).fit(X * np.array([1000.0, 0.01, 1.0]) - 50.0, y, qid_of(sizes))
    np.testing.assert_allclose(model.mean_, X.mean(0))
    assert model.scale_[2] == 1.0
    np.testing.assert_allclose(model.predict(X), scaled.predict(X * np.array([1000.0, 0.01, 1.0]) - 50.0),
                               rtol=1e-7, atol=1e-9)
    assert model.train_loss_[-1] < model.train_loss_[0]
    assert model.n_pairs_ == int(count_pairs(y, ptr_of(sizes)).sum())


@pytest.mark.parametrize("solver,lr", [("adam", 1e-3), ("sgd", 0.5)])
def test_beats_random_and_best_single_feature(synthetic_splits, solver, lr):
    (X, y, qid, _), (Xv, yv, qv, _), (Xt, yt, _, pt) = synthetic_splits
    model = RankNet(solver=solver, learning_rate=lr, epochs=60).fit(X, y, qid, Xv, yv, qv)
    ours = ndcg10(yt, model.predict(Xt), pt)
    Xt64 = Xt.astype(np.float64)
    best_single = max(max(ndcg10(yt, Xt64[:, f], pt), ndcg10(yt, -Xt64[:, f], pt)) for f in range(Xt.shape[1]))
    rand = np.mean([ndcg10(yt, np.random.default_rng(s).random(len(yt)), pt) for s in range(5)])
    assert ours > best_single + 0.03
    assert ours > rand + 0.2


def test_early_stopping_keeps_the_best_epoch(synthetic_splits):
    (X, y, qid, _), (Xv, yv, qv, pv), _ = synthetic_splits
    yv_rev = yv.max() - yv  # reversed vali labels: training hurts vali, an early epoch wins
    for labels in (yv, yv_rev):
        model = RankNet(epochs=40, patience=4, learning_rate=3e-3).fit(X, y, qid, Xv, labels, qv)
        best, history = model.best_iteration_, model.val_scores_
        assert len(history) == model.n_iter_ == len(model.epoch_seconds_)
        assert model.best_score_ == pytest.approx(ndcg10(labels, model.predict(Xv), pv), abs=1e-12)
        assert model.best_score_ >= max(history)
        if labels is yv:
            assert best >= 1  # with the true labels training helps vali: the checks below run
        if best >= 1:
            assert history[best - 1] == model.best_score_
            assert all(v < model.best_score_ for v in history[: best - 1])
            # the kept weights are those after epoch `best`: same seed, no vali, `best` epochs
            ref = RankNet(epochs=best, learning_rate=3e-3).fit(X, y, qid)
            np.testing.assert_allclose(model.W1_, ref.W1_, rtol=1e-12)
            np.testing.assert_allclose(model.w2_, ref.w2_, rtol=1e-12)
        if model.n_iter_ < 40:
            assert model.n_iter_ == best + 4
    assert model.n_iter_ < 40 and model.best_iteration_ < 10


def test_queries_without_pairs():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y = np.array([1, 1, 1, 0, 0, 0])
    model = RankNet(epochs=3).fit(X, y, np.array([1, 1, 1, 2, 2, 2]))
    assert model.n_iter_ == 0 and model.n_pairs_ == 0
    assert np.all(np.isfinite(model.predict(X)))
    # one pair-less query among others is skipped without harm
    y2 = np.array([1, 1, 1, 2, 0, 1])
    model = RankNet(epochs=3).fit(X, y2, np.array([1, 1, 1, 2, 2, 2]))
    assert model.n_iter_ == 3 and model.n_pairs_ == 3


def test_parameters_and_errors():
    X, y, sizes = random_problem(0)
    model = RankNet(hidden_units=5, random_state=2)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError):
        model.predict(X)
    for bad, msg in [(dict(hidden_units=0), "hidden_units"), (dict(solver="lbfgs"), "solver"),
                     (dict(sigma=0), "sigma"), (dict(epochs=0), "epochs"), (dict(batch_size=0), "batch_size"),
                     (dict(alpha=-1), "alpha"), (dict(metric="err"), "metric"),
                     (dict(convention="x"), "convention"), (dict(patience=0), "patience"),
                     (dict(n_jobs=None), "n_jobs"), (dict(random_state=-1), "random_state")]:
        with pytest.raises(ValueError, match=msg):
            RankNet(**bad).validate_params()
    with pytest.raises(ValueError, match="y_val"):
        RankNet().fit(X, y, qid_of(sizes), X_val=X, qid_val=qid_of(sizes))
    fitted = RankNet(epochs=2).fit(X, y, qid_of(sizes))
    assert fitted.W1_.shape == (4, 10) and fitted.predict(X).dtype == np.float64


def test_debug_logging_per_epoch(caplog):
    X, y, sizes = random_problem(1, n_queries=8)
    with caplog.at_level(logging.DEBUG, logger="ltrfs.rankers.ranknet"):
        RankNet(epochs=3).fit(X, y, qid_of(sizes), X, y, qid_of(sizes))
    assert sum("RankNet epoch" in r.message for r in caplog.records) == 3

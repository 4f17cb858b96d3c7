"""Tests of ltrfs.rankers.rankboost: a hand-worked example of two rounds, equality with an
explicit-pairs implementation of RankLib's loop, thresholds, determinism, early stopping and
quality on synthetic data."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from ltrfs.datasets.synthetic import make
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.rankboost import RankBoost, pair_potentials, ranklib_thresholds, threshold_codes


def qid_of(ptr):
    return np.repeat(np.arange(len(ptr) - 1) * 3 + 11, np.diff(ptr))


# ----------------------------------------------------------------------------- naive oracle


def naive_rankboost(X, y, ptr, n_rounds, n_thresholds, select="abs"):
    """RankLib's RankBoost loop with every pair stored explicitly: returns the list of
    (feature, threshold, r, alpha) and the pair-weight dict after each round."""
    X = np.asarray(X, dtype=np.float64)
    pairs = {}
    for q in range(len(ptr) - 1):
        for i in range(ptr[q], ptr[q + 1]):
            for j in range(ptr[q], ptr[q + 1]):
                if y[i] > y[j]:
                    pairs[(i, j)] = 1.0
    for key in pairs:
        pairs[key] = 1.0 / len(pairs)
    m, d = X.shape
    thresholds = []
    for f in range(d):
        fmax, fmin = X[:, f].max(), X[:, f].min()
        step = abs(fmax - fmin) / n_thresholds
        t = [fmax]
        for _ in range(1, n_thresholds):
            t.append(t[-1] - step)
        t.append(fmin - 1e8)
        thresholds.append(t)
    chosen, history = [], []
    for _ in range(n_rounds):
        best, best_key = -np.inf, None
        for f in range(d):
            for theta in thresholds[f]:
                r = sum(w * (float(X[i, f] > theta) - float(X[j, f] > theta)) for (i, j), w in pairs.items())
                crit = abs(r) if select == "abs" else r
                if crit > best + 1e-12:  # first maximum (tolerance: summation order differs)
                    best, best_key = crit, (f, theta, r)
        f, theta, r = best_key
        alpha = 0.5 * math.log((1 + r) / (1 - r))
        chosen.append((f, theta, r, alpha))
        for (i, j) in pairs:
            pairs[(i, j)] *= math.exp(alpha * (float(X[j, f] > theta) - float(X[i, f] > theta)))
        z = sum(pairs.values())
        for key in pairs:
            pairs[key] /= z
        history.append(dict(pairs))
    return chosen, history


def small_problem(seed, n_queries=6, d=4):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, n_queries)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    X = rng.random((ptr[-1], d))
    y = rng.integers(0, 3, ptr[-1])
    y[ptr[0]] = 2  # at least one pair in the first query
    y[ptr[0] + 1] = 0
    return X, y, ptr


# ----------------------------------------------------------------------------- hand-worked


def test_hand_worked_two_rounds():
    # One query, documents A (label 2), B (label 1), C (label 0); two features, n_thresholds=2.
    #   feature 0: A=1.0, B=0.0, C=0.5    thresholds [1.0, 0.5, -1e8]
    #   feature 1: A=0.6, B=1.0, C=0.0    thresholds [1.0, 0.5, -1e8]
    # Pairs (A,B), (A,C), (B,C), each D = 1/3.
    # Round 1: potentials pi(A) = 2/3, pi(B) = 1/3 - 1/3 = 0, pi(C) = -2/3.
    #   f0, theta 0.5: h = (1, 0, 0) -> r = 2/3;  f1, theta 0.5: h = (1, 1, 0) -> r = 2/3 + 0 = 2/3.
    #   Tie: the earlier candidate (feature 0) wins. alpha1 = 1/2 ln((1 + 2/3)/(1 - 2/3)) = 1/2 ln 5.
    #   Update exp(-alpha1 (h_i - h_j)): (A,B) and (A,C) times 5^-1/2, (B,C) times 1.
    #   Z = (2/sqrt5 + 1)/3 -> D(A,B) = D(A,C) = 1/(2 + sqrt5) = 0.236068, D(B,C) = sqrt5/(2 + sqrt5) = 0.527864.
    # Round 2: pi(A) = 0.472136, pi(B) = 0.527864 - 0.236068 = 0.291796, pi(C) = -0.763932.
    #   f0, theta 0.5: r = 0.472136;  f1, theta 0.5: r = pi(A) + pi(B) = (1 + sqrt5)/(2 + sqrt5) = 0.763932.
    #   -> feature 1, theta 0.5; (1 + r)/(1 - r) = 3 + 2 sqrt5, alpha2 = 1/2 ln(3 + 2 sqrt5) = 1.005600.
    # Scores: A = alpha1 + alpha2, B = alpha2, C = 0.
    X = np.array([[1.0, 0.6], [0.0, 1.0], [0.5, 0.0]])
    y = np.array([2, 1, 0])
    qid = np.zeros(3, dtype=int)
    s5 = math.sqrt(5)
    model = RankBoost(n_rounds=2, n_thresholds=2).fit(X, y, qid)
    assert model.features_.tolist() == [0, 1]
    np.testing.assert_allclose(model.thresholds_, [0.5, 0.5])
    np.testing.assert_allclose(model.r_, [2 / 3, (1 + s5) / (2 + s5)], rtol=1e-12)
    a1, a2 = 0.5 * math.log(5), 0.5 * math.log(3 + 2 * s5)
    np.testing.assert_allclose(model.alphas_, [a1, a2], rtol=1e-12)
    np.testing.assert_allclose(model.predict(X), [a1 + a2, a2, 0.0], rtol=1e-12)
    # the weights after round 1, through the product form D(i, j) ∝ exp(F_j - F_i)
    pi, log_n = pair_potentials(np.array([a1, 0.0, 0.0]), y, np.array([0, 3]))
    np.testing.assert_allclose(pi, [2 / (2 + s5), (s5 - 1) / (2 + s5), -(1 + s5) / (2 + s5)], rtol=1e-12)
    np.testing.assert_allclose(math.exp(log_n), 2 / s5 + 1, rtol=1e-12)  # 3 Z (weights unnormalised)
    # and the oracle agrees on both rounds
    chosen, history = naive_rankboost(X, y, np.array([0, 3]), 2, 2)
    assert history[0][(0, 1)] == pytest.approx(1 / (2 + s5))
    assert history[0][(1, 2)] == pytest.approx(s5 / (2 + s5))
    assert [c[0] for c in chosen] == [0, 1]
    np.testing.assert_allclose([c[3] for c in chosen], [a1, a2], rtol=1e-12)


def test_thresholds_and_codes_follow_ranklib():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [0.25, 5.0]])
    T = ranklib_thresholds(X, 4)
    np.testing.assert_allclose(T[0], [1.0, 0.75, 0.5, 0.25, -1e8])
    np.testing.assert_allclose(T[1], [5.0, 5.0, 5.0, 5.0, 5.0 - 1e8])  # constant feature
    codes = threshold_codes(X, T)
    # code = index of the first (descending) threshold the value exceeds
    assert codes[:, 0].tolist() == [4, 1, 4]  # 0.25 is not > 0.25
    assert codes[:, 1].tolist() == [4, 4, 4]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("select", ["abs", "max"])
def test_matches_explicit_pairs_oracle(seed, select):
    X, y, ptr = small_problem(seed)
    rounds = 6
    model = RankBoost(n_rounds=rounds, n_thresholds=5, select=select).fit(X, y, qid_of(ptr))
    chosen, history = naive_rankboost(X, y, ptr, rounds, 5, select)
    assert model.features_.tolist() == [c[0] for c in chosen]
    np.testing.assert_allclose(model.thresholds_, [c[1] for c in chosen], rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.r_, [c[2] for c in chosen], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.alphas_, [c[3] for c in chosen], rtol=1e-9, atol=1e-12)
    naive_scores = sum(a * (X[:, f] > t) for f, t, _, a in chosen)
    np.testing.assert_allclose(model.predict(X), naive_scores, rtol=1e-9, atol=1e-12)
    # the product form equals the explicit weights after the last round
    F = model.predict(X)
    pi, _ = pair_potentials(F, y, ptr)
    naive_pi = np.zeros(len(y))
    for (i, j), w in history[-1].items():
        naive_pi[i] += w
        naive_pi[j] -= w
    np.testing.assert_allclose(pi, naive_pi, rtol=1e-9, atol=1e-14)


def test_potentials_stable_for_huge_scores():
    # pair weights exp(F_j - F_i) far beyond float64 range must not overflow
    y = np.array([2, 1, 0, 1, 0])
    ptr = np.array([0, 3, 5])
    F = np.array([-2000.0, 0.0, 2000.0, 5.0, 0.0])
    pi, log_n = pair_potentials(F, y, ptr)
    assert np.isfinite(pi).all() and np.isfinite(log_n)
    # only the pair (A, C) of query 0 (weight e^4000) matters after normalisation
    np.testing.assert_allclose(pi, [1.0, 0.0, -1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(log_n, 4000.0)


def test_negative_r_gives_negative_alpha_with_abs():
    # label decreases with the only feature: |r| picks it with a negative weight; RankLib's
    # "max" can only choose a weak ranker with r = 0
    X = np.array([[0.0], [0.5], [1.0]])
    y = np.array([2, 1, 0])
    m_abs = RankBoost(n_rounds=1, n_thresholds=2).fit(X, y, np.zeros(3))
    assert m_abs.alphas_[0] < 0 and m_abs.r_[0] < 0
    s = m_abs.predict(X)
    assert s[0] > s[2]
    m_max = RankBoost(n_rounds=1, n_thresholds=2, select="max").fit(X, y, np.zeros(3))
    assert m_max.r_[0] == 0.0 and m_max.alphas_[0] == 0.0


# ----------------------------------------------------------------------------- behaviour


def synthetic_split(seed):
    data, _ = make(n_queries=160, seed=seed)
    ptr = data.query_ptr
    cut = ptr[100]
    tr = (data.X[:cut], data.y[:cut], ptr[:101])
    te = (data.X[cut:], data.y[cut:], ptr[100:] - cut)
    return tr, te


def test_beats_random_and_best_single_feature():
    (X, y, ptr), (Xt, yt, pt) = synthetic_split(3)
    model = RankBoost(n_rounds=150).fit(X, y, qid_of(ptr))
    ours = metric_per_query(yt, model.predict(Xt), pt, "ndcg@10").mean()
    rng = np.random.default_rng(0)
    rand = np.mean([metric_per_query(yt, rng.random(len(yt)), pt, "ndcg@10").mean() for _ in range(5)])
    # best single feature (either direction) chosen on the training queries, scored on test
    cands = [(metric_per_query(y, s * X[:, f], ptr, "ndcg@10").mean(), f, s)
             for f in range(X.shape[1]) for s in (1.0, -1.0)]
    _, f_best, sign = max(cands, key=lambda c: c[0])
    single = metric_per_query(yt, sign * Xt[:, f_best], pt, "ndcg@10").mean()
    assert ours > rand + 0.1
    assert ours > single + 0.01


def test_deterministic_and_pickles():
    (X, y, ptr), (Xt, _, _) = synthetic_split(5)
    a = RankBoost(n_rounds=40).fit(X, y, qid_of(ptr))
    b = RankBoost(n_rounds=40).fit(X, y, qid_of(ptr))
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict(Xt), c.predict(Xt))


def test_validation_keeps_best_prefix_and_stops_early():
    (X, y, ptr), (Xv, yv, pv) = synthetic_split(7)
    model = RankBoost(n_rounds=300, early_stopping_rounds=15).fit(X, y, qid_of(ptr), Xv, yv, qid_of(pv))
    scores = model.vali_scores_
    best = int(np.argmax(scores))  # first maximum
    assert model.best_iteration_ == best
    assert len(model.alphas_) == best + 1
    assert model.best_score_ == pytest.approx(scores[best])
    assert model.n_iter_ == len(scores)
    assert model.n_iter_ == 300 or model.n_iter_ == best + 1 + 15
    # the kept model's validation score is the recorded one
    got = metric_per_query(yv, model.predict(Xv), pv, "ndcg@10").mean()
    assert got == pytest.approx(model.best_score_, abs=1e-12)
    assert model.seconds_ > 0


def test_clone_and_validation_errors():
    from sklearn.base import clone

    model = RankBoost(n_rounds=7, select="max")
    assert clone(model).get_params() == model.get_params()
    for kw, text in [({"n_rounds": 0}, "n_rounds"), ({"n_thresholds": 1.5}, "n_thresholds"),
                     ({"select": "best"}, "select"), ({"metric": "ndcg"}, "metric"),
                     ({"convention": "letor9"}, "convention"), ({"n_jobs": 0}, "n_jobs")]:
        with pytest.raises(ValueError, match=text):
            RankBoost(**kw).validate_params()
    X = np.random.default_rng(0).random((6, 2))
    with pytest.raises(ValueError, match="X_val"):
        RankBoost().fit(X, [1, 0, 1, 0, 1, 0], np.zeros(6), X_val=X)
    with pytest.raises(ValueError, match="not fitted"):
        RankBoost().predict(X)
    with pytest.raises(ValueError, match="features"):
        RankBoost(n_rounds=2).fit(X, [1, 0, 1, 0, 1, 0], np.zeros(6)).predict(X[:, :1])

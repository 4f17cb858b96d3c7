"""Tests of ltrfs.rankers.rankrls: the closed form against the explicit all-pairs objective
(hand-worked example, lstsq on explicit pair differences, scipy.optimize), the objective
identity, the centred products, and behaviour on synthetic data."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone

from ltrfs.datasets.synthetic import make
from ltrfs.estimator import NotFittedError
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.rankrls import (RankRLS, centered_products, pairwise_objective, query_center,
                                   solve_rankrls)


def random_queries(rng, n_queries=7, d=5, max_label=3, min_size=1, max_size=25):
    sizes = rng.integers(min_size, max_size + 1, size=n_queries)
    X = rng.normal(size=(int(sizes.sum()), d)) * rng.uniform(0.5, 3.0, size=d)
    y = rng.integers(0, max_label + 1, size=int(sizes.sum()))
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    qid = np.repeat(np.arange(n_queries) * 3 + 11, sizes)
    return X, y, ptr, qid


def explicit_pairs(X, y, ptr):
    """All within-query pairs i < j (equal labels included): (x_i - x_j, y_i - y_j)."""
    D, t = [], []
    for a, b in zip(ptr[:-1], ptr[1:]):
        i, j = np.triu_indices(b - a, k=1)
        D.append(X[a + i] - X[a + j])
        t.append((y[a + i] - y[a + j]).astype(np.float64))
    return np.vstack(D), np.concatenate(t)


def explicit_objective(w, X, y, ptr, lam):
    D, t = explicit_pairs(X, y, ptr)
    r = t - D @ w
    return float(r @ r + lam * w @ w)


def test_hand_worked_single_query():
    # x = [0, 1, 2], y = [0, 1, 1]: pairs (dx, dy) = (-1, -1), (-2, -1), (-1, 0)
    # sum dx^2 = 6, sum dx dy = 3 -> w = 3 / (6 + lam); with lam = 1: 3/7.
    # (Without the equal-label pair (1, 2) it would be 3 / (5 + lam) = 1/2.)
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([0, 1, 1])
    model = RankRLS(pair_weight="pair", lam=1.0).fit(X, y, np.zeros(3))
    assert model.coef_ == pytest.approx([3 / 7], rel=1e-12)
    G, c, yLy = centered_products(X, y, np.array([0, 3]), "pair")
    assert G[0, 0] == pytest.approx(6.0) and c[0] == pytest.approx(3.0) and yLy == pytest.approx(2.0)
    # objective at w: sum (dy - w dx)^2 + lam w^2
    w = 3 / 7
    expected = (-1 + w) ** 2 + (-1 + 2 * w) ** 2 + (0 + w) ** 2 + w * w
    assert model.objective_ == pytest.approx(expected, rel=1e-12)
    assert model.n_pairs_ == 3
    assert model.predict(np.array([[1.0], [4.0]])) == pytest.approx([3 / 7, 12 / 7])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lam", [2.0 ** -7, 1.0, 2.0 ** 6])
def test_closed_form_equals_explicit_pairs_least_squares(seed, lam):
    rng = np.random.default_rng(seed)
    X, y, ptr, qid = random_queries(rng)
    D, t = explicit_pairs(X, y, ptr)
    d = X.shape[1]
    # ridge on explicit pairs as an augmented least-squares problem
    A = np.vstack([D, np.sqrt(lam) * np.eye(d)])
    b = np.r_[t, np.zeros(d)]
    w_ref = np.linalg.lstsq(A, b, rcond=None)[0]
    model = RankRLS(pair_weight="pair", lam=lam).fit(X, y, qid)
    np.testing.assert_allclose(model.coef_, w_ref, rtol=1e-8, atol=1e-10 * np.abs(w_ref).max())
    assert model.objective_ == pytest.approx(explicit_objective(w_ref, X, y, ptr, lam), rel=1e-9)
    assert model.n_pairs_ == len(t)


def test_closed_form_is_the_minimiser_scipy_optimize():
    rng = np.random.default_rng(11)
    X, y, ptr, qid = random_queries(rng, n_queries=5, d=4)
    lam = 0.5
    D, t = explicit_pairs(X, y, ptr)

    def f(w):
        r = t - D @ w
        return r @ r + lam * w @ w, -2 * D.T @ r + 2 * lam * w

    res = minimize(f, np.zeros(4), jac=True, method="BFGS", options={"gtol": 1e-10})
    model = RankRLS(pair_weight="pair", lam=lam).fit(X, y, qid)
    np.testing.assert_allclose(model.coef_, res.x, rtol=1e-6)
    assert model.objective_ <= res.fun * (1 + 1e-12)
    # optimality: any perturbation increases the explicit objective
    for _ in range(5):
        step = 1e-3 * rng.normal(size=4)
        assert explicit_objective(model.coef_ + step, X, y, ptr, lam) > model.objective_


@pytest.mark.parametrize("seed", range(4))
def test_objective_identity_and_products(seed):
    """sum_{i<j} ((y_i - y_j) - w.(x_i - x_j))^2 = sum_q n_q ||r_q - mean r_q||^2, any w."""
    rng = np.random.default_rng(100 + seed)
    X, y, ptr, _ = random_queries(rng, n_queries=6, d=3)
    D, t = explicit_pairs(X, y, ptr)
    G, c, yLy = centered_products(X, y, ptr, "pair")
    np.testing.assert_allclose(G, D.T @ D, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(c, D.T @ t, rtol=1e-10, atol=1e-9)
    assert yLy == pytest.approx(t @ t, rel=1e-12)
    for _ in range(3):
        w = rng.normal(size=3)
        lam = rng.uniform(0.1, 5)
        assert pairwise_objective(w, X, y, ptr, lam, "pair") == pytest.approx(explicit_objective(w, X, y, ptr, lam), rel=1e-10)
    np.testing.assert_allclose(solve_rankrls(G, c, 2.0), np.linalg.solve(G + 2 * np.eye(3), c), rtol=1e-10)


def test_query_center():
    A = np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 5.0]])
    out = query_center(A, np.array([0, 2, 3]))
    np.testing.assert_allclose(out, [[-1.0, -2.0], [1.0, 2.0], [0.0, 0.0]])
    np.testing.assert_allclose(query_center(np.array([1.0, 3.0, 5.0]), np.array([0, 2, 3])), [-1, 1, 0])


def test_invariances_and_equal_label_queries():
    rng = np.random.default_rng(3)
    X, y, ptr, qid = random_queries(rng, n_queries=8, d=4, min_size=2)
    base = RankRLS(pair_weight="pair", lam=0.7).fit(X, y, qid)
    # a per-query shift of the features or the labels changes no pair difference
    shift = np.repeat(rng.normal(size=(8, 4)), np.diff(ptr), axis=0)
    yshift = y + np.repeat(rng.integers(0, 3, 8), np.diff(ptr))
    np.testing.assert_allclose(RankRLS(pair_weight="pair", lam=0.7).fit(X + shift, yshift, qid).coef_, base.coef_, rtol=1e-8)
    # single-document queries contribute nothing
    X1 = np.vstack([X, rng.normal(size=(3, 4))])
    y1 = np.r_[y, [3, 0, 2]]
    qid1 = np.r_[qid, [1000, 1001, 1002]]
    np.testing.assert_allclose(RankRLS(pair_weight="pair", lam=0.7).fit(X1, y1, qid1).coef_, base.coef_, rtol=1e-10)
    # a query whose labels are all equal still counts (it pushes its scores together), so
    # adding one changes w; when every query has equal labels, w = 0
    Xe = np.vstack([X, rng.normal(size=(6, 4))])
    ye = np.r_[y, np.full(6, 2)]
    qide = np.r_[qid, np.full(6, 999)]
    assert np.abs(RankRLS(pair_weight="pair", lam=0.7).fit(Xe, ye, qide).coef_ - base.coef_).max() > 1e-3
    flat = RankRLS(pair_weight="pair", lam=0.7).fit(X, np.ones(len(y), dtype=int), qid)
    np.testing.assert_array_equal(flat.coef_, 0.0)


def test_beats_random_and_best_single_feature():
    data, _ = make(n_queries=300, n_informative=6, n_redundant=4, n_noise=10, strength_max=0.6,
                   strength_min=0.4, seed=0)
    train, test = data.subset_queries(np.arange(0, 180)), data.subset_queries(np.arange(180, 300))

    def ndcg(s):
        return metric_per_query(test.y, s, test.query_ptr, "ndcg@10", "letor4").mean()

    model = RankRLS(pair_weight="pair", lam=1.0).fit(train.X, train.y, train.qid)
    ours = ndcg(model.predict(test.X))
    rng = np.random.default_rng(0)
    random_score = np.mean([ndcg(rng.random(test.n_rows)) for _ in range(5)])
    best_single = max(max(ndcg(test.X[:, f]), ndcg(-test.X[:, f])) for f in range(test.n_features))
    assert ours > random_score + 0.2
    assert ours > best_single + 0.03
    # deterministic, clone/pickle round trip
    again = clone(model).fit(train.X, train.y, train.qid)
    np.testing.assert_array_equal(again.coef_, model.coef_)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(test.X), model.predict(test.X))
    assert model.predict(test.X).dtype == np.float64 and model.seconds_ >= 0


def test_grid_and_validation_messages():
    grid = RankRLS.default_grid["lam"]
    for k in (-7, 2, 6, 8, -10, 10):
        assert 2.0 ** k in grid
    assert RankRLS.name == "rankrls"
    for bad in (0, -1.0, np.nan, "1"):
        with pytest.raises(ValueError, match="lam"):
            RankRLS(pair_weight="pair", lam=bad).validate_params()
    with pytest.raises(ValueError, match="n_jobs"):
        RankRLS(n_jobs=0).validate_params()
    with pytest.raises(ValueError, match="lam"):
        RankRLS(pair_weight="pair", lam=-2).fit(np.ones((3, 2)), [0, 1, 0], [1, 1, 1])
    with pytest.raises(NotFittedError):
        RankRLS().predict(np.ones((2, 2)))
    model = RankRLS().fit(np.random.default_rng(0).normal(size=(6, 2)), [0, 1, 2, 0, 1, 1], [1, 1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match="features"):
        model.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="contiguous"):
        RankRLS().fit(np.ones((4, 2)), [0, 1, 0, 1], [1, 2, 1, 2])


@pytest.mark.parametrize("seed", range(4))
def test_default_query_weighting_is_spec_objective_and_ridge_on_centred_data(seed):
    """SPEC: sum_Q 1/(2|Q|) sum_{i,j in Q} (y_i - y_j - w.(x_i - x_j))^2 + lam ||w||^2, i.e.
    each ordered pair counted with weight 1/(2|Q|) = each unordered pair with 1/|Q|; equal to
    ridge regression (no intercept) on query-centred X and y."""
    rng = np.random.default_rng(seed)
    X, y, ptr, qid = random_queries(rng)
    lam = 0.8
    sizes = np.diff(ptr)
    D, t = explicit_pairs(X, y, ptr)
    v = np.concatenate([np.full(n * (n - 1) // 2, 1.0 / n) for n in sizes])
    A = np.vstack([D * np.sqrt(v)[:, None], np.sqrt(lam) * np.eye(X.shape[1])])
    w_ref = np.linalg.lstsq(A, np.r_[t * np.sqrt(v), np.zeros(X.shape[1])], rcond=None)[0]
    model = RankRLS(lam=lam).fit(X, y, qid)
    np.testing.assert_allclose(model.coef_, w_ref, rtol=1e-8, atol=1e-12)
    Xc, yc = query_center(X, ptr), query_center(y, ptr)
    ridge = np.linalg.solve(Xc.T @ Xc + lam * np.eye(X.shape[1]), Xc.T @ yc)
    np.testing.assert_allclose(model.coef_, ridge, rtol=1e-8)
    r = t - D @ model.coef_
    assert model.objective_ == pytest.approx(float(v @ (r * r) + lam * model.coef_ @ model.coef_), rel=1e-9)
    assert pairwise_objective(model.coef_, X, y, ptr, lam) == pytest.approx(model.objective_, rel=1e-9)
    with pytest.raises(ValueError, match="pair_weight must be one of query, pair"):
        RankRLS(pair_weight="pairs").validate_params()

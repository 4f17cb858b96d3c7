"""FenchelRank (Lai et al. 2013, l1 ball) and sparse RankSVM (Laporte et al. 2014, l1/log/MCP/lp):
loss and gradient against explicit pairs, every objective against scipy.optimize on the
explicit-pair problem, the path's first point and lambda_max, the entry order, planted-feature
recovery, memory on a large query, the rankers and the selectors' vali choice."""
from __future__ import annotations

import itertools
import tracemalloc
import warnings

import numpy as np
import pytest
from conftest import planted
from scipy.optimize import minimize

from ltrfs.estimator import ConvergenceWarning
from ltrfs.examples import example_queries
from ltrfs.rankers import RANKERS, make_ranker
from ltrfs.rankers.fenchelrank import FenchelRank
from ltrfs.rankers.sparse_pairwise import (
    PENALTIES,
    TOL_BALL,
    TOL_PENALTY,
    PairwiseLoss,
    ball_gap,
    entry_order,
    l1_ball_path,
    l1_ball_solve,
    l1_kkt_violation,
    lambda_max,
    path_grid,
    penalty_path,
    penalty_value,
    penalty_weights,
    project_l1_ball,
    reweighted_l1_solve,
    scaled_loss,
    unconstrained_minimiser,
    unconstrained_radius,
    weighted_l1_solve,
)
from ltrfs.rankers.sparse_ranksvm import SparseRankSVM
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.selection.base import OwnPredictions
from ltrfs.selection.fenchelrank import FenchelRankSelector
from ltrfs.selection.sparse_ranksvm import SparseRankSVMSelector
from ltrfs.tuning import vali_score

TIGHT = {"max_iter": 20000, "tol": 1e-10}


def explicit_pairs(X, y, ptr):
    """All (x_i - x_j) with y_i > y_j inside one query, as a dense (p, d) array."""
    rows = []
    for a, b in itertools.pairwise(ptr):
        for i in range(a, b):
            for j in range(a, b):
                if y[i] > y[j]:
                    rows.append(X[i].astype(np.float64) - X[j].astype(np.float64))
    return np.array(rows)


def naive_loss(w, D):
    return float(np.mean(np.maximum(0.0, 1.0 - D @ w) ** 2))


def naive_grad(w, D):
    return -2.0 * D.T @ np.maximum(0.0, 1.0 - D @ w) / len(D)


@pytest.fixture(scope="module")
def small():
    data = planted(n_queries=20, d=5, informative=(1, 3), seed=4)
    return data, explicit_pairs(data.X, data.y, data.query_ptr)


@pytest.fixture(scope="module")
def loss(small):
    data, _ = small
    return PairwiseLoss(data.X.astype(np.float64), data.y, data.query_ptr)


# ----------------------------------------------------------------------------- loss


def test_loss_and_gradient_match_explicit_pairs(small, loss):
    data, D = small
    assert loss.n_pairs == len(D)
    rng = np.random.default_rng(0)
    for w in (np.zeros(5), rng.normal(size=5), 3.0 * rng.normal(size=5)):
        f, g = loss(w)
        assert f == pytest.approx(naive_loss(w, D), rel=1e-12)
        np.testing.assert_allclose(g, naive_grad(w, D), rtol=1e-10, atol=1e-12)
    f32 = PairwiseLoss(data.X, data.y, data.query_ptr)  # float32 X used in place, float64 sums
    w = rng.normal(size=5)
    assert f32(w)[0] == pytest.approx(naive_loss(w, D), rel=1e-6)
    assert loss.lipschitz_bound() >= np.linalg.eigvalsh(2.0 * D.T @ D / len(D)).max()


def test_a_large_query_never_materialises_its_pairs():
    """One query of 30000 documents in 3 levels has 3e8 labelled pairs (a dense (p, 4) pair
    matrix would be 9.6 GB); a loss, gradient and solve stay within a few MB."""
    rng = np.random.default_rng(1)
    m, d = 30_000, 4
    X = rng.random((m, d))
    y = np.minimum((X[:, 0] * 3).astype(int), 2)
    loss = PairwiseLoss(X, y, np.array([0, m]))
    assert loss.n_pairs > 2.9e8
    tracemalloc.start()
    loss(np.ones(d))
    weighted_l1_solve(loss, np.full(d, 0.01), max_iter=5)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 20e6, peak


# ----------------------------------------------------------------------------- l1 ball


def test_l1_ball_projection_matches_a_generic_solver():
    rng = np.random.default_rng(2)
    for _ in range(5):
        v, r = rng.normal(size=6) * 2, float(rng.uniform(0.2, 3.0))
        got = project_l1_ball(v, r)
        # min ||w - v||^2 on split variables w = a - b, a, b >= 0, sum(a + b) <= r
        res = minimize(lambda z, v=v: float(np.sum((z[:6] - z[6:] - v) ** 2)), np.zeros(12), method="SLSQP",
                       bounds=[(0, None)] * 12, constraints=[{"type": "ineq", "fun": lambda z, r=r: r - z.sum()}],
                       options={"ftol": 1e-14})
        np.testing.assert_allclose(got, res.x[:6] - res.x[6:], atol=1e-5)
        assert np.abs(got).sum() <= r * (1 + 1e-12)
    inside = np.array([0.1, -0.2])
    np.testing.assert_array_equal(project_l1_ball(inside, 1.0), inside)
    np.testing.assert_array_equal(project_l1_ball(inside, 0.0), np.zeros(2))


@pytest.mark.parametrize("radius", [0.3, 2.0, 6.0])
def test_fenchelrank_objective_matches_scipy_on_explicit_pairs(small, loss, radius):
    _, D = small
    res = l1_ball_solve(loss, radius, **TIGHT)
    obj = lambda z: naive_loss(z[:5] - z[5:], D)
    jac = lambda z: np.r_[naive_grad(z[:5] - z[5:], D), -naive_grad(z[:5] - z[5:], D)]
    ref = minimize(obj, np.zeros(10), jac=jac, method="SLSQP", bounds=[(0, None)] * 10,
                   constraints=[{"type": "ineq", "fun": lambda z: radius - z.sum(), "jac": lambda z: -np.ones(10)}],
                   options={"ftol": 1e-15, "maxiter": 2000})
    assert ref.success
    assert res.objective == pytest.approx(ref.fun, rel=1e-6, abs=1e-9)
    assert res.objective <= ref.fun + 1e-9
    assert np.abs(res.w).sum() <= radius * (1 + 1e-12)


def test_fenchelrank_path_grows_from_the_smallest_radius_to_the_unconstrained_norm(loss):
    r_max, free = unconstrained_radius(loss, **TIGHT)
    assert r_max == pytest.approx(np.abs(free.w).sum())
    radii = path_grid(r_max, 8, 1e-3, increasing=True)
    assert radii[0] == pytest.approx(1e-3 * r_max) and radii[-1] == pytest.approx(r_max)
    points = l1_ball_path(loss, radii, **TIGHT)
    losses = [p.loss for p in points]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(losses))  # larger ball, smaller loss
    assert points[-1].loss == pytest.approx(free.loss, rel=1e-6)
    # the smallest radius: the projected-gradient vertex, the feature of the largest |grad f(0)|
    _, g0 = loss(np.zeros(loss.d))
    assert np.flatnonzero(points[0].w).tolist() == [int(np.argmax(np.abs(g0)))]


# ----------------------------------------------------------------------------- penalties


def test_l1_objective_matches_scipy_on_explicit_pairs(small, loss):
    _, D = small
    lam = 0.2 * lambda_max(loss)
    res = weighted_l1_solve(loss, np.full(5, lam), **TIGHT)
    obj = lambda z: naive_loss(z[:5] - z[5:], D) + lam * z.sum()
    jac = lambda z: np.r_[naive_grad(z[:5] - z[5:], D), -naive_grad(z[:5] - z[5:], D)] + lam
    ref = minimize(obj, np.zeros(10), jac=jac, method="L-BFGS-B", bounds=[(0, None)] * 10,
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000})
    assert res.objective == pytest.approx(ref.fun, rel=1e-7)
    np.testing.assert_allclose(res.w, ref.x[:5] - ref.x[5:], atol=1e-4)
    assert 0 < np.count_nonzero(res.w) < 5  # sparse, but not empty


@pytest.mark.parametrize("penalty", PENALTIES)
def test_lambda_max_is_exactly_where_the_first_weight_appears(loss, penalty):
    top = lambda_max(loss)
    at = reweighted_l1_solve(loss, top, penalty, **TIGHT)
    assert not np.any(at.w)
    below = reweighted_l1_solve(loss, 0.99 * top, penalty, **TIGHT)
    assert np.count_nonzero(below.w) >= 1
    first = SparseRankSVMSelector(penalty=penalty, n_points=3)
    X, y, qid = example_queries()
    Xv, yv, qv = example_queries(seed=1)
    first.fit(X, y, qid, X_val=Xv, y_val=yv, qid_val=qv)
    assert first.details_["path"][0]["nonzero"] == 0  # the path's first point: all zero


def test_penalty_weights_are_the_derivatives_of_the_penalties():
    t = np.array([0.0, 0.05, 0.3, 2.0])
    shape = {"eps": 0.1, "gamma": 3.0, "p": 0.5}
    lam, h = 0.4, 1e-7
    for penalty in PENALTIES:
        value = lambda x, penalty=penalty: penalty_value([x], lam, penalty, **shape)  # noqa: E731
        num = [(value(x + h) - value(x)) / h for x in t]
        np.testing.assert_allclose(penalty_weights(t, lam, penalty, **shape), num, rtol=1e-5, atol=1e-6)
        assert penalty_weights([0.0], lam, penalty, **shape)[0] == pytest.approx(lam)  # g'(0) = 1
    # the brief's forms: log 1/(1 + |w|/eps), MCP max(0, 1 - |w|/(gamma lam)), lp (1 + |w|/eps)^(p - 1)
    np.testing.assert_allclose(penalty_weights(t, 1.0, "log", **shape), 1.0 / (1.0 + t / 0.1))
    np.testing.assert_allclose(penalty_weights(t, lam, "mcp", **shape), np.maximum(0, 1 - t / (3.0 * lam)) * lam)
    np.testing.assert_allclose(penalty_weights(t, 1.0, "lp", **shape), (1 + t / 0.1) ** -0.5)
    with pytest.raises(ValueError, match="penalty must be one of l1, log, mcp, lp; got 'l2'"):
        penalty_value(t, 1.0, "l2")


@pytest.mark.parametrize("penalty", ["log", "mcp", "lp"])
def test_reweighted_l1_decreases_the_objective_and_ends_at_a_local_minimum(small, loss, penalty):
    """Each round majorises the concave penalty, so the penalised objective never increases; the
    end point is a local minimum: scipy started there finds nothing lower (and the stationarity
    conditions hold on the support)."""
    _, D = small
    shape = {"eps": 0.1, "gamma": 3.0, "p": 0.5}
    lam = 0.15 * lambda_max(loss)
    objectives, w = [], None
    for rounds in range(1, 7):
        res = reweighted_l1_solve(loss, lam, penalty, n_reweight=rounds, **shape, **TIGHT)
        objectives.append(res.objective)
    assert all(b <= a + 1e-10 for a, b in itertools.pairwise(objectives))
    w = res.w
    l1 = reweighted_l1_solve(loss, lam, "l1", **TIGHT)
    assert np.count_nonzero(w) <= np.count_nonzero(l1.w)  # the concave penalties are at least as sparse

    def obj(z):
        return naive_loss(z[:5] - z[5:], D) + penalty_value(z[:5] + z[5:], lam, penalty, **shape)

    def jac(z):
        g = naive_grad(z[:5] - z[5:], D)
        slope = penalty_weights(z[:5] + z[5:], lam, penalty, **shape)
        return np.r_[g + slope, -g + slope]

    start = np.r_[np.maximum(w, 0), np.maximum(-w, 0)]
    ref = minimize(obj, start, jac=jac, method="L-BFGS-B", bounds=[(0, None)] * 10, options={"ftol": 1e-15})
    assert res.objective == pytest.approx(obj(start), rel=1e-12)
    assert ref.fun >= res.objective - 1e-8
    _, g = loss(w)
    on = w != 0
    slope = penalty_weights(w, lam, penalty, **shape)
    np.testing.assert_allclose(g[on] + slope[on] * np.sign(w[on]), 0, atol=1e-5)
    assert np.all(np.abs(g[~on]) <= lam * (1 + 1e-6))


# ----------------------------------------------------------------------------- convergence certificates


@pytest.fixture(scope="module")
def medium():
    """A 10-feature problem (every feature varies within queries, pairs not separable), its
    pair-free loss and its explicit pairs (the references below use only the pairs)."""
    data = planted(n_queries=25, d=10, informative=(1, 4, 6), seed=11)
    X = data.X.astype(np.float64)
    return PairwiseLoss(X, data.y, data.query_ptr), explicit_pairs(X, data.y, data.query_ptr)


def _split(D):
    """The pair objective and gradient on split variables w = u - v (u, v >= 0)."""
    d = D.shape[1]

    def fun(z):
        w = z[:d] - z[d:]
        g = naive_grad(w, D)
        return naive_loss(w, D), np.r_[g, -g]
    return fun


def test_the_unconstrained_minimiser_and_r_max_match_scipy(medium):
    """r_max is the l1 norm of the unconstrained minimiser, to tolerance: L-BFGS-B on the
    explicit pairs finds the same point."""
    loss, D = medium
    r_max, free = unconstrained_radius(loss)
    assert free.converged and free.optimality <= 1e-10
    ref = minimize(lambda w: (naive_loss(w, D), naive_grad(w, D)), np.zeros(10), jac=True, method="L-BFGS-B",
                   options={"ftol": 1e-16, "gtol": 1e-13, "maxiter": 20000})
    assert free.loss == pytest.approx(ref.fun, rel=1e-9)
    np.testing.assert_allclose(free.w, ref.x, atol=1e-4 * np.abs(ref.x).max())
    assert r_max == pytest.approx(np.abs(ref.x).sum(), rel=1e-5)
    # beyond r_max the ball's constraint is inactive, below it active: the ball's optimum there is worse
    assert l1_ball_solve(loss, 0.9 * r_max).loss > free.loss * (1 + 1e-6)


def test_fenchelrank_path_matches_scipy_at_every_radius(medium):
    """Every radius of the default path (default tol and max_iter): converged, and the objective
    within 1e-6 (relative) of SLSQP's on the explicit pairs, and never below it by more."""
    loss, D = medium
    r_max, free = unconstrained_radius(loss)
    radii = path_grid(r_max, 12, 1e-3, increasing=True)
    points = l1_ball_path(loss, radii, w_free=free.w)
    fun, z = _split(D), np.zeros(20)
    for r, point in zip(radii, points):
        ref = minimize(fun, z, jac=True, method="SLSQP", bounds=[(0, None)] * 20,
                       constraints=[{"type": "ineq", "fun": lambda x, r=r: r - x.sum(), "jac": lambda x: -np.ones(20)}],
                       options={"ftol": 1e-15, "maxiter": 5000})
        assert ref.success, ref.message
        z = ref.x
        assert point.converged, (r, point.optimality)
        assert point.loss == pytest.approx(ref.fun, rel=1e-6), r
        assert np.abs(point.w).sum() <= r * (1 + 1e-12)
    assert points[-1].n_iter == 0  # r_max: the unconstrained minimiser itself, no iteration
    assert points[-1].loss == pytest.approx(free.loss, rel=1e-12)


def test_sparse_ranksvm_path_matches_scipy_at_every_lambda(medium):
    """Every lambda of the default l1 path: converged, and the penalised objective within 1e-6
    (relative) of L-BFGS-B's on split variables over the explicit pairs."""
    loss, D = medium
    lambdas = path_grid(lambda_max(loss), 12, 1e-3)
    points = penalty_path(loss, lambdas, "l1")
    fun, z = _split(D), np.zeros(20)
    for lam, point in zip(lambdas, points):
        ref = minimize(lambda x, lam=lam: (lambda fg: (fg[0] + lam * x.sum(), fg[1] + lam))(fun(x)), z, jac=True,
                       method="L-BFGS-B", bounds=[(0, None)] * 20,
                       options={"ftol": 1e-16, "gtol": 1e-12, "maxiter": 20000})
        z = ref.x
        assert point.converged, (lam, point.optimality)
        assert point.objective == pytest.approx(ref.fun, rel=1e-6), lam


def _check_certificates(loss, D, points, kind, tol, penalty="l1"):
    """For every point reported converged, the optimality conditions recomputed from the explicit
    pairs hold to tol (the gap over f, or the violation over lambda); returns how many."""
    shape = {"eps": 0.1, "gamma": 3.0, "p": 0.5}
    checked = 0
    for point in points:
        if not point.converged:
            continue
        w = point.w
        f, g = naive_loss(w, D), naive_grad(w, D)
        if kind == "ball":
            r = point.extra["radius"]
            gap = float(g @ w + r * np.abs(g).max())  # the Frank-Wolfe gap, written out
            assert gap <= tol * f * (1 + 1e-6) + 1e-15, (r, gap / f)
        else:
            lam = point.extra["lambda"]
            slope = penalty_weights(w, lam, penalty, **shape)
            on = w != 0
            viol = np.r_[np.abs(g[on] + slope[on] * np.sign(w[on])), np.maximum(np.abs(g[~on]) - lam, 0.0)]
            assert viol.max(initial=0.0) <= tol * lam * (1 + 1e-6) + 1e-15, (lam, viol.max() / lam)
        checked += 1
    return checked


@pytest.mark.parametrize("tol", [None, 1e-3])
def test_converged_means_the_optimality_conditions_hold(medium, tol):
    """``converged`` is a certificate: at every converged point of both paths (and of the concave
    penalties' reweighting) the gap / KKT conditions recomputed from the explicit pairs hold to
    the tolerance, at the default tol and at a loose one (where the solver stops early)."""
    loss, D = medium
    kw = {} if tol is None else {"tol": tol}
    r_max, free = unconstrained_radius(loss)
    ball = l1_ball_path(loss, path_grid(r_max, 8, 1e-3, True), w_free=free.w, **kw)
    assert _check_certificates(loss, D, ball, "ball", tol or TOL_BALL) == 8
    top = lambda_max(loss)
    for penalty in PENALTIES:
        points = penalty_path(loss, path_grid(top, 8, 1e-3), penalty, **kw)
        assert _check_certificates(loss, D, points, "penalty", tol or TOL_PENALTY, penalty) == 8
    # the helpers are the same conditions
    w = ball[3].w
    f, g = loss(w)
    assert ball_gap(w, g, ball[3].extra["radius"]) / f == pytest.approx(ball[3].optimality, rel=1e-9, abs=1e-15)
    assert l1_kkt_violation(w, g, 0.1) == pytest.approx(
        max(np.abs(g[w != 0] + 0.1 * np.sign(w[w != 0])).max(), np.maximum(np.abs(g[w == 0]) - 0.1, 0).max(initial=0)))


def test_a_solve_stopped_by_max_iter_reports_not_converged(medium):
    """One iteration is not enough anywhere inside the path: converged is False, the measure is
    above tol, and the rankers and selectors say so with a ConvergenceWarning."""
    loss, _ = medium
    r_max, _ = unconstrained_radius(loss)
    ball = l1_ball_solve(loss, 0.3 * r_max, max_iter=1)
    assert not ball.converged and ball.n_iter == 1 and ball.optimality > TOL_BALL
    lam = 0.01 * lambda_max(loss)
    pen = weighted_l1_solve(loss, np.full(10, lam), max_iter=1)
    assert not pen.converged and pen.optimality > TOL_PENALTY
    newton = unconstrained_minimiser(loss, max_iter=1)
    assert not newton.converged and newton.n_iter == 1
    reweighted = reweighted_l1_solve(loss, lam, "log", n_reweight=1)
    assert not reweighted.converged and reweighted.optimality > TOL_PENALTY  # one round is not stationary

    X, y, qid = example_queries()
    Xv, yv, qv = example_queries(seed=1)
    for sel in (FenchelRankSelector(max_iter=1), SparseRankSVMSelector(max_iter=1)):
        with pytest.warns(ConvergenceWarning, match=rf"{sel.name}: \d+ of 20 path points stopped before tol"):
            sel.fit(X, y, qid, X_val=Xv, y_val=yv, qid_val=qv)
        assert not all(row["converged"] for row in sel.details_["path"])
    for ranker in (FenchelRank(radius_ratio=0.3, max_iter=1), SparseRankSVM(lambda_ratio=0.01, max_iter=1)):
        with pytest.warns(ConvergenceWarning, match="did not converge"):
            ranker.fit(X, y, qid)
        assert ranker.converged_ is False
    for sel in (FenchelRankSelector(), SparseRankSVMSelector(penalty="log")):  # the defaults: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            sel.fit(X, y, qid, X_val=Xv, y_val=yv, qid_val=qv)
        assert all(row["converged"] for row in sel.details_["path"])


# ----------------------------------------------------------------------------- order and selectors


def test_entry_order_on_a_hand_made_path():
    W = np.array([[0.0, 0.0, 0.0, 0.0, 0.0],
                  [0.0, 0.0, 0.7, 0.0, 0.0],   # 2 enters first
                  [0.1, 0.0, 0.6, -0.1, 0.0],  # 0 and 3 together: 3 is larger at the densest point
                  [0.2, 0.0, 0.5, -0.4, 0.0],  # 1 and 4 never enter: last, by index
                  ])
    ranking, entry = entry_order(W)
    assert ranking.tolist() == [2, 3, 0, 1, 4]
    assert entry.tolist() == [2, 4, 1, 2, 4]
    W[3, 3] = 0.0  # 3 leaves again: entry still 2, but |w| at the densest point 0 < 0.2
    assert entry_order(W)[0].tolist() == [2, 0, 3, 1, 4]


@pytest.fixture(scope="module")
def planted_splits():
    train = planted(n_queries=60, d=10, informative=(2, 5, 7), seed=5)
    vali = planted(n_queries=30, d=10, informative=(2, 5, 7), seed=6)
    return train, vali


def _fit(selector, train, vali):
    return selector.fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)


@pytest.mark.parametrize("selector", [FenchelRankSelector()] + [SparseRankSVMSelector(penalty=p) for p in PENALTIES],
                         ids=["fenchelrank"] + [f"sparse_ranksvm_{p}" for p in PENALTIES])
def test_planted_features_enter_first_and_vali_chooses_the_best_point(planted_splits, selector):
    train, vali = planted_splits
    sel = _fit(selector, train, vali)
    assert set(sel.ranking_[:3].tolist()) == {2, 5, 7}
    assert sorted(sel.ranking_.tolist()) == list(range(10))
    assert np.all(sel.entry_[sel.ranking_[:3]] < sel.entry_[sel.ranking_[3:]].min(initial=sel.n_points))
    table = sel.details_["path"]
    assert len(table) == 20 and len(sel.path_) == 20
    values = [row["vali"] for row in table if not row["degenerate"]]
    assert sel.chosen_["vali"] == max(values)
    k = sel.chosen_["point"]
    assert table[k]["vali"] == max(values) and all(row["vali"] < max(values) for row in table[:k]
                                                   if not row["degenerate"])
    own = OwnPredictions(sel).predict(vali.X)
    np.testing.assert_allclose(own, vali.X.astype(np.float64) @ sel.coef_ + sel.intercept_, rtol=1e-10)
    value, degenerate = vali_score(vali.y, own, vali.query_ptr, "map", "letor4", "expected")
    assert value == pytest.approx(sel.chosen_["vali"]) and not degenerate


def test_sparse_ranksvm_path_point_equals_the_ranker_at_the_same_lambda(planted_splits):
    """l1 is convex: the path's warm-started point and a cold solve agree, and FenchelRank at
    the radius of an l1 point's norm has the same loss (the two problems share their solutions)."""
    train, vali = planted_splits
    sel = _fit(SparseRankSVMSelector(n_points=6, min_ratio=0.01, tol=1e-9, max_iter=5000), train, vali)
    k = 3
    ratio = sel.path_[k] / sel.details_["lambda_max"]
    ranker = SparseRankSVM(lambda_ratio=ratio, tol=1e-9, max_iter=5000).fit(train.X, train.y, train.qid)
    assert ranker.lambda_ == pytest.approx(sel.path_[k], rel=1e-7)  # float64 here, float32 X in the selector
    assert ranker.n_features_in_ == 10
    refit = _fit(SparseRankSVMSelector(n_points=6, min_ratio=0.01, tol=1e-9, max_iter=5000), train, vali)
    np.testing.assert_array_equal(refit.ranking_, sel.ranking_)  # deterministic
    fixed = sel.details_["path"][k]
    assert ranker.objective_ == pytest.approx(fixed["objective"], rel=1e-6)
    w_l1 = ranker.w_
    fr = FenchelRank(radius_ratio=1.0, tol=1e-9, max_iter=5000).fit(train.X, train.y, train.qid)
    ball = l1_ball_solve(PairwiseLoss(*_scaled(train)), float(np.abs(w_l1).sum()), **TIGHT)
    f_l1, _ = PairwiseLoss(*_scaled(train))(w_l1)
    assert ball.loss == pytest.approx(f_l1, rel=1e-5)
    assert fr.radius_ == pytest.approx(fr.radius_max_)


def _scaled(data):
    X = data.X.astype(np.float64)
    lo, hi = X.min(0), X.max(0)
    return (X - lo) / np.where(hi > lo, hi - lo, 1.0), data.y, data.query_ptr


def test_rankers_fit_predict_and_are_registered():
    X, y, qid = example_queries()
    Xt, yt, qt = example_queries(seed=1)
    assert RANKERS["fenchelrank"] is FenchelRank and RANKERS["sparse_ranksvm"] is SparseRankSVM
    assert SELECTORS["fenchelrank"] is FenchelRankSelector and SELECTORS["sparse_ranksvm"] is SparseRankSVMSelector
    for name in ("fenchelrank", "sparse_ranksvm"):
        cls = RANKERS[name]
        (key, grid), = cls.default_grid.items()
        assert len(grid) == 9 and all(0 < v <= 1 for v in grid)
        model = make_ranker(name).fit(X, y, qid, X_val=Xt, y_val=yt, qid_val=qt)  # vali ignored
        scores = model.predict(Xt)
        assert scores.dtype == np.float64 and scores.shape == (len(Xt),)
        np.testing.assert_allclose(scores, Xt @ model.coef_ + model.intercept_)
        sparser = make_ranker(name, **{key: grid[0]}).fit(X, y, qid)
        assert np.count_nonzero(sparser.coef_) <= np.count_nonzero(model.coef_)
    with pytest.raises(ValueError, match=r"radius_ratio"):
        make_ranker("fenchelrank", radius_ratio=0.0).fit(X, y, qid)
    with pytest.raises(ValueError, match=r"penalty"):
        make_ranker("sparse_ranksvm", penalty="scad").fit(X, y, qid)


@pytest.mark.parametrize("name,params,message", [
    ("sparse_ranksvm", {"p": 1.0}, r"\bp\b"),
    ("sparse_ranksvm", {"gamma": 1.0}, r"gamma"),
    ("fenchelrank", {"n_points": 1}, r"n_points"),
    ("fenchelrank", {"min_ratio": 1.0}, r"min_ratio"),
])
def test_bad_parameters_are_one_line_errors(name, params, message):
    X, y, qid = example_queries()
    with pytest.raises(ValueError, match=message) as excinfo:
        make_selector(name, **params).fit(X, y, qid, X_val=X, y_val=y, qid_val=qid)
    assert "\n" not in str(excinfo.value)


@pytest.mark.parametrize("name", ["fenchelrank", "sparse_ranksvm"])
def test_the_path_point_needs_validation_data(name):
    X, y, qid = example_queries()
    sel = make_selector(name)
    assert sel.needs_validation()[1] == {}
    with pytest.raises(ValueError, match=f"{name}: choosing the path point needs X_val, y_val and qid_val"):
        sel.fit(X, y, qid)


def test_the_default_tolerance_gives_the_entry_order_of_a_tight_solve(planted_splits):
    """The stopping rule (gradient mapping at most 1e-4 ||grad f(0)||_inf) does not let a feature
    enter early: the default path orders the features as a path solved to 1e-10."""
    train, _ = planted_splits
    loss = PairwiseLoss(*_scaled(train))
    top = lambda_max(loss)
    for solve in (lambda **kw: penalty_path(loss, path_grid(top, 12, 1e-3), "l1", **kw),
                  lambda **kw: l1_ball_path(loss, path_grid(unconstrained_radius(loss)[0], 12, 1e-3, True), **kw)):
        default, tight = solve(), solve(**TIGHT)
        assert all(p.converged for p in default)
        order = [entry_order(np.array([p.w for p in points]))[0][:5].tolist() for points in (default, tight)]
        assert order[0] == order[1]


@pytest.mark.slow
def test_mq2008_fold1_paths(mq2008_dir):
    """Real data (skipped without the archive): both paths rank all 46 features, the features
    constant within every query last, the l1 path's first feature is the one of the largest
    |grad f(0)|, and the vali choice is a sparse model. Every point converges within the default
    budget; FenchelRank's r_max is the l1 norm of L-BFGS-B's unconstrained minimiser (43.35; the
    old FISTA rule stopped at 15.2), and the chosen points satisfy their optimality conditions."""
    from ltrfs.io import read_letor

    tr, va = (read_letor(mq2008_dir / "Fold1" / f"{s}.txt") for s in ("train", "vali"))
    loss, _, _ = scaled_loss(tr.X, tr.y, tr.query_ptr)
    _, g0 = loss(np.zeros(loss.d))
    for sel in (FenchelRankSelector(), SparseRankSVMSelector()):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            sel.fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
        assert sorted(sel.ranking_.tolist()) == list(range(46))
        constant = sel.constant_features_.tolist()
        assert constant and sorted(sel.ranking_[-len(constant):].tolist()) == constant
        assert sel.ranking_[0] == int(np.argmax(np.abs(g0)))
        assert 0 < sel.chosen_["nonzero"] < 46
        assert all(row["converged"] and row["optimality"] <= sel.tol for row in sel.details_["path"])
        f, g = loss(sel.w_)
        if sel.name == "fenchelrank":
            assert ball_gap(sel.w_, g, sel.chosen_["radius"]) <= TOL_BALL * f
            assert sel.details_["unconstrained_converged"]
            ref = minimize(lambda w: loss(w), np.zeros(46), jac=True, method="L-BFGS-B",
                           options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
            assert sel.details_["radius_max"] == pytest.approx(np.abs(ref.x).sum(), rel=1e-3)
        else:
            lam = sel.chosen_["lambda"]
            assert l1_kkt_violation(sel.w_, g, lam) <= TOL_PENALTY * lam


@pytest.mark.parametrize("method", ["sparse_ranksvm", "fenchelrank"])
def test_the_transposed_copy_changes_no_bit(method, monkeypatch):
    """A float32 X up to TRANSPOSED_BYTES is multiplied from its transposed copy (column by
    column, the same sums); above it, row by row: the two fits give the same weights, bit for bit
    (the log penalty's path for sparse_ranksvm: every face Newton step and every score)."""
    import ltrfs.rankers.sparse_pairwise as sp

    data = planted(n_queries=30, d=12, informative=(1, 3, 7), seed=11)
    vali = planted(n_queries=10, d=12, informative=(1, 3, 7), seed=12)
    X = data.X.astype(np.float32)
    params = {"penalty": "log", "n_points": 5} if method == "sparse_ranksvm" else {"n_points": 5}

    def fit():
        selector = make_selector(method, **params)
        selector.fit(X, data.y, data.qid, X_val=vali.X.astype(np.float32), y_val=vali.y, qid_val=vali.qid)
        return selector

    copied = fit()
    assert PairwiseLoss(X, data.y, data.query_ptr).XT is not None
    monkeypatch.setattr(sp, "TRANSPOSED_BYTES", 0)
    assert PairwiseLoss(X, data.y, data.query_ptr).XT is None
    rows = fit()
    assert copied.ranking_.tolist() == rows.ranking_.tolist()
    assert np.array_equal(copied.scores_, rows.scores_)
    assert PairwiseLoss(X.astype(np.float64), data.y, data.query_ptr).XT is None  # NumPy's products

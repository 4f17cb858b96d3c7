"""Tests of ltrfs.rankers.svmmap (SVM-map, Yue et al. 2007): the joint feature map and the AP
loss by hand, the greedy most-violated-constraint search against brute force over all
rankings and against the naive scan, the cutting-plane solver against a generic solver of the
n-slack QP with every constraint enumerated, and ranking quality on planted data."""
from __future__ import annotations

import itertools
import logging
import pickle
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone

from conftest import planted, ptr_of, qid_of
from ltrfs.estimator import ConvergenceWarning
from ltrfs.metrics import metric_per_query
from ltrfs.rankers import RANKERS, SVMMAP, RankSVM, make_ranker
from ltrfs.rankers.svmmap import average_precision, joint_feature, most_violated


# ----------------------------------------------------------------------------- helpers


def correct_order(relevant):
    """A ranking with every relevant document above every non-relevant one (y_q)."""
    return np.argsort(~np.asarray(relevant, dtype=bool), kind="stable")


def brute_force(X, relevant, w):
    """max over all permutations of Delta_AP + w.Psi; returns (value, AP of the argmax)."""
    best, best_ap = -np.inf, None
    for perm in itertools.permutations(range(len(relevant))):
        ap = average_precision(relevant, perm)
        value = 1.0 - ap + w @ joint_feature(X, relevant, perm)
        if value > best + 1e-12:
            best, best_ap = value, ap
    return best, best_ap


def oracle_value_and_ap(X, relevant, w, y, relevant_min=1):
    """Our oracle on one query: (Delta + w.Psi(yhat), AP(yhat))."""
    s = X @ w
    delta, coef = most_violated(s, y, ptr_of([len(y)]), relevant_min=relevant_min)
    psi_true = joint_feature(X, relevant, correct_order(relevant))
    return delta[0] + w @ psi_true - coef @ s, 1.0 - delta[0]


def all_constraints(X, relevant):
    """Every distinct (Psi(y_q) - Psi(y'), Delta_AP(y')) of one query, over all permutations."""
    psi_true = joint_feature(X, relevant, correct_order(relevant))
    seen = {}
    for perm in itertools.permutations(range(len(relevant))):
        dpsi = psi_true - joint_feature(X, relevant, perm)
        delta = 1.0 - average_precision(relevant, perm)
        seen[tuple(np.round(np.r_[dpsi, delta], 12))] = (dpsi, delta)
    return list(seen.values())


def primal_brute(w, X, y, sizes, C, relevant_min=1):
    """1/2 ||w||^2 + C/n sum_q max_y' [Delta + w.Psi(y') - w.Psi(y_q)], by enumeration."""
    ptr = ptr_of(sizes)
    total = 0.0
    for a, b in zip(ptr[:-1], ptr[1:]):
        rel = y[a:b] >= relevant_min
        if rel.all() or not rel.any():
            continue
        total += max(0.0, max(delta - w @ dpsi for dpsi, delta in all_constraints(X[a:b], rel)))
    return 0.5 * w @ w + C / len(sizes) * total


def synthetic_ltr(rng, n_queries, n_features=10):
    """Queries of 12..30 documents; latent relevance from features 0, 1, 2 (3.. are noise);
    labels 2 / 1 / 0 for the top 15% / next 25% / rest of each query."""
    sizes = rng.integers(12, 31, size=n_queries)
    X = rng.normal(size=(sizes.sum(), n_features))
    latent = X[:, 0] + 0.8 * X[:, 1] + 0.6 * X[:, 2] + 0.3 * rng.normal(size=len(X))
    y = np.zeros(len(X), dtype=np.int64)
    ptr = ptr_of(sizes)
    for a, b in zip(ptr[:-1], ptr[1:]):
        rank = np.argsort(np.argsort(-latent[a:b]))
        y[a:b] = np.where(rank < 0.15 * (b - a), 2, np.where(rank < 0.40 * (b - a), 1, 0))
    return X, y, sizes


def mean_metric(y, scores, sizes, metric):
    return float(metric_per_query(y, scores, ptr_of(sizes), metric, "letor4").mean())


# ----------------------------------------------------------------------------- Psi and Delta


def test_joint_feature_and_ap_loss_by_hand():
    # documents 0, 1 relevant; 2, 3 not. Ranking 0, 2, 1, 3: relevant at ranks 1 and 3 ->
    # AP = (1/1 + 2/3) / 2 = 5/6, Delta = 1/6; y_02 = y_03 = y_13 = +1, y_12 = -1 ->
    # Psi = [(x0-x2) + (x0-x3) - (x1-x2) + (x1-x3)] / 4 = (x0 - x3) / 2
    X = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 1.0], [0.5, -1.0]])
    rel = np.array([True, True, False, False])
    order = [0, 2, 1, 3]
    assert average_precision(rel, order) == pytest.approx(5 / 6, abs=1e-15)
    np.testing.assert_allclose(joint_feature(X, rel, order), (X[0] - X[3]) / 2, atol=1e-15)
    # correct ranking: AP 1, Psi = mean of all four differences; reversed: AP = (1/3 + 2/4)/2, -Psi
    psi_true = (X[0] + X[1] - X[2] - X[3]) / 2
    np.testing.assert_allclose(joint_feature(X, rel, [1, 0, 3, 2]), psi_true, atol=1e-15)
    assert average_precision(rel, [2, 3, 0, 1]) == pytest.approx(5 / 12, abs=1e-15)
    np.testing.assert_allclose(joint_feature(X, rel, [3, 2, 1, 0]), -psi_true, atol=1e-15)
    # at w = 0 the most violated ranking puts both non-relevant documents first: Delta = 7/12,
    # Psi(y_q) - Psi(yhat) = 2 Psi(y_q) = x0 + x1 - x2 - x3 -> coefficients +1, +1, -1, -1
    y = np.array([1, 2, 0, 0])
    delta, coef = most_violated(np.zeros(4), y, ptr_of([4]))
    assert delta[0] == pytest.approx(7 / 12, abs=1e-15)
    np.testing.assert_allclose(coef, [1.0, 1.0, -1.0, -1.0], atol=1e-15)
    # with scores 3 > 2 > 1 > 0 for documents 0, 2, 1, 3 (w = e_1 on a chosen X) the loss
    # alone prefers the non-relevant documents first, the margin term the correct order;
    # enumeration decides
    X1 = np.array([[3.0], [1.0], [2.0], [0.0]])
    for scale in (0.1, 1.0, 10.0):
        value, ap = oracle_value_and_ap(X1, rel, np.array([scale]), y)
        ref_value, ref_ap = brute_force(X1, rel, np.array([scale]))
        assert value == pytest.approx(ref_value, abs=1e-12) and ap == pytest.approx(ref_ap, abs=1e-12)


def test_relevance_threshold_and_unconstrained_queries():
    # relevant_min=2: only label 2 counts; a query with all labels equal (or no label >= 2)
    # has no constraint: Delta 0, coefficients 0
    y = np.array([2, 1, 0, 1, 1, 0, 3])
    sizes = [3, 2, 2]
    delta, coef = most_violated(np.array([0.0, 1, 2, 0, 1, 5, 4]), y, ptr_of(sizes), relevant_min=2)
    assert delta[1] == 0.0 and (coef[3:5] == 0).all()
    assert delta[0] > 0  # the relevant document (label 2) has the lowest score
    assert delta[2] > 0  # label 3 relevant, label 0 not; score 5 (non-relevant) above 4
    # query 1 alone: labels 2 vs {1, 0} at relevant_min=2 is a different problem than at 1
    d2, _ = most_violated(np.array([0.0, 1, 2]), y[:3], ptr_of([3]), relevant_min=2)
    d1, _ = most_violated(np.array([0.0, 1, 2]), y[:3], ptr_of([3]), relevant_min=1)
    assert d2[0] == pytest.approx(1 - 1 / 3) and d1[0] != d2[0]
    delta1, _ = most_violated(np.array([0.0, 1, 2, 0, 1, 5, 4]), y, ptr_of(sizes), relevant_min=1)
    assert delta1[1] == 0.0  # labels 1, 1: all relevant at relevant_min=1
    with pytest.raises(ValueError, match="method must be 'greedy' or 'naive'"):
        most_violated(np.zeros(3), y[:3], ptr_of([3]), method="fast")


# ----------------------------------------------------------------------------- oracle


def test_greedy_matches_brute_force_over_all_rankings():
    rng = np.random.default_rng(0)
    checked = 0
    for trial in range(250):
        n = int(rng.integers(2, 8))
        X = rng.normal(size=(n, 3))
        y = rng.integers(0, 3, size=n)
        rel = y >= 1
        if rel.all() or not rel.any():
            continue
        w = rng.normal(size=3) * rng.choice([0.01, 0.3, 1.0, 5.0, 50.0])
        value, ap = oracle_value_and_ap(X, rel, w, y)
        ref_value, ref_ap = brute_force(X, rel, w)
        assert value == pytest.approx(ref_value, abs=1e-12), trial
        assert ap == pytest.approx(ref_ap, abs=1e-12), trial
        checked += 1
    assert checked > 150


def test_greedy_matches_brute_force_with_tied_scores():
    # tied scores (features on a coarse grid): the maximised value is still the maximum
    rng = np.random.default_rng(1)
    for trial in range(150):
        n = int(rng.integers(3, 7))
        X = rng.integers(0, 3, size=(n, 2)).astype(float)
        y = rng.integers(0, 2, size=n)
        rel = y >= 1
        if rel.all() or not rel.any():
            continue
        w = np.array([1.0, 0.0]) * rng.choice([0.1, 1.0, 10.0])
        value, _ = oracle_value_and_ap(X, rel, w, y)
        assert value == pytest.approx(brute_force(X, rel, w)[0], abs=1e-12), trial


def test_greedy_matches_naive_scan_on_long_queries():
    rng = np.random.default_rng(2)
    for trial in range(30):
        sizes = rng.integers(1, 400, size=rng.integers(1, 6))
        m = int(sizes.sum())
        y = (rng.random(m) < rng.choice([0.02, 0.2, 0.6])).astype(int) * rng.integers(1, 3, size=m)
        scores = np.round(rng.normal(size=m) * rng.choice([0.001, 0.1, 1.0, 100.0]), rng.choice([1, 8]))
        d_fast, c_fast = most_violated(scores, y, ptr_of(sizes))
        d_naive, c_naive = most_violated(scores, y, ptr_of(sizes), method="naive")
        np.testing.assert_allclose(d_fast, d_naive, atol=1e-12)
        np.testing.assert_allclose(c_fast, c_naive, atol=1e-12)
        # the constraint's value is never below that of the correct ranking (value = 0)
        ptr = ptr_of(sizes)
        for q, (a, b) in enumerate(zip(ptr[:-1], ptr[1:])):
            assert d_fast[q] - c_fast[a:b] @ scores[a:b] >= -1e-9


# ----------------------------------------------------------------------------- solver


def n_slack_reference(X, y, sizes, C):
    """The n-slack QP with every constraint enumerated, solved by SLSQP on (w, xi) with the
    objective divided by C (better scaled): (objective, w, number of constraints). SLSQP may
    stop with "positive directional derivative" when its start is already optimal to its
    tolerance; the returned point is checked for feasibility instead of its success flag."""
    ptr, n, d = ptr_of(sizes), len(sizes), X.shape[1]
    rows = []
    for q, (a, b) in enumerate(zip(ptr[:-1], ptr[1:])):
        rel = y[a:b] >= 1
        if rel.all() or not rel.any():
            continue
        rows += [(q, dpsi, delta) for dpsi, delta in all_constraints(X[a:b], rel)]
    G = np.zeros((len(rows), d + n))
    h = np.zeros(len(rows))
    for r, (q, dpsi, delta) in enumerate(rows):  # w.dpsi + xi_q - delta >= 0
        G[r, :d], G[r, d + q], h[r] = dpsi, 1.0, delta
    cons = [{"type": "ineq", "fun": lambda z: G @ z - h, "jac": lambda z: G},
            {"type": "ineq", "fun": lambda z: z[d:], "jac": lambda z: np.eye(n + d)[d:]}]
    fun = lambda z: (0.5 * z[:d] @ z[:d] + C / n * z[d:].sum()) / C  # noqa: E731
    jac = lambda z: np.r_[z[:d], np.full(n, C / n)] / C  # noqa: E731
    z0 = np.r_[np.zeros(d), np.ones(n)]  # feasible: Delta <= 1
    res = minimize(fun, z0, jac=jac, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 5000})
    z = res.x
    assert (G @ z - h).min() >= -1e-9 and z[d:].min() >= -1e-9, res.message
    return C * fun(z), z[:d], len(rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.1, 2.0, 50.0])
def test_solver_matches_enumerated_n_slack_qp(seed, C):
    rng = np.random.default_rng(10 + seed)
    sizes = np.array([4, 5, 3, 5])
    X = rng.normal(size=(sizes.sum(), 3))
    y = rng.integers(0, 3, size=sizes.sum())
    y[[0, 1, 4, 5, 9, 12, 13]] = [1, 0, 2, 0, 0, 1, 0]  # every query has both classes
    ref, w_ref, n_constraints = n_slack_reference(X, y, sizes, C)
    assert n_constraints > 30
    tight = SVMMAP(C=C, epsilon=1e-8).fit(X, y, qid_of(sizes))
    assert tight.converged_ and tight.tol_ == 1e-8
    # the oracle's objective is the exact primal (checked by enumeration) ...
    assert tight.objective_ == pytest.approx(primal_brute(tight.coef_, X, y, sizes, C), rel=1e-10)
    # ... and the optimum of the 1-slack problem is that of the enumerated n-slack QP
    assert tight.objective_ == pytest.approx(ref, rel=1e-4)
    assert tight.objective_ >= ref * (1 - 1e-6)
    np.testing.assert_allclose(tight.coef_, w_ref, atol=1e-3 * max(1.0, np.abs(w_ref).max()))
    # the default epsilon: the 1-slack guarantee objective <= OPT + C * epsilon
    default = SVMMAP(C=C).fit(X, y, qid_of(sizes))
    assert default.tol_ == 0.001
    assert ref * (1 - 1e-6) <= default.objective_ <= ref + C * 0.001


def test_c_is_scaled_by_number_of_queries():
    # C multiplies the MEAN slack: duplicating every query changes nothing; a query without
    # a constraint only enters through n (as svm_rank counts queries)
    rng = np.random.default_rng(3)
    X, y, sizes = synthetic_ltr(rng, 5, n_features=4)
    a = SVMMAP(C=5.0, epsilon=1e-9).fit(X, y, qid_of(sizes))
    b = SVMMAP(C=5.0, epsilon=1e-9).fit(np.vstack([X, X]), np.r_[y, y], qid_of(np.r_[sizes, sizes]))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-6)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-8)
    Xc = np.vstack([X, rng.normal(size=(4, 4))])
    c = SVMMAP(C=5.0 * 6 / 5, epsilon=1e-9).fit(Xc, np.r_[y, [0, 0, 0, 0]], qid_of(np.r_[sizes, 4]))
    assert c.n_constrained_ == 5
    np.testing.assert_allclose(c.coef_, a.coef_, atol=1e-6)


def test_warm_start_along_c_and_from_coef():
    rng = np.random.default_rng(4)
    X, y, sizes = synthetic_ltr(rng, 12, n_features=5)
    cold = SVMMAP(C=100.0).fit(X, y, qid_of(sizes))
    warm = SVMMAP(C=1.0, warm_start=True).fit(X, y, qid_of(sizes))
    warm.set_params(C=100.0).fit(X, y, qid_of(sizes))  # reuses the cuts (same data)
    assert warm.converged_
    assert abs(warm.objective_ - cold.objective_) <= 100.0 * cold.tol_
    # other data: the previous coef_ seeds the working set; same optimum as a cold start
    n5 = sizes[:5].sum()
    ref = SVMMAP(C=100.0, epsilon=1e-8).fit(X[:n5], y[:n5], qid_of(sizes[:5]))
    warm.set_params(epsilon=1e-8).fit(X[:n5], y[:n5], qid_of(sizes[:5]))
    assert warm.objective_ == pytest.approx(ref.objective_, rel=1e-6)


def test_edge_cases_and_logging(caplog):
    X = np.arange(12, dtype=float).reshape(6, 2)
    # no query with both classes: w = 0, no iteration
    model = SVMMAP().fit(X, np.array([1, 1, 1, 0, 0, 0]), qid_of([3, 3]))
    np.testing.assert_array_equal(model.coef_, [0.0, 0.0])
    assert (model.objective_, model.n_iter_, model.converged_, model.n_constrained_) == (0.0, 0, True, 0)
    rng = np.random.default_rng(5)
    X, y, sizes = synthetic_ltr(rng, 10, n_features=5)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = SVMMAP(C=1000.0, max_iter=2).fit(X, y, qid_of(sizes))
    assert not model.converged_ and model.n_iter_ == 2
    with caplog.at_level(logging.DEBUG, logger="ltrfs.rankers.svmmap"):
        SVMMAP(C=1.0).fit(X, y, qid_of(sizes))
    assert "SVMMAP iter 1: objective" in caplog.text and "SVMMAP done" in caplog.text


@pytest.mark.parametrize("make,message", [
    (lambda: SVMMAP(C=0), r"C must be a finite number > 0; got 0"),
    (lambda: SVMMAP(epsilon=-1.0), r"epsilon must be a finite number > 0"),
    (lambda: SVMMAP(relevant_min=0), r"relevant_min must be an integer >= 1; got 0"),
    (lambda: SVMMAP(max_iter=0), r"max_iter must be an integer >= 1; got 0"),
    (lambda: SVMMAP(n_jobs=-1), r"n_jobs must be an integer >= 1; got -1 \(ltrfs never uses all cores"),
])
def test_bad_parameters(make, message):
    X = np.arange(12, dtype=float).reshape(6, 2)
    with pytest.raises(ValueError, match=message):
        make().fit(X, np.array([0, 1, 0, 1, 2, 0]), np.array([1, 1, 1, 2, 2, 2]))


# ----------------------------------------------------------------------------- quality, interface


def test_beats_random_and_single_feature_on_planted_data():
    rng = np.random.default_rng(42)
    (X, y, s), (Xt, yt, st) = synthetic_ltr(rng, 150), synthetic_ltr(rng, 100)
    model = SVMMAP(C=50.0).fit(X, y, qid_of(s))
    assert model.converged_
    for metric in ("map", "ndcg@10"):
        ours = mean_metric(yt, model.predict(Xt), st, metric)
        random_score = np.mean([mean_metric(yt, rng.normal(size=len(yt)), st, metric) for _ in range(5)])
        best_single = max(mean_metric(yt, Xt[:, f], st, metric) for f in range(Xt.shape[1]))
        assert ours > random_score + 0.3, (metric, ours, random_score)
        assert ours > best_single + 0.1, (metric, ours, best_single)
    # the learned weights put the planted features first
    assert set(np.argsort(-model.coef_)[:3]) == {0, 1, 2}


def test_registry_default_grid_and_contract():
    assert RANKERS["svmmap"] is SVMMAP and make_ranker("svmmap", C=3.0).C == 3.0
    grid = SVMMAP.default_grid["C"]
    assert len(grid) == len(RankSVM.default_grid["C"]) == 20
    np.testing.assert_allclose(np.diff(np.log2(grid)), 1.0)  # factors of 2, as RankSVM's
    assert grid[0] == pytest.approx(1e-5 * 2**10) and grid[-1] == pytest.approx(1e-5 * 2**29)
    with pytest.raises(ValueError, match=r"ranker 'svmmap' has no parameter 'c' \(did you mean 'C'\?\); valid: C, epsilon"):
        make_ranker("svmmap", c=1.0)
    # the registry-wide contract of tests/rankers/test_rankers.py, applied to this ranker
    train, vali, test = (planted(n_queries=n, d=5, informative=(1, 3), seed=s) for n, s in ((60, 3), (30, 5), (40, 4)))
    model = make_ranker("svmmap")
    model.validate_params()
    fit_args = (train.X, train.y, train.qid)
    val_args = {"X_val": vali.X, "y_val": vali.y, "qid_val": vali.qid}
    scores = model.fit(*fit_args, **val_args).predict(test.X)
    assert scores.dtype == np.float64 and scores.shape == (len(test.y),)
    np.testing.assert_array_equal(clone(model).fit(*fit_args, **val_args).predict(test.X), scores)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(test.X), scores)
    ours = metric_per_query(test.y, scores, test.query_ptr, "ndcg@5", "letor4").mean()
    chance = metric_per_query(test.y, np.zeros(len(test.y)), test.query_ptr, "ndcg@5", "letor4").mean()
    assert ours > chance + 0.15, (ours, chance)


def test_cli_train_and_predict(tmp_path, capsys):
    from ltrfs import io
    from ltrfs.cli import main

    train, vali = planted(n_queries=50, d=6, informative=(1, 4), seed=2), planted(n_queries=20, d=6, informative=(1, 4), seed=3)
    io.write_letor(train, tmp_path / "train.txt")
    io.write_letor(vali, tmp_path / "vali.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        code = main(["train", "--ranker", "svmmap", str(tmp_path / "train.txt"), "--vali", str(tmp_path / "vali.txt"),
                     "--out", str(tmp_path / "m.model")])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "m.model"), str(tmp_path / "vali.txt")]) == 0
    scores = np.array(capsys.readouterr().out.split(), dtype=float)
    ours = metric_per_query(vali.y, scores, vali.query_ptr, "map").mean()
    order = metric_per_query(vali.y, np.zeros(vali.n_rows), vali.query_ptr, "map").mean()
    assert ours > order + 0.15, (ours, order)

"""FSMRank (Lai et al. 2013): objective, gradient, solver optimality, subgradient baseline,
selectors. Oracles: explicit pair enumeration, finite differences, a hand-solved instance,
the KKT conditions and scipy's L-BFGS-B on the explicit-pair objective."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from ltrfs import metrics
from conftest import planted
from scipy.optimize import minimize

from ltrfs.rankers import RankSVMPrimal
from ltrfs.scoring.pearson import pearson_scores
from ltrfs.rankers.fsmrank import (FSMProblem, FSMRank, apply_scaling, extended_pearson, fsmrank_solve,
                                   minmax_scaling, subgradient_solve)
from ltrfs.selection.fsmrank import FSMSVM, FSMRankSelector


def explicit_pairs(X, y, ptr):
    """All (x_i - x_j) with y_i > y_j inside one query, as a dense (p, d) array."""
    rows = []
    for a, b in itertools.pairwise(ptr):
        for i in range(a, b):
            for j in range(a, b):
                if y[i] > y[j]:
                    rows.append(X[i].astype(np.float64) - X[j].astype(np.float64))
    return np.array(rows)


def naive_objective(w, D, A, s, l1, l2):
    """F(w) from the explicit pair differences D (p, d); w (2d,)."""
    d = D.shape[1]
    wh = w[:d] - w[d:]
    r = np.maximum(0.0, 1.0 - D @ wh)
    return 0.5 * l1 * w @ A @ w + l2 * np.sum(w / s) + np.mean(r ** 2)


def naive_gradient(w, D, A, s, l1, l2):
    d = D.shape[1]
    wh = w[:d] - w[d:]
    r = np.maximum(0.0, 1.0 - D @ wh)
    gh = -2.0 * D.T @ r / len(D)
    return l1 * A @ w + l2 / s + np.r_[gh, -gh]


@pytest.fixture(scope="module")
def small():
    return planted(n_queries=25, d=5, informative=(1, 3), seed=3)


@pytest.fixture(scope="module")
def small_problem(small):
    A, s, _ = extended_pearson(small.X, small.y)
    return FSMProblem(small.X, small.y, small.query_ptr, A, s, 0.3, 0.01), A, s


def test_extended_pearson_is_pearson_of_the_2d_features(small):
    X, y = small.X, small.y
    A, s, _ = extended_pearson(X, y)
    q2, P2 = pearson_scores(np.hstack([X, -X]), y)  # the paper's definition on the 2d columns
    np.testing.assert_allclose(s, q2, rtol=1e-10)
    np.testing.assert_allclose(A, P2, atol=1e-10)
    A_id, s_one, _ = extended_pearson(X, y, similarity="identity", importance="ones")
    np.testing.assert_array_equal(A_id, np.eye(10))
    np.testing.assert_array_equal(s_one, np.ones(10))


def test_pair_loss_and_objective_against_explicit_pairs(small, small_problem):
    problem, A, s = small_problem
    D = explicit_pairs(small.X, small.y, small.query_ptr)
    assert problem.n_pairs == len(D)
    rng = np.random.default_rng(0)
    for scale in (0.0, 0.5, 3.0):  # all pairs active at 0; a mix later
        w = scale * rng.random(10)
        assert problem.objective(w) == pytest.approx(naive_objective(w, D, A, s, 0.3, 0.01), rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(problem.gradient(w), naive_gradient(w, D, A, s, 0.3, 0.01), rtol=1e-10, atol=1e-12)
    assert problem.objective(np.zeros(10)) == pytest.approx(1.0)  # f(0) = 1: every pair has loss 1


def test_gradient_matches_finite_differences(small_problem):
    problem, _, _ = small_problem
    rng = np.random.default_rng(1)
    w = 0.2 + rng.random(10)
    g = problem.gradient(w)
    h = 1e-6
    fd = np.array([(problem.objective(w + h * e) - problem.objective(w - h * e)) / (2 * h) for e in np.eye(10)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


def test_float32_and_float64_data_give_the_same_oracle(small):
    A, s, _ = extended_pearson(small.X, small.y)
    p32 = FSMProblem(small.X, small.y, small.query_ptr, A, s, 0.1, 0.01)
    p64 = FSMProblem(small.X.astype(np.float64), small.y, small.query_ptr, A, s, 0.1, 0.01)
    w = np.random.default_rng(2).random(10)
    assert p32.objective(w) == pytest.approx(p64.objective(w), rel=1e-12)
    np.testing.assert_allclose(p32.gradient(w), p64.gradient(w), rtol=1e-10, atol=1e-13)


def test_hand_solved_instance():
    # one query, documents x = 1 (label 1) and x = 0 (label 0); A = I, s = 1:
    # F = l1/2 (a^2 + b^2) + l2 (a + b) + max(0, 1 - (a - b))^2, minimised at b = 0,
    # a = (2 - l2) / (2 + l1) = 0.5 for l1 = 1, l2 = 0.5; F* = 0.125 + 0.25 + 0.25 = 0.625
    X = np.array([[1.0], [0.0]])
    problem = FSMProblem(X, np.array([1, 0]), np.array([0, 2]), np.eye(2), np.ones(2), 1.0, 0.5)
    res = fsmrank_solve(problem, max_iter=2000, tol=0.0)
    np.testing.assert_allclose(res.w, [0.5, 0.0], atol=1e-9)
    assert res.objective == pytest.approx(0.625, abs=1e-12)
    assert res.w_hat[0] == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("similarity", ["pearson", "identity"])
def test_solution_satisfies_kkt_and_matches_lbfgsb(small, similarity):
    A, s, _ = extended_pearson(small.X, small.y, similarity=similarity)
    l1, l2 = 0.1, 0.005
    problem = FSMProblem(small.X, small.y, small.query_ptr, A, s, l1, l2)
    res = fsmrank_solve(problem, max_iter=3000, tol=0.0)
    # KKT of min F over w >= 0: G = grad F >= 0, G_i = 0 where w_i > 0; tolerance 1e-6
    G = problem.gradient(res.w)
    assert G.min() >= -1e-6
    assert np.all(np.abs(G[res.w > 0]) <= 1e-6)
    assert problem.kkt_violation(res.w) <= 1e-6
    # at most one of w_i, w_{d+i} is positive (both would need grad_i f = 0 and a negative penalty)
    assert not np.any((res.w[:5] > 1e-8) & (res.w[5:] > 1e-8))
    # an independent solver on the explicit-pair objective reaches the same optimum
    D = explicit_pairs(small.X, small.y, small.query_ptr)
    ref = minimize(naive_objective, np.zeros(10), args=(D, A, s, l1, l2), jac=naive_gradient, method="L-BFGS-B",
                   bounds=[(0, None)] * 10, options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
    assert res.objective <= ref.fun + 1e-10
    assert res.objective == pytest.approx(ref.fun, rel=1e-8)
    np.testing.assert_allclose(res.w_hat, ref.x[:5] - ref.x[5:], atol=1e-4)


def test_algorithm_details_trace_and_stopping_rule(small_problem):
    problem, _, _ = small_problem
    res = fsmrank_solve(problem)  # paper defaults: T = 400, tol = 1e-4
    assert res.objectives[0] == pytest.approx(1.0)  # F(w_0 = 0)
    assert res.lipschitz[0] == pytest.approx(problem.L0() / 2 ** 10)  # L starts at L0 / gamma^10
    assert problem.L0() == pytest.approx((4 + 2 * 0.3) * 5)
    assert np.all(np.diff(res.lipschitz) >= 0)  # L only grows (powers of 2 of the start)
    ratio = res.lipschitz / res.lipschitz[0]
    np.testing.assert_allclose(np.log2(ratio), np.round(np.log2(ratio)), atol=1e-12)
    assert len(res.objectives) == len(res.seconds) == res.n_iter + 1
    assert np.all(np.diff(res.seconds) >= 0)
    F = res.objectives
    assert res.converged and res.n_iter < 400
    assert abs(F[-1] - F[-2]) <= 1e-4 * abs(F[-2])
    assert np.all(np.abs(np.diff(F[:-1])) > 1e-4 * np.abs(F[:-2]))  # did not stop earlier
    assert res.objective == pytest.approx(problem.objective(res.w), rel=1e-12)
    capped = fsmrank_solve(problem, max_iter=7, tol=0.0)
    assert capped.n_iter == 7 and not capped.converged


def test_fsmrank_beats_subgradient_at_equal_iterations(small_problem):
    problem, _, _ = small_problem
    fast = fsmrank_solve(problem, max_iter=100, tol=0.0)
    optimum = fsmrank_solve(problem, max_iter=3000, tol=0.0).objective
    for step0 in (None, 2 ** 10 / problem.L0()):  # the default 1 / L0, and FSMRank's starting step
        slow = subgradient_solve(problem, max_iter=100, step0=step0)
        assert slow.n_iter == 100 and slow.method == "subgradient"
        assert np.all(slow.w >= 0)
        # suboptimality of FSMRank is at least 10x smaller than the best subgradient iterate's
        assert fast.objective - optimum < 0.1 * (slow.extra["best_objective"] - optimum)
    assert slow.objective == pytest.approx(problem.objective(slow.w), rel=1e-12)


def test_planted_features_get_the_largest_weights():
    train = planted(n_queries=60, d=8, informative=(2, 5), seed=1)
    vali = planted(n_queries=30, d=8, informative=(2, 5), seed=2)
    fixed = FSMRankSelector(lambda1=0.01, lambda2=0.001).fit(train.X, train.y, train.qid)
    assert set(fixed.ranking_[:2]) == {2, 5}
    assert fixed.scores_[[2, 5]].min() > 5 * np.delete(fixed.scores_, [2, 5]).max()
    assert np.all(fixed.coef_[[2, 5]] > 0)
    chosen = FSMRankSelector(lambda1_grid=(0.0, 0.1), lambda2_grid=(0.0, 0.01)).fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    assert set(chosen.ranking_[:2]) == {2, 5}
    assert set(chosen.chosen_) >= {"lambda1", "lambda2", "vali", "vali_scores"}
    assert len(chosen.chosen_["vali_scores"]) == 4
    best = max(chosen.chosen_["vali_scores"].values())
    assert chosen.chosen_["vali"] == best
    assert chosen.details_["trace"]["n_iter"] == chosen.n_iter_ and len(chosen.details_["grid"]) == 4


def test_selector_model_predictions_and_ranker_agree():
    train = planted(n_queries=40, d=6, informative=(0, 4), seed=5)
    sel = FSMRankSelector(lambda1=0.05, lambda2=0.002).fit(train.X, train.y, train.qid)
    ranker = FSMRank(lambda1=0.05, lambda2=0.002).fit(train.X, train.y, train.qid)
    np.testing.assert_allclose(ranker.coef_, sel.coef_, rtol=1e-9, atol=1e-12)
    X64 = train.X.astype(np.float64)
    # the model on raw features: X @ coef_ + intercept_, coef_ = w_hat / span, intercept_ = -lo @ coef_
    np.testing.assert_allclose(sel.predict_scores(train.X), X64 @ sel.coef_ + sel.intercept_, rtol=1e-12)
    np.testing.assert_allclose(ranker.predict(train.X), X64 @ ranker.coef_ + ranker.intercept_, rtol=1e-12)
    np.testing.assert_allclose(sel.intercept_, -(sel.scale_lo_ @ sel.coef_), rtol=1e-12)
    np.testing.assert_allclose(sel.predict_scores_k(train.X, 6), sel.predict_scores(train.X), rtol=1e-12)
    top = sel.ranking_[0]
    np.testing.assert_allclose(sel.predict_scores_k(train.X, 1),
                               (X64[:, top] - sel.scale_lo_[top]) * sel.coef_[top], rtol=1e-12)
    assert np.all(np.diff(sel.scores_[sel.ranking_]) <= 0)
    with pytest.raises(ValueError, match="k must be an integer in 1..6"):
        sel.predict_scores_k(train.X, 0)


def test_deterministic_and_dtype_independent():
    train = planted(n_queries=30, d=6, informative=(1,), seed=7)
    a = FSMRankSelector(lambda1=0.1, lambda2=0.001).fit(train.X, train.y, train.qid)
    b = FSMRankSelector(lambda1=0.1, lambda2=0.001).fit(train.X, train.y, train.qid)
    np.testing.assert_array_equal(a.w_, b.w_)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    assert a.details_["trace"]["objective"] == b.details_["trace"]["objective"]
    c = FSMRankSelector(lambda1=0.1, lambda2=0.001).fit(train.X.astype(np.float64), train.y, train.qid)
    np.testing.assert_allclose(c.w_, a.w_, rtol=1e-5, atol=1e-9)  # min-max scaling rounds in float32


def test_minmax_scaling_solves_on_features_in_0_1_and_is_invariant_to_affine_rescaling():
    """SPEC: FSMRank min-max scales every feature on the training rows. The solve equals the
    unscaled solve on (X - lo) / span; a feature multiplied by 7 and shifted by 3 gives the same
    w and the same ranking of every document; a constant feature keeps span 1."""
    train = planted(n_queries=30, d=5, informative=(1, 3), seed=21)
    X = train.X.astype(np.float64)
    X[:, 4] = 2.5  # constant
    sel = FSMRankSelector(lambda1=0.1, lambda2=0.001).fit(X, train.y, train.qid)
    lo, span = X.min(0), X.max(0) - X.min(0)
    span[4] = 1.0
    np.testing.assert_allclose(sel.scale_lo_, lo) and np.testing.assert_allclose(sel.scale_span_, span)
    plain = FSMRankSelector(lambda1=0.1, lambda2=0.001, scale="none").fit((X - lo) / span, train.y, train.qid)
    np.testing.assert_allclose(sel.w_, plain.w_, rtol=1e-10, atol=1e-13)
    Y = X.copy()
    Y[:, 1] = 7 * Y[:, 1] + 3
    moved = FSMRankSelector(lambda1=0.1, lambda2=0.001).fit(Y, train.y, train.qid)
    np.testing.assert_allclose(moved.w_, sel.w_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(moved.predict_scores(Y), sel.predict_scores(X), rtol=1e-9, atol=1e-12)
    assert FSMRank(lambda1=0.1, lambda2=0.001, scale="none").fit(Y, train.y, train.qid).w_.tolist() \
        != moved.w_.tolist()  # without scaling the stretched feature changes the problem


def test_features_are_ordered_by_the_2d_weights():
    from ltrfs.rankers.fsmrank import feature_order

    w = np.array([0.5, 0.3, 0.0, 0.0, 0.45, 0.0, 0.0, 0.0])  # d = 4: w_hat = (.05, .3, 0, 0)
    ranking, score = feature_order(w)
    assert score.tolist() == [0.5, 0.3, 0.0, 0.0] and ranking.tolist() == [0, 1, 2, 3]
    # |w_hat| would put feature 1 first; the paper sorts the 2d weights, where w_0 = .5 leads
    assert np.argsort(-np.abs(w[:4] - w[4:]), kind="stable").tolist()[0] == 1
    # ties: the tie-break vector (Pearson importance), then the lower index
    assert feature_order(np.zeros(6), tie=np.array([0.1, 0.3, 0.2]))[0].tolist() == [1, 2, 0]


def test_ablation_options_change_the_problem():
    train = planted(n_queries=30, d=6, informative=(1, 2), seed=8)
    base = FSMRankSelector(lambda1=0.5, lambda2=0.01).fit(train.X, train.y, train.qid)
    ident = FSMRankSelector(lambda1=0.5, lambda2=0.01, similarity="identity").fit(train.X, train.y, train.qid)
    ones = FSMRankSelector(lambda1=0.5, lambda2=0.01, importance="ones").fit(train.X, train.y, train.qid)
    assert ident.pearson_min_eigenvalue_ is None and base.pearson_min_eigenvalue_ is not None
    assert not np.allclose(base.coef_, ident.coef_) and not np.allclose(base.coef_, ones.coef_)
    # the same problem solved directly gives the same weights
    A, s, _ = extended_pearson(train.X, train.y, similarity="identity")
    lo, span = minmax_scaling(train.X)
    direct = fsmrank_solve(FSMProblem(apply_scaling(train.X, lo, span), train.y, train.query_ptr, A, s, 0.5, 0.01))
    np.testing.assert_allclose(ident.w_, direct.w, rtol=1e-12)


def test_fsmsvm_chooses_t_on_vali_with_ranksvm_primal():
    train = planted(n_queries=50, d=7, informative=(3, 6), seed=11)
    vali = planted(n_queries=30, d=7, informative=(3, 6), seed=12)
    sel = FSMSVM(lambda1=0.01, lambda2=0.001, t_grid=[1, 2, 4, 7]).fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    t = sel.chosen_["t"]
    assert t in (2, 4, 7) and set(sel.chosen_["t_vali_scores"]) == {"1", "2", "4", "7"}
    assert sel.chosen_["t_vali"] == max(sel.chosen_["t_vali_scores"].values())
    assert set(sel.ranking_[:2]) == {3, 6}
    cols = np.sort(sel.ranking_[:t])
    # C chosen on vali for every t, as for GAS-E + RankSVM-Primal: the kept model is the
    # RankSVM-Primal at the chosen C, which is the best vali value among the grid at that t
    C = sel.chosen_["svm_C"]
    assert C in RankSVMPrimal.default_grid["C"] and set(sel.chosen_["svm_C_by_t"]) == {"1", "2", "4", "7"}
    ref = RankSVMPrimal(C=C).fit(train.X[:, cols], train.y, train.qid)
    np.testing.assert_allclose(sel.predict_scores(vali.X), ref.predict(vali.X[:, cols]), rtol=1e-6, atol=1e-9)
    at_t = [metrics.metric_per_query(vali.y, RankSVMPrimal(C=c).fit(train.X[:, cols], train.y, train.qid)
                                     .predict(vali.X[:, cols]), vali.query_ptr, "map", ties="expected").mean()
            for c in RankSVMPrimal.default_grid["C"]]
    assert sel.chosen_["t_vali"] == pytest.approx(max(at_t), abs=1e-9)
    fixed = FSMSVM(lambda1=0.01, lambda2=0.001, t_grid=[t], C=1.0).fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    assert fixed.chosen_["svm_C"] == 1.0
    with pytest.raises(ValueError, match="needs X_val, y_val and qid_val"):
        FSMSVM(lambda1=0.01, lambda2=0.001).fit(train.X, train.y, train.qid)


@pytest.mark.parametrize("cls, params, message", [
    (FSMRank, {"lambda1": -1}, "^fsmrank: lambda1 must be a finite number >= 0; got -1$"),
    (FSMRank, {"similarity": "cosine"}, "^fsmrank: similarity must be one of pearson, identity; got 'cosine'$"),
    (FSMRank, {"importance": "gain"}, "^fsmrank: importance must be one of pearson, ones; got 'gain'$"),
    (FSMRank, {"max_iter": 0}, "max_iter must be an integer >= 1"),
    (FSMRank, {"n_jobs": 0}, "n_jobs must be an integer >= 1"),
    (FSMRankSelector, {"lambda2_grid": []}, "lambda2_grid must be a non-empty list"),
    (FSMRankSelector, {"vali_metric": "foo@3"}, "vali_metric"),
    (FSMSVM, {"t_grid": [0]}, r"^fsmsvm: t_grid must be a non-empty list of integers >= 1 or None; got \[0\]$"),
])
def test_bad_parameters_are_one_line_errors(cls, params, message):
    with pytest.raises(ValueError, match=message) as info:
        cls(**params).validate_params()
    assert "\n" not in str(info.value)


def test_choosing_lambdas_needs_validation_data():
    train = planted(n_queries=10, d=4, seed=1)
    with pytest.raises(ValueError, match="needs X_val, y_val and qid_val"):
        FSMRankSelector().fit(train.X, train.y, train.qid)


def test_own_ranker_gives_fsmrank_cut_to_its_top_k_for_every_k_of_the_grid():
    """Lai et al. Figs. 1-3: the FSMRank model with all but its top k weights zeroed, one model
    per k of the grid below d (k >= d skipped), and the full model at k = d."""
    from ltrfs.formats import predict, selection_record
    from ltrfs.pipeline.select import fit_selector
    from ltrfs.pipeline.train import train_own

    train = planted(n_queries=30, d=6, informative=(1, 3), seed=8)
    vali = planted(n_queries=10, d=6, informative=(1, 3), seed=9)
    method = {"algorithm": "fsmrank", "params": {"lambda1": 0.05, "lambda2": 0.002}}
    selector = fit_selector(method, train, vali, seed=1, convention="letor4")
    selection = selection_record("fsmrank", method, selector)
    models, info = train_own(selection, selector, ks=[1, 2, 6, 9])
    assert sorted(models) == [1, 2, 6] and sorted(info, key=int) == ["1", "2", "6"]
    for k in (1, 2):
        np.testing.assert_allclose(predict(models[k], train), selector.predict_scores_k(train.X, k), rtol=1e-12)
        assert info[str(k)]["features"] == sorted(int(f) + 1 for f in selector.ranking_[:k])
    np.testing.assert_allclose(predict(models[6], train), selector.predict_scores(train.X), rtol=1e-12)

"""Tests of ltrfs.rankers.coord_ascent: the metric kernel against ltrfs.metrics, the search
against a naive RankLib-style loop, a 2-feature grid-search optimum, planted synthetic data,
restart selection on vali, determinism, threads and parameter validation."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from conftest import ndcg10
from ltrfs.datasets.synthetic import make
from ltrfs.estimator import NotFittedError
from ltrfs.metric_context import MetricContext
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.coord_ascent import CoordinateAscent, _trial_totals, coordinate_ascent


def ptr_of(sizes):
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


def qid_of(ptr):
    return np.repeat(np.arange(len(ptr) - 1) * 3 + 11, np.diff(ptr))


def toy(n_queries=60, d=4, seed=0, coef=None, noise=0.3, max_docs=30):
    """Continuous features (no ties), labels 0-2 from a linear latent score plus noise."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, max_docs, n_queries)
    ptr = ptr_of(sizes)
    X = rng.random((ptr[-1], d))
    coef = np.ones(d) if coef is None else np.asarray(coef, float)
    latent = X @ coef + noise * rng.standard_normal(ptr[-1])
    y = np.digitize(latent, np.quantile(latent, [0.6, 0.85]))
    return X, y, ptr


# ----------------------------------------------------------------------------- metric kernel


@pytest.mark.parametrize("ties", ["file_order", "expected"])
@pytest.mark.parametrize("metric", ["ndcg@10", "ndcg@1", "ndcg@3", "p@5", "map", "meanndcg"])
@pytest.mark.parametrize("convention", ["letor4", "letor3", "standard", "mslr"])
def test_context_matches_metric_per_query(metric, convention, ties):
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 25, 80)
    ptr = ptr_of(sizes)
    m = ptr[-1]
    y = rng.integers(0, 5, m) * (rng.random(m) < 0.4)
    ctx = MetricContext(y, ptr, metric, convention, ties)
    assert ctx.ties == ties
    tied = rng.integers(0, 4, m).astype(float)  # many ties: the tie rule matters
    for s in (tied, rng.random(m)):
        np.testing.assert_allclose(ctx.per_query(s), metric_per_query(y, s, ptr, metric, convention, ties),
                                   rtol=0, atol=1e-12)
        x = rng.integers(0, 3, m).astype(float)
        steps = np.array([0.0, 0.5, 1.0, -1.0, 3.0])
        want = [metric_per_query(y, s + t * x, ptr, metric, convention, ties).mean() for t in steps]
        got = ctx.trials(s, x, steps)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert np.array_equal(ctx.trials(s, x, steps, n_jobs=2), got)  # same arithmetic on 2 threads
        assert ctx.mean(s) == pytest.approx(np.mean(want[:1]), abs=1e-12)


@pytest.mark.parametrize("metric", ["ndcg@10", "ndcg@3", "map", "p@5", "p@1", "meanndcg"])
def test_context_expected_ties_on_heavily_tied_data(metric):
    # scores from {0, 0.5, 1} and constants: tie blocks cut by rank k anywhere, entered in any
    # row order (the top-k list evicts, keeps or resets the documents tied with its last score)
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 40, 120)
    sizes[:3] = [1, 2, 39]
    ptr = ptr_of(sizes)
    m = ptr[-1]
    y = rng.integers(0, 3, m) * (rng.random(m) < 0.6)
    ctx = MetricContext(y, ptr, metric, "letor4")  # "expected" is the default
    assert ctx.ties == "expected"
    for s in (rng.integers(0, 3, m) * 0.5, np.zeros(m), np.repeat(rng.random(len(sizes)), sizes),
              np.arange(m) % 3 - 1.0, -(np.arange(m) % 4) + 0.0):
        want = metric_per_query(y, s, ptr, metric, "letor4", ties="expected")
        np.testing.assert_allclose(ctx.per_query(s), want, rtol=0, atol=1e-12)
        x = rng.integers(0, 2, m) * 0.5
        steps = np.array([0.0, 1.0, -1.0, 2.0, -0.5])
        want = [metric_per_query(y, s + t * x, ptr, metric, "letor4", ties="expected").mean() for t in steps]
        np.testing.assert_allclose(ctx.trials(s, x, steps), want, rtol=0, atol=1e-12)
        assert np.array_equal(ctx.trials(s, x, steps, n_jobs=2), ctx.trials(s, x, steps))


def test_context_expected_ties_hand_worked():
    # one query, labels 1, 0, 0, 2 all tied: every rank has mean gain (1 + 3)/4 = 1, relevance 1/2
    y = np.array([1, 0, 0, 2])
    ptr = np.array([0, 4])
    s = np.full(4, 0.3)
    L3 = np.log2(3)
    assert MetricContext(y, ptr, "ndcg@3", "standard").mean(s) == pytest.approx(
        (1 + 1 / L3 + 1 / 2) / (3 + 1 / L3), abs=1e-15)
    assert MetricContext(y, ptr, "p@1").mean(s) == 0.5
    # AP over the 6 placements of the two relevant documents: 49/72 (McSherry & Najork)
    assert MetricContext(y, ptr, "map").mean(s) == pytest.approx(49 / 72, abs=1e-15)
    assert MetricContext(y, ptr, "map", ties="file_order").mean(s) == pytest.approx((1 + 2 / 4) / 2)
    with pytest.raises(ValueError, match="ties must be one of"):
        MetricContext(y, ptr, "map", ties="random")


def test_context_hand_worked():
    # one query, labels (in row order) 2, 0, 1; scores rank rows 1, 2, 0 (0-based)
    y = np.array([2, 0, 1])
    s = np.array([0.1, 0.9, 0.5])
    ptr = np.array([0, 3])
    # letor discount: ranks 1, 2 -> 1; rank 3 -> 1/log2(3). Gains 2^l - 1: 3, 0, 1
    dcg = 0 * 1 + 1 * 1 + 3 / np.log2(3)
    idcg = 3 * 1 + 1 * 1 + 0
    assert MetricContext(y, ptr, "ndcg@3", "letor4").mean(s) == pytest.approx(dcg / idcg)
    # AP: relevant at ranks 2 and 3 -> (1/2 + 2/3) / 2
    assert MetricContext(y, ptr, "map", "letor4").mean(s) == pytest.approx((0.5 + 2 / 3) / 2)
    # letor4 NDCG@10 of a 3-document query is 0 (short query): a constant, no active query
    ctx = MetricContext(y, ptr, "ndcg@10", "letor4")
    assert ctx.active.size == 0 and ctx.mean(s) == 0.0


def test_trial_schedule_ranklib():
    # |w0| >= 0.002: first step 0.001, doubling, cumulative
    np.testing.assert_allclose(_trial_totals(0.5, 1, 4, 0.05, 2.0), [0.001, 0.003, 0.007, 0.015])
    np.testing.assert_allclose(_trial_totals(0.5, -1, 3, 0.05, 2.0), [-0.001, -0.003, -0.007])
    # |w0| < 0.002: first step step_base * |w0| (sign kept, unlike RankLib)
    np.testing.assert_allclose(_trial_totals(0.001, -1, 3, 0.05, 2.0), [-5e-5, -1.5e-4, -3.5e-4])
    np.testing.assert_allclose(_trial_totals(0.0, 1, 2, 0.05, 3.0), [0.001, 0.004])
    assert _trial_totals(0.1, 1, 25, 0.05, 2.0)[-1] == pytest.approx(0.001 * (2**25 - 1))


# ----------------------------------------------------------------------------- the search


def naive_coordinate_ascent(X, y, ptr, metric, n_restarts, n_iterations, tolerance, rng):
    """RankLib's loop written plainly: one metric_per_query call per trial weight vector."""
    d = X.shape[1]
    score_of = lambda w: metric_per_query(y, X @ w, ptr, metric, "letor4").mean()
    kept, kept_score = None, -np.inf
    for r in range(n_restarts):
        w = np.full(d, 1.0 / d) if r == 0 else rng.random(d)
        w = w / np.abs(w).sum()
        best = start = score_of(w)
        fails = 0
        while (d > 1 and fails < d - 1) or (d == 1 and fails == 0):
            for f in rng.permutation(d):
                orig = w[f]
                found = None
                for direction in (1, -1):
                    step = 0.001 * direction
                    if orig != 0 and abs(step) > 0.5 * abs(orig):
                        step = direction * 0.05 * abs(orig)
                    total = step
                    for j in range(n_iterations):
                        w[f] = orig + total
                        sc = score_of(w)
                        if sc > best:
                            best, found = sc, orig + total
                        step *= 2.0
                        total += step
                    w[f] = orig
                    if found is not None:
                        break
                if found is None:
                    fails += 1
                else:
                    fails = 0
                    w[f] = found
                    w = w / np.abs(w).sum()
                    best = score_of(w)
            if best - start < tolerance:
                break
        if best > kept_score:
            kept, kept_score = w.copy(), best
    return kept, kept_score


@pytest.mark.parametrize("metric", ["ndcg@10", "map"])
def test_matches_naive_ranklib_loop(metric):
    X, y, ptr = toy(n_queries=25, d=3, seed=3, max_docs=20)
    w_naive, s_naive = naive_coordinate_ascent(X, y, ptr, metric, 3, 10, 0.001, np.random.default_rng(7))
    w, score = coordinate_ascent(X, y, ptr, metric=metric, n_restarts=3, n_iterations=10,
                                 rng=np.random.default_rng(7))
    np.testing.assert_allclose(w, w_naive, rtol=1e-12, atol=1e-15)
    assert score == pytest.approx(s_naive, abs=1e-12)


def test_two_features_reach_grid_optimum():
    # labels from x0 - 0.4 x1: the best direction has a negative second weight
    X, y, ptr = toy(n_queries=80, d=2, seed=5, coef=[1.0, -0.4], noise=0.15)
    angles = np.linspace(0, 2 * np.pi, 3601)[:-1]
    grid = np.array([MetricContext(y, ptr).mean(X @ np.array([np.cos(a), np.sin(a)])) for a in angles])
    model = CoordinateAscent(n_restarts=5).fit(X, y, qid_of(ptr))
    assert model.train_score_ >= grid.max() - 0.01
    assert model.coef_[0] > 0 > model.coef_[1]
    # a scale-free direction: the grid's best ratio and ours agree roughly
    a = angles[np.argmax(grid)]
    assert np.sign(np.sin(a)) == np.sign(model.coef_[1])


def test_single_feature_flips_sign():
    X, y, ptr = toy(n_queries=40, d=1, seed=2, coef=[-1.0], noise=0.05)
    model = CoordinateAscent(n_restarts=1).fit(X, y, qid_of(ptr))
    np.testing.assert_allclose(model.coef_, [-1.0])
    assert model.train_score_ == pytest.approx(ndcg10(y, -X[:, 0], ptr))


@pytest.fixture(scope="module")
def synthetic():
    data, _ = make(n_queries=500, seed=11)  # one draw (columns are shuffled per seed), split by query
    order = np.random.default_rng(0).permutation(500)
    return data.subset_queries(np.sort(order[:200])), data.subset_queries(np.sort(order[200:300])), \
        data.subset_queries(np.sort(order[300:]))


def fit_on(data, vali=None, **params):
    kw = {}
    if vali is not None:
        kw = dict(X_val=vali.X, y_val=vali.y, qid_val=qid_of(vali.query_ptr))
    return CoordinateAscent(**params).fit(data.X, data.y, qid_of(data.query_ptr), **kw)


def test_beats_random_and_best_single_feature(synthetic):
    train, vali, test = synthetic
    model = fit_on(train, vali)
    ours = ndcg10(test.y, model.predict(test.X), test.query_ptr)
    # best single feature (either sign) chosen on train, scored on test
    d = train.X.shape[1]
    signed = [(sign, f) for f in range(d) for sign in (1.0, -1.0)]
    train_scores = [ndcg10(train.y, sign * train.X[:, f].astype(float), train.query_ptr) for sign, f in signed]
    sign, f = signed[int(np.argmax(train_scores))]
    single = ndcg10(test.y, sign * test.X[:, f].astype(float), test.query_ptr)
    rng = np.random.default_rng(0)
    random = np.mean([ndcg10(test.y, rng.random(len(test.y)), test.query_ptr) for _ in range(5)])
    assert ours > single + 0.01  # measured: 0.712 vs 0.692
    assert ours > random + 0.2
    assert np.abs(model.coef_).sum() == pytest.approx(1.0)


def test_vali_selects_best_restart(synthetic):
    train, vali, _ = synthetic
    model = fit_on(train, vali, n_restarts=4, restart_init="random", random_state=3)
    assert model.restart_vali_scores_.shape == (4,)
    assert model.best_restart_ == int(np.argmax(model.restart_vali_scores_))
    assert model.vali_score_ == pytest.approx(model.restart_vali_scores_.max())
    assert model.vali_score_ == pytest.approx(ndcg10(vali.y, model.predict(vali.X), vali.query_ptr), abs=1e-12)
    assert model.train_score_ == pytest.approx(ndcg10(train.y, model.predict(train.X), train.query_ptr), abs=1e-12)
    # the kept weights are that restart's, whose training score need not be the best one
    _, _, info = coordinate_ascent(train.X, train.y, train.query_ptr, n_restarts=4,
                                   X_val=vali.X, y_val=vali.y, query_ptr_val=vali.query_ptr,
                                   rng=np.random.default_rng(3), return_info=True)
    np.testing.assert_array_equal(model.coef_, info.restart_weights[info.best_restart])
    np.testing.assert_allclose(np.abs(info.restart_weights).sum(axis=1), 1.0)
    # on these data the two criteria disagree: vali chose a restart that is not the best on train
    assert model.best_restart_ != int(np.argmax(model.restart_scores_))
    # without vali the best training objective wins
    plain = fit_on(train, None, n_restarts=4)
    assert plain.vali_score_ is None and plain.restart_vali_scores_ is None
    assert plain.best_restart_ == int(np.argmax(plain.restart_scores_))
    assert plain.train_score_ == pytest.approx(plain.restart_scores_.max())


def test_determinism_threads_and_clone():
    X, y, ptr = toy(n_queries=60, d=5, seed=9)
    qid = qid_of(ptr)
    a = CoordinateAscent(random_state=3, n_restarts=3).fit(X, y, qid)
    b = clone(a).fit(X, y, qid)
    c = CoordinateAscent(random_state=3, n_restarts=3, n_jobs=2).fit(X, y, qid)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.coef_, c.coef_)
    assert a.n_iter_ == c.n_iter_ == int(a.n_passes_.sum()) and a.n_evals_ == c.n_evals_
    assert a.seconds_ > 0 and a.seconds_per_restart_.shape == (3,)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).predict(X), a.predict(X))
    assert a.predict(X).dtype == np.float64 and a.predict(X).shape == (len(y),)
    # uniform restarts (RankLib) differ only by feature order
    u = CoordinateAscent(restart_init="uniform", n_restarts=2).fit(X, y, qid)
    assert np.abs(u.coef_).sum() == pytest.approx(1.0)


def test_stopping_rules_and_regularization():
    X, y, ptr = toy(n_queries=50, d=4, seed=4)
    qid = qid_of(ptr)
    # a huge tolerance stops every restart after its first pass
    one = CoordinateAscent(tolerance=10.0, n_restarts=2).fit(X, y, qid)
    np.testing.assert_array_equal(one.n_passes_, [1, 1])
    capped = CoordinateAscent(tolerance=0.0, max_passes=2, n_restarts=2).fit(X, y, qid)
    assert (capped.n_passes_ <= 2).all()
    # a huge slack forbids leaving the uniform start
    reg = CoordinateAscent(regularized=True, slack=100.0, n_restarts=1).fit(X, y, qid)
    np.testing.assert_allclose(reg.coef_, np.full(4, 0.25))
    mild = CoordinateAscent(regularized=True, slack=1e-4, n_restarts=1).fit(X, y, qid)
    assert mild.train_score_ > reg.train_score_


@pytest.mark.parametrize("ties", ["expected", "file_order"])
def test_ties_rule_reaches_objective_and_vali_choice(ties):
    # binary features: many documents share a feature vector, so X @ w ties whatever w is
    rng = np.random.default_rng(8)
    sizes = rng.integers(5, 30, 60)
    ptr = ptr_of(sizes)
    X = rng.integers(0, 2, (ptr[-1], 3)).astype(float)
    y = np.minimum(2, (X @ [1.0, 0.5, -0.3] + rng.random(ptr[-1]) > 0.9).astype(int) + (rng.random(ptr[-1]) < 0.2))
    tr, va = slice(0, ptr[40]), slice(ptr[40], ptr[-1])
    ptr_tr, ptr_va = ptr[:41], ptr[40:] - ptr[40]
    model = CoordinateAscent(n_restarts=3, ties=ties).fit(X[tr], y[tr], qid_of(ptr_tr), X_val=X[va], y_val=y[va],
                                                           qid_val=qid_of(ptr_va))
    assert model.get_params()["ties"] == ties
    score = lambda Xs, ys, p: metric_per_query(ys, model.predict(Xs), p, "ndcg@10", "letor4", ties).mean()
    assert model.train_score_ == pytest.approx(score(X[tr], y[tr], ptr_tr), abs=1e-12)
    assert model.vali_score_ == pytest.approx(score(X[va], y[va], ptr_va), abs=1e-12)
    assert model.best_restart_ == int(np.argmax(model.restart_vali_scores_))
    other = "file_order" if ties == "expected" else "expected"
    assert metric_per_query(y[tr], model.predict(X[tr]), ptr_tr, "ndcg@10", "letor4", other).mean() != \
        pytest.approx(model.train_score_, abs=1e-6)  # the rule matters on these data
    # coordinate_ascent builds the validation context with the same rule
    _, vscore, info = coordinate_ascent(X[tr], y[tr], ptr_tr, ties=ties, n_restarts=3, X_val=X[va], y_val=y[va],
                                        query_ptr_val=ptr_va, rng=np.random.default_rng(0), return_info=True)
    w = info.restart_weights[info.best_restart]
    assert vscore == pytest.approx(metric_per_query(y[va], X[va] @ w, ptr_va, "ndcg@10", "letor4", ties).mean(),
                                   abs=1e-12)


def test_constant_features_keep_their_weight():
    X, y, ptr = toy(n_queries=40, d=3, seed=6)
    Xc = np.c_[X, np.full(len(y), 0.5)]  # constant column: never moved, only rescaled
    model = CoordinateAscent(n_restarts=1).fit(Xc, y, qid_of(ptr))
    assert model.coef_[3] > 0
    assert np.abs(model.coef_).sum() == pytest.approx(1.0)


def test_validation_messages():
    X, y, ptr = toy(n_queries=10, d=2, seed=1)
    qid = qid_of(ptr)
    for params, text in [({"n_restarts": 0}, "n_restarts"), ({"n_iterations": 1.5}, "n_iterations"),
                         ({"step_scale": -1}, "step_scale"), ({"tolerance": -0.1}, "tolerance"),
                         ({"metric": "err@10"},
                          r"^coord_ascent: metric must be a metric \(ndcg@K, p@K, map or meanndcg\); got 'err@10'$"),
                         ({"convention": "trec"}, "convention"),
                         ({"restart_init": "zeros"}, "restart_init"), ({"n_jobs": 0}, "n_jobs"),
                         ({"regularized": "yes"}, "regularized"), ({"random_state": -1}, "random_state"),
                         ({"max_passes": 0}, "max_passes"), ({"ties": "random"}, "ties must be one of")]:
        with pytest.raises(ValueError, match=text):
            CoordinateAscent(**params).validate_params()
        with pytest.raises(ValueError, match=text):
            CoordinateAscent(**params).fit(X, y, qid)
    with pytest.raises(NotFittedError):
        CoordinateAscent().predict(X)
    with pytest.raises(ValueError, match="X_val"):
        CoordinateAscent().fit(X, y, qid, X_val=X)
    with pytest.raises(ValueError, match="features"):
        CoordinateAscent(n_restarts=1).fit(X, y, qid).predict(X[:, :1])
    with pytest.raises(ValueError, match="context"):
        coordinate_ascent(X)
    assert CoordinateAscent.name == "coord_ascent" and CoordinateAscent.default_grid == {}

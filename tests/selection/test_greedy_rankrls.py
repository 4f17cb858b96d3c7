"""Greedy RankRLS: the fast path against the naive wrapper and against explicit-pair oracles,
planted ground truth, the final model, and the selector's vali choices."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import planted

from ltrfs import metrics
from ltrfs.rankers.rankrls import RankRLS, centered_products, solve_rankrls
from ltrfs.selection.greedy_rankrls import GreedyRankRLS, greedy_path, lqo_error, naive_greedy_path

LAMS = (2.0 ** -7, 1.0, 2.0 ** 6)


def random_problem(sizes, n, seed):
    rng = np.random.default_rng(seed)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    X = rng.standard_normal((m, n)) * rng.uniform(0.2, 3.0, n)
    y = rng.integers(0, 3, m) + 0.5 * X[:, 1] - 0.3 * X[:, 4 % n] + 0.1 * rng.standard_normal(m)
    return X, y, ptr


def pair_rows(X, y, ptr, pair_weight):
    """Explicit within-query pairs i < j: differences, target differences, pair weights."""
    D, t, w = [], [], []
    for q in range(len(ptr) - 1):
        lo, hi = ptr[q], ptr[q + 1]
        for i in range(lo, hi):
            for j in range(i + 1, hi):
                D.append(X[i] - X[j])
                t.append(y[i] - y[j])
                w.append(1.0 / (hi - lo) if pair_weight == "query" else 1.0)
    return np.array(D).reshape(-1, X.shape[1]), np.array(t), np.array(w)


def pair_rankrls(X, y, ptr, lam, pair_weight):
    """RankRLS by its pairwise definition (SPEC: sum_Q 1/(2|Q|) sum_{i,j} ... + lam ||w||^2)."""
    D, t, w = pair_rows(X, y, ptr, pair_weight)
    if len(t) == 0:
        return np.zeros(X.shape[1])
    return np.linalg.solve(D.T @ (w[:, None] * D) + lam * np.eye(X.shape[1]), D.T @ (w * t))


def pair_lqo(X, y, ptr, lam, pair_weight):
    """LQO error from explicit pairs: train on the other queries' pairs, sum the held-out
    query's weighted pairwise squared errors."""
    total = 0.0
    for q in range(len(ptr) - 1):
        lo, hi = ptr[q], ptr[q + 1]
        keep = np.r_[0:lo, hi:len(y)]
        kptr = np.r_[ptr[:q + 1], ptr[q + 2:] - (hi - lo)]
        w = pair_rankrls(X[keep], y[keep], kptr, lam, pair_weight)
        e = y[lo:hi] - X[lo:hi] @ w
        s = sum((e[i] - e[j]) ** 2 for i in range(hi - lo) for j in range(i + 1, hi - lo))
        total += s / (hi - lo) if pair_weight == "query" else s
    return total


# ------------------------------------------------------------------ fast == naive


@pytest.mark.parametrize("pair_weight", ["query", "pair"])
@pytest.mark.parametrize("seed,sizes,n", [
    (0, [1, 2, 5, 7, 3, 1, 2, 9, 4, 6, 2, 8], 7),
    (1, [2, 2, 2, 1, 12, 3, 2, 20, 1, 5], 9),
    (2, [30, 1, 4, 17, 2, 6, 2], 6),
])
def test_fast_path_equals_naive_wrapper(pair_weight, seed, sizes, n):
    X, y, ptr = random_problem(sizes, n, seed)
    for lam in LAMS:
        order, err = greedy_path(X, y, ptr, lam, pair_weight=pair_weight)
        order_n, err_n = naive_greedy_path(X, y, ptr, lam, pair_weight=pair_weight)
        np.testing.assert_array_equal(order, order_n)
        np.testing.assert_allclose(err, err_n, rtol=1e-8, atol=0)
        assert sorted(order.tolist()) == list(range(n))


def test_candidate_errors_equal_naive_every_round():
    X, y, ptr = random_problem([1, 2, 4, 6, 3, 8, 2], 6, 5)
    lam = 0.5
    order, err, extra = greedy_path(X, y, ptr, lam, 4, return_details=True)
    cand = extra["candidate_errors"]
    assert cand.shape == (4, 6)
    for step in range(4):
        chosen = order[:step].tolist()
        for i in range(6):
            if i in chosen:
                assert np.isnan(cand[step, i])
            else:
                assert cand[step, i] == pytest.approx(lqo_error(X, y, ptr, chosen + [i], lam), rel=1e-9)
        assert err[step] == np.nanmin(cand[step])


@pytest.mark.parametrize("pair_weight", ["query", "pair"])
def test_lqo_error_is_the_pairwise_definition(pair_weight):
    """The criterion equals held-out pairwise squared error of models trained on explicit pairs."""
    X, y, ptr = random_problem([1, 2, 3, 5, 4, 2, 6], 5, 3)
    lam = 0.7
    order, err = greedy_path(X, y, ptr, lam, pair_weight=pair_weight)
    for t in (1, 3, 5):
        expected = pair_lqo(X[:, order[:t]], y, ptr, lam, pair_weight)
        assert err[t - 1] == pytest.approx(expected, rel=1e-9)
        assert lqo_error(X, y, ptr, order[:t], lam, pair_weight=pair_weight) == pytest.approx(expected, rel=1e-9)


def test_hand_worked_single_feature_lqo():
    """Two queries of two documents, one feature, lam = 1, paper weighting.

    Query A: x = (1, 0), y = (1, 0); query B: x = (0, 2), y = (0, 1). Centred: A x~ = (.5, -.5),
    y~ = (.5, -.5); B x~ = (-1, 1), y~ = (-.5, .5). Leaving A out: w = (x~_B.y~_B)/(x~_B.x~_B + 1)
    = 1/3; A's centred residual y~ - w x~ = (1/3, -1/3), error 2/9. Leaving B out:
    w = 0.5/(0.5 + 1) = 1/3; B's residual (-.5 + 1/3, .5 - 1/3), error 2/36. Total 5/18."""
    X = np.array([[1.0], [0.0], [0.0], [2.0]])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    order, err = greedy_path(X, y, np.array([0, 2, 4]), 1.0)
    assert order.tolist() == [0]
    assert err[0] == pytest.approx(5 / 18, rel=1e-14)


# ------------------------------------------------------------------ the final model


def test_final_model_equals_rankrls_on_selected_features():
    data = planted(n_queries=30, d=8, informative=(2, 5), seed=4)
    X, y, ptr = data.X.astype(np.float64), data.y, data.query_ptr
    qid = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    for lam in (2.0 ** -7, 4.0, 2.0 ** 8):
        # pair weight 1: ltrfs.rankers.RankRLS
        order, _, extra = greedy_path(X, y, ptr, lam, pair_weight="pair", return_details=True)
        for t in (1, 4, 8):
            ref = RankRLS(lam=lam, pair_weight="pair").fit(X[:, order[:t]], y, qid).coef_
            np.testing.assert_allclose(extra["coefs"][t - 1], ref, rtol=1e-8, atol=1e-10)
        # the paper's 1/|Q| weights: ridge on query-centred data == explicit-pair RankRLS
        order, _, extra = greedy_path(X, y, ptr, lam, return_details=True)
        for t in (1, 4, 8):
            ref = pair_rankrls(X[:, order[:t]], y, ptr, lam, "query")
            np.testing.assert_allclose(extra["coefs"][t - 1], ref, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(solve_rankrls(*centered_products(X[:, order[:t]], y, ptr)[:2], lam), ref,
                                       rtol=1e-8, atol=1e-10)
    # and the query weighting differs from RankRLS's unless every query has the same size
    G, c, _ = centered_products(X[:, order], y, ptr, "pair")
    assert not np.allclose(solve_rankrls(G, c, 4.0), solve_rankrls(*centered_products(X[:, order], y, ptr)[:2], 4.0))


def test_selector_model_and_predict_scores():
    train = planted(n_queries=40, d=8, informative=(1, 6), seed=7)
    vali = planted(n_queries=20, d=8, informative=(1, 6), seed=8)
    qid = train.qid
    sel = GreedyRankRLS(lam=2.0, pair_weight="pair").fit(train.X, train.y, qid, vali.X, vali.y, vali.qid)
    cols = sel.ranking_[:sel.k_]
    ref = RankRLS(lam=2.0, pair_weight="pair").fit(train.X[:, cols], train.y, qid)
    np.testing.assert_allclose(sel.coef_, ref.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(sel.predict_scores(vali.X), ref.predict(vali.X[:, cols]), rtol=1e-8, atol=1e-9)
    # the chosen k is the first maximum of the vali curve
    curve = sel.details_["lambdas"][repr(2.0)]["vali"]["map"]
    assert sel.k_ == int(np.argmax(curve)) + 1
    assert curve[sel.k_ - 1] == pytest.approx(float(metrics.metric_per_query(
        vali.y, sel.predict_scores(vali.X), vali.query_ptr, "map").mean()), abs=1e-12)


# ------------------------------------------------------------------ planted ground truth


@pytest.mark.parametrize("informative,seed", [((2,), 0), ((0, 3), 1), ((1, 4, 7), 2)])
def test_planted_features_first(informative, seed):
    data = planted(n_queries=60, d=10, informative=informative, seed=seed)
    for lam in (2.0 ** -7, 2.0 ** 2, 2.0 ** 6):
        order, err = greedy_path(data.X, data.y, data.query_ptr, lam)
        assert set(order[:len(informative)].tolist()) == set(informative)
        # the planted features lower the criterion; the LQO error is smallest right after them
        assert err[len(informative) - 1] < err[0] or len(informative) == 1
        assert int(np.argmin(err)) + 1 <= len(informative) + 3


def test_selector_chooses_on_vali_and_records_details():
    train = planted(n_queries=50, d=9, informative=(3, 5), seed=11)
    vali = planted(n_queries=25, d=9, informative=(3, 5), seed=12)
    sel = GreedyRankRLS().fit(train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    assert sorted(sel.ranking_.tolist()) == list(range(9))
    assert set(sel.ranking_[:2].tolist()) == {3, 5}
    lams = sel.details_["lambdas"]
    assert set(lams) == {repr(v) for v in (2.0 ** -7, 2.0 ** 2, 2.0 ** 6, 2.0 ** 8)}
    best = max(max(e["vali"]["map"]) for e in lams.values())
    assert sel.chosen_["vali"] == best
    assert sel.chosen_["lam"] in (2.0 ** -7, 2.0 ** 2, 2.0 ** 6, 2.0 ** 8)
    entry = lams[repr(sel.chosen_["lam"])]
    assert entry["order"] == sel.ranking_.tolist()
    assert len(entry["lqo_error"]) == 9 and len(entry["vali"]["meanndcg"]) == 9 and len(entry["coef"]) == 9
    order, err = greedy_path(train.X, train.y, train.query_ptr, sel.chosen_["lam"])
    np.testing.assert_array_equal(order, sel.ranking_)
    np.testing.assert_allclose(entry["lqo_error"], err, rtol=1e-12)
    # predict_path reproduces the vali curve of any lambda and k
    lam = 2.0 ** 8
    v = metrics.metric_per_query(vali.y, sel.predict_path(vali.X, lam, 3), vali.query_ptr, "meanndcg").mean()
    assert lams[repr(lam)]["vali"]["meanndcg"][2] == pytest.approx(float(v), abs=1e-12)
    # deterministic and thread-independent
    again = GreedyRankRLS(n_jobs=2).fit(train.X, train.y, train.qid, vali.X, vali.y, vali.qid)
    np.testing.assert_array_equal(again.ranking_, sel.ranking_)
    assert again.chosen_ == sel.chosen_


def test_partial_path_ranks_the_rest_by_last_round_error():
    data = planted(n_queries=30, d=7, informative=(4,), seed=3)
    sel = GreedyRankRLS(k=3, lam=1.0).fit(data.X, data.y, data.qid)
    order, err, extra = greedy_path(data.X, data.y, data.query_ptr, 1.0, 3, return_details=True)
    assert sel.ranking_[:3].tolist() == order.tolist()
    rest = sel.ranking_[3:]
    last = extra["candidate_errors"][-1, rest]
    assert np.all(np.diff(last) >= 0) and sorted(sel.ranking_.tolist()) == list(range(7))
    assert sel.k_ == 3 and sel.chosen_ == {"lam": 1.0, "k": 3}
    assert sel.support(2).tolist() == order[:2].tolist()


def test_zero_and_duplicate_columns():
    """A feature constant within every query is never better than nothing; ties go to the
    lowest index; results stay equal to the wrapper."""
    X, y, ptr = random_problem([3, 1, 4, 2, 5, 2], 4, 9)
    per_query_const = np.repeat(np.arange(6.0), np.diff(ptr))
    X = np.column_stack([X, per_query_const, X[:, 1]])
    order, err = greedy_path(X, y, ptr, 1.0)
    order_n, err_n = naive_greedy_path(X, y, ptr, 1.0)
    np.testing.assert_array_equal(order, order_n)
    np.testing.assert_allclose(err, err_n, rtol=1e-8)
    assert order.tolist().index(1) < order.tolist().index(5)  # the duplicate of feature 1 comes later


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("params,match", [
    ({"k": 0}, "k must be"), ({"lam": -1.0}, "lam must be"), ({"lam_grid": []}, "lam_grid"),
    ({"metric": "foo"}, "metric"), ({"convention": "x"}, "convention"),
    ({"pair_weight": "all"}, "pair_weight"), ({"n_jobs": 0}, "n_jobs"),
])
def test_validate_params(params, match):
    with pytest.raises(ValueError, match=match):
        GreedyRankRLS(**params).validate_params()


def test_input_errors():
    data = planted(n_queries=5, d=3, seed=0)
    with pytest.raises(ValueError, match="validation data"):
        GreedyRankRLS().fit(data.X, data.y, data.qid)
    with pytest.raises(ValueError, match="exceeds"):
        GreedyRankRLS(k=4, lam=1.0).fit(data.X, data.y, data.qid)
    with pytest.raises(ValueError, match="k must be"):
        greedy_path(data.X, data.y, data.query_ptr, 1.0, 0)
    with pytest.raises(ValueError, match="lam must be"):
        greedy_path(data.X, data.y, data.query_ptr, 0.0)
    with pytest.raises(ValueError, match="finite"):
        X = data.X.copy()
        X[0, 0] = np.nan
        greedy_path(X, data.y, data.query_ptr, 1.0)


def test_details_are_json():
    import json

    train = planted(n_queries=12, d=4, informative=(0,), seed=1)
    sel = GreedyRankRLS(lam_grid=[0.5, 2.0]).fit(train.X, train.y, train.qid, train.X, train.y, train.qid)
    back = json.loads(json.dumps({"details": sel.details_, "chosen": sel.chosen_}))
    assert back["chosen"]["lam"] in (0.5, 2.0) and set(back["details"]["lambdas"]) == {"0.5", "2.0"}


def test_mq2008_subset_fast_equals_naive(mq2008_dir):
    """Real features (scaled to [0, 1] per query, some constant): 40 queries of Fold1/train."""
    from ltrfs.io import read_letor

    data = read_letor(mq2008_dir / "Fold1" / "train.txt")
    ptr = data.query_ptr[:41]
    X, y = data.X[:ptr[-1]], data.y[:ptr[-1]]
    for lam in (2.0 ** -7, 2.0 ** 6):
        order, err = greedy_path(X, y, ptr, lam, 5)
        order_n, err_n = naive_greedy_path(X, y, ptr, lam, 5)
        np.testing.assert_array_equal(order, order_n)
        np.testing.assert_allclose(err, err_n, rtol=1e-8)


# ------------------------------------------------------------------ memory and precision


def test_float32_input_is_read_as_is():
    """float32 X (the prepared splits' dtype) gives the path of its float64 values."""
    X, y, ptr = random_problem([5, 9, 3, 12, 7, 4, 8, 6], 6, 11)
    X32 = X.astype(np.float32)
    order, err, extra = greedy_path(X32, y, ptr, 0.5, return_details=True)
    order64, err64, extra64 = greedy_path(X32.astype(np.float64), y, ptr, 0.5, return_details=True)
    np.testing.assert_array_equal(order, order64)
    np.testing.assert_allclose(err, err64, rtol=1e-12)
    for w, w64 in zip(extra["coefs"], extra64["coefs"]):
        np.testing.assert_allclose(w, w64, rtol=1e-10, atol=1e-14)


def test_path_holds_two_feature_major_arrays():
    """Peak NumPy memory of a float32 path: C and U (2 x n x m float64) and a centring chunk's
    temporaries, not a float64 copy of X or of its centred transpose (which made it five)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    sizes = rng.integers(20, 60, 500)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m, n = int(ptr[-1]), 24
    X = rng.standard_normal((m, n)).astype(np.float32)
    y = rng.integers(0, 3, m).astype(np.float64)
    greedy_path(X[:ptr[2]], y[:ptr[2]], ptr[:3], 1.0, 2)  # compiled before measuring
    tracemalloc.start()
    greedy_path(X, y, ptr, 1.0, 4, return_details=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arrays = n * m * 8
    assert 2 * arrays < peak < 2.6 * arrays, peak / arrays


def test_near_collinear_features_small_lambda_equal_naive():
    """The kept v.C_i and C_i.y~ (updated, not recomputed) stay exact enough where features
    nearly repeat each other and lambda is the grid's smallest."""
    rng = np.random.default_rng(8)
    sizes = [6, 3, 9, 4, 7, 5, 8, 2, 6]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    base = rng.standard_normal((int(ptr[-1]), 3))
    X = np.column_stack([base, base + 1e-4 * rng.standard_normal(base.shape), base @ [1.0, -2.0, 0.5]])
    y = rng.integers(0, 3, len(X)) + base[:, 0]
    order, err = greedy_path(X, y, ptr, 2.0 ** -7)
    order_n, err_n = naive_greedy_path(X, y, ptr, 2.0 ** -7)
    np.testing.assert_array_equal(order, order_n)
    np.testing.assert_allclose(err, err_n, rtol=1e-7)


def test_selector_on_float32_splits_equals_their_float64_values():
    """The workflow's float32 train and vali (vali kept in X's dtype, not copied to float64)
    choose what their float64 values choose."""
    train = planted(n_queries=25, d=6, informative=(1, 4), seed=12)
    vali = planted(n_queries=10, d=6, informative=(1, 4), seed=13)
    X, Xv = train.X.astype(np.float32), vali.X.astype(np.float32)
    a = GreedyRankRLS().fit(X, train.y, train.qid, Xv, vali.y, vali.qid)
    b = GreedyRankRLS().fit(X.astype(np.float64), train.y, train.qid, Xv.astype(np.float64), vali.y, vali.qid)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    assert a.chosen_ == b.chosen_
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)


def test_interleaved_kernels_equal_the_one_at_a_time_loops_bit_for_bit():
    """The path's kernels work on four rows or candidates (two features) at a time: each value the
    same operations in the same order as the one-at-a-time reference loops, so bit for bit equal
    (7 candidates and 5 features: full blocks and leftovers)."""
    from ltrfs.selection.greedy_rankrls import (_candidate_errors, _one_candidate_error, _row_dots, _update_features,
                                                _update_one)

    rng = np.random.default_rng(5)
    n, ptr = 8, np.array([0, 3, 7, 12, 20], dtype=np.int64)
    m = int(ptr[-1])
    C, U = rng.standard_normal((n, m)), rng.standard_normal((n, m))
    a, r, s, cy = rng.standard_normal(m), rng.standard_normal(m), rng.random(n), rng.standard_normal(n)
    cand = np.array([6, 0, 2, 5, 7, 1, 3], dtype=np.int64)
    out = np.empty(len(cand))
    _candidate_errors(C, U, a, r, s, cy, ptr, cand, out)
    assert np.array_equal(out, [_one_candidate_error(C, U, a, r, s, cy, ptr, i) for i in cand])
    v = rng.standard_normal(m)
    assert np.array_equal(_row_dots(U, cand, v), [sum(U[i, p] * v[p] for p in range(m)) for i in cand])
    vb, b, rest = rng.standard_normal(m), 4, np.array([0, 2, 3, 6, 7], dtype=np.int64)
    c, cu, gamma = 0.7, rng.standard_normal(4), rng.standard_normal(4)
    fast = [x.copy() for x in (C, U, s, cy)]
    _update_features(vb, *fast, ptr, b, c, cu, gamma, rest)
    slow = [x.copy() for x in (C, U, s, cy)]
    for j in rest:
        _update_one(vb, *slow, ptr, c, cu, gamma, C[b].copy(), U[b].copy(), cy[b], j)
    assert all(np.array_equal(f, w) for f, w in zip(fast, slow))


def test_features_constant_within_queries_are_scored_once_and_never_updated():
    """Columns whose centred values are all zero keep zero rows in C and U: the path scores them
    once a round and skips their updates, and a round that adds one reuses its candidate errors;
    the path still equals the wrapper, and its candidate errors and weights are finite where the
    naive path's are."""
    X, y, ptr = random_problem([3, 1, 4, 2, 5, 2], 5, 3)
    per_query_const = np.repeat(np.arange(6.0), np.diff(ptr))
    X = np.column_stack([per_query_const, X[:, :2], np.zeros(len(y)), X[:, 2:], 2.0 * per_query_const])
    order, err, details = greedy_path(X, y, ptr, 0.5, return_details=True)
    order_n, err_n = naive_greedy_path(X, y, ptr, 0.5)
    np.testing.assert_array_equal(order, order_n)
    np.testing.assert_allclose(err, err_n, rtol=1e-8)
    flat = [0, 3, 7]
    for step in range(len(order)):  # the constant columns share one error in every round they are candidates
        row = details["candidate_errors"][step, flat]
        assert len(set(row[~np.isnan(row)].tolist())) <= 1
    for step in range(1, len(order)):  # adding one changes no residual: the error stays, bit for bit
        assert order[step] not in flat or err[step] == err[step - 1]
    assert set(flat) <= set(order.tolist())
    assert all(np.isfinite(w).all() for w in details["coefs"])

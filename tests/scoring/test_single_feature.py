"""The compiled single-feature table (ltrfs.scoring.single_feature) against the loop of
``metrics.evaluate`` it replaces (frozen below as the oracle), in both tie rules (file order and
the expectation over tied orders), hand-computed cases, every convention and override,
thread-count independence, dtypes and input errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ltrfs import metrics
from ltrfs.ranking_data import DataError
from ltrfs.scoring.single_feature import METRIC_NAMES, single_feature_table

L3 = math.log2(3)
ALL_KEYS = list(METRIC_NAMES) + [f"{name}:asc" for name in METRIC_NAMES]

#: the built-in conventions features can be scored in (lei2017's P@k is for evaluation only)
SCORING = [name for name, conv in metrics.CONVENTIONS.items() if conv.short_precision != "fetched"]
CONVENTIONS = [
    "letor3", "letor4", "mslr", "standard",
    metrics.get_convention("standard", ideal_zero=1.0),
    metrics.get_convention("letor4", gain="linear", short_ndcg="truncate"),
    metrics.get_convention("standard", short_precision="zero", relevant_min=3),
    metrics.get_convention("letor3", discount="log2", ideal_zero=1.0, relevant_min=2),
]


def conv_id(conv):
    if isinstance(conv, str):
        return conv
    return f"{conv.name}-{conv.discount}-{conv.gain}-{conv.relevant_min}-{conv.short_ndcg}-" \
           f"{conv.short_precision}-{conv.ideal_zero:g}"


def oracle_table(X, y, ptr, convention, ties="file_order"):
    """What ``ltrfs.scoring.single_feature_table`` computed before the kernel: per feature,
    ``metrics.evaluate`` of the column and of its negation (with the tie rule ``ties``),
    macro-averaged."""
    d = X.shape[1]
    out = {name: np.empty(d) for name in ALL_KEYS}
    for f in range(d):
        column = X[:, f].astype(np.float64)
        for suffix, scores in (("", column), (":asc", -column)):
            qm = metrics.evaluate(y, scores, ptr, convention=convention, max_k=10, ties=ties)
            means = np.concatenate([qm.precision.mean(0), [qm.map.mean()], qm.ndcg.mean(0),
                                    [qm.mean_ndcg.mean()]])
            for name, value in zip(METRIC_NAMES, means):
                out[name + suffix][f] = value
    return out


def random_data(seed=0, n_queries=60, d=24, max_docs=40, levels=5):
    """Queries of 1..max_docs documents (the first ones of size 1, 2, 17 and 40), integer-valued
    features with many ties (negative values and -0.0 among them), one continuous feature, one
    constant everywhere, one constant inside each query, one with +-inf; some queries without
    any relevant document (all labels 0, or all below 2)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    sizes[:4] = [1, 2, 17, max_docs]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    X = rng.integers(-3, 4, (m, d)).astype(np.float32)
    X[:, 1] = rng.standard_normal(m)
    X[:, 2] = 2.5
    X[:, 3] = np.repeat(rng.integers(0, 3, n_queries), sizes)
    X[rng.random(m) < 0.3, 4] = -0.0
    X[:, 5] = rng.integers(0, 3, m)
    X[rng.random(m) < 0.1, 5] = np.inf
    X[rng.random(m) < 0.1, 5] = -np.inf
    X[:, 6] = rng.integers(0, 2, m) * np.float32(1e30)
    y = rng.integers(0, levels, m).astype(np.int32)
    for q in range(4, n_queries, 5):
        y[ptr[q]:ptr[q + 1]] = 0  # no relevant document in any convention
    for q in range(6, n_queries, 7):
        y[ptr[q]:ptr[q + 1]] = np.minimum(y[ptr[q]:ptr[q + 1]], 1)  # none with label >= 2
    return X, y, ptr


def assert_tables_equal(got, want, atol=1e-12):
    assert set(got) == set(want) == set(ALL_KEYS)
    for key in ALL_KEYS:
        assert got[key].shape == want[key].shape and got[key].dtype == np.float64, key
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=atol, err_msg=key)


# ------------------------------------------------------------------------------ oracle


@pytest.mark.parametrize("ties", metrics.TIES)
@pytest.mark.parametrize("convention", CONVENTIONS, ids=conv_id)
def test_matches_evaluate_loop_every_convention(convention, ties):
    X, y, ptr = random_data(seed=1)
    assert_tables_equal(single_feature_table(X, y, ptr, convention, ties=ties),
                        oracle_table(X, y, ptr, convention, ties))


@pytest.mark.parametrize("seed", [2, 3])
def test_matches_evaluate_loop_more_data(seed):
    X, y, ptr = random_data(seed=seed, n_queries=150, d=8, levels=3)
    for convention in ("letor4", "mslr"):
        for ties in metrics.TIES:
            assert_tables_equal(single_feature_table(X, y, ptr, convention, ties=ties),
                                oracle_table(X, y, ptr, convention, ties))


def tied_data(seed=0, n_queries=70, d=6):
    """Features drawn from {0, 0.5, 1} (a tie group of every size), a constant column and a
    column constant inside each query; queries of 1..60 documents (sizes 1, 2, 17 and 60 among
    them: the insertion and the radix sort both run); labels 0..4."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 61, n_queries)
    sizes[:4] = [1, 2, 17, 60]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    X = rng.choice(np.array([0.0, 0.5, 1.0], np.float32), (m, d))
    X[:, 1] = 0.25
    X[:, 2] = np.repeat(rng.integers(0, 3, n_queries), sizes)
    X[rng.random(m) < 0.5, 3] = -0.0  # ties with +0.0
    y = rng.integers(0, 5, m).astype(np.int32) * (rng.random(m) < 0.6)
    return X, y, ptr


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("convention", SCORING)
def test_expected_ties_match_evaluate_loop_on_heavily_tied_data(convention, dtype):
    X, y, ptr = tied_data(seed=11)
    want = oracle_table(X, y, ptr, convention, "expected")
    got = single_feature_table(X.astype(dtype), y, ptr, convention)  # "expected" is the default
    assert_tables_equal(got, want)
    # the tie rule matters on these data (file order differs somewhere)
    file_order = single_feature_table(X.astype(dtype), y, ptr, convention, ties="file_order")
    assert any(not np.allclose(file_order[key], got[key], rtol=0, atol=1e-9) for key in ALL_KEYS)


@pytest.mark.parametrize("convention", SCORING)
def test_constant_feature_gets_the_tie_aware_value_of_a_constant_score(convention):
    # labels descending inside each query: file order would rank every query ideally
    X, y, ptr = tied_data(seed=12, d=4)
    for a, b in zip(ptr[:-1], ptr[1:]):
        y[a:b] = np.sort(y[a:b])[::-1]
    X[:, 0] = 7.0
    X[:, 1] = -0.0
    qm = metrics.evaluate(y, np.zeros(len(y)), ptr, convention, max_k=10, ties="expected")
    want = dict(zip(METRIC_NAMES, np.concatenate([qm.precision.mean(0), [qm.map.mean()], qm.ndcg.mean(0),
                                                  [qm.mean_ndcg.mean()]])))
    fo = metrics.evaluate(y, np.zeros(len(y)), ptr, convention, max_k=10, ties="file_order")
    for dtype in (np.float32, np.float64):
        t = single_feature_table(X.astype(dtype), y, ptr, convention)
        for name in METRIC_NAMES:
            for suffix in ("", ":asc"):
                for f in (0, 1):
                    assert t[name + suffix][f] == pytest.approx(want[name], rel=0, abs=1e-14), (name, suffix, f)
    assert want["ndcg@1"] < fo.ndcg[:, 0].mean() - 0.1  # not the file-order credit
    assert want["map"] < fo.map.mean() - 0.1


def test_large_queries_use_every_radix_digit():
    # continuous values spread over many magnitudes and signs, queries of up to 300 documents
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 301, 25)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    X = (rng.standard_normal((m, 5)) * 10.0 ** rng.integers(-20, 20, (m, 5))).astype(np.float32)
    X[:, 4] = np.round(X[:, 4] * 1e-3 ** 0)  # ties among large values
    X[rng.random(m) < 0.2, 3] = 0.0
    y = rng.integers(0, 5, m).astype(np.int32)
    for convention in ("letor4", "standard"):
        for ties in metrics.TIES:
            assert_tables_equal(single_feature_table(X, y, ptr, convention, ties=ties),
                                oracle_table(X, y, ptr, convention, ties))


@pytest.mark.parametrize("ties", metrics.TIES)
def test_float64_and_integer_inputs_give_the_float32_result(ties):
    X, y, ptr = random_data(seed=4, d=7)
    want = oracle_table(X, y, ptr, "letor4", ties)
    assert_tables_equal(single_feature_table(X.astype(np.float64), y, ptr, "letor4", ties=ties), want)
    Xi = np.nan_to_num(X[:, [0, 2, 3, 4]], posinf=0, neginf=0).astype(np.int16)
    wanti = oracle_table(Xi, y.astype(np.int64), ptr, "letor4", ties)
    assert_tables_equal(single_feature_table(Xi, y.astype(np.int64), ptr, "letor4", ties=ties), wanti)
    # float64 with values float32 cannot hold apart: ties only where float64 says so
    X64 = np.array([[1.0], [1.0 + 2**-40], [1.0]])
    y64 = np.array([0, 1, 0])
    assert_tables_equal(single_feature_table(X64, y64, np.array([0, 3]), ties=ties),
                        oracle_table(X64, y64, np.array([0, 3]), "letor4", ties))


@pytest.mark.parametrize("ties", metrics.TIES)
def test_thread_count_does_not_change_a_bit(ties):
    X, y, ptr = random_data(seed=5, d=40)
    one = single_feature_table(X, y, ptr, "mslr", n_threads=1, ties=ties)
    two = single_feature_table(X, y, ptr, "mslr", n_threads=2, ties=ties)
    for key in ALL_KEYS:
        assert np.array_equal(one[key], two[key]), key
    one = single_feature_table(X.astype(np.float64), y, ptr, "letor3", n_threads=1, ties=ties)
    two = single_feature_table(X.astype(np.float64), y, ptr, "letor3", n_threads=2, ties=ties)
    for key in ALL_KEYS:
        assert np.array_equal(one[key], two[key]), key


def test_non_contiguous_input_is_accepted():
    X, y, ptr = random_data(seed=6, d=10)
    view = X[:, ::2]
    assert_tables_equal(single_feature_table(view, y, ptr),
                        oracle_table(np.ascontiguousarray(view), y, ptr, "letor4", "expected"))


# ------------------------------------------------------------------------------ by hand


def test_hand_computed_query_both_orientations():
    # labels [0, 2, 1], feature [1, 3, 3]
    # descending: 3, 3 (file order: docs 1, 2), then 1 -> labels [2, 1, 0] = the ideal order
    # ascending: 1, then 3, 3 (file order) -> labels [0, 2, 1]
    X = np.array([[1.0], [3.0], [3.0]], np.float32)
    y = np.array([0, 2, 1])
    t = single_feature_table(X, y, np.array([0, 3]), "letor4", ties="file_order")
    for k in (1, 2, 3):
        assert t[f"ndcg@{k}"][0] == 1.0
    assert [t[f"p@{k}"][0] for k in (1, 2, 3, 4, 10)] == [1.0, 1.0, pytest.approx(2 / 3), 0.5, 0.2]
    assert t["ndcg@4"][0] == 0.0 and t["ndcg@10"][0] == 0.0  # LETOR: query shorter than k
    assert t["map"][0] == 1.0 and t["meanndcg"][0] == 1.0
    # ascending, gains [0, 3, 1], LETOR discounts [1, 1, 1/log2 3], ideal DCG [3, 4, 4]
    assert t["ndcg@1:asc"][0] == 0.0
    assert t["ndcg@2:asc"][0] == pytest.approx(0.75, abs=1e-15)
    assert t["ndcg@3:asc"][0] == pytest.approx((3 + 1 / L3) / 4, abs=1e-15)
    assert t["p@1:asc"][0] == 0.0 and t["p@2:asc"][0] == 0.5
    assert t["p@10:asc"][0] == pytest.approx(0.2)
    assert t["map:asc"][0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert t["meanndcg:asc"][0] == pytest.approx((0 + 0.75 + (3 + 1 / L3) / 4) / 3, abs=1e-15)
    # letor3: P@k of a query shorter than k is 0; standard: NDCG@k on the n documents
    t3 = single_feature_table(X, y, np.array([0, 3]), "letor3", ties="file_order")
    assert t3["p@4"][0] == 0.0 and t3["p@3"][0] == pytest.approx(2 / 3)
    ts = single_feature_table(X, y, np.array([0, 3]), "standard", ties="file_order")
    assert ts["ndcg@10"][0] == 1.0
    assert ts["ndcg@10:asc"][0] == pytest.approx((3 / L3 + 1 / 2) / (3 + 1 / L3), abs=1e-15)


def test_hand_computed_query_expected_ties():
    # labels [0, 2, 1], feature [1, 3, 3]: the tied documents (gains 3 and 1) share the mean gain 2
    # descending: ranks 1-2 gain 2 each, then gain 0; ideal DCG [3, 4, 4]
    X = np.array([[1.0], [3.0], [3.0]], np.float32)
    y = np.array([0, 2, 1])
    t = single_feature_table(X, y, np.array([0, 3]), "letor4")
    assert t["ndcg@1"][0] == pytest.approx(2 / 3, abs=1e-15)
    assert t["ndcg@2"][0] == 1.0 and t["ndcg@3"][0] == 1.0
    assert t["meanndcg"][0] == pytest.approx((2 / 3 + 1 + 1) / 3, abs=1e-15)
    assert t["p@1"][0] == 1.0 and t["map"][0] == 1.0  # both tied documents are relevant
    # ascending: gain 0, then ranks 2-3 gain 2 each
    assert t["ndcg@1:asc"][0] == 0.0
    assert t["ndcg@2:asc"][0] == pytest.approx(0.5, abs=1e-15)
    assert t["ndcg@3:asc"][0] == pytest.approx((2 + 2 / L3) / 4, abs=1e-15)
    assert t["map:asc"][0] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)


def test_ties_keep_file_order_in_both_orientations():
    # a constant feature ranks in file order both ways; -0.0 ties with +0.0
    y = np.array([1, 0, 0, 2])
    X = np.array([[5.0, 0.0], [5.0, -0.0], [5.0, 0.0], [5.0, -0.0]], np.float32)
    t = single_feature_table(X, y, np.array([0, 4]), "letor4", ties="file_order")
    for f in (0, 1):
        for suffix in ("", ":asc"):
            assert t["p@1" + suffix][f] == 1.0  # document 0 (label 1) first
            assert t["map" + suffix][f] == pytest.approx((1 + 2 / 4) / 2)


def test_expected_ties_by_hand_constant_feature():
    # one tie group of 4 documents, 2 relevant (gains 1 and 3): P@1 = 2/4; mean gain 1 per rank;
    # AP over the 6 placements of the two relevant documents:
    # (1 + 5/6 + 3/4 + 7/12 + 1/2 + 5/12) / 6 = 49/72 (McSherry & Najork's closed form too)
    y = np.array([1, 0, 0, 2])
    X = np.array([[5.0, 0.0], [5.0, -0.0], [5.0, 0.0], [5.0, -0.0]], np.float32)
    idcg = [3, 4, 4 + 0 / L3]
    dcg = [1, 2, 2 + 1 / L3]
    for dtype in (np.float32, np.float64):
        t = single_feature_table(X.astype(dtype), y, np.array([0, 4]), "letor4")
        for f in (0, 1):
            for suffix in ("", ":asc"):
                assert t["p@1" + suffix][f] == 0.5
                assert t["p@4" + suffix][f] == 0.5
                assert t["map" + suffix][f] == pytest.approx(49 / 72, abs=1e-15)
                for k in (1, 2, 3):
                    assert t[f"ndcg@{k}" + suffix][f] == pytest.approx(dcg[k - 1] / idcg[k - 1], abs=1e-15)


def test_macro_average_over_queries_and_no_relevant_query():
    # query 0: feature ranks label 1 first -> NDCG@1 = 1; query 1: all labels 0 -> 0 (letor4),
    # 1 with ideal_zero = 1
    X = np.array([[2.0], [1.0], [7.0], [3.0]], np.float32)
    y = np.array([1, 0, 0, 0])
    ptr = np.array([0, 2, 4])
    assert single_feature_table(X, y, ptr, "letor4")["ndcg@1"][0] == 0.5
    assert single_feature_table(X, y, ptr, "letor4")["ndcg@1:asc"][0] == 0.0
    conv = metrics.get_convention("standard", ideal_zero=1.0)
    assert single_feature_table(X, y, ptr, conv)["ndcg@1"][0] == 1.0
    assert single_feature_table(X, y, ptr, conv)["map"][0] == 0.5  # AP 0 without relevant docs


def test_empty_inputs():
    t = single_feature_table(np.zeros((0, 3), np.float32), np.zeros(0, np.int32), np.array([0]))
    assert set(t) == set(ALL_KEYS) and all(v.shape == (3,) and np.isnan(v).all() for v in t.values())
    t = single_feature_table(np.zeros((4, 0), np.float32), np.zeros(4, np.int32), np.array([0, 4]))
    assert all(v.shape == (0,) for v in t.values())


# ------------------------------------------------------------------------------ errors


def test_bad_inputs_raise_one_line_errors():
    X = np.zeros((4, 2), np.float32)
    y = np.array([0, 1, 0, 1])
    ptr = np.array([0, 2, 4])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(DataError, match="feature 2 .*NaN"):
        single_feature_table(Xn, y, ptr)
    with pytest.raises(DataError, match="feature 1 .*NaN"):
        single_feature_table(np.where(Xn == 0, np.nan, 0.0), y, ptr)  # float64 path
    with pytest.raises(ValueError, match="n_threads"):
        single_feature_table(X, y, ptr, n_threads=0)
    with pytest.raises(ValueError, match="2-D"):
        single_feature_table(X[:, 0], y, ptr)
    with pytest.raises(ValueError, match="one label per row"):
        single_feature_table(X, y[:3], ptr)
    with pytest.raises(ValueError, match=">= 0"):
        single_feature_table(X, -y, ptr)
    with pytest.raises(ValueError, match="integers"):
        single_feature_table(X, y + 0.5, ptr)
    with pytest.raises(ValueError, match="empty query"):
        single_feature_table(X, y, np.array([0, 2, 2, 4]))
    with pytest.raises(ValueError, match="query_ptr"):
        single_feature_table(X, y, np.array([0, 3]))
    with pytest.raises(ValueError, match="unknown metric convention"):
        single_feature_table(X, y, ptr, "trec")
    with pytest.raises(ValueError, match="real numbers"):
        single_feature_table(X.astype(np.complex64), y, ptr)
    with pytest.raises(ValueError, match="ties must be one of file_order, expected"):
        single_feature_table(X, y, ptr, ties="random")


# ------------------------------------------------------------------------------ real data


def test_mq2008_fold1_train_matches_oracle(mq2008_dir):
    from ltrfs.io import read_letor

    data = read_letor(mq2008_dir / "Fold1" / "train.txt")
    for ties in metrics.TIES:
        got = single_feature_table(data.X, data.y, data.query_ptr, "letor4", n_threads=2, ties=ties)
        assert_tables_equal(got, oracle_table(data.X, data.y, data.query_ptr, "letor4", ties))

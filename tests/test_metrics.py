"""Tests of ltrfs.metrics: hand-computed cases for every rule of SPEC.md section 1, a naive
per-query oracle on random data for every convention, the t-test, and the Eval-Score layout."""
from __future__ import annotations

import math
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ltrfs import metrics as M
from ltrfs.results import significance as S

L3 = math.log2(3)
CONVENTION_NAMES = ["letor3", "letor4", "mslr", "standard", "lei2017", "lyu2024"]


def one_query(labels, scores=None, convention="letor4", max_k=10):
    """Evaluate a single query; default scores rank the documents in the given order."""
    labels = np.asarray(labels)
    if scores is None:
        scores = -np.arange(len(labels), dtype=np.float64)
    return M.evaluate(labels, np.asarray(scores, dtype=np.float64), np.array([0, len(labels)]),
                      convention, max_k)


# ---------------------------------------------------------------- gains and discounts

def test_letor_gain_and_discount_by_hand():
    # ranked labels [2, 0, 1]: gains 3, 0, 1; LETOR discounts 1, 1, 1/log2(3)
    qm = one_query([2, 0, 1])
    dcg = [3.0, 3.0 + 0.0, 3.0 + 0.0 + 1.0 / L3]
    idcg = [3.0, 3.0 + 1.0, 3.0 + 1.0 + 0.0]  # ideal order [2, 1, 0]
    np.testing.assert_allclose(qm.ndcg[0, :3], np.divide(dcg, idcg), rtol=1e-14)
    assert qm.ndcg[0, 1] == pytest.approx(0.75)


def test_standard_gain_and_discount_by_hand():
    # same ranking; discounts 1/log2(2), 1/log2(3), 1/log2(4) = 1, 1/log2(3), 1/2
    qm = one_query([2, 0, 1], convention="standard")
    dcg3 = 3.0 + 0.0 + 1.0 * 0.5
    idcg3 = 3.0 + 1.0 / L3 + 0.0
    assert qm.ndcg[0, 0] == pytest.approx(1.0)
    assert qm.ndcg[0, 1] == pytest.approx(3.0 / (3.0 + 1.0 / L3), rel=1e-14)
    assert qm.ndcg[0, 2] == pytest.approx(dcg3 / idcg3, rel=1e-14)


def test_letor_rank_two_is_not_discounted():
    # [0, 2]: DCG@2 = 0 + 3 = IDCG@2 in the LETOR convention, but not in the standard one
    assert one_query([0, 2]).ndcg[0, :2].tolist() == [0.0, 1.0]
    std = one_query([0, 2], convention="standard").ndcg[0, :2]
    assert std[0] == 0.0 and std[1] == pytest.approx((3.0 / L3) / 3.0, rel=1e-14)


def test_mslr_gains_up_to_label_four():
    # ranked [1, 2, 0, 4]: gains 1, 3, 0, 15; ideal [4, 2, 1, 0]
    qm = one_query([1, 2, 0, 4], convention="mslr")
    assert qm.ndcg[0, 0] == pytest.approx(1.0 / 15.0)
    dcg4 = 1 + 3 + 0 / L3 + 15 / 2.0
    idcg4 = 15 + 3 + 1 / L3 + 0 / 2.0
    assert qm.ndcg[0, 3] == pytest.approx(dcg4 / idcg4, rel=1e-14)


# ---------------------------------------------------------------- short queries

@pytest.mark.parametrize("name", ["letor3", "letor4", "mslr"])
def test_ndcg_of_short_query_is_zero_in_letor_and_mslr(name):
    qm = one_query([2, 0, 1], convention=name, max_k=5)
    assert qm.ndcg[0, 2] > 0
    assert qm.ndcg[0, 3:].tolist() == [0.0, 0.0]
    assert M.metric_per_query([2, 0, 1], [3, 2, 1], [0, 3], "NDCG@4", name)[0] == 0.0


def test_ndcg_of_short_query_is_computed_on_n_docs_in_standard():
    qm = one_query([2, 0, 1], convention="standard", max_k=5)
    expected = (3.0 + 0.5) / (3.0 + 1.0 / L3)
    np.testing.assert_allclose(qm.ndcg[0, 2:], [expected] * 3, rtol=1e-14)
    assert M.metric_per_query([2, 0, 1], [3, 2, 1], [0, 3], "ndcg@100", "standard")[0] == pytest.approx(expected)


def test_precision_of_short_query_letor3_vs_letor4():
    # ranked [1, 0, 1]
    p4 = one_query([1, 0, 1], convention="letor4", max_k=5).precision[0]
    p3 = one_query([1, 0, 1], convention="letor3", max_k=5).precision[0]
    ps = one_query([1, 0, 1], convention="standard", max_k=5).precision[0]
    np.testing.assert_allclose(p4, [1, 1 / 2, 2 / 3, 2 / 4, 2 / 5], rtol=1e-15)
    np.testing.assert_allclose(ps, p4, rtol=1e-15)
    np.testing.assert_allclose(p3, [1, 1 / 2, 2 / 3, 0, 0], rtol=1e-15)


def test_lei2017_convention_by_hand_from_class_probabilities():
    """Lei & Han's own evaluation (report section 3): each document's expected label sum_r r P(r)
    from its class probabilities, the share of labels 2-4 among the top min(k, n), NDCG with
    1/log2(i + 1) on the documents there are."""
    from ltrfs.selection.statistical import expected_label

    proba = np.array([[0.1, 0.2, 0.3, 0.3, 0.1],   # query A: expected label 2.1, label 1
                      [0.6, 0.3, 0.1, 0.0, 0.0],   #          0.5, label 3
                      [0.2, 0.2, 0.2, 0.2, 0.2],   #          2.0, label 2
                      [0.5, 0.5, 0.0, 0.0, 0.0],   # query B: 0.5, label 0
                      [0.0, 0.0, 0.0, 0.0, 1.0]])  #          4.0, label 2
    score = expected_label(proba, np.arange(5))
    np.testing.assert_allclose(score, [2.1, 0.5, 2.0, 0.5, 4.0], rtol=1e-12)
    y, ptr = np.array([1, 3, 2, 0, 2]), np.array([0, 3, 5])
    qm = M.evaluate(y, score, ptr, "lei2017", max_k=5)
    # A ranks labels 1, 2, 3 (relevant 0, 1, 1); B ranks 2, 0 (relevant 1, 0)
    np.testing.assert_allclose(qm.precision, [[0, 1 / 2, 2 / 3, 2 / 3, 2 / 3],   # k > 3: 2 of the 3
                                              [1, 1 / 2, 1 / 2, 1 / 2, 1 / 2]], rtol=1e-15)
    np.testing.assert_allclose(M.evaluate(y, score, ptr, "mslr", max_k=5).precision[0, 3:], [2 / 4, 2 / 5])
    dcg_a = [1, 1 + 3 / L3, 1 + 3 / L3 + 7 / 2]
    idcg_a = [7, 7 + 3 / L3, 7 + 3 / L3 + 1 / 2]
    np.testing.assert_allclose(qm.ndcg[0], [d / i for d, i in zip(dcg_a, idcg_a)] + [dcg_a[2] / idcg_a[2]] * 2,
                               rtol=1e-14)
    np.testing.assert_allclose(qm.ndcg[1], [1.0] * 5, rtol=1e-15)
    assert M.mean_metrics(qm)["P@3"] == pytest.approx((2 / 3 + 1 / 2) / 2, rel=1e-15)


def test_lei2017_convention_is_for_evaluation_only():
    from ltrfs.rankers.coord_ascent import CoordinateAscent
    from ltrfs.scoring.single_feature import single_feature_table

    X = np.array([[1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="^single-feature scores: the lei2017 convention's P@k"):
        single_feature_table(X, np.array([0, 2, 1]), np.array([0, 3]), "lei2017")
    with pytest.raises(ValueError, match="^coord_ascent: P@k in the lei2017 convention"):
        CoordinateAscent(metric="p@2", convention="lei2017").fit(X, np.array([0, 2, 1]), np.array([1, 1, 1]))


# ---------------------------------------------------------------- ideal DCG zero

@pytest.mark.parametrize("name", [n for n in CONVENTION_NAMES if n != "lyu2024"])
def test_query_without_relevant_document_scores_zero(name):
    qm = one_query([0, 0, 0], convention=name, max_k=4)
    assert qm.ndcg.tolist() == [[0.0] * 4]
    assert qm.mean_ndcg[0] == 0.0 and qm.map[0] == 0.0 and qm.precision.sum() == 0.0


def test_standard_ideal_zero_option_one():
    conv = M.get_convention("standard", ideal_zero=1)
    qm = one_query([0, 0, 0], convention=conv, max_k=4)
    assert qm.ndcg.tolist() == [[1.0] * 4]  # k > n too: computed on the 3 documents
    assert qm.mean_ndcg[0] == 1.0
    assert qm.map[0] == 0.0  # MAP is unaffected
    # a query with a relevant document is unaffected
    assert one_query([0, 1], convention=conv).ndcg[0, 0] == 0.0


def test_lyu2024_is_standard_with_a_query_without_relevant_documents_scoring_one():
    """Lyu et al. 2024's evaluation: 1/log2(i + 1), NDCG on the documents there are, 1 for a query
    without a relevant document (and MAP 0 there, as everywhere)."""
    y, score, ptr = np.array([0, 0, 0, 1, 0, 2]), np.array([3.0, 2.0, 1.0, 1.0, 2.0, 0.5]), np.array([0, 3, 6])
    lyu, std = M.evaluate(y, score, ptr, "lyu2024", max_k=4), M.evaluate(y, score, ptr, "standard", max_k=4)
    assert lyu.ndcg[0].tolist() == [1.0] * 4 and std.ndcg[0].tolist() == [0.0] * 4
    # query 2 ranks labels 0, 1, 2: DCG@3 = 1/log2(3) + 3/2, ideal 3 + 1/log2(3)
    assert lyu.ndcg[1, 2] == pytest.approx((1 / math.log2(3) + 3 / 2) / (3 + 1 / math.log2(3)), rel=1e-14)
    np.testing.assert_array_equal(lyu.ndcg[1], std.ndcg[1])
    assert lyu.map[0] == 0.0


def test_mean_includes_zero_queries():
    y = np.array([1, 0, 0, 0])
    qm = M.evaluate(y, np.array([2.0, 1.0, 2.0, 1.0]), np.array([0, 2, 4]))
    assert M.mean_metrics(qm)["NDCG@1"] == 0.5
    assert M.mean_metrics(qm)["MAP"] == 0.5


# ---------------------------------------------------------------- relevance, MAP, MeanNDCG

def test_mslr_label_one_is_not_relevant():
    # ranked [1, 2, 0, 4]: relevant (>= 2) at ranks 2 and 4
    qm = one_query([1, 2, 0, 4], convention="mslr", max_k=4)
    np.testing.assert_allclose(qm.precision[0], [0, 1 / 2, 1 / 3, 2 / 4], rtol=1e-15)
    assert qm.map[0] == pytest.approx((1 / 2 + 2 / 4) / 2)
    # letor4 counts label 1: relevant at ranks 1, 2, 4
    assert one_query([1, 2, 0, 4], convention="letor4").map[0] == pytest.approx((1 + 1 + 3 / 4) / 3)


def test_map_by_hand():
    # ranked [0, 1, 0, 1, 1]: P@2 = 1/2, P@4 = 2/4, P@5 = 3/5 at the relevant ranks
    qm = one_query([0, 1, 0, 1, 1])
    assert qm.map[0] == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3, rel=1e-15)
    assert M.metric_per_query([0, 1, 0, 1, 1], [5, 4, 3, 2, 1], [0, 5], "MAP")[0] == qm.map[0]


def test_mean_ndcg_by_hand():
    # [0, 1]: NDCG@1 = 0, NDCG@2 = (0 + 1) / (1 + 0) = 1
    assert one_query([0, 1]).mean_ndcg[0] == 0.5
    # [2, 0, 1]: mean of 1, 3/4 and (3 + 1/log2 3) / 4 over the 3 documents (not over max_k)
    expected = (1 + 0.75 + (3 + 1 / L3) / 4) / 3
    assert one_query([2, 0, 1], max_k=1).mean_ndcg[0] == pytest.approx(expected, rel=1e-14)
    # standard: NDCG@1 = 1, @2 = 3 / (3 + 1/log2 3), @3 = 3.5 / (3 + 1/log2 3)
    ideal = 3 + 1 / L3
    expected = (1 + 3 / ideal + 3.5 / ideal) / 3
    assert one_query([2, 0, 1], convention="standard").mean_ndcg[0] == pytest.approx(expected, rel=1e-14)


# ---------------------------------------------------------------- ties

def test_ties_are_broken_by_file_order():
    scores = np.array([0.5, 0.5, 0.1])
    a = M.evaluate(np.array([0, 2, 1]), scores, np.array([0, 3]))  # ranked [0, 2, 1]
    b = M.evaluate(np.array([2, 0, 1]), scores, np.array([0, 3]))  # ranked [2, 0, 1]
    assert a.precision[0, 0] == 0.0 and b.precision[0, 0] == 1.0
    assert a.ndcg[0, 0] == 0.0 and b.ndcg[0, 0] == 1.0
    assert a.map[0] == pytest.approx((1 / 2 + 2 / 3) / 2) and b.map[0] == pytest.approx((1 + 2 / 3) / 2)
    # a larger tie block in the middle of a query, float32 scores
    y = np.array([0, 1, 0, 2, 1, 0])
    s = np.array([0.9, 0.3, 0.3, 0.3, 0.3, 0.1], dtype=np.float32)
    qm = M.evaluate(y, s, np.array([0, 6]), "letor4", max_k=6)
    np.testing.assert_allclose(qm.precision[0], np.cumsum([0, 1, 0, 1, 1, 0]) / np.arange(1, 7))


def test_expected_ties_by_hand():
    # one query, all scores tied: labels 2, 0, 1 (letor4 gains 3, 0, 1; mean gain 4/3, 1 of 3... 2 relevant)
    qm = M.evaluate(np.array([2, 0, 1]), np.zeros(3), np.array([0, 3]), "letor4", max_k=3, ties="expected")
    assert qm.precision[0, 0] == pytest.approx(2 / 3)
    # DCG@1 = 4/3; IDCG@1 = 3
    assert qm.ndcg[0, 0] == pytest.approx((4 / 3) / 3)
    # E[AP] with R = 2, one block n = 3, r = 2, R_b = 0: (2/3) sum_j (1 + (j-1)/2) / j / 2
    expected_ap = (2 / 3) * (1 / 1 + 1.5 / 2 + 2 / 3) / 2
    assert qm.map[0] == pytest.approx(expected_ap)
    # enumerate the 6 orders by hand: AP of [2,0,1]=(1+2/3)/2, [2,1,0]=1, [0,2,1]=(1/2+2/3)/2, ...
    orders = [(1 + 2 / 3) / 2, 1.0, (1 / 2 + 2 / 3) / 2, (1 / 2 + 2 / 3) / 2, 1.0, (1 + 2 / 3) / 2]
    assert qm.map[0] == pytest.approx(np.mean(orders))
    # untied scores: expected equals file order
    y = np.array([0, 1, 2, 1])
    s = np.array([0.1, 0.4, 0.3, 0.2])
    a = M.evaluate(y, s, np.array([0, 4]), "letor4", 4)
    b = M.evaluate(y, s, np.array([0, 4]), "letor4", 4, ties="expected")
    for field in ("precision", "ndcg", "map", "mean_ndcg"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("convention", CONVENTION_NAMES)
def test_expected_ties_match_enumeration_of_all_orders(convention):
    """Tie-aware P@k, NDCG@k, AP and MeanNDCG equal the mean over every order of the tied
    documents (brute force over all permutations of small random queries)."""
    import itertools

    rng = np.random.default_rng(11)
    top = 5 if convention in ("mslr", "lei2017") else 3
    for _ in range(25):
        sizes = rng.integers(1, 7, size=rng.integers(1, 4))
        ptr = np.concatenate(([0], np.cumsum(sizes)))
        y = rng.integers(0, top, ptr[-1])
        s = rng.integers(0, 3, ptr[-1]).astype(np.float64)
        got = M.evaluate(y, s, ptr, convention, max_k=8, ties="expected")
        for qi in range(sizes.size):
            a, b = ptr[qi], ptr[qi + 1]
            values = []
            for perm in itertools.permutations(range(b - a)):
                qm = M.evaluate(y[a:b][list(perm)], s[a:b][list(perm)], np.array([0, b - a]), convention, 8)
                values.append(np.concatenate([qm.precision[0], qm.ndcg[0], qm.map, qm.mean_ndcg]))
            mine = np.concatenate([got.precision[qi], got.ndcg[qi], [got.map[qi]], [got.mean_ndcg[qi]]])
            np.testing.assert_allclose(mine, np.mean(values, axis=0), rtol=0, atol=1e-12)
        for name in ("ndcg@3", "p@2", "map", "meanndcg"):
            one = M.metric_per_query(y, s, ptr, name, convention, ties="expected")
            kind, k = M.parse_metric(name)
            col = {"ndcg": got.ndcg[:, (k or 1) - 1], "p": got.precision[:, (k or 1) - 1],
                   "map": got.map, "meanndcg": got.mean_ndcg}[kind]
            np.testing.assert_allclose(one, col, atol=1e-12)


def test_unknown_ties_policy_is_refused():
    with pytest.raises(ValueError, match="ties must be one of file_order, expected"):
        M.evaluate(np.array([1, 0]), np.zeros(2), np.array([0, 2]), ties="random")


def test_segmented_sort_is_stable_on_large_tie_blocks():
    rng = np.random.default_rng(2)
    sizes = np.array([1, 2, 700, 64, 3000, 5])
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    scores = rng.integers(0, 4, ptr[-1]).astype(np.float64)
    scores[ptr[2]:ptr[3]] = 0.0  # one query entirely tied
    qidx = np.repeat(np.arange(sizes.size), sizes)
    np.testing.assert_array_equal(M._segmented_argsort_desc(scores, ptr), np.lexsort((-scores, qidx)))
    labels = rng.integers(0, 5, ptr[-1])
    expected = labels[np.lexsort((-labels, qidx))]
    np.testing.assert_array_equal(M.segmented_sort_desc(labels, ptr), expected)


# ---------------------------------------------------------------- naive oracle on random data

def naive_query(labels, scores, conv, max_k):
    """Straightforward per-query implementation of SPEC.md section 1."""
    n = len(labels)
    order = sorted(range(n), key=lambda i: -scores[i])  # Python's sort is stable
    ranked = [int(labels[i]) for i in order]
    ideal = sorted(ranked, reverse=True)

    def disc(i):  # 1-based rank
        if conv.discount == "letor":
            return 1.0 if i <= 2 else 1.0 / math.log2(i)
        return 1.0 / math.log2(i + 1)

    def gain(label):
        return 2.0 ** label - 1.0 if conv.gain == "exp2" else float(label)

    def dcg(ls, k):
        return sum(gain(lab) * disc(i) for i, lab in enumerate(ls[:k], start=1))

    def ndcg(k):
        if k > n and conv.short_ndcg == "zero":
            return 0.0
        best = dcg(ideal, k)
        return dcg(ranked, k) / best if best > 0 else float(conv.ideal_zero)

    rel = [lab >= conv.relevant_min for lab in ranked]

    def prec(k):
        if k > n and conv.short_precision == "zero":
            return 0.0
        return sum(rel[:k]) / (min(k, n) if conv.short_precision == "fetched" else k)

    hits, ap = 0, 0.0
    for i, r in enumerate(rel, start=1):
        if r:
            hits += 1
            ap += hits / i
    ap = ap / hits if hits else 0.0
    return ([prec(k) for k in range(1, max_k + 1)], [ndcg(k) for k in range(1, max_k + 1)], ap,
            sum(ndcg(k) for k in range(1, n + 1)) / n, ndcg, prec)


def random_ranking(rng, n_queries=120, max_size=25, label_max=4):
    sizes = rng.integers(1, max_size + 1, n_queries)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    y = rng.integers(0, label_max + 1, ptr[-1]).astype(np.int32)
    for i in rng.choice(n_queries, n_queries // 8, replace=False):  # queries without relevant docs
        y[ptr[i]:ptr[i + 1]] = 0
    scores = np.where(rng.random(ptr[-1]) < 0.5, rng.integers(0, 3, ptr[-1]), rng.normal(size=ptr[-1]))
    return y, scores, ptr


@pytest.mark.parametrize("name,overrides", [(n, {}) for n in CONVENTION_NAMES]
                         + [("standard", {"ideal_zero": 1.0}), ("letor4", {"gain": "linear"})])
def test_vectorised_matches_naive_oracle(name, overrides):
    rng = np.random.default_rng(len(name) + 7 * len(overrides))
    conv = M.get_convention(name, **overrides)
    y, scores, ptr = random_ranking(rng)
    max_k = 12
    qm = M.evaluate(y, scores, ptr, conv, max_k=max_k)
    assert qm.precision.shape == qm.ndcg.shape == (len(ptr) - 1, max_k)
    assert qm.precision.dtype == qm.ndcg.dtype == qm.map.dtype == qm.mean_ndcg.dtype == np.float64
    ks = (1, 3, 10, 25, 40)
    single = {f"{kind}@{k}": M.metric_per_query(y, scores, ptr, f"{kind}@{k}", conv)
              for kind in ("ndcg", "p") for k in ks}
    map_q = M.metric_per_query(y, scores, ptr, "map", conv)
    mean_q = M.metric_per_query(y, scores, ptr, "MeanNDCG", conv)
    for q in range(len(ptr) - 1):
        rows = slice(ptr[q], ptr[q + 1])
        p, n, ap, mean, ndcg_fn, prec_fn = naive_query(y[rows], list(scores[rows]), conv, max_k)
        for k in ks:
            assert single[f"p@{k}"][q] == pytest.approx(prec_fn(k), rel=1e-12, abs=1e-15)
        np.testing.assert_allclose(qm.precision[q], p, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(qm.ndcg[q], n, rtol=1e-12, atol=1e-15)
        assert qm.map[q] == pytest.approx(ap, rel=1e-12, abs=1e-15)
        assert qm.mean_ndcg[q] == pytest.approx(mean, rel=1e-12, abs=1e-15)
        assert map_q[q] == qm.map[q] and mean_q[q] == qm.mean_ndcg[q]
        for k in ks:
            assert single[f"ndcg@{k}"][q] == pytest.approx(ndcg_fn(k), rel=1e-12, abs=1e-15)
    assert qm.n_docs.tolist() == np.diff(ptr).tolist()


def test_standard_ndcg_matches_scikit_learn():
    # scikit-learn's ndcg_score: gain = y_true, discount 1/log2(i + 1); pass y_true = 2^r - 1
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(3)
    y, _, ptr = random_ranking(rng, n_queries=40)
    scores = rng.normal(size=y.size)  # no ties: scikit-learn averages over tied documents
    for k in (1, 5, 10, 30):
        ours = M.metric_per_query(y, scores, ptr, f"ndcg@{k}", "standard")
        for q in range(len(ptr) - 1):
            rows = slice(ptr[q], ptr[q + 1])
            if y[rows].max() == 0 or ptr[q + 1] - ptr[q] < 2:
                continue
            ref = ndcg_score([2.0 ** y[rows] - 1], [scores[rows]], k=k)
            assert ours[q] == pytest.approx(ref, rel=1e-12)


def test_evaluate_matches_metric_per_query_and_mean_metrics():
    rng = np.random.default_rng(11)
    y, scores, ptr = random_ranking(rng, label_max=2)
    qm = M.evaluate(y, scores, ptr, "letor4")
    means = M.mean_metrics(qm)
    assert list(means) == [f"P@{k}" for k in range(1, 11)] + ["MAP"] + \
        [f"NDCG@{k}" for k in range(1, 11)] + ["MeanNDCG"]
    for k in range(1, 11):
        np.testing.assert_array_equal(qm.ndcg[:, k - 1], M.metric_per_query(y, scores, ptr, f"ndcg@{k}"))
        np.testing.assert_allclose(qm.precision[:, k - 1], M.metric_per_query(y, scores, ptr, f"P@{k}"),
                                   rtol=1e-15)
        assert means[f"NDCG@{k}"] == pytest.approx(qm.ndcg[:, k - 1].mean(), rel=1e-15)
    assert means["MAP"] == pytest.approx(qm.map.mean()) and means["MeanNDCG"] == pytest.approx(qm.mean_ndcg.mean())
    # float32 scores rank exactly as their float64 values
    qm32 = M.evaluate(y, scores.astype(np.float32), ptr, "letor4")
    qm64 = M.evaluate(y, scores.astype(np.float32).astype(np.float64), ptr, "letor4")
    np.testing.assert_array_equal(qm32.ndcg, qm64.ndcg)


# ---------------------------------------------------------------- conventions and errors

def test_get_convention():
    assert M.get_convention("LETOR4") is M.CONVENTIONS["letor4"]
    c = M.get_convention("standard", ideal_zero=1)
    assert c.ideal_zero == 1 and c.discount == "log2" and M.CONVENTIONS["standard"].ideal_zero == 0
    assert M.get_convention(c) is c
    assert M.get_convention("mslr").relevant_min == 2
    assert M.get_convention("letor3").short_precision == "zero"
    with pytest.raises(ValueError, match="letor3, letor4, mslr, standard"):
        M.get_convention("trec")
    with pytest.raises(ValueError, match="unknown Convention field"):
        M.get_convention("letor4", idea_zero=1)
    with pytest.raises(ValueError, match="ideal_zero"):
        M.get_convention("standard", ideal_zero=0.5)
    with pytest.raises(ValueError, match="discount"):
        M.Convention("x", discount="log10")


def test_bad_inputs_give_one_line_errors():
    y, s, ptr = np.array([1, 0, 2]), np.array([0.1, 0.2, 0.3]), np.array([0, 1, 3])
    with pytest.raises(ValueError, match="NaN"):
        M.evaluate(y, np.array([0.1, np.nan, 0.3]), ptr)
    with pytest.raises(ValueError, match="query_ptr"):
        M.evaluate(y, s, np.array([0, 2]))
    with pytest.raises(ValueError, match="query_ptr"):
        M.evaluate(y, s, np.array([0, 1, 1, 3]))
    with pytest.raises(ValueError, match="same length"):
        M.evaluate(y, s[:2], ptr)
    with pytest.raises(ValueError, match=">= 0"):
        M.evaluate(np.array([1, -1, 2]), s, ptr)
    with pytest.raises(ValueError, match="integers"):
        M.evaluate(np.array([1, 0.5, 2]), s, ptr)
    with pytest.raises(ValueError, match="max_k"):
        M.evaluate(y, s, ptr, max_k=0)
    with pytest.raises(ValueError, match=r"ndcg@K, p@K"):
        M.metric_per_query(y, s, ptr, "err@10")
    with pytest.raises(ValueError, match="valid forms"):
        M.metric_per_query(y, s, ptr, "ndcg@0")
    assert M.parse_metric(" NDCG@10 ") == ("ndcg", 10)
    assert M.parse_metric("Precision@3") == ("p", 3)
    assert M.parse_metric("MeanNDCG") == ("meanndcg", None)


# ---------------------------------------------------------------- t-test

def test_paired_ttest_matches_scipy():
    rng = np.random.default_rng(5)
    a = rng.random(50)
    b = a + rng.normal(0.02, 0.1, 50)
    t, p = S.paired_ttest(a, b)
    ref = stats.ttest_rel(a, b)
    assert t == pytest.approx(ref.statistic, rel=1e-12) and p == pytest.approx(ref.pvalue, rel=1e-12)
    d = a - b  # by hand: t = mean(d) / (sd(d) / sqrt(n))
    assert t == pytest.approx(d.mean() / (d.std(ddof=1) / math.sqrt(d.size)), rel=1e-10)
    assert S.paired_ttest(a, a) == (0.0, 1.0)
    c = np.arange(10) * 0.25  # exact binary fractions: the difference is exactly constant
    assert S.paired_ttest(c + 0.5, c) == (math.inf, 0.0)
    assert S.paired_ttest(c, c + 0.5) == (-math.inf, 0.0)
    with pytest.raises(ValueError, match="equal length"):
        S.paired_ttest(a, b[:-1])
    with pytest.raises(ValueError, match="at least 2"):
        S.paired_ttest(a[:1], b[:1])
    with pytest.raises(ValueError, match="finite"):
        S.paired_ttest(np.r_[a[:-1], np.nan], b)


# ---------------------------------------------------------------- Eval-Score layout

def test_format_eval_score_layout():
    # qid 20: ranked labels [0, 1]; qid 3: one document, label 2 (rows are printed by numeric qid)
    y = np.array([0, 1, 2])
    qm = M.evaluate(y, np.array([0.9, 0.1, 0.5]), np.array([0, 2, 3]), "letor4", max_k=3)
    text = M.format_eval_score(np.array([20, 3]), qm, per_query=True)
    expected = (
        "qid\tP@1\tP@2\tP@3\tMAP\n"
        "3\t1.0000\t0.5000\t0.3333\t1.0000\n"
        "20\t0.0000\t0.5000\t0.3333\t0.5000\n"
        "Average\t0.5000\t0.5000\t0.3333\t0.7500\n"
        "\n"
        "qid\tNDCG@1\tNDCG@2\tNDCG@3\tMeanNDCG\n"
        "3\t1.0000\t0.0000\t0.0000\t1.0000\n"
        "20\t0.0000\t1.0000\t0.0000\t0.5000\n"
        "Average\t0.5000\t0.5000\t0.0000\t0.7500\n"
        "\n"
    )
    assert text == expected
    short = M.format_eval_score([20, 3], qm)
    assert short.split("\n") == ["qid\tP@1\tP@2\tP@3\tMAP", "Average\t0.5000\t0.5000\t0.3333\t0.7500", "",
                                 "qid\tNDCG@1\tNDCG@2\tNDCG@3\tMeanNDCG",
                                 "Average\t0.5000\t0.5000\t0.0000\t0.7500", "", ""]
    full = M.format_eval_score([20, 3], M.evaluate(y, np.array([0.9, 0.1, 0.5]), np.array([0, 2, 3])))
    lines = full.split("\n")
    assert lines[0] == "qid\t" + "\t".join(f"P@{k}" for k in range(1, 11)) + "\tMAP"
    assert lines[3] == "qid\t" + "\t".join(f"NDCG@{k}" for k in range(1, 11)) + "\tMeanNDCG"
    assert all(len(line.split("\t")) == 12 for line in lines if line)
    with pytest.raises(ValueError, match="one entry per query"):
        M.format_eval_score([1, 2, 3], qm)


# ---------------------------------------------------------------- real data (MQ2008)

MQ2008 = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"


def _read_letor(text):
    labels, qids, feats = [], [], []
    for line in text.splitlines():
        head = line.split("#", 1)[0].split()
        labels.append(int(head[0]))
        qids.append(int(head[1][4:]))
        feats.append([float(tok.split(":", 1)[1]) for tok in head[2:]])
    qids = np.array(qids)
    starts = np.flatnonzero(np.r_[True, qids[1:] != qids[:-1]])
    return np.array(feats, dtype=np.float32), np.array(labels), np.r_[starts, qids.size], qids[starts]


@pytest.fixture(scope="module")
def mq2008_fold1_test():
    if not MQ2008.exists():
        pytest.skip(f"real-data check skipped: {MQ2008} not found")
    with zipfile.ZipFile(MQ2008) as zf:
        return _read_letor(zf.read("MQ2008/Fold1/test.txt").decode())


# Average rows written by the LETOR 4.0 Eval-Score-4.0.pl script (run locally, perl 5.36) for
# MQ2008 Fold1 test.txt ranked by one feature; features 1 and 46 have many tied values.
EVAL_SCORE_40_AVERAGES = {
    1: ("Average\t0.2179\t0.2372\t0.2521\t0.2564\t0.2577\t0.2511\t0.2399\t0.2300\t0.2130\t0.2051\t0.3355",
        "Average\t0.1838\t0.2238\t0.2561\t0.2846\t0.3175\t0.3452\t0.3557\t0.3064\t0.1316\t0.1415\t0.3301"),
    39: ("Average\t0.3526\t0.3590\t0.3568\t0.3397\t0.3192\t0.3002\t0.2802\t0.2644\t0.2457\t0.2333\t0.4311",
         "Average\t0.2970\t0.3654\t0.3902\t0.4090\t0.4269\t0.4458\t0.4587\t0.4074\t0.1878\t0.1920\t0.4454"),
    46: ("Average\t0.1538\t0.1859\t0.2158\t0.2244\t0.2295\t0.2190\t0.2143\t0.2067\t0.1966\t0.1827\t0.3033",
         "Average\t0.1239\t0.1736\t0.2105\t0.2423\t0.2722\t0.2911\t0.3114\t0.2639\t0.0953\t0.0992\t0.2839"),
}


@pytest.mark.parametrize("feature", sorted(EVAL_SCORE_40_AVERAGES))
def test_mq2008_matches_eval_score_40(mq2008_fold1_test, feature):
    X, y, ptr, qids = mq2008_fold1_test
    qm = M.evaluate(y, X[:, feature - 1], ptr, "letor4")
    rows = [line for line in M.format_eval_score(qids, qm, per_query=True).split("\n")
            if line.startswith("Average")]
    assert tuple(rows) == EVAL_SCORE_40_AVERAGES[feature]
    assert qm.n_queries == 156 and int(qm.n_docs.sum()) == 2874

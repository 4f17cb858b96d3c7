"""Per-feature scores: Kendall similarities (concordance and tau-b), Pearson, pairwise loss,
IG and chi-square, each against a naive oracle (scipy, numpy, explicit pair loops) and
hand-computed cases."""
import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import chi2_contingency, kendalltau

from ltrfs.ranking_data import DataError, RankingData
from ltrfs.scoring import discrete, kendall, pairwise, pearson
from ltrfs.scoring.discrete import chi_square, discretize, information_gain
from ltrfs.scoring.kendall import kendall_similarities, kendall_similarity
from ltrfs.scoring.pairwise import pairwise_importance, pairwise_loss
from ltrfs.scoring.pearson import EPS, pearson_scores


def random_queries(seed=0, n_queries=40, d=6, max_docs=25):
    """Queries of 1..max_docs documents; integer-valued features (many ties), one continuous
    feature, one constant everywhere, one constant on some queries."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    sizes[:3] = [1, 2, 1]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    X = rng.integers(0, 4, (m, d)).astype(np.float32)
    X[:, 1] = rng.random(m)
    X[:, 2] = 3.0
    for q in range(0, n_queries, 3):
        X[ptr[q]:ptr[q + 1], 4] = 1.0
    y = rng.integers(0, 3, m).astype(np.int32)
    return X, y, ptr


# ----------------------------------------------------------------------------- Kendall

def kendall_oracle(X, ptr):
    d = X.shape[1]
    total = np.zeros((d, d))
    count = np.zeros((d, d))
    for a, b in zip(ptr[:-1], ptr[1:]):
        if b - a < 2:
            continue
        for i, j in combinations(range(d), 2):
            xi, xj = X[a:b, i], X[a:b, j]
            if np.ptp(xi) == 0 or np.ptp(xj) == 0:
                continue
            tau = kendalltau(xi, xj).statistic  # tau-b (scipy's default variant)
            total[i, j] += tau
            count[i, j] += 1
    mean = np.divide(total, count, out=np.zeros((d, d)), where=count > 0)
    mean = mean + mean.T
    np.fill_diagonal(mean, 1.0)
    return mean


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kendall_matches_scipy_tau_b(seed):
    X, _, ptr = random_queries(seed)
    got = kendall_similarity(X, ptr, similarity="tau_b")
    assert np.allclose(got, kendall_oracle(X, ptr), atol=1e-12, rtol=0)
    assert np.array_equal(got, got.T)
    assert np.all(np.diag(got) == 1.0)
    # the feature constant everywhere: no query contributes -> 0 off the diagonal
    assert np.all(got[2, [0, 1, 3, 4, 5]] == 0.0)


def test_kendall_hand_cases():
    # query 1: x = 1 2 3, z = 1 3 2 -> C = 2, D = 1, tau = 1/3
    # query 2: x = 1 1 2 (one tie), z = 1 2 3 -> C = 2, D = 0, tau_b = 2 / sqrt(2 * 3)
    # concordance: query 1 C / n0 = 2/3, query 2 2/3 -> 2/3
    X = np.array([[1, 1], [2, 3], [3, 2], [1, 1], [1, 2], [2, 3]], np.float32)
    ptr = np.array([0, 3, 6])
    sim = kendall_similarity(X, ptr, similarity="tau_b")
    assert sim[0, 1] == pytest.approx((1 / 3 + 2 / math.sqrt(6)) / 2, abs=1e-15)
    assert kendall_similarity(X, ptr)[0, 1] == pytest.approx(2 / 3, abs=1e-15)
    # reversing one feature flips the sign of tau-b; the concordance becomes D / n0 = (1/3 + 0) / 2
    X[:, 1] = -X[:, 1]
    assert kendall_similarity(X, ptr, similarity="tau_b")[0, 1] == pytest.approx(-(1 / 3 + 2 / math.sqrt(6)) / 2, abs=1e-15)
    assert kendall_similarity(X, ptr)[0, 1] == pytest.approx(1 / 6, abs=1e-15)


def test_kendall_no_contributing_query_gives_zero():
    X = np.array([[1, 2], [3, 4], [5, 5]], np.float32)
    ptr = np.array([0, 1, 2, 3])  # three one-document queries
    for sim in kendall_similarities(X, ptr).values():
        assert sim.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_kendall_threads_do_not_change_the_result():
    X, _, ptr = random_queries(5, n_queries=120)
    one, two = kendall_similarities(X, ptr, n_threads=1), kendall_similarities(X, ptr, n_threads=2)
    assert set(one) == {"concordance", "tau_b", "discordance"}
    assert all(np.array_equal(one[key], two[key]) for key in one)


def test_kendall_chunks_merge_to_the_full_matrix():
    X, _, ptr = random_queries(6)
    data = RankingData(X, np.zeros(len(X), np.int32), ptr, np.arange(len(ptr) - 1, dtype=np.int64))
    parts = [kendall.scorer_chunk(data, None, "letor4", c, 4) for c in range(4)]
    assert sum(int(p["pairs"].sum()) for p in parts) == 6 * 5 // 2
    merged = kendall.merge_chunks(parts)
    assert set(merged) == {"similarity", "concordance", "discordance"}
    full = kendall.scorer(data, None, "letor4")
    assert all(np.array_equal(merged[key], full[key]) for key in full)
    assert np.array_equal(merged["similarity"], kendall_similarity(X, ptr, similarity="tau_b"))
    assert np.array_equal(merged["concordance"], kendall_similarity(X, ptr))
    with pytest.raises(ValueError, match=r"merge_chunks: feature pair \(\d+, \d+\) is covered 0 times"):
        kendall.merge_chunks(parts[:3])
    with pytest.raises(ValueError, match="chunk must be an integer in 0..3"):
        kendall.chunk_pairs(6, 4, 4)


def test_kendall_float64_and_integer_input():
    X, _, ptr = random_queries(3)
    for similarity in ("concordance", "tau_b"):
        a = kendall_similarity(X, ptr, similarity=similarity)
        assert np.array_equal(a, kendall_similarity(X.astype(np.float64), ptr, similarity=similarity))
        ints = X[:, [0, 2, 3, 4]]
        assert np.array_equal(kendall_similarity(ints, ptr, similarity=similarity),
                              kendall_similarity(ints.astype(np.int64), ptr, similarity=similarity))


def test_kendall_errors():
    X, _, ptr = random_queries(0)
    X[5, 3] = np.nan
    with pytest.raises(DataError, match="feature 4 holds NaN"):
        kendall_similarity(X, ptr)
    with pytest.raises(ValueError, match="n_threads must be an integer >= 1"):
        kendall_similarity(X[:, :2], ptr, n_threads=0)
    with pytest.raises(ValueError, match="query_ptr must rise from 0"):
        kendall_similarity(X[:, :2], ptr[:-1])
    with pytest.raises(ValueError, match="unknown similarity 'tau'; valid: concordance, tau_b"):
        kendall_similarity(X[:, :2], ptr, similarity="tau")


def concordance_oracle(X, ptr):
    """(concordance, discordance): per query, the pairs s < t that features i and j order strictly
    the same (opposite) way over n (n - 1) / 2, by an explicit O(n^2) loop; mean over the
    queries of >= 2 documents; diagonal 1."""
    d = X.shape[1]
    conc = np.zeros((d, d))
    disc = np.zeros((d, d))
    queries = 0
    for a, b in zip(ptr[:-1], ptr[1:]):
        n = b - a
        if n < 2:
            continue
        queries += 1
        for i in range(d):
            for j in range(d):
                same = opposite = 0
                for s in range(a, b):
                    for t in range(s + 1, b):
                        product = np.sign(X[s, i] - X[t, i]) * np.sign(X[s, j] - X[t, j])
                        same += product > 0
                        opposite += product < 0
                conc[i, j] += same / (n * (n - 1) / 2)
                disc[i, j] += opposite / (n * (n - 1) / 2)
    if queries:
        conc /= queries
        disc /= queries
    np.fill_diagonal(conc, 1.0)
    np.fill_diagonal(disc, 1.0)
    return conc, disc


def tied_queries(seed, n_queries=30, d=6, max_docs=12):
    """Values from {0, 0.5, 1} (many ties); feature 2 constant everywhere, feature 4 constant on
    every third query, feature 5 constant within every query (its value varies across queries);
    queries of 1..max_docs documents, with several one-document queries."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, n_queries)
    sizes[:4] = [1, 2, 1, 3]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    X = rng.choice(np.array([0.0, 0.5, 1.0], np.float32), (int(ptr[-1]), d))
    X[:, 2] = 0.5
    for q in range(0, n_queries, 3):
        X[ptr[q]:ptr[q + 1], 4] = 1.0
    X[:, 5] = np.repeat(rng.choice(np.array([0.0, 0.5, 1.0], np.float32), n_queries), sizes)
    return X, ptr


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_concordance_matches_the_pair_loop_with_many_ties(seed):
    X, ptr = tied_queries(seed)
    sims = kendall_similarities(X, ptr)
    conc, disc = concordance_oracle(X, ptr)
    assert np.allclose(sims["concordance"], conc, atol=1e-13, rtol=0)
    assert np.allclose(sims["discordance"], disc, atol=1e-13, rtol=0)
    assert np.array_equal(sims["concordance"], sims["concordance"].T)
    assert np.all(np.diag(sims["concordance"]) == 1.0)  # by definition, also for the constant features
    # constant on every query (2: everywhere, 5: within each query): 0 to every other feature
    for f in (2, 5):
        assert np.all(np.delete(sims["concordance"][f], f) == 0.0)
    # discordance = the concordance with one feature negated
    Y = X.copy()
    Y[:, 3] = -Y[:, 3]
    assert np.allclose(kendall_similarity(Y, ptr)[3], np.where(np.arange(6) == 3, 1.0, sims["discordance"][3]),
                       atol=1e-15)


def test_concordance_hand_case_and_tau_b_with_ties():
    """One query of 4 documents a, b, c, d (pairs ab ac ad bc bd cd), one of 2 documents, one of 1.

    query 1: f0 = (1, 1, 0, 0)    order of the pairs: tie + + + + tie    (T0 = 2)
             f1 = (1, .5, .5, 0)                        +  + + tie + +   (T1 = 1)
             f2 = (0, 1, 1, 0)                          -  - tie tie + + (T2 = 2)
      (0, 1): concordant ac ad bd -> C = 3, D = 0: concordance 3/6; tau_b 3 / sqrt(4 * 5)
      (0, 2): ac discordant, bd concordant -> C = 1, D = 1: concordance 1/6; tau_b 0
      (1, 2): ab ac discordant, bd cd concordant -> C = 2, D = 2: concordance 2/6; tau_b 0
    query 2: f0 = (0, 1), f1 = (0, 1), f2 = (5, 5) constant:
      (0, 1): concordance 1, tau_b 1; (0, 2), (1, 2): concordance 0, no tau_b (f2 constant)
    query 3: one document, counts for neither.
    Means: concordance (0, 1) = (1/2 + 1) / 2 = 3/4, (0, 2) = (1/6 + 0) / 2 = 1/12,
    (1, 2) = (1/3 + 0) / 2 = 1/6; tau_b (0, 1) = (3 / sqrt(20) + 1) / 2, (0, 2) = (1, 2) = 0.
    """
    X = np.array([[1, 1, 0], [1, .5, 1], [0, .5, 1], [0, 0, 0],
                  [0, 0, 5], [1, 1, 5],
                  [7, 7, 7]], np.float32)
    ptr = np.array([0, 4, 6, 7])
    conc = kendall_similarity(X, ptr)
    tau = kendall_similarity(X, ptr, similarity="tau_b")
    assert conc[0, 1] == pytest.approx(3 / 4, abs=1e-15) and conc[1, 0] == conc[0, 1]
    assert conc[0, 2] == pytest.approx(1 / 12, abs=1e-15)
    assert conc[1, 2] == pytest.approx(1 / 6, abs=1e-15)
    assert tau[0, 1] == pytest.approx((3 / math.sqrt(20) + 1) / 2, abs=1e-15)
    assert tau[0, 2] == 0.0 and tau[1, 2] == 0.0
    assert np.diag(conc).tolist() == [1.0] * 3 and np.diag(tau).tolist() == [1.0] * 3
    # tie-free data: concordance = (1 + tau) / 2 query by query
    rng = np.random.default_rng(0)
    Z = rng.random((40, 4))
    zptr = np.array([0, 7, 20, 21, 40])
    sims = kendall_similarities(Z, zptr)
    off = ~np.eye(4, dtype=bool)
    assert np.allclose(sims["concordance"][off], ((1 + sims["tau_b"]) / 2)[off], atol=1e-15)


def test_kendall_on_mq2008_pairs_match_scipy(mq2008_dir):
    from ltrfs.io import read_letor

    data = read_letor(mq2008_dir / "Fold1" / "vali.txt")
    cols = [0, 4, 11, 20, 38, 42]  # a mix of tied, continuous and partly constant features
    X = data.X[:, cols]
    sims = kendall_similarities(X, data.query_ptr)
    assert np.allclose(sims["tau_b"], kendall_oracle(X, data.query_ptr), atol=1e-12)
    conc, disc = concordance_oracle(X, data.query_ptr)
    assert np.allclose(sims["concordance"], conc, atol=1e-12) and np.allclose(sims["discordance"], disc, atol=1e-12)


# ----------------------------------------------------------------------------- Pearson

def test_pearson_matches_corrcoef():
    X, y, _ = random_queries(1, n_queries=60)
    X = np.delete(X, 2, axis=1)  # drop the constant feature for the oracle
    imp, sim = pearson_scores(X, y, chunk_rows=37)
    full = np.corrcoef(np.column_stack([X.astype(np.float64), y]), rowvar=False)
    assert np.allclose(imp, np.abs(full[:-1, -1]), atol=1e-12)
    assert np.allclose(sim, np.abs(full[:-1, :-1]), atol=1e-12)
    imp2, sim2 = pearson_scores(X, y)  # chunking does not change the result beyond rounding
    assert np.allclose(imp, imp2, atol=1e-14) and np.allclose(sim, sim2, atol=1e-14)


def test_pearson_constant_feature_and_constant_labels():
    X = np.array([[1, 5, 0], [2, 5, 1], [3, 5, 0], [4, 5, 1]], np.float32)
    y = np.array([0, 0, 1, 1])
    imp, sim = pearson_scores(X, y)
    # corr(x0, y): x0 - 2.5 = (-1.5, -.5, .5, 1.5), y - .5 = (-.5, -.5, .5, .5) -> 2 / sqrt(5 * 1)
    assert imp[0] == pytest.approx(2 / math.sqrt(5), abs=1e-15)
    assert imp[1] == EPS
    assert imp[2] == EPS  # exactly uncorrelated -> floored at EPS
    assert sim[1].tolist() == [0.0, 1.0, 0.0] and sim[:, 1].tolist() == [0.0, 1.0, 0.0]
    # corr(x0, x2): x2 - .5 = (-.5, .5, -.5, .5) -> (.75 - .25 - .25 + .75) / sqrt(5 * 1) = 1 / sqrt(5)
    assert sim[0, 2] == pytest.approx(1 / math.sqrt(5), abs=1e-15)
    imp_const_y, _ = pearson_scores(X, np.zeros(4))
    assert np.all(imp_const_y == EPS)


# ----------------------------------------------------------------------------- pairwise loss

def pairwise_oracle(X, y, ptr):
    d = X.shape[1]
    bad = np.zeros(d)
    pairs = 0
    for a, b in zip(ptr[:-1], ptr[1:]):
        for s in range(a, b):
            for t in range(a, b):
                if y[s] > y[t]:
                    pairs += 1
                    bad += np.where(X[s] < X[t], 1.0, np.where(X[s] == X[t], 0.5, 0.0))
    return bad / pairs


@pytest.mark.parametrize("seed", [0, 4])
def test_pairwise_loss_matches_pair_loop(seed):
    X, y, ptr = random_queries(seed)
    got = pairwise_loss(X, y, ptr)
    assert np.allclose(got, pairwise_oracle(X, y, ptr), atol=1e-15, rtol=0)
    assert got[2] == 0.5  # constant feature: every labelled pair is tied
    assert np.array_equal(got, pairwise_loss(X, y, ptr, n_threads=2))


def test_pairwise_loss_hand_case_and_labels_with_gaps():
    # labels 2 0 1, feature .5 .5 .9: (doc0 > doc1) tied -> 1/2; (doc0 > doc2) mis-ordered -> 1;
    # (doc2 > doc1) right -> 0. Loss 1.5 / 3. A second query with one label adds no pair.
    X = np.array([[0.5], [0.5], [0.9], [1.0], [2.0]], np.float32)
    y = np.array([20, 0, 7, 3, 3])  # only the order of the labels matters
    ptr = np.array([0, 3, 5])
    assert pairwise_loss(X, y, ptr).tolist() == [0.5]
    assert pairwise_loss(-X, y, ptr).tolist() == [0.5]
    X2 = np.array([[3.0], [1.0], [2.0]], np.float32)
    assert pairwise_loss(X2, np.array([2, 0, 1]), np.array([0, 3])).tolist() == [0.0]
    assert pairwise_loss(-X2, np.array([2, 0, 1]), np.array([0, 3])).tolist() == [1.0]


def test_pairwise_importance_inverse_and_one_minus_by_hand():
    # one query, labels 2 1 0 0: labelled pairs ab ac ad bc bd (c, d share a label)
    # f0 = 3 2 1 1: all right -> loss 0
    # f1 = 1 1 0 1: ab tie 1/2, ac right, ad tie 1/2, bc right, bd tie 1/2 -> 1.5 / 5 = .3
    # f2 constant: every pair tied -> .5
    # f3 = 0 1 2 0: ab wrong, ac wrong, ad tie 1/2, bc wrong, bd right -> 3.5 / 5 = .7
    X = np.array([[3, 1, 4, 0], [2, 1, 4, 1], [1, 0, 4, 2], [1, 1, 4, 0]], np.float32)
    y = np.array([2, 1, 0, 0])
    loss = pairwise_loss(X, y, np.array([0, 4]))
    assert loss == pytest.approx([0.0, 0.3, 0.5, 0.7], abs=1e-15)
    # 1 / loss = (inf, 10/3, 2, 10/7): loss 0 gets the largest finite value of the set, 10/3
    assert pairwise_importance(loss) == pytest.approx([10 / 3, 10 / 3, 2.0, 10 / 7], abs=1e-14)
    assert pairwise_importance(loss, "one_minus") == pytest.approx([1.0, 0.7, 0.5, 0.3], abs=1e-15)
    # the set may include further losses (GAS's ascending direction): a loss .05 -> 1 / .05 = 20
    assert pairwise_importance(loss, among=[0.05])[0] == pytest.approx(20.0, abs=1e-12)
    assert pairwise_importance(np.zeros(3)).tolist() == [1.0, 1.0, 1.0]  # no finite value at all
    with pytest.raises(ValueError, match="unknown pairwise importance 'inv'; valid: inverse, one_minus"):
        pairwise_importance(loss, "inv")


def test_pairwise_loss_without_pairs_is_an_error():
    X = np.ones((4, 2), np.float32)
    with pytest.raises(DataError, match="no query has two documents with different labels"):
        pairwise_loss(X, np.array([1, 1, 0, 0]), np.array([0, 2, 4]))


# ----------------------------------------------------------------------------- IG and CHI

def test_ig_and_chi_hand_computed_two_bins():
    # 10 rows, 2 bins: cut = sorted value at position ceil(10/2) - 1 = 4 -> 5; bin 0 = {1..5}
    # table: bin 0 labels (0,0,0,0,1) -> [4, 1]; bin 1 labels (0,1,1,1,1) -> [1, 4]
    # H(Y) = 1 bit; H(Y|B) = H(.2) = 0.7219280948873623; IG = 0.2780719051126377
    # CHI: every expected count is 2.5 -> 4 * 1.5^2 / 2.5 = 3.6
    x = np.arange(1, 11, dtype=np.float32)[:, None]
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 1, 1])
    assert discretize(x[:, 0], 2).tolist() == [0] * 5 + [1] * 5
    assert information_gain(x, y, bins=2)[0] == pytest.approx(0.2780719051126377, abs=1e-15)
    assert chi_square(x, y, bins=2)[0] == pytest.approx(3.6, abs=1e-12)


def test_ig_and_chi_hand_computed_ties_collapse_bins():
    # 8 zeros then 1, 2; 4 bins: positions ceil(k * 10 / 4) - 1 = 2, 4, 7 -> cuts all 0 -> {0}:
    # bin 0 = the zeros (a value equal to a cut goes to the lower bin), bin 1 = {1, 2}.
    # table [[6, 2, 0], [0, 1, 1]]; H(Y) = H(.6, .3, .1) = 1.295461844238322;
    # H(Y|B) = .8 H(.75, .25) + .2 H(.5, .5) = .8 * 0.8112781244591328 + .2 = 0.8490224995673063
    # IG = 0.4464393446710157; expected [[4.8, 2.4, .8], [1.2, .6, .2]]:
    # CHI = .3 + .0666.. + .8 + 1.2 + .2666.. + 3.2 = 5.8333..
    x = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 2], np.float32)[:, None]
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 2])
    assert discretize(x[:, 0], 4).tolist() == [0] * 8 + [1, 1]
    table = next(discrete.contingency_tables(x, y, 4))[1]
    assert table[:2].tolist() == [[6, 2, 0], [0, 1, 1]] and not table[2:].any()
    assert information_gain(x, y, bins=4)[0] == pytest.approx(0.4464393446710157, abs=1e-14)
    assert chi_square(x, y, bins=4)[0] == pytest.approx(35 / 6, abs=1e-12)
    assert chi2_contingency(table[:2], correction=False).statistic == pytest.approx(35 / 6, abs=1e-12)


def test_ig_chi_against_oracle_and_constant_feature():
    X, y, _ = random_queries(2, n_queries=60)
    ig, chi = discrete.discrete_scores(X, y, bins=5)
    for f in range(X.shape[1]):
        col = X[:, f].astype(np.float64)
        order = np.sort(col)
        cuts = np.unique([order[math.ceil(k * len(col) / 5) - 1] for k in range(1, 5)])
        b = np.array([int(np.sum(cuts < v)) for v in col])
        table = np.array([[np.sum((b == i) & (y == lab)) for lab in range(3)] for i in range(5)])
        table = table[table.sum(1) > 0]
        if len(table) > 1:
            assert chi[f] == pytest.approx(chi2_contingency(table, correction=False).statistic, rel=1e-12)
        p = table / table.sum()
        py, pb = p.sum(0), p.sum(1)
        want = sum(p[i, j] * math.log2(p[i, j] / (pb[i] * py[j])) for i in range(len(pb)) for j in range(3) if p[i, j] > 0)
        assert ig[f] == pytest.approx(want, abs=1e-12)  # IG = mutual information of bin and label
    assert ig[2] == 0.0 and chi[2] == 0.0


def test_discrete_bins_parameter_errors():
    with pytest.raises(ValueError, match="bins must be an integer >= 2"):
        information_gain(np.ones((3, 1)), np.array([0, 1, 0]), bins=1)


# ----------------------------------------------------------------------------- scorer adapters

def test_scorer_adapters_give_the_registered_arrays():
    X, y, ptr = random_queries(0)
    data = RankingData(X, y, ptr, np.arange(len(ptr) - 1, dtype=np.int64))
    d = X.shape[1]
    out = kendall.scorer(data, None, "letor4")
    assert set(out) == {"similarity", "concordance", "discordance"} and out["concordance"].shape == (d, d)
    assert np.array_equal(out["similarity"], kendall_similarity(X, ptr, similarity="tau_b"))
    out = pearson.scorer(data, None, "letor4")
    assert set(out) == {"importance", "similarity"} and out["importance"].shape == (d,)
    out = pairwise.scorer(data, None, "letor4", n_threads=2)
    assert set(out) == {"loss", "importance"} and np.allclose(out["importance"], 1 / out["loss"])
    out = discrete.scorer(data, None, "letor4")
    assert set(out) == {"ig", "chi", "bins"} and out["ig"].shape == (d,) and int(out["bins"]) == 10

"""GAS (greedy against explicit re-implementation and brute force), the IG / CHI / Pearson
filters, and every selector of this module against planted features on synthetic data."""
from itertools import combinations

import numpy as np
import pytest

from conftest import planted
from ltrfs import scoring
from ltrfs.datasets import synthetic
from ltrfs.scoring.kendall import kendall_similarity
from ltrfs.scoring.pairwise import pairwise_loss
from ltrfs.selection.filters import ChiSquare, InformationGain, PearsonTopK
from ltrfs.selection.gas import GAS, GASE, GASL, constant_on_every_query, gas_greedy, gas_objective


def greedy_oracle(w, e, c, t):
    """The paper's loop written out on plain lists."""
    w = [float(v) for v in w]
    remaining = list(range(len(w)))
    picked = []
    for _ in range(t):
        k = max(remaining, key=lambda j: (w[j], -j))  # largest weight, lowest index on ties
        picked.append(k)
        remaining.remove(k)
        for j in remaining:
            w[j] = w[j] - 2 * c * e[k][j]
    return picked


def random_instance(rng, d):
    w = rng.random(d)
    a = rng.uniform(-1, 1, (d, d))
    e = (a + a.T) / 2
    np.fill_diagonal(e, 1.0)
    return w, e


@pytest.mark.parametrize("c", [0.0, 0.01, 0.1, 0.5, 2.0])
def test_greedy_equals_the_explicit_loop(c):
    rng = np.random.default_rng(int(c * 100))
    for _ in range(20):
        d = int(rng.integers(2, 15))
        w, e = random_instance(rng, d)
        order, gains = gas_greedy(w, e, c)
        assert order.tolist() == greedy_oracle(w, e.tolist(), c, d)
        # prefix consistency: a shorter run is the prefix of the full order
        t = int(rng.integers(1, d + 1))
        assert gas_greedy(w, e, c, t)[0].tolist() == order[:t].tolist()
        # the gain of the i-th pick is w_k - 2c * sum of e with the earlier picks
        k = order[-1]
        assert gains[-1] == pytest.approx(w[k] - 2 * c * e[k, order[:-1]].sum(), abs=1e-12)


def test_greedy_tie_goes_to_lowest_index():
    assert gas_greedy([0.5, 0.7, 0.7, 0.1], np.eye(4), 0.3)[0].tolist() == [1, 2, 0, 3]


def test_t2_greedy_pair_is_the_brute_force_optimum_when_c_is_small():
    """Asserted: for t = 2, if 4c < w_(1) - w_(2) (gap between the two largest importances,
    |e| <= 1), every pair without the top feature scores below (top, best partner), so the
    optimum contains the top feature and the greedy's second pick is its best partner: the
    greedy pair maximises the objective. Checked on 200 random instances at c = gap / 4.5."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        d = int(rng.integers(3, 12))
        w, e = random_instance(rng, d)
        top2 = np.sort(w)[-2:]
        c = (top2[1] - top2[0]) / 4.5
        greedy = set(gas_greedy(w, e, c, 2)[0].tolist())
        best = max(combinations(range(d), 2), key=lambda s: gas_objective(w, e, c, s))
        assert gas_objective(w, e, c, sorted(greedy)) == pytest.approx(gas_objective(w, e, c, best), abs=1e-12)
        assert greedy == set(best)


def test_greedy_is_not_optimal_in_general():
    # w = (1, .9, .9), feature 0 similar to both others, 1 and 2 unrelated; c = .5:
    # greedy takes 0 then one of 1, 2 -> 1 + .9 - 2 * .5 * 1 = .9 < the pair {1, 2}: 1.8
    w = np.array([1.0, 0.9, 0.9])
    e = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 1]], float)
    order = gas_greedy(w, e, 0.5, 2)[0]
    assert order.tolist() == [0, 1]
    assert gas_objective(w, e, 0.5, order) == pytest.approx(0.9)
    assert gas_objective(w, e, 0.5, [1, 2]) == pytest.approx(1.8)


# ----------------------------------------------------------------------------- the selector

def test_gas_uses_precomputed_scores_and_fixed_c():
    data = planted(d=5, seed=2)
    table = scoring.single_feature_table(data.X, data.y, data.query_ptr)
    table = {key: value.copy() for key, value in table.items()}
    table["ndcg@10"][:] = [0.9, 0.85, 0.2, 0.8, 0.1]
    sim = np.eye(5)
    sim[0, 1] = sim[1, 0] = 0.9  # 1 duplicates 0
    pre = {"single_feature": table, "kendall": {"similarity": sim}}
    sel = GAS(c=0.1).fit(data.X, data.y, data.qid, precomputed=pre)
    # after 0: w1 = .85 - .2 * .9 = .67 < w3 = .8
    assert sel.ranking_.tolist() == [0, 3, 1, 2, 4]
    assert sel.c_ == 0.1 and sel.chosen_ == {}
    assert sel.gains_.tolist() == pytest.approx([0.9, 0.8, 0.67, 0.2, 0.1])
    assert GAS(c=0.0).fit(data.X, data.y, data.qid, precomputed=pre).ranking_.tolist() == [0, 1, 3, 2, 4]
    # normalisation rescales w before the greedy: with "max", .85/.9 - .2 * .9 = .764 < .8/.9
    sel = GAS(c=0.1, normalize="max").fit(data.X, data.y, data.qid, precomputed=pre)
    assert sel.scores_ == pytest.approx(np.array([0.9, 0.85, 0.2, 0.8, 0.1]) / 0.9)
    # a table computed in another convention is ignored (recomputed from the data)
    table["convention"] = np.array("standard")
    other = GAS(c=0.1).fit(data.X, data.y, data.qid, precomputed=pre)
    assert other.scores_ == pytest.approx(scoring.single_feature_table(data.X, data.y, data.query_ptr)["ndcg@10"])


def test_gas_computes_missing_scores_itself():
    data = planted(d=6, informative=(1, 4), seed=3)
    sel = GAS(c=0.2).fit(data.X, data.y, data.qid)
    table = scoring.single_feature_table(data.X, data.y, data.query_ptr)
    sim = kendall_similarity(data.X, data.query_ptr)
    assert sel.scores_ == pytest.approx(table["ndcg@10"], abs=1e-12)
    assert sel.ranking_.tolist() == gas_greedy(table["ndcg@10"], sim, 0.2)[0].tolist()
    gl = GASL(c=0.2).fit(data.X, data.y, data.qid)
    imp = 1 - pairwise_loss(data.X, data.y, data.query_ptr)
    assert gl.scores_ == pytest.approx(imp, abs=1e-15)
    assert gl.ranking_.tolist() == gas_greedy(imp, sim, 0.2)[0].tolist()


def test_best_orientation_is_invariant_to_negating_a_feature():
    data = planted(d=6, informative=(1, 4), seed=4)
    base = GASL(c=0.3, orientation="best").fit(data.X, data.y, data.qid)
    X = data.X.copy()
    X[:, 4] = -X[:, 4]
    flipped = GASL(c=0.3, orientation="best").fit(X, data.y, data.qid)
    assert flipped.ranking_.tolist() == base.ranking_.tolist()
    assert flipped.sign_[4] == -1 and base.sign_[4] == 1
    desc = GASL(c=0.3).fit(X, data.y, data.qid)
    assert desc.ranking_.tolist().index(4) > base.ranking_.tolist().index(4)


def test_constant_features_go_last():
    data = planted(d=6, informative=(0, 3), seed=5)
    X = data.X.copy()
    X[:, 2] = 0.0
    # feature 5 constant within every query but not across queries
    X[:, 5] = np.repeat(np.arange(data.n_queries), np.diff(data.query_ptr)).astype(np.float32)
    assert constant_on_every_query(X, data.query_ptr).tolist() == [False, False, True, False, False, True]
    sel = GASL(c=2.0).fit(X, data.y, data.qid)
    assert sel.ranking_[-2:].tolist() == [2, 5] and sel.constant_.tolist() == [2, 5]
    kept = GASL(c=2.0, constant_last=False).fit(X, data.y, data.qid)
    # without the rule, their 0 similarity and importance 0.5 make them early picks at large c
    assert max(kept.ranking_.tolist().index(2), kept.ranking_.tolist().index(5)) < 5


def test_c_is_chosen_on_vali_from_the_grid():
    full, truth = synthetic.make(n_queries=120, seed=3)
    train, vali = full.subset_queries(np.arange(80)), full.subset_queries(np.arange(80, 120))
    sel = GASE(c_grid=[0, 0.1, 1], t_vali=5).fit(train.X, train.y, train.qid, X_val=vali.X,
                                                     y_val=vali.y, qid_val=vali.qid)
    chosen = sel.chosen_
    assert chosen["c"] in (0.0, 0.1, 1.0) and sel.c_ == chosen["c"]
    assert set(chosen["vali_scores"]) == {"0.0", "0.1", "1.0"}
    assert chosen["vali_scores"][repr(chosen["c"])] == max(chosen["vali_scores"].values())
    assert sel.ranking_.tolist() == GASE(c=chosen["c"]).fit(train.X, train.y, train.qid).ranking_.tolist()
    cheap = GASE(c_grid=[0, 0.1, 1], t_vali=5, vali_model="sum").fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    assert cheap.chosen_["vali_model"] == "sum" and cheap.chosen_["c"] in (0.0, 0.1, 1.0)


@pytest.mark.parametrize("cls, params, message", [
    (GAS, {"importance": "ndcg@11"}, r"gas: unknown importance 'ndcg@11'"),
    (GAS, {"c": -1}, r"gas: c must be a number >= 0 or None"),
    (GAS, {"c_grid": []}, r"gas: c_grid must be a non-empty list"),
    (GAS, {"t_vali": 0}, r"gas: t_vali must be an integer >= 1"),
    (GAS, {"normalize": "z"}, r"gas: unknown normalize 'z'; valid: none, max, minmax"),
    (GAS, {"vali_model": "svm"}, r"gas: unknown vali_model 'svm'"),
    (GAS, {"vali_metric": "auc"}, r"gas: vali_metric: unknown metric 'auc'"),
    (GAS, {"n_jobs": 0}, r"gas: n_jobs must be an integer >= 1"),
    (GASE, {"importance": "pairwise"}, r"gas_e: importance 'pairwise' is GAS-L"),
    (GASL, {"orientation": "up"}, r"gas_l: unknown orientation 'up'"),
])
def test_parameter_errors(cls, params, message):
    with pytest.raises(ValueError, match=message):
        cls(**params).validate_params()


def test_c_none_without_vali_is_a_clear_error():
    data = planted(d=4)
    with pytest.raises(ValueError, match="gas_l: c=None chooses c on validation data, but none was given"):
        GASL().fit(data.X, data.y, data.qid)


def test_presets_and_requires():
    assert GASE().get_params()["importance"] == "ndcg@10" and GASE.name == "gas_e"
    assert GASL().importance == "pairwise" and "importance" not in GASL().get_params()
    assert set(GAS.requires) == {"single_feature", "kendall", "pairwise"}
    assert set(GASE.requires) == {"single_feature", "kendall"} and set(GASL.requires) == {"pairwise", "kendall"}
    assert GASL(**GASL(c=0.5).get_params()).c == 0.5


# ----------------------------------------------------------------------------- filters

def test_filters_rank_by_their_score_and_use_matching_cache():
    data = planted(d=5, informative=(3,), seed=6)
    from ltrfs.scoring.discrete import discrete_scores
    from ltrfs.scoring.pearson import pearson_scores

    ig, chi = discrete_scores(data.X, data.y, 10)
    assert InformationGain().fit(data.X, data.y, data.qid).ranking_.tolist() == np.argsort(-ig, kind="stable").tolist()
    assert ChiSquare().fit(data.X, data.y, data.qid).scores_ == pytest.approx(chi)
    imp = pearson_scores(data.X, data.y)[0]
    assert PearsonTopK().fit(data.X, data.y, data.qid).scores_ == pytest.approx(imp)
    fake = {"ig": np.array([0.0, 0.1, 0.5, 0.2, 0.3]), "chi": np.zeros(5), "bins": np.array(10)}
    assert InformationGain().fit(data.X, data.y, data.qid, precomputed={"discrete": fake}).ranking_.tolist() == [2, 4, 3, 1, 0]
    # cached with another number of bins: recomputed
    assert InformationGain(bins=4).fit(data.X, data.y, data.qid, precomputed={"discrete": fake}).scores_ \
        == pytest.approx(discrete_scores(data.X, data.y, 4)[0])
    fake_p = {"importance": np.array([0.3, 0.2, 0.1, 0.0, 0.4]), "similarity": np.eye(5)}
    assert PearsonTopK().fit(data.X, data.y, data.qid, precomputed={"pearson": fake_p}).ranking_.tolist() == [4, 0, 1, 2, 3]
    with pytest.raises(ValueError, match="chi: bins must be an integer >= 2"):
        ChiSquare(bins=1).fit(data.X, data.y, data.qid)


# ----------------------------------------------------------------------------- planted features

@pytest.fixture(scope="module")
def synthetic_split():
    """synthetic.make(n_queries=240, seed=0) (8 informative, 8 redundant, 14 noise features):
    queries 1-160 train, 161-240 vali."""
    full, truth = synthetic.make(n_queries=240, seed=0)
    signal = {f - 1 for f in truth["informative"] + truth["redundant"]}
    return full.subset_queries(np.arange(160)), full.subset_queries(np.arange(160, 240)), signal


@pytest.mark.parametrize("make, k, floor", [
    # filters and GAS with c = 0 (pure importance) put all 16 planted signal features first
    (lambda: InformationGain(), 16, 0.9),
    (lambda: ChiSquare(), 16, 0.9),
    (lambda: PearsonTopK(), 16, 0.9),
    (lambda: GASE(c=0.0), 16, 0.9),
    (lambda: GASL(c=0.0), 16, 0.9),
    # with c chosen on vali GAS deliberately skips redundant features after the first few, so the
    # floor is on the top 4 (the synthetic informative features are all correlated)
    (lambda: GASE(), 4, 0.75),
    (lambda: GASL(), 4, 0.75),
])
def test_selectors_rank_planted_signal_above_noise(synthetic_split, make, k, floor):
    """precision@k of the planted informative + redundant features among the top k."""
    train, vali, signal = synthetic_split
    sel = make().fit(train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    precision = len(signal & set(sel.ranking_[:k].tolist())) / k
    assert precision >= floor, (type(sel).__name__, precision, sel.ranking_.tolist())

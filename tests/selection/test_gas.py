"""GAS (greedy against explicit re-implementation and brute force), the IG / CHI / Pearson
filters, and every selector of this module against planted features on synthetic data."""
from itertools import combinations

import numpy as np
import pytest

from conftest import planted
from ltrfs import metrics, scoring
from ltrfs.ranking_data import RankingData, constant_within_queries
from ltrfs.datasets import synthetic
from ltrfs.scoring import kendall
from ltrfs.scoring.kendall import kendall_similarity
from ltrfs.scoring.pairwise import pairwise_loss
from ltrfs.tuning import DegenerateGridError
from ltrfs.selection.filters import ChiSquare, InformationGain, PearsonTopK
from ltrfs.selection.gas import GAS, GASE, GASL, gas_greedy, gas_objective


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
    table["ties"] = np.array("expected")  # as the workflow's scorer records it
    sim = np.eye(5)
    sim[0, 1] = sim[1, 0] = 0.9  # 1 duplicates 0
    # "similarity" holds tau-b, "concordance" the default similarity
    pre = {"single_feature": table, "kendall": {"similarity": sim, "concordance": sim}}
    for similarity in ("tau_b", "concordance"):
        sel = GAS(c=0.1, similarity=similarity).fit(data.X, data.y, data.qid, precomputed=pre)
        # after 0: w1 = .85 - .2 * .9 = .67 < w3 = .8
        assert sel.ranking_.tolist() == [0, 3, 1, 2, 4]
        assert sel.c_ == 0.1 and sel.chosen_ == {}
        assert sel.gains_.tolist() == pytest.approx([0.9, 0.8, 0.67, 0.2, 0.1])
    assert GAS(c=0.0).fit(data.X, data.y, data.qid, precomputed=pre).ranking_.tolist() == [0, 1, 3, 2, 4]
    # a kendall table without the chosen similarity is not used (computed from the data)
    only_tau = {"single_feature": table, "kendall": {"similarity": sim}}
    assert GAS(c=0.1).fit(data.X, data.y, data.qid, precomputed=only_tau).ranking_.tolist() \
        == gas_greedy(table["ndcg@10"], kendall_similarity(data.X, data.query_ptr), 0.1)[0].tolist()
    # normalisation rescales w before the greedy: with "max", .85/.9 - .2 * .9 = .764 < .8/.9
    sel = GAS(c=0.1, normalize="max").fit(data.X, data.y, data.qid, precomputed=pre)
    assert sel.scores_ == pytest.approx(np.array([0.9, 0.85, 0.2, 0.8, 0.1]) / 0.9)
    # a table computed in another convention is ignored (recomputed from the data)
    table["convention"] = np.array("standard")
    other = GAS(c=0.1).fit(data.X, data.y, data.qid, precomputed=pre)
    assert other.scores_ == pytest.approx(scoring.single_feature_table(data.X, data.y, data.query_ptr)["ndcg@10"])


@pytest.mark.parametrize("similarity", ["concordance", "tau_b"])
def test_gas_computes_missing_scores_itself(similarity):
    data = planted(d=6, informative=(1, 4), seed=3)
    sel = GAS(c=0.2, similarity=similarity).fit(data.X, data.y, data.qid)
    table = scoring.single_feature_table(data.X, data.y, data.query_ptr)
    sim = kendall_similarity(data.X, data.query_ptr, similarity=similarity)
    assert sel.scores_ == pytest.approx(table["ndcg@10"], abs=1e-12)
    assert sel.ranking_.tolist() == gas_greedy(table["ndcg@10"], sim, 0.2)[0].tolist()
    loss = pairwise_loss(data.X, data.y, data.query_ptr)
    for kind, imp in (("inverse", 1 / loss), ("one_minus", 1 - loss)):
        gl = GASL(c=0.2, similarity=similarity, pairwise_importance=kind).fit(data.X, data.y, data.qid)
        assert gl.scores_ == pytest.approx(imp, abs=1e-14)
        assert gl.ranking_.tolist() == gas_greedy(imp, sim, 0.2)[0].tolist()


@pytest.mark.parametrize("similarity", ["concordance", "tau_b"])
def test_best_orientation_is_invariant_to_negating_a_feature(similarity):
    data = planted(d=6, informative=(1, 4), seed=4)
    X = np.round(data.X * 4) / 4  # coarse values: ties, where the concordance of -x is not 1 - C / n0
    base = GASL(c=0.3, orientation="best", similarity=similarity).fit(X, data.y, data.qid)
    X[:, 4] = -X[:, 4]
    flipped = GASL(c=0.3, orientation="best", similarity=similarity).fit(X, data.y, data.qid)
    assert flipped.ranking_.tolist() == base.ranking_.tolist()
    assert flipped.gains_ == pytest.approx(base.gains_, abs=1e-12)
    assert flipped.sign_[4] == -1 and base.sign_[4] == 1
    desc = GASL(c=0.3, similarity=similarity).fit(X, data.y, data.qid)
    assert desc.ranking_.tolist().index(4) > base.ranking_.tolist().index(4)
    # a cached kendall table serves the flipped feature too (concordance: through "discordance")
    pre = {"kendall": kendall.scorer(RankingData(X, data.y, data.query_ptr, data.qid[data.query_ptr[:-1]]),
                                     None, "letor4")}
    cached = GASL(c=0.3, orientation="best", similarity=similarity).fit(X, data.y, data.qid, precomputed=pre)
    assert cached.gains_.tolist() == flipped.gains_.tolist()


@pytest.mark.parametrize("similarity", ["concordance", "tau_b"])
def test_constant_features_go_last(similarity):
    data = planted(d=6, informative=(0, 3), seed=5)
    X = data.X.copy()
    X[:, 2] = 0.0
    # feature 5 constant within every query but not across queries
    X[:, 5] = np.repeat(np.arange(data.n_queries), np.diff(data.query_ptr)).astype(np.float32)
    assert constant_within_queries(X, data.query_ptr).tolist() == [False, False, True, False, False, True]
    sel = GASL(c=2.0, similarity=similarity, pairwise_importance="one_minus").fit(X, data.y, data.qid)
    assert sel.ranking_[-2:].tolist() == [2, 5] and sel.constant_.tolist() == [2, 5]
    kept = GASL(c=2.0, constant_last=False, similarity=similarity, pairwise_importance="one_minus").fit(
        X, data.y, data.qid)
    # without the rule, their 0 similarity and importance 0.5 make them early picks at large c
    assert max(kept.ranking_.tolist().index(2), kept.ranking_.tolist().index(5)) < 5


@pytest.mark.parametrize("similarity", ["concordance", "tau_b"])
@pytest.mark.parametrize("make", [GASE, GASL])
def test_gas_never_puts_a_constant_feature_early(similarity, make):
    """Constant on every query (everywhere, or per query) -> after every informative feature, at
    every c, on coarse data with many ties (values from {0, .5, 1})."""
    rng = np.random.default_rng(11)
    data = planted(n_queries=30, d=8, informative=(0, 3, 6), seed=8)
    X = np.round(data.X * 2) / 2
    X[:, 2] = 0.5
    X[:, 5] = np.repeat(rng.choice([0.0, 0.5, 1.0], data.n_queries), np.diff(data.query_ptr))
    for c in (0.0, 0.01, 0.1, 0.5, 2.0, 10.0):
        sel = make(c=c, similarity=similarity).fit(X, data.y, data.qid)
        assert sel.ranking_[-2:].tolist() == [2, 5], (c, sel.ranking_.tolist())
    # the rule matters: without it, at c = 2 their zero similarity lifts them above informative features
    raw = make(c=2.0, similarity=similarity, constant_last=False).fit(X, data.y, data.qid).ranking_.tolist()
    assert min(raw.index(2), raw.index(5)) < 5, raw


def test_c_is_chosen_on_vali_from_the_grid():
    full, truth = synthetic.make(n_queries=120, seed=3)
    train, vali = full.subset_queries(np.arange(80)), full.subset_queries(np.arange(80, 120))
    sel = GASE(c_grid=[0, 0.1, 1], t_vali=5).fit(train.X, train.y, train.qid, X_val=vali.X,
                                                     y_val=vali.y, qid_val=vali.qid)
    chosen = sel.chosen_
    assert chosen["c"] in (0.0, 0.1, 1.0) and sel.c_ == chosen["c"]
    assert set(chosen["vali_scores"]) == {"0.0", "0.1", "1.0"}
    assert chosen["vali_scores"][repr(chosen["c"])] == max(chosen["vali_scores"].values())
    assert chosen["ties"] == "expected" and chosen["degenerate"] == []
    assert sel.ranking_.tolist() == GASE(c=chosen["c"]).fit(train.X, train.y, train.qid).ranking_.tolist()
    cheap = GASE(c_grid=[0, 0.1, 1], t_vali=5, vali_model="sum").fit(
        train.X, train.y, train.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    assert cheap.chosen_["vali_model"] == "sum" and cheap.chosen_["c"] in (0.0, 0.1, 1.0)


@pytest.mark.parametrize("cls, params, message", [
    (GAS, {"importance": "ndcg@11"}, r"gas: importance must be one of pairwise, p@1, .* \(any case\); got 'ndcg@11'"),
    (GAS, {"c": -1}, r"gas: c must be a finite number >= 0 or None; got -1"),
    (GAS, {"c_grid": []}, r"gas: c_grid must be a non-empty list of finite numbers >= 0; got \[\]"),
    (GAS, {"t_vali": 0}, r"gas: t_vali must be an integer >= 1"),
    (GAS, {"normalize": "z"}, r"gas: normalize must be one of none, max, minmax; got 'z'"),
    (GAS, {"vali_model": "svm"}, r"gas: vali_model must be one of ranksvm, sum; got 'svm'"),
    (GAS, {"vali_metric": "auc"}, r"gas: vali_metric must be a metric \(ndcg@K, p@K, map or meanndcg\); got 'auc'"),
    (GAS, {"n_jobs": 0}, r"gas: n_jobs must be an integer >= 1"),
    (GAS, {"similarity": "tau"}, r"gas: similarity must be one of concordance, tau_b; got 'tau'"),
    (GAS, {"pairwise_importance": "log"}, r"gas: pairwise_importance must be one of inverse, one_minus; got 'log'"),
    (GAS, {"ties": "random"}, r"gas: ties must be one of file_order, expected; got 'random'"),
    (GASE, {"importance": "pairwise"}, r"gas_e: importance 'pairwise' is GAS-L"),
    (GASL, {"orientation": "up"}, r"gas_l: orientation must be one of descending, best; got 'up'"),
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
    # the new hyperparameters are recorded like the others
    assert {k: GAS().get_params()[k] for k in ("similarity", "pairwise_importance", "ties")} \
        == {"similarity": "concordance", "pairwise_importance": "inverse", "ties": "expected"}
    assert GASL().get_params()["pairwise_importance"] == "inverse" and GASE().get_params()["similarity"] == "concordance"
    assert "pairwise_importance" not in GASE().get_params()


def test_hand_case_both_similarities_and_the_greedy_order_they_imply():
    """The 4-document, 3-feature case of test_scoring.test_concordance_hand_case_and_tau_b_with_ties:
    concordance e01 = 3/4, e02 = 1/12, e12 = 1/6; tau-b e01 = (3 / sqrt(20) + 1) / 2 = 0.83541,
    e02 = e12 = 0. Importance (precomputed) w = (.9, .8, .7), c = 0.0675: both pick 0 first, then
      concordance: w1 = .8 - 2c * 3/4 = .69875 > w2 = .7 - 2c / 12 = .68875   -> 0, 1, 2
      tau-b:       w1 = .8 - 2c * 0.83541 = .68722 < w2 = .7 - 0 = .7        -> 0, 2, 1"""
    X = np.array([[1, 1, 0], [1, .5, 1], [0, .5, 1], [0, 0, 0],
                  [0, 0, 5], [1, 1, 5],
                  [7, 7, 7]], np.float32)
    y = np.array([1, 0, 0, 0, 1, 0, 0])
    qid = np.array([1, 1, 1, 1, 2, 2, 3])
    pre = {"single_feature": {"ndcg@10": np.array([0.9, 0.8, 0.7]), "ties": np.array("expected")}}
    conc = GAS(c=0.0675).fit(X, y, qid, precomputed=pre)
    assert conc.ranking_.tolist() == [0, 1, 2]
    assert conc.gains_ == pytest.approx([0.9, 0.8 - 0.135 * 3 / 4, 0.7 - 0.135 / 12 - 0.135 / 6], abs=1e-12)
    tau = GAS(c=0.0675, similarity="tau_b").fit(X, y, qid, precomputed=pre)
    assert tau.ranking_.tolist() == [0, 2, 1]
    assert tau.gains_ == pytest.approx([0.9, 0.7, 0.8 - 0.135 * (3 / np.sqrt(20) + 1) / 2], abs=1e-12)


def test_tau_b_at_c_equals_concordance_at_2c_without_ties():
    """Tie-free data: concordance = (1 + tau) / 2, so 2 (2c) e_conc = 2c + 2c tau: the constant
    2c hits every remaining weight alike and the greedy orders are equal."""
    data = planted(d=9, informative=(1, 4, 7), seed=12)
    for c in (0.01, 0.05, 0.2, 1.0):
        tau = GASE(c=c, similarity="tau_b").fit(data.X, data.y, data.qid)
        conc = GASE(c=2 * c).fit(data.X, data.y, data.qid)
        assert conc.ranking_.tolist() == tau.ranking_.tolist()
        # the gain of the i-th pick differs by 2c per earlier pick
        assert conc.gains_ == pytest.approx(tau.gains_ - 2 * c * np.arange(9), abs=1e-12)


def test_gas_l_inverse_loss_by_hand():
    """One query, labels 2 1 0 0 (labelled pairs ab ac ad bc bd): f0 = 3 2 1 1 orders all right
    (loss 0); f1 = 1 1 0 1 ties ab, ad, bd (loss 1.5 / 5 = .3, importance 10/3); f2 constant
    (loss .5); f3 = 0 1 2 0: ab ac bc wrong, ad tied (loss 3.5 / 5 = .7, importance 10/7).
    f0 gets the largest finite importance, 10/3, and wins the tie with f1 by its lower index;
    at c = 0 the order is by importance, the constant f2 last."""
    X = np.array([[3, 1, 4, 0], [2, 1, 4, 1], [1, 0, 4, 2], [1, 1, 4, 0]], np.float32)
    y = np.array([2, 1, 0, 0])
    qid = np.zeros(4, np.int64)
    sel = GASL(c=0.0).fit(X, y, qid)
    assert sel.scores_ == pytest.approx([10 / 3, 10 / 3, 2.0, 10 / 7], abs=1e-14)
    assert sel.ranking_.tolist() == [0, 1, 3, 2] and sel.constant_.tolist() == [2]
    old = GASL(c=0.0, pairwise_importance="one_minus").fit(X, y, qid)
    assert old.scores_ == pytest.approx([1.0, 0.7, 0.5, 0.3], abs=1e-15)
    # orientation "best": ascending losses 1, .7, .5, .3 join the set; f3 ascending: 1 / .3, sign -1
    best = GASL(c=0.0, orientation="best").fit(X, y, qid)
    assert best.scores_ == pytest.approx([10 / 3, 10 / 3, 2.0, 10 / 3], abs=1e-14)
    assert best.sign_.tolist() == [1, 1, 1, -1]


def test_ties_parameter_reaches_every_metric_gas_computes():
    """Coarse features: the importance computed without a table, and the vali metric, follow
    ``ties``; a table recording another tie rule is not used."""
    data = planted(n_queries=30, d=4, informative=(1,), seed=13)
    X = np.round(data.X * 2) / 2
    for ties in ("expected", "file_order"):
        sel = GASE(c=0.0, ties=ties).fit(X, data.y, data.qid)
        want = [metrics.metric_per_query(data.y, X[:, f].astype(np.float64), data.query_ptr, "ndcg@10", "letor4",
                                         ties=ties).mean() for f in range(4)]
        assert sel.scores_ == pytest.approx(want, abs=1e-12)
    a = GASE(c=0.0, ties="expected").fit(X, data.y, data.qid).scores_
    b = GASE(c=0.0, ties="file_order").fit(X, data.y, data.qid).scores_
    assert not np.allclose(a, b)  # the data has ties, so the rule matters
    table = {"ndcg@10": np.array([0.1, 0.2, 0.3, 0.4]), "ties": np.array("file_order")}
    assert GASE(c=0.0).fit(X, data.y, data.qid, precomputed={"single_feature": table}).scores_ \
        == pytest.approx(a, abs=1e-15)
    assert GASE(c=0.0, ties="file_order").fit(X, data.y, data.qid, precomputed={"single_feature": table}).scores_ \
        .tolist() == [0.1, 0.2, 0.3, 0.4]
    del table["ties"]  # a table without a tie record is a file-order one
    assert GASE(c=0.0).fit(X, data.y, data.qid, precomputed={"single_feature": table}).scores_ \
        == pytest.approx(a, abs=1e-15)
    assert GASE(c=0.0, ties="file_order").fit(X, data.y, data.qid, precomputed={"single_feature": table}).scores_ \
        .tolist() == [0.1, 0.2, 0.3, 0.4]
    # the vali metric: recorded tie rule, and the recorded value is the tie-aware metric of the model
    train, vali = data.subset_queries(np.arange(20)), data.subset_queries(np.arange(20, 30))
    Xt, Xv = np.round(train.X * 2) / 2, np.round(vali.X * 2) / 2
    sel = GASE(c_grid=[0.0], t_vali=1, vali_model="sum", ties="file_order").fit(
        Xt, train.y, train.qid, X_val=Xv, y_val=vali.y, qid_val=vali.qid)
    top = sel.ranking_[0]
    want = metrics.metric_per_query(vali.y, (Xv[:, top] - Xt[:, top].mean()) / Xt[:, top].std(), vali.query_ptr,
                                    "ndcg@10", "letor4", ties="file_order").mean()
    assert sel.chosen_["ties"] == "file_order" and sel.chosen_["vali_scores"]["0.0"] == pytest.approx(want, abs=1e-12)


def test_vali_choice_never_picks_a_degenerate_c():
    """Features 0 and 1 are constant inside every vali query; c = 0 takes {0, 1} (degenerate on
    vali: the summed scores are constant per query), c = 1 penalises 1 (similar to 0) and takes
    {0, 2}. Only c = 1 is eligible; a grid of c = 0 alone is an error."""
    data = planted(n_queries=40, d=3, informative=(0, 2), seed=14)
    train, vali = data.subset_queries(np.arange(25)), data.subset_queries(np.arange(25, 40))
    Xv = vali.X.copy()
    Xv[:, :2] = np.repeat(np.arange(vali.n_queries, dtype=np.float32), np.diff(vali.query_ptr))[:, None]
    sim = np.array([[1, .9, .1], [.9, 1, .1], [.1, .1, 1]])
    pre = {"single_feature": {"ndcg@10": np.array([0.9, 0.85, 0.5]), "ties": np.array("expected")},
           "kendall": {"concordance": sim}}
    fit = dict(X_val=Xv, y_val=vali.y, qid_val=vali.qid, precomputed=pre)
    sel = GASE(c_grid=[0.0, 1.0], t_vali=2, vali_model="sum").fit(train.X, train.y, train.qid, **fit)
    assert sel.c_ == 1.0 and sel.chosen_["degenerate"] == [0.0] and set(sel.chosen_["vali_scores"]) == {"0.0", "1.0"}
    with pytest.raises(DegenerateGridError, match=r"gas_e \(c grid\): every vali candidate \(0.0\)"):
        GASE(c_grid=[0.0], t_vali=2, vali_model="sum").fit(train.X, train.y, train.qid, **fit)


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

"""The neural selectors (G-L2X, L2X, INVASE, IFG, the concrete autoencoder): planted features
recovered, the same ranking for the same seed, the unsupervised one blind to the labels, IFG's
groups against a hand computation."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import planted
from ltrfs.selection import make_selector

pytestmark = pytest.mark.neural

#: a small predictor and enough steps for the 8-feature planted problem (80 queries, 4 a batch)
SMALL = {"hidden": [32], "batch_size": 4, "convention": "standard"}
SETTINGS = {
    "g_l2x": {"k": 2, "epochs": 60, "patience": None},   # the mask needs the temperature to fall
    "l2x": {"k": 2, "actor_hidden": [32], "epochs": 30},
    "invase": {"epochs": 30},
    "ifg": {"n_groups": 4, "group_hidden": [32], "epochs": 30},
}


def qids(data):
    return np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))


@pytest.fixture(scope="module")
def planted_split():
    """80 training and 30 vali queries, 8 features, relevance from features 1 and 5."""
    return planted(n_queries=80, d=8, informative=(1, 5), seed=0), planted(n_queries=30, d=8, informative=(1, 5), seed=1)


def fit(name, split, **params):
    train, vali = split
    return make_selector(name, **{**SMALL, **SETTINGS.get(name, {}), **params}).fit(
        train.X, train.y, qids(train), X_val=vali.X, y_val=vali.y, qid_val=qids(vali))


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_the_planted_features_come_first(planted_split, name):
    sel = fit(name, planted_split)
    assert set(sel.ranking_[:2].tolist()) == {1, 5}, (sel.ranking_, sel.scores_)
    # the method's own scorer beats file order by far (0.52 here) on vali, at a trained epoch
    assert sel.chosen_["vali"] > 0.8 and sel.chosen_["best_epoch"] >= 1


@pytest.mark.parametrize("name", [*sorted(SETTINGS), "concrete_autoencoder"])
def test_same_seed_same_ranking(planted_split, name):
    a, b = fit(name, planted_split, epochs=3), fit(name, planted_split, epochs=3)
    assert np.array_equal(a.ranking_, b.ranking_) and a.scores_.tobytes() == b.scores_.tobytes()


def redundant_groups(n_queries=60, seed=0):
    """Features 0-2 copies of one factor, 3-5 of another (small noise each), 6-7 pure noise."""
    rng = np.random.default_rng(seed)
    m = n_queries * 15
    u = rng.standard_normal((m, 2))
    X = np.concatenate([u[:, [0, 0, 0, 1, 1, 1]] + 0.1 * rng.standard_normal((m, 6)), rng.standard_normal((m, 2))],
                       axis=1)
    y = rng.integers(0, 3, m)
    return X.astype(np.float32), y, np.repeat(np.arange(n_queries), 15)


def test_concrete_autoencoder_picks_one_feature_of_each_redundant_group():
    X, y, qid = redundant_groups()
    sel = make_selector("concrete_autoencoder", k=2, hidden=[32], epochs=40, batch_size=4).fit(X, y, qid)
    picked = sel.chosen_["picked"]
    assert len(picked) == 2 and sorted(p // 3 for p in picked) == [0, 1], sel.chosen_
    assert set(sel.ranking_[:2].tolist()) == set(picked)
    assert sel.scores_[picked].min() > 1 >= np.delete(sel.scores_, picked).max()  # picked: 1 + probability
    # unsupervised: other labels, the same fit
    other = make_selector("concrete_autoencoder", k=2, hidden=[32], epochs=40, batch_size=4).fit(X, y[::-1], qid)
    assert other.scores_.tobytes() == sel.scores_.tobytes()


def test_without_a_validation_split_every_epoch_runs(planted_split):
    train, _ = planted_split
    sel = make_selector("g_l2x", k=2, hidden=[8], epochs=4).fit(train.X, train.y, qids(train))
    assert sel.chosen_["epochs"] == 4 and "best_epoch" not in sel.chosen_
    assert sel.chosen_["final_temperature"] == pytest.approx(10 * (0.01 / 10) ** (4 / 4))


def test_a_mask_of_every_feature_is_a_warning(planted_split, caplog):
    """k at or above d keeps every feature: the fit runs, and says in one line that it selects nothing."""
    train, _ = planted_split
    with caplog.at_level("WARNING", logger="ltrfs"):
        make_selector("g_l2x", k=50, hidden=[8], epochs=1).fit(train.X, train.y, qids(train))
    assert any(r.getMessage().startswith("g_l2x: a mask of k = 50 keeps all 8 features: it selects nothing")
               for r in caplog.records)


def test_ifg_keeps_the_features_of_the_chosen_group_through_their_group_mean():
    """Scoring mode by hand: features 0, 2 in group 1, feature 1 in group 0, group 2 empty; the
    chooser keeps group 1. Kept mask (1, 0, 1); reconstruction: each feature its group's mean
    (the empty group adds nothing); the predictor sees kept x reconstruction."""
    from ltrfs.neural.network import torch_session

    sel = make_selector("ifg", n_groups=3, group_hidden=[4], hidden=[4])
    sel.chosen_ = {}   # what fit starts from
    z = np.array([[1.0, 4.0, 3.0]], dtype=np.float32)
    with torch_session("ifg", 0, 1) as torch:
        module = sel._network(torch, 3).eval()
        assign = np.zeros((3, 3))
        assign[[0, 1, 2], [1, 0, 1]] = 5.0   # feature -> group logits (d x G, row-major as the network's output)
        last = module.assign[-1]
        with torch.no_grad():
            last.weight.zero_()
            last.bias.copy_(torch.from_numpy(assign.reshape(-1).astype(np.float32)))
            module.choose[-1].weight.zero_()
            module.choose[-1].bias.copy_(torch.tensor([0.0, 1.0, 0.5]))
            kept, recon, t, _ = module.parts(torch.from_numpy(z))
            expected_score = module.predictor(torch.tensor([[2.0, 0.0, 2.0]])).reshape(-1)
            score = module(torch.from_numpy(z))
    assert t.numpy().tolist() == [[0.0, 1.0, 0.0]]
    assert kept.numpy().tolist() == [[1.0, 0.0, 1.0]]
    np.testing.assert_allclose(recon.numpy(), [[2.0, 4.0, 2.0]])   # group 1: (1 + 3) / 2; group 0: 4
    assert score.numpy().tolist() == expected_score.numpy().tolist()
    # outside training the rows are read in blocks of about 4 million values a (rows, d, G) tensor:
    # 599 rows of the Yahoo! stand-in's 700 features x 10 groups (16 MB), not 65,536 (1.8 GB)
    assert make_selector("ifg")._block_rows(700) == 599 and make_selector("l2x")._block_rows(700) == 65536


def test_ifg_keeping_every_group_is_a_one_line_error(planted_split):
    train, _ = planted_split
    with pytest.raises(ValueError, match=r"^ifg: n_top_groups \(3\) must be fewer than n_groups \(3\)"):
        make_selector("ifg", n_groups=3, n_top_groups=3).fit(train.X, train.y, qids(train))

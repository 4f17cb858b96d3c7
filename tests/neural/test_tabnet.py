"""The TabNet selector: planted features recovered by its importances, the same ranking for the
same seed, importances that are shares, batches batch normalisation could not train on, and a
one-line error without pytorch-tabnet."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import planted
from ltrfs.neural import INSTALL_HINT
from ltrfs.selection import make_selector

pytestmark = pytest.mark.neural

#: a narrow TabNet (the authors' 128 is not needed for 8 features) on the planted problem, 4 queries a
#: batch, at a learning rate of 1e-2 (at 1e-3 it needs 20 epochs or more and, at 20, misses feature 1
#: with one seed of four; 1e-2 and 10 epochs found 1 and 5 with each of seeds 0-4)
SMALL = {"n_d": 8, "n_a": 8, "batch_size": 4, "convention": "standard", "learning_rate": 1e-2, "epochs": 10}


def qids(data):
    return np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))


@pytest.fixture(scope="module")
def planted_split():
    """80 training and 30 vali queries, 8 features, relevance from features 1 and 5."""
    return planted(n_queries=80, d=8, informative=(1, 5), seed=0), planted(n_queries=30, d=8, informative=(1, 5), seed=1)


def fit(split, **params):
    train, vali = split
    return make_selector("tabnet", **{**SMALL, **params}).fit(
        train.X, train.y, qids(train), X_val=vali.X, y_val=vali.y, qid_val=qids(vali))


def test_the_planted_features_come_first(planted_split):
    sel = fit(planted_split)
    assert set(sel.ranking_[:2].tolist()) == {1, 5}, (sel.ranking_, sel.scores_)
    # TabNet's own scores beat file order by far (0.52 here) on vali, at a trained epoch
    assert sel.chosen_["vali"] > 0.8 and sel.chosen_["best_epoch"] >= 1
    assert 0 < sel.chosen_["mean_attended"] <= 8


def test_same_seed_same_ranking(planted_split):
    a, b = fit(planted_split, epochs=3), fit(planted_split, epochs=3)
    assert np.array_equal(a.ranking_, b.ranking_) and a.scores_.tobytes() == b.scores_.tobytes()
    c = fit(planted_split, epochs=3, random_state=1)
    assert c.scores_.tobytes() != a.scores_.tobytes()


@pytest.mark.parametrize("mask_type", ["sparsemax", "entmax"])
def test_the_importances_are_shares(planted_split, mask_type):
    sel = fit(planted_split, epochs=2, mask_type=mask_type)
    assert sel.scores_.dtype == np.float64 and sel.scores_.shape == (8,)
    assert (sel.scores_ >= 0).all() and sel.scores_.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(sel.ranking_, np.lexsort((np.arange(8), -sel.scores_)))


@pytest.mark.parametrize("importance", ["total", "per_document"])
def test_the_importances_sum_the_explain_rows_as_asked(planted_split, monkeypatch, importance):
    """With an explain matrix known by hand (|z|, each row a document's standardised features, a
    zero row among them): "total" sums the rows and divides by the total, "per_document" divides
    each row by its own sum first (a zero row adds nothing); training is the same either way."""
    from pytorch_tabnet import tab_network

    from ltrfs.neural.selector import standardised

    def known_explain(self, rows):
        m = rows.abs().double()
        m[0] = 0.0   # the block's first document explains nothing
        return m, {0: rows}
    monkeypatch.setattr(tab_network.TabNet, "forward_masks", known_explain)
    train, _ = planted_split
    sel = fit(planted_split, epochs=2, importance=importance)
    Z = np.abs(standardised(train.X)[0].astype(np.float64))
    Z[0] = 0.0   # one block of rows (EXPLAIN_CHUNK is larger than the split)
    rows = Z / np.where(Z.sum(axis=1, keepdims=True) > 0, Z.sum(axis=1, keepdims=True), 1.0) \
        if importance == "per_document" else Z
    expected = rows.sum(axis=0) / rows.sum()
    np.testing.assert_allclose(sel.scores_, expected, rtol=1e-6)
    other = fit(planted_split, epochs=2, importance="total" if importance == "per_document" else "per_document")
    assert other.chosen_["train_loss"] == sel.chosen_["train_loss"] and not np.allclose(other.scores_, sel.scores_)


def test_batches_of_one_row_or_a_lone_ghost_row_train(planted_split):
    """Batch normalisation cannot train on one row: one-document queries (batches of one row) teach
    nothing, and 17-row batches in ghost batches of 4 (the last of one row) are scored with their
    first row repeated; training runs with finite losses and importances."""
    train, _ = planted_split
    X, y = train.X[:40], train.y[:40].copy()
    y[:] = 1
    qid = np.r_[np.arange(6), np.repeat(6, 17), np.repeat(7, 17)]  # six 1-row queries, two of 17
    sel = make_selector("tabnet", n_d=4, n_a=4, virtual_batch_size=4, batch_size=1, epochs=2).fit(X, y, qid)
    assert sel.chosen_["epochs"] == 2 and np.isfinite(sel.chosen_["train_loss"]).all()
    assert np.isfinite(sel.scores_).all() and sel.scores_.sum() == pytest.approx(1.0)


def test_both_glu_counts_zero_is_refused():
    with pytest.raises(ValueError, match=r"^tabnet: n_independent and n_shared cannot both be 0"):
        make_selector("tabnet", n_independent=0, n_shared=0).validate_params()


def test_without_pytorch_tabnet_the_fit_says_how_to_install_it(planted_split, monkeypatch):
    monkeypatch.setitem(sys.modules, "pytorch_tabnet", None)
    monkeypatch.setitem(sys.modules, "pytorch_tabnet.tab_network", None)
    with pytest.raises(ValueError) as excinfo:
        fit(planted_split, epochs=1)
    message = str(excinfo.value)
    assert "tabnet" in message and INSTALL_HINT in message and "\n" not in message

"""The LassoNet selector: the planted features leave the path last, the path keeps LassoNet's
hierarchy and records when features leave, the same seed gives the same scores (another seed,
another ranking), and a missing lassonet package is one line naming it."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import planted
from ltrfs.neural import INSTALL_HINT
from ltrfs.neural.lasso_net import LassoNetSelector
from ltrfs.selection import make_selector

pytestmark = pytest.mark.neural

#: a small MLP, a short dense phase and a fast path (lambda x 1.25 a step from 1: 29 steps to
#: ~500, where the planted features leave; Lyu et al.'s 1.02 from "auto" ends before any leaves)
SMALL = {"hidden": [16], "batch_size": 4, "convention": "standard", "epochs": 10, "path_multiplier": 1.25,
         "lambda_start": 1.0}


def qids(data):
    return np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))


@pytest.fixture(scope="module")
def planted_split():
    """80 training and 30 vali queries, 8 features, relevance from features 1 and 5."""
    return planted(n_queries=80, d=8, informative=(1, 5), seed=0), planted(n_queries=30, d=8, informative=(1, 5), seed=1)


def fit(split, selector=None, **params):
    train, vali = split
    sel = selector or make_selector("lassonet", **{**SMALL, **params})
    return sel.fit(train.X, train.y, qids(train), X_val=vali.X, y_val=vali.y, qid_val=qids(vali))


class Recording(LassoNetSelector):
    """Keeps (lambda, features that left, theta, W) after every path step."""

    def _after_path_step(self, model, lambda_, left):
        self.steps.append((lambda_, left.copy(), model.skip.weight.detach().numpy()[0].copy(),
                           model.layers[0].weight.detach().numpy().copy()))


@pytest.fixture(scope="module")
def recorded(planted_split):
    sel = Recording(**SMALL)
    sel.steps = []
    return fit(planted_split, sel)


def test_the_planted_features_leave_last(recorded):
    sel = recorded
    assert set(sel.ranking_[:2].tolist()) == {1, 5}, (sel.ranking_, sel.scores_)
    assert sel.chosen_["vali"] > 0.8 and sel.chosen_["best_epoch"] >= 1  # the dense phase learned
    # the noise features left well before the planted ones
    assert sel.scores_[[1, 5]].min() > 2 * np.delete(sel.scores_, [1, 5]).max(), sel.scores_
    assert sel.chosen_["path_steps"] == len(sel.details_["path"]) <= 100


def test_the_path_keeps_the_hierarchy_and_records_when_features_leave(recorded):
    """After every path step: |W_ij| <= M |theta_j| for every j (so a feature with theta_j = 0 has
    a zero column of W); a feature recorded as leaving at a step has theta_j = 0 then; the
    recorded lambdas fall along the ranking, the features still in at the end first."""
    sel, steps = recorded, recorded.steps
    assert len(steps) == sel.chosen_["path_steps"] and steps
    lambdas = [lam for lam, *_ in steps]
    assert lambdas[0] == 1.0 and np.allclose(np.diff(np.log(lambdas)), np.log(1.25))
    recorded_at = np.full(8, np.nan)
    for lambda_, left, theta, W in steps:
        column = np.abs(W).max(axis=0)
        assert (column <= 10 * np.abs(theta) * (1 + 1e-5) + 1e-12).all(), (lambda_, column, theta)
        assert (W[:, theta == 0] == 0).all()
        assert (theta[left] == 0).all() and np.isnan(recorded_at[left]).all()  # each leaves once
        recorded_at[left] = lambda_
    gone = ~np.isnan(recorded_at)
    assert gone.sum() >= 6  # the noise features left on this path
    assert np.array_equal(sel.scores_[gone], recorded_at[gone])
    assert sel.chosen_["features_in_at_end"] == int((~gone).sum())
    assert (sel.scores_[~gone] == sel.chosen_["lambda_end"] * 1.25).all()
    along = sel.scores_[sel.ranking_]
    assert (np.diff(along) <= 0).all(), along  # non-increasing along the ranking


def test_same_seed_same_ranking(planted_split):
    a, b = fit(planted_split, max_path_steps=8), fit(planted_split, max_path_steps=8)
    assert np.array_equal(a.ranking_, b.ranking_) and a.scores_.tobytes() == b.scores_.tobytes()
    assert a.chosen_ == b.chosen_
    # 8 steps end at lambda 1.25^7 = 4.8, before any feature leaves (the noise leaves near 50):
    # all score the next lambda and rank by |theta_j|
    assert a.chosen_["features_in_at_end"] == 8 and (a.scores_ == a.chosen_["lambda_end"] * 1.25).all()
    # another seed, another fit: other weights, so another |theta_j| order (the scores_, the next
    # lambda for every feature, are the same: no feature left either path)
    c = fit(planted_split, max_path_steps=8, random_state=1)
    assert c.chosen_["train_loss"] != a.chosen_["train_loss"] and not np.array_equal(c.ranking_, a.ranking_)


def test_without_a_step_limit_the_path_runs_until_no_feature_is_left(planted_split):
    sel = fit(planted_split, max_path_steps=None, path_multiplier=2.0, epochs=3)
    assert sel.chosen_["features_in_at_end"] == 0 and sel.details_["path"][-1]["selected"] == 0
    assert sel.chosen_["lambda_end"] == 2.0 ** (sel.chosen_["path_steps"] - 1) == sel.scores_.max()


def test_without_lassonet_the_fit_says_how_to_install_it(planted_split, monkeypatch):
    monkeypatch.setitem(sys.modules, "lassonet", None)
    monkeypatch.setitem(sys.modules, "lassonet.model", None)  # an earlier test of the worker imported it
    with pytest.raises(ValueError, match="lassonet") as caught:
        fit(planted_split)
    assert INSTALL_HINT in str(caught.value) and "\n" not in str(caught.value)


def test_parameters_are_checked_and_cloned():
    from sklearn.base import clone

    sel = make_selector("lassonet", M=5.0, lambda_start=0.5, hidden=[8])
    copy = clone(sel)
    assert copy.get_params() == sel.get_params() and "activation" not in sel.get_params()
    for bad in ({"path_multiplier": 1.0}, {"lambda_start": "big"}, {"M": 0}, {"path_patience": 0}, {"hidden": []}):
        with pytest.raises(ValueError, match="lassonet"):
            make_selector("lassonet", **bad).validate_params()


def test_the_dense_phase_keeps_the_hierarchy_too(planted_split):
    """As the package's dense training, the proximal operator at lambda 0 follows every Adam step:
    the model the path starts from already has max_i |W_ij| <= M |theta_j| (M = 1 here, where
    Adam alone breaks it by far)."""
    class BeforePath(LassoNetSelector):
        def _path(self, run):
            theta = np.abs(run.module.skip.weight.detach().numpy()[0])
            W = np.abs(run.module.layers[0].weight.detach().numpy()).max(axis=0)
            self.ratio = float((W / np.maximum(self.M * theta, 1e-30)).max())
            return super()._path(run)

    sel = fit(planted_split, BeforePath(**{**SMALL, "M": 1.0, "max_path_steps": 1}))
    assert sel.ratio <= 1 + 1e-5

"""INVASE's actor rewards: with ``reward="none"`` (what Lyu et al.'s code does in effect) the actor
learns from its sparsity term alone, so its masks cannot depend on the labels; with a reward they do."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import planted
from ltrfs.selection import make_selector

pytestmark = pytest.mark.neural


def reversed_within_queries(y, ptr):
    """The labels of each query in reverse document order: the same label set per query."""
    return np.concatenate([y[lo:hi][::-1] for lo, hi in zip(ptr[:-1], ptr[1:])])


@pytest.mark.parametrize("reward, blind", [("none", True), ("query", False), ("batch", False)])
def test_without_a_reward_the_actor_is_blind_to_the_labels(reward, blind):
    data = planted(n_queries=40, d=6, informative=(1, 4), seed=3)
    qid = np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))
    fits = [make_selector("invase", reward=reward, hidden=[16], epochs=4, batch_size=4, lam=0.5,
                          convention="standard").fit(data.X, y, qid)
            for y in (data.y, reversed_within_queries(data.y, data.query_ptr))]
    # the actor's selection probabilities (scores_ ties broken by them: compare the mean probability)
    same = fits[0].scores_.tobytes() == fits[1].scores_.tobytes() and np.array_equal(fits[0].ranking_, fits[1].ranking_)
    assert same == blind, (fits[0].scores_, fits[1].scores_)
    # the critic learnt from the labels either way
    assert fits[0].chosen_["train_loss"] != fits[1].chosen_["train_loss"]


def test_reward_is_checked():
    with pytest.raises(ValueError, match="reward"):
        make_selector("invase", reward="episode").fit(np.zeros((4, 2)), np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1]))

"""FS-BFS: the search against a plain exhaustive best-first search, the projection, the partition
rules, planted ground truth and determinism."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import ltrfs.selection.fs_bfs as fs_bfs
from conftest import planted
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.coord_ascent import coordinate_ascent
from ltrfs.selection.fs_bfs import FSBFS, best_first_subset


# ----------------------------------------------------------------------------- plain oracle

def plain_partition(single, evalf, k, max_candidates=None, open_size=None, max_stale=5, max_size=None):
    """Best-first search written plainly: lists, linear scans, no heap. Returns
    [(score, features, weights), ...] in the order found."""
    remaining = list(range(len(single)))
    found = []
    while len(found) < k and remaining:
        cand = sorted(remaining, key=lambda f: (-single[f], f))
        root = cand[0]
        best = (float(single[root]), [root], [1.0])
        open_list = [(float(single[root]), 0, [root], [1.0])]  # (score, generation, features, weights)
        generation = 0
        seen = [{root}]
        stale = 0
        while open_list and stale < max_stale:
            i = max(range(len(open_list)), key=lambda i: (open_list[i][0], -open_list[i][1]))
            _, _, feats, w = open_list.pop(i)
            cs = [f for f in cand if f not in feats]
            if max_candidates is not None:
                cs = cs[:max_candidates]
            children = []
            for c in cs:
                child = feats + [c]
                if set(child) in seen:
                    continue
                seen.append(set(child))
                cw, cscore = evalf(child, w)
                generation += 1
                children.append((float(cscore), generation, child, list(cw)))
            for ch in children:
                if max_size is None or len(ch[2]) < max_size:
                    open_list.append(ch)
            top = None
            for ch in children:
                if top is None or ch[0] > top[0]:
                    top = ch
            if top is not None and top[0] > best[0]:
                best = (top[0], top[2], top[3])
                stale = 0
            else:
                stale += 1
            if open_size is not None and len(open_list) > open_size:
                open_list = sorted(open_list, key=lambda n: (-n[0], n[1]))[:open_size]
        found.append(best)
        remaining = [f for f in remaining if f not in best[1]]
    return found


def single_metric(data, ties="expected"):
    X = data.X.astype(np.float64)
    return [metric_per_query(data.y, X[:, f], data.query_ptr, "ndcg@10", "letor4", ties).mean()
            for f in range(X.shape[1])]


def fake_weights(s):
    w = 0.5 ** np.arange(s)
    return w / w.sum()


def weighted_sum(cols, w):
    out = np.zeros(cols.shape[0])
    for j in range(cols.shape[1]):
        out += w[j] * cols[:, j]
    return out


def fake_ca(cols, *, context, **kw):
    """Deterministic stand-in for Coordinate Ascent: fixed weights 1, 1/2, 1/4, ... (L1-normalised)."""
    w = fake_weights(cols.shape[1])
    return w, context.mean(weighted_sum(np.asarray(cols, dtype=np.float64), w))


def assert_same(sel, found):
    assert len(sel.subsets_) == len(found)
    for j, (score, feats, w) in enumerate(found):
        assert sel.subsets_[j].tolist() == feats
        np.testing.assert_allclose(sel.weights_[j], w, rtol=0, atol=0)
        assert sel.subset_scores_[j] == pytest.approx(score, abs=1e-12)


# ----------------------------------------------------------------------------- search vs oracle

@pytest.mark.parametrize("bounds", [
    {},
    {"max_candidates": 2},
    {"open_size": 2, "max_stale": 2},
    {"max_size": 3, "max_stale": 1},
    {"max_candidates": 3, "open_size": 1, "max_stale": 3, "max_size": 4},
])
def test_search_matches_plain_oracle_with_deterministic_evaluator(monkeypatch, bounds):
    monkeypatch.setattr(fs_bfs, "coordinate_ascent", fake_ca)
    data = planted(n_queries=30, d=6, informative=(1, 3), seed=3)
    X = data.X.astype(np.float64)
    single = single_metric(data)

    def evalf(feats, parent_w):
        w = fake_weights(len(feats))
        s = weighted_sum(X[:, feats], w)
        return w, metric_per_query(data.y, s, data.query_ptr, "ndcg@10", "letor4", "expected").mean()

    params = {"max_candidates": None, "open_size": None, **bounds}
    sel = FSBFS(k=6, **params).fit(data.X, data.y, data.qid)
    found = plain_partition(single, evalf, 6, **params)
    assert_same(sel, found)
    np.testing.assert_allclose(sel.single_, single, atol=1e-12)


def test_search_matches_plain_oracle_with_seeded_coordinate_ascent():
    data = planted(n_queries=25, d=5, informative=(0, 3), seed=5)
    X = data.X.astype(np.float64)
    single = single_metric(data)
    rs = 7

    def evalf(feats, parent_w):
        rng = np.random.default_rng(np.random.SeedSequence([rs, len(feats), *feats]))
        return coordinate_ascent(X[:, feats], data.y, data.query_ptr, metric="ndcg@10", convention="letor4",
                                 n_restarts=5, n_iterations=25, step_base=0.05, step_scale=2.0, tolerance=0.001,
                                 rng=rng)

    sel = FSBFS(k=5, max_candidates=None, open_size=None, random_state=rs).fit(data.X, data.y, data.qid)
    assert_same(sel, plain_partition(single, evalf, 5))

    def evalf_warm(feats, parent_w):
        rng = np.random.default_rng(np.random.SeedSequence([rs, len(feats), *feats]))
        return coordinate_ascent(X[:, feats], data.y, data.query_ptr, w_init=list(parent_w) + [0.0], rng=rng)

    warm = FSBFS(k=2, max_candidates=2, open_size=3, warm_start=True, random_state=rs).fit(data.X, data.y, data.qid)
    assert_same(warm, plain_partition(single, evalf_warm, 2, max_candidates=2, open_size=3))


def test_hand_worked_search():
    """Three features with a score table; by hand: root 0 (single 0.5); expansion 1 children
    {0,1}=0.6, {0,2}=0.55 -> best {0,1}, stale 0; expansion 2 pops {0,1}: child {0,1,2}=0.58
    (no gain, but it enters the open list) -> stale 1; expansion 3 pops {0,1,2} (0.58 > 0.55): no
    candidate left -> stale 2; expansion 4 pops {0,2}: {0,2,1} already seen -> stale 3; open empty."""
    table = {frozenset({0, 1}): 0.6, frozenset({0, 2}): 0.55, frozenset({0, 1, 2}): 0.58}
    calls = []

    def evalf(feats, parent_w):
        calls.append(feats)
        return np.full(len(feats), 1.0 / len(feats)), table[frozenset(feats)]

    single = np.array([0.5, 0.4, 0.45])
    order = fs_bfs.candidate_order(single, np.arange(3))
    assert order.tolist() == [0, 2, 1]
    res = best_first_subset(order, single, evalf, max_stale=5)
    assert res.features == (0, 1) and res.score == 0.6
    assert calls == [(0, 2), (0, 1), (0, 1, 2)]
    assert (res.expansions, res.evaluations) == (4, 3)
    # max_stale=1: stops after the first expansion without gain (expansion 2)
    assert best_first_subset(order, single, evalf, max_stale=1).expansions == 2
    # max_size=2: children of size 2 are final, nothing is left to expand
    res2 = best_first_subset(order, single, evalf, max_size=2)
    assert res2.features == (0, 1) and res2.expansions == 1


# ----------------------------------------------------------------------------- output rules

@pytest.fixture(scope="module")
def fitted():
    data = planted(n_queries=60, d=8, informative=(2, 5), seed=1)
    return data, FSBFS(k=4, max_size=3, random_state=3).fit(data.X, data.y, data.qid)


def test_projection_equals_claimed_weighted_sums(fitted):
    data, sel = fitted
    X = data.X.astype(np.float64)
    Z = sel.transform(data.X, 3)
    assert Z.shape == (data.n_rows, 3)
    for j in range(3):
        manual = X[:, sel.subsets_[j]] @ sel.weights_[j]
        np.testing.assert_allclose(Z[:, j], manual, rtol=1e-12, atol=1e-12)
        claimed = sel.details_["scores"][j]
        assert metric_per_query(data.y, manual, data.query_ptr, "ndcg@10", "letor4", "expected").mean() == \
            pytest.approx(claimed, abs=1e-9)
        assert np.abs(sel.weights_[j]).sum() == pytest.approx(1.0)
    P = sel.projection_
    assert P.dtype == np.float64 and P.shape == (8, len(sel.subsets_))
    for j, (S, w) in enumerate(zip(sel.subsets_, sel.weights_)):
        expect = np.zeros(8)
        expect[S] = w
        np.testing.assert_array_equal(P[:, j], expect)
    np.testing.assert_array_equal(sel.transform(data.X), data.X @ P)


def test_partition_rules_and_record(fitted):
    data, sel = fitted
    used = np.concatenate(sel.subsets_)
    assert len(used) == len(set(used.tolist()))  # disjoint
    assert sorted(sel.ranking_.tolist()) == list(range(8))  # a permutation of all features
    # ranking: subset features by subset, then |weight| descending; unused features after
    pos = 0
    for S, w in zip(sel.subsets_, sel.weights_):
        block = sel.ranking_[pos:pos + len(S)]
        assert set(block.tolist()) == set(S.tolist())
        wb = np.abs(P_w(S, w, block))
        assert np.all(np.diff(wb) <= 0)
        pos += len(S)
    assert sel.ranking_.dtype == np.int64 and sel.scores_ is None
    assert sel.support(2).tolist() == sorted(np.concatenate(sel.subsets_[:2]).tolist())
    d = sel.details_
    json.dumps(d)
    json.dumps(sel.chosen_)
    assert d["subsets"] == [[int(f) + 1 for f in S] for S in sel.subsets_]
    assert d["weights"] == [[float(v) for v in w] for w in sel.weights_]
    assert d["seconds"] > 0 and d["params"]["max_stale"] == 5 and d["params"]["max_candidates"] == 50
    for key in ("max_candidates", "open_size", "max_stale", "max_size", "max_expansions", "min_gain"):
        assert key in sel.chosen_
    assert sel.chosen_["ties"] == d["params"]["ties"] == "expected"
    assert sel.chosen_["k_built"] == len(sel.subsets_)
    with pytest.raises(ValueError, match="outside"):
        sel.transform(data.X, len(sel.subsets_) + 1)


def P_w(S, w, block):
    lookup = dict(zip(S.tolist(), w.tolist()))
    return np.array([lookup[f] for f in block.tolist()])


def test_coverage_when_k_exceeds_the_features():
    data = planted(n_queries=20, d=5, informative=(0,), seed=2)
    sel = FSBFS(k=9, max_size=2).fit(data.X, data.y, data.qid)
    used = np.concatenate(sel.subsets_)
    assert sorted(used.tolist()) == list(range(5))  # every feature used once
    assert all(len(S) <= 2 for S in sel.subsets_)
    assert sel.chosen_["k_built"] == len(sel.subsets_) <= 5
    assert sel.chosen_["n_covered"] == 5


def test_constant_features_are_in_no_subset_and_come_last():
    data = planted(n_queries=20, d=6, informative=(0,), seed=2)
    X = data.X.copy()
    X[:, [2, 4]] = 0.0  # zero on every document, like OHSUMED's features 5-7
    sel = FSBFS(k=9, max_size=2).fit(X, data.y, data.qid)
    used = sorted(np.concatenate(sel.subsets_).tolist())
    assert used == [0, 1, 3, 5]  # k stops at the subsets the non-constant features give
    assert sel.projection_.shape == (6, sel.chosen_["k_built"]) and sel.chosen_["n_covered"] == 4
    assert sorted(sel.ranking_[-2:].tolist()) == [2, 4] and sorted(sel.ranking_.tolist()) == list(range(6))


def test_planted_features_land_in_the_first_subsets():
    data = planted(n_queries=80, d=10, informative=(3, 7), seed=4)
    sel = FSBFS(k=3, random_state=0).fit(data.X, data.y, data.qid)
    assert {3, 7} <= set(sel.subsets_[0].tolist())
    # the two planted features carry the largest weights of the first new feature
    S, w = sel.subsets_[0], np.abs(sel.weights_[0])
    assert set(S[np.argsort(-w)[:2]].tolist()) == {3, 7}
    assert sel.subset_scores_[0] > sel.subset_scores_[1:].max()


def test_deterministic(fitted):
    data, sel = fitted
    again = FSBFS(k=4, max_size=3, random_state=3).fit(data.X, data.y, data.qid)
    np.testing.assert_array_equal(again.projection_, sel.projection_)
    np.testing.assert_array_equal(again.ranking_, sel.ranking_)
    assert again.details_["subsets"] == sel.details_["subsets"]


@pytest.mark.parametrize("params, message", [
    ({"k": 0}, "k must be"),
    ({"max_candidates": 0}, "max_candidates"),
    ({"open_size": -1}, "open_size"),
    ({"max_stale": 0}, "max_stale"),
    ({"max_size": 1.5}, "max_size"),
    ({"min_gain": -0.1}, "min_gain"),
    ({"metric": "err@10"}, r"^fs_bfs: metric must be a metric \(ndcg@K, p@K, map or meanndcg\); got 'err@10'$"),
    ({"n_jobs": 0}, "n_jobs"),
    ({"restart_init": "zeros"}, "restart_init"),
    ({"warm_start": "yes"}, "warm_start"),
    ({"random_state": -1}, "random_state"),
    ({"ties": "random"}, "ties must be one of"),
])
def test_invalid_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        FSBFS(**params).validate_params()


def test_not_fitted():
    with pytest.raises(ValueError, match="not fitted"):
        FSBFS().transform(np.zeros((2, 3)), 1)


def test_expansion_and_gain_bounds_stop_each_subset():
    """max_expansions=1: every subset is its seed feature plus one expansion; a min_gain no
    expansion can reach: every subset stays at its seed and stops after max_stale tries."""
    data = planted(n_queries=30, d=8, informative=(1, 5), seed=2)
    one = FSBFS(k=3, max_expansions=1, max_candidates=4).fit(data.X, data.y, data.qid)
    assert one.details_["expansions"] == [1, 1, 1] and [len(s) for s in one.details_["subsets"]] == [2, 2, 2]
    none = FSBFS(k=3, min_gain=10.0, max_candidates=4, max_stale=5).fit(data.X, data.y, data.qid)
    assert none.details_["expansions"] == [5, 5, 5] and [len(s) for s in none.details_["subsets"]] == [1, 1, 1]


@pytest.mark.parametrize("ties", ["expected", "file_order"])
def test_tie_rule_reaches_single_features_and_coordinate_ascent(ties):
    """Features with few values tie documents: the single-feature metric and every subset score
    follow ``ties``, and the two rules give different single-feature metrics on these data."""
    data = planted(n_queries=40, d=5, informative=(0, 2), seed=6)
    X = np.round(data.X * 2) / 2  # values 0, 0.5, 1
    sel = FSBFS(k=2, max_size=3, max_candidates=3, ties=ties).fit(X, data.y, data.qid)
    data_t = dataclasses.replace(data, X=X)
    np.testing.assert_allclose(sel.single_, single_metric(data_t, ties), rtol=0, atol=1e-12)
    other = "expected" if ties == "file_order" else "file_order"
    assert not np.allclose(sel.single_, single_metric(data_t, other), rtol=0, atol=1e-6)
    for S, w, score in zip(sel.subsets_, sel.weights_, sel.subset_scores_):
        s = X[:, S].astype(np.float64) @ w
        if len(S) > 1:
            assert metric_per_query(data.y, s, data.query_ptr, "ndcg@10", "letor4", ties).mean() == \
                pytest.approx(score, abs=1e-9)
    assert sel.chosen_["ties"] == sel.details_["params"]["ties"] == ties


def test_the_cost_estimate_follows_the_runs_a_fit_makes():
    """``search_runs`` (the select job's work in the cost model) against the Coordinate Ascent runs
    fits really make: within 0.5-1.2 of them at 2-8 candidates, growing as they grow; at the measured
    jobs' bounds ``fit_columns`` is d, so the calibration keeps its meaning."""
    data = planted(n_queries=30, d=16, informative=(3, 7, 11), seed=4)
    runs, estimates = [], []
    for c in (2, 3, 5, 8):
        sel = FSBFS(k=4, max_candidates=c, max_size=3, random_state=0).fit(data.X, data.y, data.qid)
        runs.append(sum(sel.details_["evaluations"]))
        estimates.append(fs_bfs.search_runs(16, k=4, max_candidates=c, max_size=3, max_stale=5))
    assert runs == sorted(runs) and estimates == sorted(estimates)
    assert all(0.5 <= r / e <= 1.2 for r, e in zip(runs, estimates)), (runs, estimates)
    assert FSBFS.fit_columns(46, FSBFS.COST_BOUNDS) == 46.0
    assert FSBFS.fit_columns(46, {**FSBFS.COST_BOUNDS, "max_candidates": 10}) > 2 * 46

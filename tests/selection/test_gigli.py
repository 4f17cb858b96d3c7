"""NGAS, XGAS, HCAS (Gigli et al., ICTIR 2016) and the Spearman similarity they share: hand-computed
small cases, the similarity against SciPy and a plain per-query loop, ward.D against a plain
Lance-Williams clustering, the searches against plain re-implementations, planted groups and the
constant-feature rule."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from conftest import planted
from ltrfs.ranking_data import RankingData
from ltrfs.scoring import SCORERS, compute
from ltrfs.scoring.spearman import average_ranks, spearman_similarity
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.selection.hcas import HCAS, cluster_labels, hcas_order, ward_d_linkage
from ltrfs.selection.ngas import NGAS, ngas_order
from ltrfs.selection.xgas import XGAS, candidates_per_step, xgas_order

# ------------------------------------------------------------------ a tiny case worked by hand
#: one query of 6 documents; the four features are permutations of 1..6, so that
#: rho = 1 - 6 sum(d^2) / (6 * 35) = 1 - sum(d^2) / 35 for rank differences d
TINY_X = np.array([[1, 2, 3, 4], [2, 1, 1, 2], [3, 3, 2, 6], [4, 4, 6, 1], [5, 5, 4, 5], [6, 6, 5, 3]], float)
#: S x 35 by hand: sum d^2 of (f0, f1) = 1 + 1 = 2 -> 33; (f0, f2): 4+1+1+4+1+1 = 12 -> 23;
#: (f0, f3): 9+0+9+9+0+9 = 36 -> |-1| = 1; (f1, f2): 1+0+1+4+1+1 = 8 -> 27;
#: (f1, f3): 4+1+9+9+0+9 = 32 -> 3; (f2, f3): 1+1+16+25+1+4 = 48 -> |-13| = 13
TINY_S35 = np.array([[35, 33, 23, 1], [33, 35, 27, 3], [23, 27, 35, 13], [1, 3, 13, 35]])
#: relevance R given by hand (the single-feature table the workflow would pass)
TINY_R = np.array([0.5, 0.6, 0.4, 0.3])


def tiny_fit(name, **params):
    """``name`` fitted on TINY_X with R = TINY_R read from a precomputed single-feature table."""
    table = {"ndcg@10": TINY_R, "convention": np.array("letor4"), "ties": np.array("expected")}
    y = np.array([0, 1, 2, 0, 1, 2])
    return make_selector(name, **params).fit(TINY_X, y, np.zeros(6, int), precomputed={"single_feature": table})


def test_tiny_similarity_is_the_hand_computed_one():
    np.testing.assert_allclose(spearman_similarity(TINY_X) * 35, TINY_S35, atol=1e-12)
    # one query: the per-query mean is the pooled rho
    np.testing.assert_allclose(spearman_similarity(TINY_X, [0, 6], per_query=True) * 35, TINY_S35, atol=1e-12)


def test_ngas_tiny_order_by_hand():
    """First the most relevant, f1. Least similar to f1: f3 (3/35); the feature most similar to
    f3 among the others: f2 (13 > 1); R(f3) 0.3 < R(f2) 0.4: pick f2. Least similar to f2 among
    {f0, f3}: f3 (13 < 23), its nearest other: f0; 0.3 < 0.5: pick f0. Last f3."""
    assert tiny_fit("ngas").ranking_.tolist() == [1, 2, 0, 3]
    # the relevance order would be [1, 0, 2, 3]: NGAS trades relevance for dissimilarity
    assert np.argsort(-TINY_R, kind="stable").tolist() == [1, 0, 2, 3]


def test_xgas_tiny_order_by_hand():
    """c = 0.5: 3 unpicked -> p = round-half-up(1.5) = 2: the 2 least similar to f1 are f3, f2;
    the more relevant is f2. 2 unpicked -> p = 1: least similar to f2 of {f0, f3}: f3. Then f0.
    c = 0.05: p = 1 at each step, the chain of least similar features f1 -> f3 -> f0 -> f2."""
    assert tiny_fit("xgas", c=0.5).ranking_.tolist() == [1, 2, 3, 0]
    assert tiny_fit("xgas").ranking_.tolist() == [1, 3, 0, 2]


def test_hcas_tiny_tree_and_order_by_hand():
    """D x 35 = 35 - S x 35: (0,1) 2, (0,2) 12, (0,3) 34, (1,2) 8, (1,3) 32, (2,3) 22. ward.D merges
    {0,1} at 2; then D({0,1}, 2) = (2*12 + 2*8 - 2) / 3 = 38/3, D({0,1}, 3) = (2*34 + 2*32 - 2) / 3
    = 130/3 and D(2, 3) = 22: merge {0,1,2} at 38/3; D({0,1,2}, 3) = (3 * 130/3 + 2*22 - 38/3) / 4
    = 121/3. Cuts: k=1 the best of all, f1; k=2 {0,1,2}, {3}: + f3; k=3 {0,1}, {2}, {3}: + f2;
    k=4: + f0."""
    sel = tiny_fit("hcas")
    np.testing.assert_allclose(sel.linkage_[:, 2] * 35, [2, 38 / 3, 121 / 3])
    assert [sorted(map(int, sel.linkage_[t, :2])) for t in range(3)] == [[0, 1], [2, 4], [3, 5]]
    assert sel.ranking_.tolist() == [1, 3, 2, 0]
    assert [[c.tolist() for c in sel.clusters(k)] for k in (1, 2, 3)] == [
        [[0, 1, 2, 3]], [[0, 1, 2], [3]], [[0, 1], [2], [3]]]
    for k in range(1, 5):
        assert sorted(sel.support(k).tolist()) == sorted([1, 3, 2, 0][:k])


def test_xgas_candidates_round_half_up():
    assert [candidates_per_step(0.05, u) for u in (1, 9, 10, 29, 30, 49, 50, 700)] == [1, 1, 1, 1, 2, 2, 3, 35]
    assert candidates_per_step(0.5, 5) == 3 and candidates_per_step(0.1, 25) == 3  # 2.5 up, not to even


# ------------------------------------------------------------------ Spearman against references

def test_pooled_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (400, 9)).astype(np.float32)   # many ties
    X[:, 4] = 2.0                                          # constant on all rows
    want = np.abs(stats.spearmanr(np.delete(X, 4, axis=1)).statistic)
    got = spearman_similarity(X)
    np.testing.assert_allclose(np.delete(np.delete(got, 4, 0), 4, 1), want, atol=1e-12)
    assert got[4].tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0]


def plain_per_query(X, ptr):
    """|mean over queries of rho_q| by a loop over queries and feature pairs (SciPy's rho)."""
    d = X.shape[1]
    total, count = np.zeros((d, d)), np.zeros((d, d))
    for a, b in zip(ptr[:-1], ptr[1:]):
        for i in range(d):
            for j in range(d):
                u, v = X[a:b, i], X[a:b, j]
                if np.ptp(u) > 0 and np.ptp(v) > 0:
                    total[i, j] += stats.spearmanr(u, v).statistic
                    count[i, j] += 1
    sim = np.where(count > 0, np.abs(total / np.maximum(count, 1)), 0.0)
    np.fill_diagonal(sim, 1.0)
    return sim


def test_per_query_spearman_matches_a_plain_loop():
    rng = np.random.default_rng(2)
    ptr = np.array([0, 1, 7, 20, 21, 45, 60])             # single-document queries too
    X = rng.integers(0, 5, (60, 6)).astype(float)
    X[7:20, 2] = 1.0                                       # constant in one query
    X[:, 5] = np.repeat(np.arange(6), np.diff(ptr))        # constant in every query
    got = spearman_similarity(X, ptr, per_query=True, chunk_rows=16)   # several chunks of whole queries
    np.testing.assert_allclose(got, plain_per_query(X, ptr), atol=1e-12)
    assert got[5].tolist() == [0, 0, 0, 0, 0, 1]


def test_average_ranks_within_queries_match_scipy():
    rng = np.random.default_rng(3)
    ptr = np.array([0, 5, 6, 30, 31, 80])
    X = rng.integers(0, 3, (80, 70)).astype(float)         # more than one block of columns
    want = np.concatenate([stats.rankdata(X[a:b], axis=0) for a, b in zip(ptr[:-1], ptr[1:])])
    np.testing.assert_array_equal(average_ranks(X, ptr), want)
    np.testing.assert_array_equal(average_ranks(X), stats.rankdata(X, axis=0))


def test_spearman_scorer_is_registered_and_cached_matrices_are_used():
    data = planted(d=5, informative=(0,), seed=5)
    table = compute("spearman", data, "letor4")
    assert "spearman" in SCORERS and set(table) == {"pooled", "per_query", "convention"}
    np.testing.assert_allclose(table["per_query"], spearman_similarity(data.X, data.query_ptr, per_query=True))
    fake = np.eye(5)
    fake[0, 1:] = fake[1:, 0] = 1.0                       # everything similar to f0 only
    sel = make_selector("mrmr").fit(data.X, data.y, data.qid, precomputed={"spearman": {"pooled": fake}})
    np.testing.assert_array_equal(sel.similarity_, fake)


def test_bad_input_gives_one_line_errors():
    with pytest.raises(ValueError, match=r"^xgas: c must be a number in \(0, 1\]; got 0$"):
        make_selector("xgas", c=0).fit(TINY_X, [0, 1, 0, 1, 0, 1], np.zeros(6))
    with pytest.raises(ValueError, match=r"similarity must be one of"):
        make_selector("ngas", similarity="pearson").fit(TINY_X, [0, 1, 0, 1, 0, 1], np.zeros(6))
    X = TINY_X.copy()
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"^X: feature 2 holds NaN or inf values"):
        spearman_similarity(X)
    with pytest.raises(ValueError, match=r"per_query=True needs query_ptr"):
        spearman_similarity(TINY_X, per_query=True)


# ------------------------------------------------------------------ ward.D against plain Lance-Williams

def plain_ward_d(D):
    """R's hclust(method="ward.D") written out: merge the closest pair, Lance-Williams update on D
    itself, O(n^3). Returns [(members of the merged cluster, height), ...]."""
    D = np.array(D, dtype=float)
    clusters = {i: [i] for i in range(len(D))}
    dist = {(i, j): D[i, j] for i in range(len(D)) for j in range(i + 1, len(D))}
    merges, nxt = [], len(D)
    while len(clusters) > 1:
        (i, j), h = min(dist.items(), key=lambda kv: (kv[1], kv[0]))
        ni, nj = len(clusters[i]), len(clusters[j])
        new = {}
        for k in clusters:
            if k in (i, j):
                continue
            nk = len(clusters[k])
            dki, dkj = dist[tuple(sorted((k, i)))], dist[tuple(sorted((k, j)))]
            new[(k, nxt)] = ((ni + nk) * dki + (nj + nk) * dkj - nk * h) / (ni + nj + nk)
        clusters[nxt] = clusters.pop(i) + clusters.pop(j)
        dist = {key: v for key, v in dist.items() if i not in key and j not in key}
        dist.update(new)
        merges.append((sorted(clusters[nxt]), h))
        nxt += 1
    return merges


def members(Z, t, n):
    """The items of the cluster made at row t of a linkage."""
    out = []
    for node in Z[t, :2].astype(int):
        out += [node] if node < n else members(Z, node - n, n)
    return sorted(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ward_d_matches_plain_lance_williams(seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 12))
    X[:, 6:] += X[:, :6] * rng.uniform(0.5, 3, 6)          # some strongly related pairs
    D = 1 - spearman_similarity(X)
    Z = ward_d_linkage(D)
    want = plain_ward_d(D)
    assert [members(Z, t, 12) for t in range(11)] == [m for m, _ in want]
    np.testing.assert_allclose(Z[:, 2], [h for _, h in want], rtol=1e-10)
    # SciPy's own "ward" (ward.D2) on D gives other heights: the square root trick matters
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform
    assert not np.allclose(linkage(squareform(D, checks=False), method="ward")[:, 2], Z[:, 2])


def test_cluster_labels_is_cutree():
    from scipy.cluster.hierarchy import fcluster

    rng = np.random.default_rng(4)
    D = 1 - spearman_similarity(rng.standard_normal((50, 15)))
    Z = ward_d_linkage(D)
    for k in range(1, 16):
        mine, theirs = cluster_labels(Z, k), fcluster(Z, k, criterion="maxclust")
        assert len(set(mine)) == k
        assert len({(a, b) for a, b in zip(mine, theirs)}) == k    # the same partition
    with pytest.raises(ValueError, match=r"k=16 is outside 1..15"):
        cluster_labels(Z, 16)


def test_hcas_support_is_the_best_feature_of_every_cluster_for_every_k():
    rng = np.random.default_rng(5)
    data = planted(n_queries=30, d=14, informative=(0, 3), seed=6)
    X = data.X.copy()
    X[:, 7:] = X[:, :7] + 0.2 * rng.random((len(X), 7)).astype(np.float32)   # near copies
    sel = HCAS().fit(X, data.y, data.qid)
    R = sel.scores_
    for k in range(1, 15):
        best = {int(c[np.lexsort((c, -R[c]))[0]]) for c in sel.clusters(k)}
        assert set(sel.support(k).tolist()) == best
    assert SELECTORS["hcas"].prefix_consistent  # the k-subsets are nested (hcas.py's docstring)
    with pytest.raises(ValueError, match=r"k=15 is outside 1..14"):
        sel.support(15)


# ------------------------------------------------------------------ searches against plain versions

def plain_ngas(R, S):
    """NGAS on dicts, as the authors' code reads (max/min take the first key on ties)."""
    n = len(R)
    rel = {f: R[f] for f in range(n)}
    sim = {f: {g: S[f, g] for g in range(n) if g != f} for f in range(n)}
    last = max(rel, key=rel.get)
    picked = [last]
    rel.pop(last)
    while rel:
        f_min = min(sim[last], key=sim[last].get)
        for f in sim:
            sim[f].pop(last, None)
        sim.pop(last)
        if len(rel) == 1:
            last = f_min
        else:
            f_max = max(sim[f_min], key=sim[f_min].get)
            last = f_min if rel[f_min] >= rel[f_max] else f_max
        picked.append(last)
        rel.pop(last)
    return picked


def plain_xgas(R, S, c):
    picked = [max(range(len(R)), key=lambda f: (R[f], -f))]
    free = [f for f in range(len(R)) if f != picked[0]]
    while free:
        p = max(1, int(np.floor(c * len(free) + 0.5 + 1e-9)))
        near = sorted(free, key=lambda f: (S[picked[-1], f], f))[:p]
        pick = max(near, key=lambda f: (R[f], -f))
        picked.append(pick)
        free.remove(pick)
    return picked


def random_problem(seed, n):
    rng = np.random.default_rng(seed)
    R = np.round(rng.random(n), 2)                          # ties in R
    S = np.round(np.abs(np.corrcoef(rng.standard_normal((n, 3 * n)))), 2)   # ties in S
    return R, S


@pytest.mark.parametrize("seed", range(5))
def test_ngas_and_xgas_match_plain_versions(seed):
    R, S = random_problem(seed, 40)
    assert ngas_order(R, S).tolist() == plain_ngas(R, S)
    for c in (0.05, 0.2, 0.5, 1.0):
        assert xgas_order(R, S, c).tolist() == plain_xgas(R, S, c)


def test_hcas_order_matches_cuts_of_the_plain_tree():
    R, S = random_problem(7, 25)
    S = np.abs(np.corrcoef(np.random.default_rng(8).standard_normal((25, 60))))   # no ties: one tree
    order, _ = hcas_order(R, S)
    merges = plain_ward_d(1 - S)
    for k in range(1, 26):
        clusters = {i: {i} for i in range(25)}
        for m, _ in merges[:25 - k]:
            for i in m:
                clusters[i] = set(m)
        groups = {frozenset(c) for c in clusters.values()}
        best = {max(g, key=lambda f: (R[f], -f)) for g in groups}
        assert set(order[:k].tolist()) == best


# ------------------------------------------------------------------ planted truth and the house rules

def grouped_queries(seed=0, n_queries=120, groups=4, copies=3, noise=3):
    """Labels from ``groups`` latent features (weights 4, 3, 2, 1); each latent appears as
    ``copies`` noisy copies (features g*copies .. g*copies + copies - 1), then ``noise`` features."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(8, 25, n_queries)
    m = int(sizes.sum())
    latent = rng.random((m, groups))
    X = np.hstack([np.repeat(latent, copies, axis=1) + 0.05 * rng.standard_normal((m, groups * copies)),
                   rng.random((m, noise))])
    score = latent @ np.arange(groups, 0, -1) + 0.1 * rng.standard_normal(m)
    y = np.searchsorted(np.quantile(score, [0.6, 0.85]), score).astype(np.int32)
    ptr = np.r_[0, np.cumsum(sizes)]
    return RankingData(X.astype(np.float32), y, ptr, np.arange(n_queries)), copies


@pytest.mark.parametrize("name", ["hcas", "mrmr"])
def test_one_feature_per_planted_group(name):
    """HCAS (4 clusters) and mRMR (first 4 picks) take one copy of each of the 4 latent features."""
    data, copies = grouped_queries()
    sel = make_selector(name).fit(data.X, data.y, data.qid)
    assert sorted(int(f) // copies for f in sel.support(4)) == [0, 1, 2, 3]
    assert int(sel.ranking_[0]) // copies == 0             # the strongest latent first


@pytest.mark.parametrize("name", ["ngas", "xgas"])
def test_greedy_starts_from_the_strongest_group_and_leaves_it(name):
    """NGAS / XGAS pick the most relevant feature first (a copy of the strongest latent), then a
    feature dissimilar to it: not another copy of the same latent."""
    data, copies = grouped_queries()
    sel = make_selector(name).fit(data.X, data.y, data.qid)
    first, second = (int(f) // copies for f in sel.ranking_[:2])
    assert first == 0 and second != 0


@pytest.mark.parametrize("name", ["ngas", "xgas", "hcas", "mrmr"])
def test_constant_features_go_last_and_ranking_is_complete(name):
    data = planted(n_queries=30, d=7, informative=(1, 4), seed=9)
    X = data.X.copy()
    X[:, 2] = 1.0                                           # constant everywhere
    X[:, 5] = np.repeat(np.arange(30), np.diff(data.query_ptr))   # constant within every query
    sel = make_selector(name).fit(X, data.y, data.qid)
    assert sorted(sel.ranking_.tolist()) == list(range(7))
    assert sel.ranking_[-2:].tolist() == [2, 5] and sel.searched_.tolist() == [0, 1, 3, 4, 6]
    assert sel.support(7).tolist() == sel.ranking_.tolist()
    with pytest.raises(ValueError, match=r"k=8 is outside 1..7"):
        sel.support(8)


@pytest.mark.parametrize("cls", [NGAS, XGAS, HCAS])
def test_every_feature_constant_or_one_searched(cls):
    data = planted(n_queries=10, d=3, seed=10)
    X = np.ones_like(data.X)
    assert cls().fit(X, data.y, data.qid).ranking_.tolist() == [0, 1, 2]
    X[:, 1] = data.X[:, 1]
    assert cls().fit(X, data.y, data.qid).ranking_.tolist() == [1, 0, 2]


def test_per_query_similarity_changes_the_search_input():
    """Query-level offsets make two features look alike pooled but not within queries."""
    rng = np.random.default_rng(11)
    data = planted(n_queries=40, d=3, informative=(0,), seed=12)
    offset = np.repeat(rng.random(40) * 10, np.diff(data.query_ptr))
    X = data.X.astype(float).copy()
    X[:, 1] += offset
    X[:, 2] = offset + rng.random(len(X))
    pooled = make_selector("ngas").fit(X, data.y, data.qid).similarity_
    per_query = make_selector("ngas", similarity="per_query").fit(X, data.y, data.qid).similarity_
    assert pooled[1, 2] > 0.8 and per_query[1, 2] < 0.2


def test_small_blocks_give_the_same_ranks(monkeypatch):
    """Many rows rank fewer features at a time (BLOCK_BYTES); the result does not change."""
    import ltrfs.scoring.spearman as spearman

    rng = np.random.default_rng(13)
    X = rng.integers(0, 6, (300, 9)).astype(np.float32)
    ptr = np.array([0, 40, 41, 200, 300])
    want = (spearman_similarity(X), spearman_similarity(X, ptr, per_query=True), average_ranks(X, ptr))
    monkeypatch.setattr(spearman, "BLOCK_BYTES", 48 * 300 * 2)   # two features per block
    got = (spearman_similarity(X), spearman_similarity(X, ptr, per_query=True), average_ranks(X, ptr))
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)


def test_registry_synthetic_data_first_pick_and_no_copies():
    """On the registry's synthetic data (8 informative, 8 redundant, 14 noise features) every method
    starts from the most relevant feature, an informative one; HCAS's 16 and mRMR's 8 first
    features never hold a feature together with its one-source redundant copy."""
    from ltrfs.datasets import synthetic

    full, truth = synthetic.make(n_queries=240, seed=0)
    train = full.subset_queries(np.arange(160))
    informative = {f - 1 for f in truth["informative"]}
    copies = [(f["id"] - 1, f["sources"][0] - 1) for f in truth["features"]
              if f["role"] == "redundant" and len(f["sources"]) == 1]
    assert copies                                          # the check below has something to check
    for name, k in (("ngas", 1), ("xgas", 1), ("hcas", 16), ("mrmr", 8)):
        sel = make_selector(name).fit(train.X, train.y, train.qid)
        assert int(sel.ranking_[0]) == int(np.argmax(sel.scores_)) and int(sel.ranking_[0]) in informative
        top = set(sel.ranking_[:k].tolist())
        assert not [pair for pair in copies if set(pair) <= top], name


def test_relevance_by_per_feature_lambdamart_on_vali():
    """relevance="lambdamart_vali": R(f) is the vali NDCG@10 of a LambdaMART trained on f alone
    (the authors' R, scored on vali instead of test); a constant feature gets the metric of one
    score for every document."""
    from ltrfs.checks import NeedsValidation
    from ltrfs.metrics import metric_per_query
    from ltrfs.rankers.lambdamart import LambdaMART

    data = planted(n_queries=30, d=4, informative=(2,), seed=14)
    vali = planted(n_queries=20, d=4, informative=(2,), seed=15)
    X = data.X.copy()
    X[:, 0] = 3.0
    sel = make_selector("ngas", relevance="lambdamart_vali", n_trees=5)
    assert sel.needs_validation() == ("ngas scores a LambdaMART of every feature on validation data when relevance "
                                      "is 'lambdamart_vali'", {"relevance": "single_feature"})
    with pytest.raises(NeedsValidation, match=r"^ngas: relevance='lambdamart_vali' .* or set relevance='single_feature'$"):
        sel.fit(X, data.y, data.qid)
    sel.fit(X, data.y, data.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    model = LambdaMART(n_estimators=5, early_stopping_rounds=None).fit(X[:, [2]], data.y, data.qid)
    want = metric_per_query(vali.y, model.predict(vali.X[:, [2]]), vali.query_ptr, "ndcg@10", ties="expected").mean()
    assert sel.scores_[2] == pytest.approx(want)
    flat = metric_per_query(vali.y, np.zeros(len(vali.y)), vali.query_ptr, "ndcg@10", ties="expected").mean()
    assert sel.scores_[0] == pytest.approx(flat) and sel.ranking_[0] == 2 and sel.ranking_[-1] == 0
    assert sel.chosen_["relevance"] == "lambdamart_vali"

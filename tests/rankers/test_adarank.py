"""Tests of ltrfs.rankers.adarank: a hand-worked first round on two queries, equality with a
plain-loop implementation of RankLib's AdaRank, determinism, model choice on validation and
quality on synthetic data."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from ltrfs.datasets.synthetic import make
from ltrfs.metrics import metric_per_query
from ltrfs.rankers.adarank import AdaRank, AdaRankMAP, AdaRankNDCG


def qid_of(ptr):
    return np.repeat(np.arange(len(ptr) - 1) * 5 + 2, np.diff(ptr))


# ----------------------------------------------------------------------------- naive oracle


def naive_measure(labels, scores, metric):
    """AP or NDCG@k (LETOR 4.0: discount 1 at ranks 1-2, 1/log2(i) after; 0 when n < k) of one
    query, documents sorted by score descending, ties in input order."""
    order = sorted(range(len(labels)), key=lambda i: -scores[i])  # sorted() is stable
    ranked = [labels[i] for i in order]
    if metric == "map":
        hits, total = 0, 0.0
        for pos, lab in enumerate(ranked, 1):
            if lab >= 1:
                hits += 1
                total += hits / pos
        return total / hits if hits else 0.0
    k = int(metric.split("@")[1])
    if len(ranked) < k:
        return 0.0

    def dcg(labs):
        return sum((2 ** lab - 1) * (1.0 if pos <= 2 else 1 / math.log2(pos))
                   for pos, lab in enumerate(labs[:k], 1))

    ideal = dcg(sorted(labels, reverse=True))
    return dcg(ranked) / ideal if ideal > 0 else 0.0


def naive_adarank(X, y, ptr, metric, n_rounds=500, tol=0.002, max_sel=5):
    """RankLib's AdaRank.learn() with enqueue, written with plain loops; returns (features, alphas)."""
    queries = [(list(y[a:b]), X[a:b]) for a, b in zip(ptr[:-1], ptr[1:])]
    d = X.shape[1]

    def E(q, scores):
        return naive_measure(queries[q][0], list(scores), metric)

    def model_scores(q, rankers, weights):
        Xq = queries[q][1]
        return [sum(w * Xq[i, f] for f, w in zip(rankers, weights)) for i in range(len(Xq))]

    nq = len(queries)
    s = {"w": [1.0 / nq] * nq, "rankers": [], "weights": [], "last_f": -1, "count": 0, "used": set(),
         "queue": [], "backup_w": [1.0 / nq] * nq, "backup_train": -1.0, "last_train": -1.0}

    def learn(t, enqueue):
        while t <= n_rounds:
            best, best_f = -1.0, None
            for f in range(d):
                if f in s["queue"] or f in s["used"]:
                    continue
                v = sum(E(q, queries[q][1][:, f]) * s["w"][q] for q in range(nq))
                if best < v:
                    best, best_f = v, f
            if best_f is None:
                break
            f = best_f
            if enqueue:
                if f == s["last_f"]:
                    s["queue"].append(f)
                    s["rankers"].pop()
                    s["weights"].pop()
                    s["w"] = list(s["backup_w"])
                    s["last_train"] = s["backup_train"]
                    t += 1
                    continue
                s["last_f"] = f
                s["backup_w"] = list(s["w"])
                s["backup_train"] = s["last_train"]
            num = sum(s["w"][q] * (1 + E(q, queries[q][1][:, f])) for q in range(nq))
            den = sum(s["w"][q] * (1 - E(q, queries[q][1][:, f])) for q in range(nq))
            alpha = 0.5 * math.log(num / den)
            s["rankers"].append(f)
            s["weights"].append(alpha)
            per_q = [E(q, model_scores(q, s["rankers"], s["weights"])) for q in range(nq)]
            trained = sum(per_q) / nq
            if not enqueue:
                if trained != s["last_train"]:
                    s["count"] = 0
                    s["used"].clear()
                elif s["last_f"] == f:
                    s["count"] += 1
                    if s["count"] == max_sel:
                        s["count"] = 0
                        s["used"].add(f)
                else:
                    s["count"] = 0
                    s["used"].clear()
                s["last_f"] = f
            if trained + tol - s["last_train"] <= 0:
                s["rankers"].pop()
                s["weights"].pop()
                break
            s["last_train"] = trained
            total = sum(math.exp(-alpha * e) for e in per_q)
            s["w"] = [w * math.exp(-alpha * e) / total for w, e in zip(s["w"], per_q)]
            t += 1
        return t

    t = learn(1, True)
    while s["queue"]:
        s["queue"].pop()
        t = learn(t, False)
    return s["rankers"], s["weights"]


# ----------------------------------------------------------------------------- hand-worked


def two_queries():
    # query 1: labels (1, 0); query 2: labels (0, 1, 0)
    X = np.array([[1.0, 0.0],
                  [0.0, 1.0],
                  [0.5, 0.1],
                  [0.1, 0.9],
                  [0.9, 0.3]])
    y = np.array([1, 0, 0, 1, 0])
    ptr = np.array([0, 2, 5])
    return X, y, ptr


@pytest.mark.parametrize("update", ["ranklib", "paper"])
def test_hand_worked_first_round(update):
    # MAP of each feature, per query:
    #   feature 0: q1 ranks (d1, d2) -> relevant first, AP 1; q2 ranks (d5, d3, d4) -> AP 1/3
    #   feature 1: q1 ranks (d2, d1) -> AP 1/2;                 q2 ranks (d4, d5, d3) -> AP 1
    # P = (1/2, 1/2): weighted performance f0 = 2/3, f1 = 3/4 -> feature 1.
    # alpha = 1/2 ln( (1/2 (1 + 1/2) + 1/2 (1 + 1)) / (1/2 (1 - 1/2) + 1/2 (1 - 1)) )
    #       = 1/2 ln(1.75 / 0.25) = 1/2 ln 7 = 0.972955.
    # f_1 = alpha x_1 ranks as feature 1: E(q, f_1) = (1/2, 1).
    # RankLib: P_2 ∝ P_1 exp(-alpha E) -> (7^-1/4, 7^-1/2) / sum = (0.619276, 0.380724).
    # paper:   P_2 ∝ exp(-E)           -> (e^-1/2, e^-1) / sum   = (0.622459, 0.377541).
    X, y, ptr = two_queries()
    model = AdaRankMAP(n_rounds=1, weight_update=update).fit(X, y, qid_of(ptr))
    alpha = 0.5 * math.log(7)
    assert model.features_.tolist() == [1]
    assert model.alphas_[0] == pytest.approx(alpha, rel=1e-12)
    np.testing.assert_allclose(model.coef_, [0.0, alpha], rtol=1e-12)
    if update == "ranklib":
        w = np.array([7 ** -0.25, 7 ** -0.5])
    else:
        w = np.array([math.exp(-0.5), math.exp(-1.0)])
    np.testing.assert_allclose(model.query_weights_, w / w.sum(), rtol=1e-12)
    assert model.train_scores_.tolist() == pytest.approx([0.75])
    assert model.n_iter_ == 1


def test_repeated_feature_is_rolled_back_and_queued():
    # seed 1: in phase 1 a feature chosen twice in a row is queued and the round before rolled
    # back; phase 2 (queued features released) may then pick one feature in consecutive rounds
    X, y, ptr = random_problem(1)
    ours = AdaRankMAP(n_rounds=60, ties="file_order").fit(X, y, qid_of(ptr))  # the oracle's (RankLib's) ties
    assert ours.n_rollbacks_ >= 1
    f = ours.features_
    assert (f[1:] == f[:-1]).any()
    assert ours.n_iter_ == len(ours.train_scores_) + ours.n_rollbacks_
    feats, alphas = naive_adarank(X, y, ptr, "map", n_rounds=60)
    assert f.tolist() == feats
    np.testing.assert_allclose(ours.alphas_, alphas, rtol=1e-12)


# ----------------------------------------------------------------------------- oracle


def random_problem(seed, n_queries=12, d=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 14, n_queries)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    X = np.round(rng.random((ptr[-1], d)), 2)  # rounded: some ties within queries
    latent = X[:, 0] + 0.5 * X[:, 1] + 0.6 * rng.standard_normal(ptr[-1])
    y = np.digitize(latent, [0.8, 1.4])
    return X, y, ptr


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("metric", ["map", "ndcg@5"])
def test_matches_plain_loop_oracle(seed, metric):
    X, y, ptr = random_problem(seed)
    # the oracle ranks tied scores in file order, as RankLib; the tie-aware measure is
    # metrics.metric_per_query's (tested against enumeration in test_metrics)
    ours = AdaRank(metric=metric, n_rounds=60, ties="file_order").fit(X, y, qid_of(ptr))
    feats, alphas = naive_adarank(X, y, ptr, metric, n_rounds=60)
    assert ours.features_.tolist() == feats
    np.testing.assert_allclose(ours.alphas_, alphas, rtol=1e-10)
    naive_scores = sum(a * X[:, f] for f, a in zip(feats, alphas)) if feats else np.zeros(len(y))
    np.testing.assert_allclose(ours.predict(X), naive_scores, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- behaviour


def synthetic_split(seed):
    data, _ = make(n_queries=160, seed=seed)
    ptr = data.query_ptr
    cut = ptr[100]
    return ((data.X[:cut], data.y[:cut], ptr[:101]), (data.X[cut:], data.y[cut:], ptr[100:] - cut))


@pytest.mark.parametrize("cls", [AdaRankNDCG, AdaRankMAP])
def test_beats_random_and_the_best_single_feature_on_synthetic(cls):
    (X, y, ptr), (Xt, yt, pt) = synthetic_split(11)
    model = cls().fit(X, y, qid_of(ptr))
    ours = metric_per_query(yt, model.predict(Xt), pt, "ndcg@10").mean()
    rng = np.random.default_rng(0)
    rand = np.mean([metric_per_query(yt, rng.random(len(yt)), pt, "ndcg@10").mean() for _ in range(5)])
    assert ours > rand + 0.1
    # AdaRank combines single features, so its margin over the best one is small (0.713 / 0.710 vs 0.707)
    best_single = max(metric_per_query(yt, Xt[:, f].astype(float), pt, "ndcg@10").mean() for f in range(Xt.shape[1]))
    assert ours > best_single
    assert model.seconds_ > 0 and model.n_iter_ >= len(model.alphas_)


def test_deterministic_and_pickles():
    (X, y, ptr), (Xt, _, _) = synthetic_split(12)
    a = AdaRankNDCG().fit(X, y, qid_of(ptr))
    b = AdaRankNDCG().fit(X, y, qid_of(ptr))
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    np.testing.assert_array_equal(a.features_, b.features_)
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(a.predict(Xt), c.predict(Xt))


def test_validation_keeps_best_model():
    (X, y, ptr), (Xv, yv, pv) = synthetic_split(13)
    model = AdaRankMAP(vali_metric="ndcg@10").fit(X, y, qid_of(ptr), Xv, yv, qid_of(pv))
    assert len(model.vali_scores_) == len(model.train_scores_) >= 1
    assert model.best_score_ == pytest.approx(model.vali_scores_.max())
    got = metric_per_query(yv, model.predict(Xv), pv, "ndcg@10").mean()
    assert got == pytest.approx(model.best_score_, abs=1e-12)
    assert model.best_iteration_ == len(model.alphas_) - 1


def test_names_defaults_clone_and_errors():
    from sklearn.base import clone

    assert AdaRankNDCG.name == "adarank_ndcg" and AdaRankNDCG().metric == "ndcg@5"
    assert AdaRankMAP.name == "adarank_map" and AdaRankMAP().metric == "map"
    assert AdaRankNDCG.default_grid == {} and AdaRankMAP.default_grid == {}
    m = AdaRankMAP(tolerance=0.01, enqueue=False)
    assert clone(m).get_params() == m.get_params()
    for kw, text in [({"metric": "err@3"}, "metric"), ({"n_rounds": 0}, "n_rounds"),
                     ({"tolerance": -1.0}, "tolerance"), ({"max_consecutive": 0}, "max_consecutive"),
                     ({"enqueue": "yes"}, "enqueue"), ({"weight_update": "adaboost"}, "weight_update"),
                     ({"vali_metric": "ndcg"}, "metric"), ({"convention": "x"}, "convention"),
                     ({"n_jobs": 0}, "n_jobs")]:
        with pytest.raises(ValueError, match=text):
            AdaRank(**kw).validate_params()
    with pytest.raises(ValueError, match="not fitted"):
        AdaRank().predict(np.zeros((2, 2)))


def test_without_enqueue_nothing_is_rolled_back():
    """enqueue=False: a feature picked again is kept (no queue, no undone rounds); the default
    RankLib rule rolls rounds back on the same data."""
    X, y, ptr = random_problem(1)
    plain = AdaRank(metric="map", n_rounds=60, enqueue=False).fit(X, y, qid_of(ptr))
    queued = AdaRank(metric="map", n_rounds=60).fit(X, y, qid_of(ptr))
    assert plain.n_rollbacks_ == 0 and queued.n_rollbacks_ > 0
    np.testing.assert_allclose(plain.predict(X), sum(a * X[:, f] for f, a in zip(plain.features_, plain.alphas_)))

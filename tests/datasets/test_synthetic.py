"""The synthetic generator: determinism, file = memory, planted truth visible in the data."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ltrfs import io
from ltrfs.datasets import synthetic


def within_query_tau(data, X=None) -> np.ndarray:
    """Kendall tau-b of every column of X with the labels, per query, averaged over the queries
    where both vary (queries with one label level or a constant column contribute nothing)."""
    X = data.X if X is None else X
    d = X.shape[1]
    total, count = np.zeros(d), np.zeros(d)
    for a, b in zip(data.query_ptr[:-1], data.query_ptr[1:]):
        y = data.y[a:b].astype(np.float64)
        sy = np.sign(y[:, None] - y[None, :])
        if not sy.any():
            continue
        sx = np.sign(X[a:b, None, :].astype(np.float64) - X[None, a:b, :])
        num = np.einsum("ij,ijk->k", sy, sx)
        den = np.sqrt((sy ** 2).sum() * (sx ** 2).sum(axis=(0, 1)))
        ok = den > 0
        total[ok] += num[ok] / den[ok]
        count[ok] += 1
    return np.divide(total, count, out=np.zeros(d), where=count > 0)


@pytest.fixture(scope="module")
def default_set():
    return synthetic.make(seed=7)


def test_deterministic_bytes(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    synthetic.generate(a, n_queries=40, seed=11)
    synthetic.generate(b, n_queries=40, seed=11)
    synthetic.generate(c, n_queries=40, seed=12)
    for name in ("all.txt", "truth.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert (a / "all.txt").read_bytes() != (c / "all.txt").read_bytes()


def test_file_equals_memory_and_format(tmp_path):
    truth = synthetic.generate(tmp_path, n_queries=25, seed=3)
    mem, mem_truth = synthetic.make(n_queries=25, seed=3)
    assert json.loads((tmp_path / "truth.json").read_text()) == json.loads(json.dumps(mem_truth))
    assert truth["n_rows"] == mem.n_rows
    data = io.read_letor(tmp_path / "all.txt", n_features=30)
    np.testing.assert_array_equal(data.y, mem.y)
    np.testing.assert_array_equal(data.query_ptr, mem.query_ptr)
    np.testing.assert_array_equal(data.query_ids, np.arange(1, 26))
    np.testing.assert_allclose(data.X, mem.X, rtol=0, atol=1e-6)
    assert data.docids[0] == "docid = S1-1"
    first = (tmp_path / "all.txt").read_text().splitlines()[0]
    assert first.startswith(f"{mem.y[0]} qid:1 1:") and first.endswith("#docid = S1-1")
    assert f" 30:{mem.X[0, 29]:.6f} " in first


def test_truth_roles_partition_feature_ids(default_set):
    data, truth = default_set
    d = data.n_features
    assert d == 30 and truth["n_features"] == 30
    ids = truth["informative"] + truth["redundant"] + truth["noise"] + truth["constant"]
    assert sorted(ids) == list(range(1, d + 1))
    assert (len(truth["informative"]), len(truth["redundant"]), len(truth["noise"])) == (8, 8, 14)
    roles = {f["id"]: f for f in truth["features"]}
    strengths = [roles[i]["strength"] for i in truth["informative"]]
    assert strengths == sorted(strengths, reverse=True)
    np.testing.assert_allclose(strengths, np.linspace(0.9, 0.3, 8), atol=1e-6)
    for g in truth["redundant"]:
        spec = roles[g]
        assert set(spec["sources"]) <= set(truth["informative"]) and 1 <= len(spec["sources"]) <= 2
        assert abs(sum(spec["weights"]) - 1) < 1e-5 and min(spec["weights"]) > 0
    # shuffled: the informative features are not simply the first columns
    assert sorted(truth["informative"]) != list(range(1, 9))


def test_informative_rank_labels_noise_does_not(default_set):
    data, truth = default_set
    tau = within_query_tau(data)
    inf = np.array(truth["informative"]) - 1
    noise = np.array(truth["noise"]) - 1
    red = np.array(truth["redundant"]) - 1
    assert tau[inf].min() > 0.1
    assert np.abs(tau[noise]).max() < 0.06
    assert tau[red].min() > 0.05
    # the planted strengths order the informative features (Spearman of strength vs tau)
    from scipy.stats import spearmanr

    strengths = [next(f["strength"] for f in truth["features"] if f["id"] == i) for i in truth["informative"]]
    assert spearmanr(strengths, tau[inf]).statistic > 0.9


def test_redundant_features_follow_their_sources(default_set):
    data, truth = default_set
    roles = {f["id"]: f for f in truth["features"]}
    for g in truth["redundant"]:
        src = roles[g]["sources"]
        best = max(abs(np.corrcoef(data.X[:, g - 1], data.X[:, s - 1])[0, 1]) for s in src)
        others = [i for i in truth["informative"] if i not in src]
        worst_other = max(abs(np.corrcoef(data.X[:, g - 1], data.X[:, o - 1])[0, 1]) for o in others)
        assert best > 0.45 and best > worst_other


def test_document_counts_and_labels(default_set):
    data, truth = default_set
    sizes = data.query_sizes()
    assert data.n_queries == 300 and 8000 <= data.n_rows <= 13000
    assert sizes.min() >= 2 and sizes.max() <= 300
    assert 15 <= np.median(sizes) <= 40
    assert (sizes <= 5).sum() >= 5 and (sizes >= 100).sum() >= 3  # from a few to a few hundred
    assert truth["docs_per_query"] == {"min": int(sizes.min()), "median": float(np.median(sizes)),
                                       "max": int(sizes.max())}
    counts = np.bincount(data.y, minlength=3)
    assert counts.tolist() == truth["label_counts"] and len(counts) == 3
    assert counts[0] > 0.6 * data.n_rows and counts[1] > counts[2] > 0
    relevant = np.add.reduceat((data.y > 0).astype(int), data.query_ptr[:-1])
    assert (relevant == 0).sum() == truth["queries_without_relevant"] >= 10


def test_query_level_normalisation(default_set):
    data, _ = default_set
    lo = np.minimum.reduceat(data.X, data.query_ptr[:-1], axis=0)
    hi = np.maximum.reduceat(data.X, data.query_ptr[:-1], axis=0)
    assert lo.min() == 0 and hi.max() == 1
    assert np.all((hi == 1) | (hi == 0)) and np.all(lo == 0)


def test_options_constant_unshuffled_raw_levels():
    data, truth = synthetic.make(n_queries=30, n_informative=3, n_redundant=2, n_noise=2, n_constant=2,
                                 shuffle=False, query_norm=False, n_levels=5, seed=1)
    assert truth["informative"] == [1, 2, 3] and truth["redundant"] == [4, 5]
    assert truth["noise"] == [6, 7] and truth["constant"] == [8, 9]
    assert np.all(data.X[:, 7:] == 0)
    assert data.X[:, :7].max() > 1 or data.X[:, :7].min() < 0  # raw values, not scaled
    assert data.y.max() <= 4 and len(truth["thresholds"]) == 4
    assert synthetic.make(n_queries=5, n_informative=0, n_redundant=0, n_noise=3)[0].n_features == 3


@pytest.mark.parametrize("kwargs, message", [
    ({"n_queries": 0}, "n_queries must be an integer >= 1"),
    ({"n_informative": 0, "n_redundant": 2}, "n_redundant > 0 needs n_informative > 0"),
    ({"docs_min": 10, "docs_max": 5}, "docs_min 10 exceeds docs_max 5"),
    ({"relevant_fraction": 1.5}, "relevant_fraction must be in"),
    ({"strength_min": 0.9, "strength_max": 0.5}, "strength_min exceeds strength_max"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        synthetic.make(**kwargs)


def test_generate_rejects_unknown_parameter(tmp_path):
    with pytest.raises(ValueError, match="unknown parameter 'n_docs'"):
        synthetic.generate(tmp_path, n_docs=3)
    assert list(tmp_path.iterdir()) == []


def test_label_fractions_set_each_levels_share():
    fractions = [0.52, 0.322, 0.133, 0.018, 0.007]  # MSLR-WEB10K's label distribution
    data, truth = synthetic.make(n_queries=400, n_levels=5, label_fractions=fractions, docs_median=100, seed=3)
    share = np.bincount(data.y, minlength=5) / data.n_rows
    assert truth["label_counts"] == np.bincount(data.y, minlength=5).tolist()
    np.testing.assert_allclose(share, fractions, atol=0.02)  # about 45,000 rows: sampling noise < 0.01
    assert share[3] > share[4] > 0


@pytest.mark.parametrize("fractions", [[0.5, 0.5], [0.5, 0.3, 0.3], [0.7, 0.4, -0.1], [0.5, 0.5, 0.0]])
def test_label_fractions_must_be_one_positive_share_per_level(fractions):
    with pytest.raises(ValueError, match=r"label_fractions must be n_levels \(3\) positive numbers summing to 1"):
        synthetic.make(n_queries=5, label_fractions=fractions)


def test_generate_streams_the_same_text_as_format_letor(tmp_path):
    data, _ = synthetic.make(n_queries=30, seed=4)
    synthetic.generate(tmp_path, n_queries=30, seed=4)
    assert (tmp_path / "all.txt").read_text() == synthetic.format_letor(data)
    assert "".join(synthetic.letor_chunks(data, chunk_rows=7)) == synthetic.format_letor(data)

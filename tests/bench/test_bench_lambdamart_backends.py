"""bench/bench_lambdamart_backends.py: a seeded share of whole queries on the first k features,
and one line per variant with XGBoost as the reference (ratio 1.00)."""
import numpy as np
import pytest

from conftest import bench_script, planted
from ltrfs import io


@pytest.fixture(scope="module")
def bench():
    return bench_script("bench_lambdamart_backends")


def test_load_keeps_whole_queries_of_the_share(bench, tmp_path):
    data = planted(n_queries=40, d=6, seed=3)
    io.save_npz(data, tmp_path / "train.npz")
    X, y, qid, ptr = bench.load(tmp_path / "train.npz", share=0.5, k=4)
    assert X.shape[1] == 4 and len(ptr) == 21 and np.array_equal(np.unique(qid), np.arange(20))
    sizes = set(np.diff(ptr).tolist())
    assert sizes <= set(data.query_sizes().tolist())
    first = np.flatnonzero(np.isin(data.X[:, 0], X[:ptr[1], 0]))  # the first kept query's rows
    assert np.array_equal(data.X[first][:, :4], X[:ptr[1]]) and np.array_equal(data.y[first], y[:ptr[1]])


def test_main_prints_each_variant_against_xgboost(bench, tmp_path, capsys):
    io.save_npz(planted(n_queries=30, d=5, informative=(1,), seed=1), tmp_path / "train.npz")
    io.save_npz(planted(n_queries=10, d=5, informative=(1,), seed=2), tmp_path / "vali.npz")
    assert bench.main([str(tmp_path), "--share", "1.0", "--convention", "letor4",
                       "--variants", "xgboost", "lightgbm"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("train ") and "30 queries (100%)" in lines[0]
    assert lines[1].startswith("xgboost ") and lines[1].endswith("ratio to xgboost 1.00")
    assert lines[2].startswith("lightgbm ") and "vali NDCG@10 0." in lines[2]

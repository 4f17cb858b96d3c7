"""bench/bench_sample_queries.py: the configs merged as --configfile merges them, and a method
fitted on all queries and on its sample compared (a sample of every query is the same fit:
Spearman 1 and the same top 10)."""
import numpy as np
import pytest
import yaml

from conftest import bench_script, planted
from ltrfs import io


@pytest.fixture(scope="module")
def bench():
    return bench_script("bench_sample_queries")


def test_configs_merge_recursively(bench, tmp_path):
    (tmp_path / "a.yaml").write_text(yaml.safe_dump({"methods": {"m": {"algorithm": "x", "params": {"p": 1}}}, "k": 1}))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump({"methods": {"m": {"sample_queries": 10, "params": {"q": 2}}}}))
    merged = bench.merged_config([tmp_path / "a.yaml", tmp_path / "b.yaml"])
    assert merged == {"methods": {"m": {"algorithm": "x", "params": {"p": 1, "q": 2}, "sample_queries": 10}}, "k": 1}


@pytest.mark.parametrize("sample, spearman, top", [(40, "1.000", "10"), (20, None, None)])
def test_rows_compare_the_sampled_fit_with_the_whole(bench, tmp_path, capsys, sample, spearman, top):
    io.save_npz(planted(n_queries=40, d=12, informative=(2,), seed=3), tmp_path / "train.npz")
    io.save_npz(planted(n_queries=10, d=12, seed=4), tmp_path / "vali.npz")
    config = {"methods": {"imp": {"algorithm": "importance", "params": {"metric": "ndcg@10"},
                                  "sample_queries": sample}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    assert bench.main([str(tmp_path), "--configfile", str(tmp_path / "c.yaml"), "--share", "1.0",
                       "--convention", "letor4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("40 of 40 training queries") and "10 of 10 vali queries" in out
    row = next(line.split() for line in out.splitlines() if line.startswith("imp "))
    assert int(row[1]) == sample
    if spearman:
        assert row[6:] == [spearman, top]
    else:
        assert -1 <= float(row[6]) <= 1 and 1 <= int(row[7]) <= 10 and np.isfinite(float(row[4]))

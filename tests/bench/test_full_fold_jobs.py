"""bench/full_fold_jobs.py: every benchmark file of a run becomes a row with the requests the run's
Snakemake log printed for that job (the last log wins); the CSV and the Markdown ratios."""
import csv

import pytest

from conftest import bench_script

HEAD = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


@pytest.fixture(scope="module")
def bench():
    return bench_script("full_fold_jobs")


def write_run(root):
    (root / "benchmarks/select/D/fold1").mkdir(parents=True)
    (root / "benchmarks/select/D/fold1/fs_bfs.tsv").write_text(HEAD + "120.5\t0:02:00\t2048.0\t1\t1\t1\t0\t0\t99\t110.25\n")
    (root / "benchmarks/download").mkdir(parents=True)
    (root / "benchmarks/download/D.tsv").write_text(HEAD + "30.0\t0:00:30\t512.0\t1\t1\t1\t0\t0\t99\t20.0\n")
    (root / ".snakemake/log").mkdir(parents=True)
    entry = ("localrule select:\n    input: x\n    benchmark: benchmarks/select/D/fold1/fs_bfs.tsv\n"
             "    wildcards: dataset=D\n    resources: tmpdir=/tmp, runtime={rt}, mem_mb={mb}, mem=4 GB\n")
    (root / ".snakemake/log/2026-01-01T000000.snakemake.log").write_text(entry.format(rt=60, mb=9000))
    (root / ".snakemake/log/2026-01-02T000000.snakemake.log").write_text(entry.format(rt=4, mb=4096))


def test_rows_hold_the_benchmark_and_the_last_request(bench, tmp_path):
    write_run(tmp_path)
    rows = {r["job"]: r for r in bench.jobs(tmp_path)}
    assert rows["select/D/fold1/fs_bfs"] == {
        "job": "select/D/fold1/fs_bfs", "rule": "select", "name": "fs_bfs", "cpu_s": 110.25, "wall_s": 120.5,
        "peak_mb": 2048.0, "asked_mb": "4096", "asked_min": "4"}
    assert rows["download/D"]["asked_mb"] is None and rows["download/D"]["cpu_s"] == 20.0


def test_csv_and_markdown(bench, tmp_path, capsys):
    write_run(tmp_path)
    assert bench.main([str(tmp_path), "--out", str(tmp_path / "jobs.csv")]) == 0
    with open(tmp_path / "jobs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["job"] for r in rows] == ["download/D", "select/D/fold1/fs_bfs"]
    table = capsys.readouterr().out
    # 4,096 MB asked of a 2,048 MB peak: 2.0x; 4 minutes asked of a 120.5 s job: 2.0x
    assert "| select | `fs_bfs` | 110 | 120 | 2.0 | 4.0 (2.0x) | 4 (2x) |" in table
    assert bench.markdown(bench.read(tmp_path / "jobs.csv")) == bench.markdown(bench.jobs(tmp_path))


def test_the_committed_table_is_the_docs_table(bench):
    """docs/full_size.md shows bench/full_fold_jobs.csv as this script prints it."""
    from conftest import REPO
    table = bench.markdown(bench.read(REPO / "bench/full_fold_jobs.csv"))
    assert table in (REPO / "docs/full_size.md").read_text()


def test_a_folder_without_benchmarks_is_one_line(bench, tmp_path, capsys):
    assert bench.main([str(tmp_path)]) == 2
    assert "is not a folder" in capsys.readouterr().err

"""bench/full_fold_jobs.py: every benchmark file of a run becomes a row, sized as the workflow
sizes the job (with the run's config); the sized rows merge into the calibration file, and
the Markdown table shows what the calibrated lines ask."""
import numpy as np
import pytest

from conftest import REPO, bench_script
from ltrfs.io.cache import save_npz
from ltrfs.pipeline.resources import request
from ltrfs.ranking_data import RankingData

HEAD = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


@pytest.fixture(scope="module")
def bench():
    return bench_script("full_fold_jobs")


def write_run(root):
    """A run folder of the default config (dataset ``synthetic``): a select job's and a
    leaderboard job's benchmarks, and the fold's prepared splits (4 + 2 + 1 queries of 5 rows,
    30 features)."""
    (root / "benchmarks/select/synthetic/fold1").mkdir(parents=True)
    (root / "benchmarks/select/synthetic/fold1/gas_e.tsv").write_text(
        HEAD + "120.5\t0:02:00\t2048.0\t1\t1\t1\t0\t0\t99\t110.25\n")
    (root / "benchmarks/leaderboard").mkdir(parents=True)
    (root / "benchmarks/leaderboard/board.tsv").write_text(HEAD + "30.0\t0:00:30\t512.0\t1\t1\t1\t0\t0\t99\t20.0\n")
    data = root / "results/demo/synthetic/fold1/data"
    data.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for split, q in (("train", 4), ("vali", 2), ("test", 1)):
        ptr = np.arange(0, 5 * q + 1, 5, dtype=np.int64)
        save_npz(RankingData(rng.random((5 * q, 30), dtype=np.float32), rng.integers(0, 3, 5 * q).astype(np.int32),
                             ptr, np.arange(q, dtype=np.int64)), data / f"{split}.npz")


def test_rows_are_sized_as_the_workflow_sizes_the_job(bench, tmp_path):
    write_run(tmp_path)
    plan = bench.load_plan([REPO / "config/config.yaml"], ["results_dir=results/demo"])
    rows = {r["job"]: r for r in bench.jobs(tmp_path, plan)}
    assert rows["select/synthetic/fold1/gas_e"] == {
        "job": "select/synthetic/fold1/gas_e", "rule": "select", "name": "gas_e", "dataset": "synthetic",
        "features": 30, "cpu_s": 110.25, "wall_s": 120.5, "peak_mb": 2048.0, "held": 30 * 30.0, "work": 30 * 30.0}
    board = rows["leaderboard/board"]
    assert board["held"] is None and board["cpu_s"] == 20.0  # a report job asks by input MiB: not sized


def test_costs_merge_and_markdown(bench, tmp_path, capsys):
    write_run(tmp_path)
    costs = tmp_path / "costs.csv"
    costs.write_text("job,rule,name,dataset,features,cpu_s,wall_s,peak_mb,held,work\n"
                     "select/synthetic/fold1/gas_e,select,gas_e,synthetic,30,1,1,1,1,1\n"
                     "select/other/fold1/waf,select,waf,other,10,2,2,2,2,2\n")
    args = [str(tmp_path), "--configfile", str(REPO / "config/config.yaml"), "--config", "results_dir=results/demo",
            "--costs", str(costs)]
    assert bench.main(args) == 0
    rows = bench.read(costs)
    assert [(r["job"], r["cpu_s"]) for r in rows] == [("select/other/fold1/waf", 2), ("select/synthetic/fold1/gas_e", 110.25)]
    table = capsys.readouterr().out
    mem, minutes, _ = request("select", "gas_e", 900.0, 900.0, 30)
    assert (f"| select | `gas_e` | 110 | 120 | 2.0 | {mem / 1024:.1f} ({mem / 2048:.1f}x) | "
            f"{minutes:,} ({minutes * 60 / 110.25:.1f}x) |") in table
    assert "| leaderboard | `board` | 20 | 30 | 0.5 |  |  |" in table


def test_the_committed_calibration_is_the_docs_table(bench):
    """docs/full_size.md shows the full fold's rows of the calibration file as this script prints them."""
    from ltrfs.pipeline.resources import COSTS_FILE
    rows = bench.read(COSTS_FILE)
    page = (REPO / "docs/full_size.md").read_text()
    assert bench.markdown([r for r in rows if r["dataset"] == "MSLR-WEB30K-standin"]) in page
    within, short, total = bench.check_counts(rows, "MSLR-WEB30K-standin")
    assert f"**{within} of {total} full-size jobs come within 1.5x** and {short} more are under 40 CPU-seconds" in page
    short_jobs = bench.short_requests(rows, "MSLR-WEB30K-standin")
    said = " ".join(page.split()).split(f"**{len(short_jobs)} full-size jobs**")[1].split(")")[0]
    assert all(f"`{name}`" in said for name, _ in short_jobs)


def test_refresh_page_rewrites_the_table_and_the_count(bench, tmp_path):
    from ltrfs.pipeline.resources import COSTS_FILE
    rows = bench.read(COSTS_FILE)
    page = tmp_path / "page.md"
    page.write_text("Intro.\n\n" + bench.markdown(rows[:2]) + "\n\nAfter: **1 of 2 full-size jobs come within 1.5x** here.\n")
    bench.refresh_page(page, rows, "MSLR-WEB30K-standin")
    text = page.read_text()
    full = bench.markdown([r for r in rows if r["dataset"] == "MSLR-WEB30K-standin"])
    within, short, total = bench.check_counts(rows, "MSLR-WEB30K-standin")
    assert text == (f"Intro.\n\n{full}\n\nAfter: **{within} of {total} full-size jobs come within 1.5x** and {short} "
                    "more are under 40 CPU-seconds here.\n")


def test_a_folder_without_benchmarks_is_one_line(bench, tmp_path, capsys):
    assert bench.main([str(tmp_path)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_check_predicts_one_dataset_from_the_others(bench):
    """Two sizes of a job on datasets S and M lie on a line; a third on L, twice as far along
    it, is predicted exactly (1.00x); one 3 times off is not within 1.5x."""
    def row(dataset, size, cpu, peak, name="gas_e"):
        return {"job": f"select/{dataset}/fold1/{name}", "rule": "select", "name": name, "dataset": dataset,
                "features": 10, "cpu_s": cpu, "wall_s": cpu, "peak_mb": peak, "held": size, "work": size}
    rows = [row("S", 100, 11.0, 200.0), row("M", 1000, 101.0, 1100.0), row("L", 2000, 201.0, 2100.0),
            row("S", 100, 11.0, 200.0, "waf"),
            row("M", 1000, 101.0, 1100.0, "waf"),
            row("L", 2000, 603.0, 2100.0, "waf")]
    text = bench.check(rows, "L")
    assert "| select | `gas_e` | 201 | 201 (1.00x) | 2.1 | 2.1 (1.00x) |" in text
    assert "| select | `waf` | 603 | 201 (0.33x) |" in text
    assert "1 of 2 jobs of L predicted within 1.5x (CPU time and memory) by the lines of the other datasets' jobs; 0 more" in text
    # waf's request from the line (1.5 x 201 s: 6 minutes) is short of its 603 s; the retry's 12 are not
    assert bench.short_requests(rows, "L") == [("waf", True)]
    assert text.endswith("requests from those lines short of what the job used: 1 (waf)")
    # a job of a few seconds predicted at a third of them still fits the one-minute request
    rows += [row("S", 100, 1.0, 200.0, "chi"), row("M", 1000, 2.0, 1100.0, "chi"), row("L", 2000, 9.0, 2100.0, "chi")]
    assert bench.check_counts(rows, "L") == (1, 1, 3)

"""bench/full_fold_jobs.py: every benchmark file of a run becomes a row, sized as the workflow
sizes the job (with the run's config); the sized rows merge into the calibration file, and
the Markdown table shows what the calibrated curves ask."""
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


def test_one_datasets_rows_leave_out_jobs_the_plan_does_not_know(bench, tmp_path):
    """A folder that ran another config's jobs too (a batched train job of a dataset this plan
    does not train) gives the asked dataset's rows without sizing the others."""
    write_run(tmp_path)
    (tmp_path / "benchmarks/train/other-dataset/fold1").mkdir(parents=True)
    (tmp_path / "benchmarks/train/other-dataset/fold1/chi.tsv").write_text(
        HEAD + "10.0\t0:00:10\t100.0\t1\t1\t1\t0\t0\t99\t9.0\n")
    plan = bench.load_plan([REPO / "config/config.yaml"], ["results_dir=results/demo"])
    rows = bench.jobs(tmp_path, plan, "synthetic")
    assert [r["job"] for r in rows] == ["select/synthetic/fold1/gas_e"]


def test_a_jobs_log_gives_its_exact_cpu_and_peak(bench, tmp_path):
    """Where a job's log ends with what it used (ltrfs.job_log.USAGE), that replaces the
    benchmark's sampled CPU-seconds, and the peak is the larger of the two; a batched train job's
    is in the log of its last ranker."""
    write_run(tmp_path)
    (tmp_path / "logs/select/synthetic/fold1").mkdir(parents=True)
    (tmp_path / "logs/select/synthetic/fold1/gas_e.log").write_text(
        "12:00:00 INFO fitted\n12:02:00 INFO job used 119.75 CPU-s and 1500.0 MB at peak (resident)\n")
    (tmp_path / "benchmarks/train/synthetic/fold1").mkdir(parents=True)
    (tmp_path / "benchmarks/train/synthetic/fold1/chi.tsv").write_text(HEAD + "50.0\t0:00:50\t900.0\t1\t1\t1\t0\t0\t99\t30.0\n")
    (tmp_path / "logs/train/synthetic/fold1/chi").mkdir(parents=True)
    (tmp_path / "logs/train/synthetic/fold1/chi/ranksvm.log").write_text("12:00:00 INFO fitted\n")
    (tmp_path / "logs/train/synthetic/fold1/chi/lambdamart.log").write_text(
        "12:00:50 INFO job used 49.5 CPU-s and 1024.0 MB at peak (resident)\n")
    rows = {r["job"]: r for r in bench.benchmarks(tmp_path)}
    assert (rows["select/synthetic/fold1/gas_e"]["cpu_s"], rows["select/synthetic/fold1/gas_e"]["peak_mb"]) == (119.75, 2048.0)
    assert (rows["train/synthetic/fold1/chi"]["cpu_s"], rows["train/synthetic/fold1/chi"]["peak_mb"]) == (49.5, 1024.0)
    assert rows["leaderboard/board"]["cpu_s"] == 20.0  # no log: the benchmark's


def test_a_batched_select_job_gives_one_row_per_method(bench, tmp_path):
    """select_batch: a batched select job's row becomes its methods' rows as rule select names
    them, each its part (its log's last line) plus an equal share of the job's CPU and wall
    seconds outside the parts; without every part's line, the job's row as it is."""
    write_run(tmp_path)
    plan = bench.load_plan([REPO / "config/config.yaml"], ["results_dir=results/demo", "select_batch=true"])
    methods = plan.select.batches()["synthetic"][1]
    assert len(methods) == 7  # the default run's: every one a baseline or a filter
    (tmp_path / "benchmarks/select_batch/synthetic").mkdir(parents=True)
    (tmp_path / "benchmarks/select_batch/synthetic/fold1.tsv").write_text(
        HEAD + "10.0\t0:00:10\t300.0\t1\t1\t1\t0\t0\t99\t9.0\n")
    logs = tmp_path / "logs/select/synthetic/fold1"
    logs.mkdir(parents=True)
    for i, m in enumerate(methods):  # parts of 1, 2, ..., 7 CPU-s (28 in all) in 1.5 s of wall each
        (logs / f"{m}.log").write_text(f"12:00:00 INFO part used {i + 1}.00 CPU-s in 1.50 s and {200 + i}.0 MB at "
                                       "peak (resident, the job's process so far)\n")
    (tmp_path / "logs/select_batch/synthetic").mkdir(parents=True)
    (tmp_path / "logs/select_batch/synthetic/fold1.log").write_text(
        "12:00:09 INFO job used 35.00 CPU-s and 206.0 MB at peak (resident)\n")
    rows = {r["job"]: r for r in bench.jobs(tmp_path, plan) if r["rule"] in ("select", "select_batch")}
    # 35 - 28 = 7 CPU-s and 10 - 7 x 1.5 = -0.5 s (none) of wall outside the parts: 1 CPU-s each
    assert set(rows) == {f"select/synthetic/fold1/{m}" for m in methods} | {"select/synthetic/fold1/gas_e"}
    first = rows[f"select/synthetic/fold1/{methods[0]}"]
    assert (first["name"], first["cpu_s"], first["wall_s"], first["peak_mb"], first["work"]) == \
        (methods[0], 2.0, 1.5, 200.0, 900.0)
    assert rows[f"select/synthetic/fold1/{methods[-1]}"]["cpu_s"] == 8.0
    (logs / f"{methods[0]}.log").write_text("12:00:00 INFO selected\n")  # a part that did not end
    rows = [r for r in bench.jobs(tmp_path, plan) if r["rule"] == "select_batch"]
    assert [(r["job"], r["cpu_s"]) for r in rows] == [("select_batch/synthetic/fold1", 35.0)]


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


def test_new_only_keeps_the_measured_rows_and_sums_what_was_added(bench, tmp_path, capsys):
    """A run on top of another (the neural board on the plain board's folder): the jobs the
    calibration file has keep their rows; the others are merged, printed and summed."""
    write_run(tmp_path)
    (tmp_path / "benchmarks/select/synthetic/fold1/ig.tsv").write_text(
        HEAD + "40.0\t0:00:40\t300.0\t1\t1\t1\t0\t0\t99\t35.5\n")
    costs = tmp_path / "costs.csv"
    costs.write_text("job,rule,name,dataset,features,cpu_s,wall_s,peak_mb,held,work\n"
                     "select/synthetic/fold1/gas_e,select,gas_e,synthetic,30,1,1,1,1,1\n")
    args = [str(tmp_path), "--configfile", str(REPO / "config/config.yaml"), "--config", "results_dir=results/demo",
            "--costs", str(costs), "--new-only"]
    assert bench.main(args) == 0
    rows = {r["job"]: r["cpu_s"] for r in bench.read(costs)}
    assert rows == {"select/synthetic/fold1/gas_e": 1, "select/synthetic/fold1/ig": 35.5}
    out = capsys.readouterr().out
    assert "`gas_e`" not in out and "| select | `ig` | 36 | 40 |" in out
    assert out.splitlines()[-3:] == ["leaderboard: 1 jobs, 20 CPU-s, 30 wall-s", "select: 1 jobs, 36 CPU-s, 40 wall-s",
                                     "all: 2 jobs, 56 CPU-s, 70 wall-s"]
    with pytest.raises(SystemExit):  # nothing to compare with: argparse's one line, exit 2
        bench.main([str(tmp_path), "--new-only"])
    assert "--new-only compares with a calibration file" in capsys.readouterr().err


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
    """Two sizes of a job on datasets S and M grow linearly; a third on L, twice as far, is
    predicted exactly (1.00x); one 3 times off is not within 1.5x; train jobs of one size count
    once, as the dearest of them."""
    def row(dataset, size, cpu, peak, name="gas_e", rule="select"):
        return {"job": f"{rule}/{dataset}/fold1/{name}", "rule": rule, "name": name, "dataset": dataset,
                "features": 10, "cpu_s": cpu, "wall_s": cpu, "peak_mb": peak, "held": size, "work": size}
    rows = [row("S", 100, 10.0, 200.0), row("M", 1000, 100.0, 1100.0), row("L", 2000, 200.0, 2100.0),
            row("S", 100, 10.0, 200.0, "waf"),
            row("M", 1000, 100.0, 1100.0, "waf"),
            row("L", 2000, 600.0, 2100.0, "waf")]
    text = bench.check(rows, "L")
    assert "| select | `gas_e` | 200 | 200 (1.00x) | 2.1 | 2.1 (1.00x) |" in text
    assert "| select | `waf` | 600 | 200 (0.33x) |" in text
    assert "1 of 2 jobs of L predicted within 1.5x (CPU time and memory) by the curves of the other datasets' jobs; 0 more" in text
    # waf's request from the curve (1.5 x 200 s: 5 minutes) is short of its 600 s; the retry's 10 are not
    assert bench.short_requests(rows, "L") == [("waf", True)]
    assert "requests from those curves short of what the job used: 1 (waf)" in text
    assert text.endswith("not checked): 0")
    # a job of a few seconds predicted at half of them still fits the one-minute request
    rows += [row("S", 100, 1.0, 200.0, "chi"), row("M", 1000, 2.0, 1100.0, "chi"), row("L", 2000, 9.0, 2100.0, "chi")]
    assert bench.check_counts(rows, "L") == (1, 1, 3)
    # two methods' train jobs on L: held to the dearest (300 s at twice M's 150: 1.00x), one row
    rows += [row("M", 1000, 150.0, 1100.0, "random", "train"), row("L", 2000, 300.0, 2100.0, "random", "train"),
             row("L", 2000, 120.0, 2100.0, "chi", "train")]
    for r in rows[-3:]:
        r["name"] = "ranksvm+lambdamart"  # the kind of every method's train job
    text = bench.check(rows, "L")
    assert "| train | `random` (the dearest of 2) | 300 | 300 (1.00x) |" in text
    assert bench.check_counts(rows, "L") == (2, 1, 4)
    # a kind no other dataset measured is named
    rows.append(row("L", 2000, 50.0, 2100.0, "mine"))
    assert bench.check(rows, "L").endswith("not checked): 1 (mine)")

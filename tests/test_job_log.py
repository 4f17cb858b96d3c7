"""What a workflow job's log says when the job ends with an exception (ltrfs.job_log.log_to):
one line for a problem of the input or of the machine, the traceback for a bug; and, last, what
the job used."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltrfs.job_log import job_cost, read_usage, usage_of
from ltrfs.ranking_data import DataError
from ltrfs.user_errors import error_line

REPO = Path(__file__).resolve().parents[1]

RAISE = {
    "a damaged file": "from ltrfs.ranking_data import DataError; raise DataError('x.npz: not a readable .npz file')",
    "a full disk": "import errno; raise OSError(errno.ENOSPC, 'No space left on device', 'results/x.npz')",
    "no permission": "import errno; raise OSError(errno.EACCES, 'Permission denied', 'results/x.npz')",
    "a bug": "raise KeyError('n_features')",
    "an unnamed OS error": "import errno; raise OSError(errno.ENOSPC, 'No space left on device')",
}
ONE_LINE = {
    "a damaged file": "ltrfs: error: x.npz: not a readable .npz file",
    "a full disk": "ltrfs: error: results/x.npz: no space left on device",
    "no permission": "ltrfs: error: results/x.npz: permission denied",
}


@pytest.mark.parametrize("case", sorted(RAISE))
def test_the_log_holds_one_line_for_the_user_and_the_traceback_for_a_bug(tmp_path, case):
    log = tmp_path / "job.log"
    code = f"from ltrfs.job_log import log_to; log_to({str(log)!r}); {RAISE[case]}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    text, last = log.read_text().rstrip().rsplit("\n", 1)
    assert result.returncode == 1 and read_usage(last) is not None
    if case in ONE_LINE:
        assert text.endswith(" CRITICAL " + ONE_LINE[case]) and "Traceback" not in text
        assert result.stderr.strip() == ONE_LINE[case]
    else:  # a bug, or an OS error that names no file: the traceback, to find where
        assert "Traceback (most recent call last)" in text and "Traceback" in result.stderr


def test_the_last_line_is_what_the_job_used_however_many_logs_it_moved_through(tmp_path):
    """A job burns 1.5 CPU-seconds in a child process and holds 200 MB: its last log says so
    (the kernel's count, not a sample), once, in the log it ended in."""
    first, last = tmp_path / "a.log", tmp_path / "b.log"
    code = (f"from ltrfs.job_log import log_to; log_to({str(first)!r}); log_to({str(last)!r}); "
            "import subprocess, sys; held = bytearray(200 * 2**20); "
            "subprocess.run([sys.executable, '-c', 'import time\\nt = time.process_time()\\n"
            "while time.process_time() - t < 1.5: pass'], check=True)")
    subprocess.run([sys.executable, "-c", code], check=True)
    used = read_usage(last.read_text())
    assert first.read_text() == "" and last.read_text().count("job used") == 1
    assert 1.5 <= used["cpu_s"] < 10 and 200 <= used["peak_mb"] < 2000
    assert read_usage("no such line") is None


def test_a_jobs_cost_is_the_larger_of_its_log_and_its_benchmark(tmp_path):
    """``usage_of`` finds a job's log by its benchmark's path; a batched train job's in the newest
    log of its rankers that is not a job of its own (a ranker with its own benchmark, such as a
    multi-thread one run by rule train); ``job_cost`` takes the larger of log and benchmark."""
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    line = "12:00:00 INFO job used {} CPU-s and {} MB at peak (resident)\n"
    bench, logs = tmp_path / "benchmarks/train/d/fold1", tmp_path / "logs/train/d/fold1"
    (bench / "m").mkdir(parents=True)
    (logs / "m").mkdir(parents=True)
    (bench / "m.tsv").write_text(head + "60\t0:01:00\t700.0\t1\t1\t1\t0\t0\t99\t30.0\n")  # the batch
    (bench / "m/mlp.tsv").write_text(head + "9\t0:00:09\t90.0\t1\t1\t1\t0\t0\t99\t7.0\n")  # rule train
    (logs / "m/ranksvm.log").write_text("12:00:00 INFO fitted\n")
    (logs / "m/lambdamart.log").write_text(line.format(100.0, 500.0))
    (logs / "m/mlp.log").write_text(line.format(7.0, 90.0))
    os.utime(logs / "m/ranksvm.log", (1, 1))  # the batch: ranksvm, then lambdamart, then the mlp job
    os.utime(logs / "m/lambdamart.log", (2, 2))
    assert usage_of(bench / "m.tsv") == {"cpu_s": 100.0, "peak_mb": 500.0}
    assert usage_of(bench / "m/mlp.tsv") == {"cpu_s": 7.0, "peak_mb": 90.0}  # the rule train job's own log
    assert job_cost(bench / "m.tsv") == (100.0, 700.0)
    (bench / "s.tsv").write_text(head + "60\t0:01:00\tNA\t1\t1\t1\t0\t0\t99\tNA\n")
    assert all(v != v for v in job_cost(bench / "s.tsv"))  # neither says: NaN
    assert usage_of(tmp_path / "elsewhere/x.tsv") is None


def test_a_full_disk_while_fetching_names_the_dataset_folder_and_keeps_nothing(tmp_path):
    """Generating (as extracting) a dataset past the process's file-size limit, as on a full
    disk: the download job's log says so in one line naming the folder, and no manifest (what a
    rerun would trust) is written."""
    import resource

    dest, log = tmp_path / "resources/synthetic-tiny", tmp_path / "download.log"
    code = ("from ltrfs.datasets import load_registry; from ltrfs.datasets.download import fetch; "
            f"from ltrfs.job_log import log_to; log_to({str(log)!r}); "
            f"reg = load_registry({str(REPO / 'config/datasets.yaml')!r}); "
            f"fetch('synthetic-tiny', reg['synthetic-tiny'], {str(dest)!r}, seed=1)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000)))
    assert result.returncode == 1
    assert result.stderr.strip() == (f"ltrfs: error: {dest}: file too large while fetching synthetic-tiny; "
                                     "nothing was kept"), result.stderr
    assert "Traceback" not in log.read_text() and not (dest / "manifest.json").exists()
    assert not [p for p in dest.rglob("*") if p.is_file()]


def test_a_part_of_a_batched_job_has_its_own_log_ending_with_what_it_used(tmp_path):
    """log_part: a part's records go to its own log, which ends with the part's CPU-seconds (1.2
    burnt here), wall seconds and the process's peak; the job's log takes the records again after
    it and still ends with the whole job's usage; a part that fails says why in its own log."""
    job, first, second = tmp_path / "job.log", tmp_path / "a.log", tmp_path / "b.log"
    code = (f"import logging, time\nfrom ltrfs.job_log import log_part, log_to\nlog_to({str(job)!r})\n"
            "log = logging.getLogger('ltrfs')\nlog.info('loaded')\n"
            f"with log_part({str(first)!r}):\n    log.info('first')\n    t = time.process_time()\n"
            "    while time.process_time() - t < 1.2: pass\n"
            "log.info('between')\n"
            f"with log_part({str(second)!r}):\n    from ltrfs.ranking_data import DataError\n"
            "    raise DataError('x.npz: not a readable .npz file')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    lines = first.read_text().rstrip().splitlines()
    part = read_usage(lines[-1])
    assert lines[0].endswith("INFO first") and " INFO part used " in lines[-1] and len(lines) == 2
    assert 1.2 <= part["cpu_s"] < 5 and part["wall_s"] >= part["cpu_s"] - 0.1 and part["peak_mb"] > 10
    failed = second.read_text().rstrip().splitlines()
    assert failed[0].endswith(" CRITICAL " + error_line(DataError("x.npz: not a readable .npz file")))
    assert " INFO part used " in failed[-1]
    whole = job.read_text().rstrip().splitlines()
    assert [line.split(" ", 2)[2] for line in whole[:2]] == ["loaded", "between"]
    assert " job used " in whole[-1] and read_usage(whole[-1])["cpu_s"] >= part["cpu_s"]
    assert "wall_s" not in read_usage(whole[-1])
    assert job_cost(first) == (part["cpu_s"], part["peak_mb"])  # a part's cost: its log's line

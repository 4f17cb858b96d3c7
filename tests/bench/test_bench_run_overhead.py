"""bench/bench_run_overhead.py reads Snakemake's own CPU-seconds and its jobs' apart (a two-job
Snakefile whose jobs write their own CPU time: the children's reading must hold them)."""
import subprocess
import sys

import pytest

from conftest import bench_script

SNAKEFILE = """
rule all:
    input: expand("cpu{i}.txt", i=[1, 2])

rule burn:
    output: "cpu{i}.txt"
    shell: 'PYTHON -c "import time; sum(range(3 * 10**7)); open(\\'{output}\\', \\'w\\').write(str(time.process_time()))"'
"""


@pytest.fixture(scope="module")
def bench():
    return bench_script("bench_run_overhead")


def test_the_jobs_cpu_is_counted_as_the_childrens(bench, tmp_path):
    snakefile = tmp_path / "Snakefile"
    snakefile.write_text(SNAKEFILE.replace("PYTHON", sys.executable))
    result = bench.measure(tmp_path / "work", [], cores=1, snakefile=snakefile)
    jobs_cpu = sum(float((tmp_path / "work" / f"cpu{i}.txt").read_text()) for i in (1, 2))
    assert jobs_cpu > 0.2
    assert result["children"] >= jobs_cpu
    assert result["own"] > 0 and result["wall"] > 0
    assert result["jobs"] == 3  # the two burn jobs and the target rule
    assert result["share"] == pytest.approx(result["own"] / (result["own"] + result["children"]))


def test_a_failed_run_is_one_message(bench, tmp_path):
    snakefile = tmp_path / "Snakefile"
    snakefile.write_text('rule all:\n    output: "x"\n    shell: "exit 3"\n')
    with pytest.raises(SystemExit, match="the run failed"):
        bench.measure(tmp_path / "work", [], cores=1, snakefile=snakefile)


def test_the_machine_speed_reference_is_the_median_of_one_thread_runs(bench, monkeypatch):
    """Each reference run is a fresh interpreter with BLAS held to one thread; the reported
    seconds are the median of the runs, beside the versions they ran on."""
    outputs, envs = iter(["3.0 3.11.7 2.2.6\n", "1.0 3.11.7 2.2.6\n", "2.0 3.11.7 2.2.6\n"]), []

    def run(argv, env, **kwargs):
        envs.append(env)
        assert argv[1:3] == ["-c", bench._REFERENCE]
        return subprocess.CompletedProcess(argv, 0, stdout=next(outputs))

    monkeypatch.setattr(bench.subprocess, "run", run)
    assert bench.reference_seconds(repeats=3) == (2.0, "Python 3.11.7, NumPy 2.2.6")
    assert len(envs) == 3
    assert all(e["OMP_NUM_THREADS"] == e["OPENBLAS_NUM_THREADS"] == e["MKL_NUM_THREADS"] == "1" for e in envs)


def test_the_reference_workload_runs(bench):
    seconds, versions = bench.reference_seconds(repeats=1)
    assert seconds > 0.05 and versions.startswith("Python 3.")

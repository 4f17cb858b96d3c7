"""profiles/slurm on a real SLURM: a one-node cluster on this machine, started by
tests/workflow/slurm/start-cluster.sh (munge, slurmctld, slurmd from Debian's packages; partition
`compute`, no accounting).

What runs: the default config's experiment `demo` (config/config.yaml), shrunk by an override
config file to the registry's `synthetic-tiny` dataset (60 queries, 12 features), fold 1
only, k in {3, 6}, methods waf and importance, rankers ranksvm and lambdamart: 15 SLURM jobs
(download, prepare, reference, score, select, train, tables, figures, feature reports). It
runs once locally (`--cores 2`) and once through `--profile profiles/slurm`, the profile
unchanged except two test-only flags: the first status check after 2 s instead of 40 s (each
of the ~8 DAG levels would otherwise wait 40 s) and keeping the SLURM logs of successful jobs
(the evidence checked below). The tables must be byte-identical, and every job but `all` must
have gone through sbatch and left a SLURM log.

Needs root and apt-get (Debian); skips with the reason otherwise, or when the daemons do not
start. Measured here (2 cores, shared with other work): 2 min 19 s on a machine without the
SLURM packages (8 s of it to install and start SLURM), 2 min 9 s with them (docs/cluster.md).
Run by hand: pytest -m slurm tests/workflow/test_slurm.py
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO
from test_workflow import planned_jobs, write_config

pytestmark = [pytest.mark.slurm, pytest.mark.slow, pytest.mark.long]

START = REPO / "tests/workflow/slurm/start-cluster.sh"
STOP = REPO / "tests/workflow/slurm/stop-cluster.sh"
PROFILE = REPO / "profiles/slurm"
# merged over config/config.yaml (Snakemake merges config files key by key; lists are replaced)
OVERRIDE = {
    "datasets_file": str(REPO / "config/datasets.yaml"),
    "experiments": {"demo": {"datasets": ["synthetic-tiny"], "folds": [1], "k": [3, 6],
                             "methods": ["waf", "importance"], "rankers": ["ranksvm", "lambdamart"]}},
}
TEST_FLAGS = ["--slurm-init-seconds-before-status-checks", "2", "--slurm-keep-successful-logs"]
SUBMITTED = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", re.M)


def _one_line(text: str, n: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) or "(no output)"


@pytest.fixture(scope="module")
def slurm_cluster():
    """A running one-node SLURM (started here, and stopped again afterwards, when it was not up)."""
    if os.geteuid() != 0:
        pytest.skip("SLURM test skipped: needs root to install and start SLURM (run as root: pytest -m slurm tests/workflow/test_slurm.py)")
    if shutil.which("apt-get") is None or not Path("/etc/debian_version").exists():
        pytest.skip("SLURM test skipped: needs Debian's apt-get to install slurmctld, slurmd and munge")
    try:
        start = subprocess.run(["bash", str(START)], capture_output=True, text=True, timeout=300,
                               stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.skip("SLURM test skipped: tests/workflow/slurm/start-cluster.sh did not finish in 5 minutes")
    if start.returncode != 0:
        # stop what did start (only a cluster of the script's own slurm.conf)
        subprocess.run(["bash", str(STOP)], capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
        pytest.skip(f"SLURM test skipped: the cluster did not start: {_one_line(start.stderr or start.stdout, 1)}")
    started_here = "already running" not in start.stdout
    installed = re.search(r"^start-cluster: installing (.+)$", start.stdout, re.M)
    yield
    if started_here:
        subprocess.run(["bash", str(STOP)], capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    if installed:
        # leave the machine as the test found it: with SLURM's client tools installed and no
        # controller, every later Snakemake start waits 10 s (the executor plugin probes scontrol)
        subprocess.run(["apt-get", "purge", "-y", "-qq", *installed.group(1).split()], capture_output=True,
                       timeout=300, stdin=subprocess.DEVNULL)


def run_snakemake(workdir: Path, *args: str, timeout: float = 420) -> str:
    """Snakemake on the shrunk default config in ``workdir``; its output, or a one-line failure."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
           "--configfile", str(REPO / "config/config.yaml"), str(workdir / "config.yaml"), *args]
    # own process group: on a timeout, SIGINT lets the executor cancel its SLURM jobs
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        (workdir / "snakemake.log").write_text(out)
        pytest.fail(f"snakemake {' '.join(args)} did not finish in {timeout:.0f} s "
                    f"(log: {workdir / 'snakemake.log'}): {_one_line(out)}", pytrace=False)
    (workdir / "snakemake.log").write_text(out)
    if proc.returncode != 0:
        pytest.fail(f"snakemake {' '.join(args)} failed (log: {workdir / 'snakemake.log'}): "
                    f"{_one_line(out, 6)}", pytrace=False)
    return out


def tables(workdir: Path) -> dict[str, bytes]:
    root = workdir / "results"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.glob("*/tables/**/*.csv"))}


def test_slurm_profile_runs_the_workflow_like_a_local_run(slurm_cluster, tmp_path):
    local, cluster = tmp_path / "local", tmp_path / "slurm"
    for workdir in (local, cluster):
        workdir.mkdir()
        write_config(workdir, OVERRIDE)
    jobs = planned_jobs(subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(cluster), "-n",
         "--configfile", str(REPO / "config/config.yaml"), str(cluster / "config.yaml")],
        capture_output=True, text=True))
    remote = sum(jobs.values()) - jobs.get("all", 0)  # `all` has no command: it never leaves the host

    # side by side: the SLURM run mostly waits for its status checks
    with ThreadPoolExecutor(2) as pool:
        local_run = pool.submit(run_snakemake, local, "--cores", "2")
        out = run_snakemake(cluster, "--profile", str(PROFILE), *TEST_FLAGS)
        local_run.result()

    # the same tables, byte for byte
    expected = tables(local)
    assert any(name.endswith("tables/demo.csv") for name in expected), sorted(expected)
    got = tables(cluster)
    assert sorted(got) == sorted(expected)
    differ = [name for name in expected if got[name] != expected[name]]
    assert not differ, f"tables differ between the local and the SLURM run: {differ}"

    # every job went through sbatch, ran as a SLURM job (its log is the job's output) and finished
    submitted = SUBMITTED.findall(out)
    assert len(submitted) >= remote > 0, f"{len(submitted)} SLURM submissions for {remote} jobs"
    assert "SLURM run ID" in out and "has been submitted" in out
    for job_id, log in submitted:
        assert ".snakemake/slurm_logs/" in log and Path(log).is_file(), f"SLURM job {job_id}: no log {log}"
        assert "--executor slurm-jobstep" in Path(log).read_text(), f"SLURM job {job_id} did not run the job step"
    ids = ",".join(job_id for job_id, _ in submitted)
    queue = subprocess.run(["squeue", "--states=all", "--noheader", "--format=%i|%T", f"--jobs={ids}"],
                           capture_output=True, text=True, timeout=30)
    # squeue lists finished jobs for MinJobAge (300 s): the later ones at least are still there
    states = dict(line.split("|", 1) for line in queue.stdout.split())
    assert states, f"squeue knows none of the submitted jobs: {_one_line(queue.stderr)}"
    assert set(states.values()) == {"COMPLETED"}, states

"""Snakemake's own share of a workflow run's CPU-seconds: its main process against its jobs.

    python bench/bench_run_overhead.py [--workdir DIR] [-- SNAKEMAKE ARGUMENTS ...]

Runs Snakemake in a fresh interpreter of its own and reads, when it exits, that process's
CPU-seconds (``RUSAGE_SELF``: building the DAG, scheduling, the input functions, writing each
job's script preamble, the ``benchmark:`` samplers, the metadata) and its children's
(``RUSAGE_CHILDREN``: every job's process tree, the Python starts and imports included). The
share is own / (own + children): the reference is the run's own work measured in the same run.
Goal (issue 42): under 10% on an idle machine. Without arguments it runs the default workflow
(``config/config.yaml``, 118 jobs) in a new temporary working directory; arguments after ``--``
go to Snakemake unchanged, for instance::

    python bench/bench_run_overhead.py --workdir /tmp/mq -- --configfile config/mq2008.yaml \\
        --config mirror=../shared/data

Unlike the sum of the jobs' ``benchmarks/`` files, this misses nothing: Snakemake's samplers
read a job's CPU time every 0.5 s for its first 15 s, then every 30 s, and what a job spends
after its last sample is in no benchmark file.

The machine's speed that day: a fixed one-thread NumPy workload (``_REFERENCE``: sorting,
matrix products, a Python loop; about 2 s) timed in a fresh interpreter before and after the
run, the median of 3 each (with the Python and NumPy versions it ran on: it depends on them).
Runs on other days compare by the wall time in units of it (the same jobs took 10% more
CPU-seconds on 2026-11-30 than on 2026-11-29, docs/leaderboard.md). Its six runs are outside
Snakemake's process: a ``/usr/bin/time`` around this script counts them (about 10 CPU-s).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 0.10

#: run in the child interpreter: Snakemake's command line, then the two rusage readings as JSON
_CHILD = """
import atexit, json, resource, sys, time
start = time.perf_counter()
def _report():
    own, kids = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    sys.stderr.write("BENCH_RUN_OVERHEAD " + json.dumps(dict(
        wall=time.perf_counter() - start, own=own.ru_utime + own.ru_stime,
        children=kids.ru_utime + kids.ru_stime)) + "\\n")
atexit.register(_report)
from snakemake.cli import main
sys.argv = ["snakemake"] + sys.argv[1:]
main()
"""


#: the machine-speed reference: one thread, the same work every time (seeded), its seconds printed
_REFERENCE = """
import platform, time, numpy as np
rng = np.random.default_rng(0)
x, a = rng.random(2_000_000), rng.random((400, 400))
start = time.process_time()
for _ in range(10):
    np.sort(x)
    b = a
    for _ in range(20):
        b = a @ b / 400
    total = 0
    for i in range(1_000_000):
        total += i % 7
print(time.process_time() - start, platform.python_version(), np.__version__)
"""

#: the environment that keeps the reference on one thread
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def reference_seconds(repeats: int = 3) -> tuple[float, str]:
    """CPU-seconds of ``_REFERENCE`` in a fresh one-thread interpreter, the median of ``repeats``
    runs, and the versions it ran on (``"Python 3.11.7, NumPy 2.2.6"``)."""
    times, versions = [], ""
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", _REFERENCE], env=dict(os.environ, **ONE_THREAD),
                              capture_output=True, text=True, check=True)
        seconds, python, numpy = done.stdout.split()
        times.append(float(seconds))
        versions = f"Python {python}, NumPy {numpy}"
    return sorted(times)[len(times) // 2], versions


def measure(workdir: Path, snakemake_args: list[str], cores: int = 2, snakefile: Path = ROOT / "Snakefile") -> dict:
    """Run Snakemake (``--cores``, ``snakefile``, default the checkout's, in ``workdir``) and
    return its wall seconds, its own and its children's CPU-seconds, the share and the number
    of jobs run."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    args = ["-s", str(snakefile), "-d", str(workdir), "--cores", str(cores), *snakemake_args]
    done = subprocess.run([sys.executable, "-c", _CHILD, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    lines = [line for line in done.stderr.splitlines() if line.startswith("BENCH_RUN_OVERHEAD ")]
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.splitlines()[-15:])
        raise SystemExit(f"bench_run_overhead: the run failed (exit {done.returncode}):\n{tail}")
    result = json.loads(lines[-1].split(" ", 1)[1])
    result["jobs"] = sum(1 for line in done.stderr.splitlines() if line.startswith(("rule ", "localrule ")))
    result["share"] = result["own"] / (result["own"] + result["children"])
    return result


def main() -> None:
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    own, passed = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, help="Snakemake's working directory (default: a new temporary one)")
    parser.add_argument("--cores", type=int, default=2)
    options = parser.parse_args(own)
    if not passed:
        passed = ["--configfile", str(ROOT / "config" / "config.yaml"),
                  "--config", f"datasets_file={ROOT / 'config' / 'datasets.yaml'}"]
    before, versions = reference_seconds()
    with tempfile.TemporaryDirectory(prefix="ltrfs-overhead-") as scratch:
        workdir = options.workdir or Path(scratch)
        r = measure(workdir, passed, options.cores)
    after, _ = reference_seconds()
    print(f"run: {' '.join(passed)}")
    print(f"machine speed: the reference workload ({versions}) took {before:.2f} CPU-s before the run and "
          f"{after:.2f} after; the run's wall time is {r['wall'] / ((before + after) / 2):,.0f} of them")
    print(f"jobs {r['jobs']}, wall {r['wall']:.1f} s on {options.cores} cores")
    print(f"Snakemake's own process {r['own']:.1f} CPU-s ({1000 * r['own'] / max(r['jobs'], 1):.0f} ms a job), "
          f"its jobs {r['children']:.1f} CPU-s")
    print(f"share {r['share']:.1%} (goal under {GOAL:.0%}: {'met' if r['share'] < GOAL else 'NOT met'})")


if __name__ == "__main__":
    main()

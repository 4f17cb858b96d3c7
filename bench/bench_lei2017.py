"""Lei & Han beyond the report (experiment ``lei2017_full``) at a fraction of MSLR-WEB10K's size,
extrapolated to the full size.

The workflow runs the experiment as a user would (``snakemake --cores N --configfile
config/config.yaml config/papers/lei2017.yaml``, ``datasets_present_only`` so that the generated
``MSLR-WEB10K-standin`` runs) in a temporary folder, twice: on the stand-in shrunk to 1/(2s) and
to 1/s of its 10,000 queries (``--scale s``, default 10: 500 and 1,000 queries, about 36,000 and
72,000 training rows against the full 723,000). Every job's CPU seconds and peak memory come
from its Snakemake ``benchmarks/`` file (CPU time, not wall time, so that other work on the
machine does not inflate it; every job of this experiment runs on one thread). A job's CPU time
is a floor ``a`` (starting Python and importing: the cheapest job's time at the larger size)
plus a part that grows with the data, extrapolated with the exponent its own two measurements
give: ``t_full = a + v * s ** b``, ``v = t - a``, ``b = log2(v / v_half)`` clipped to [1, 2] (no
job is assumed to scale better than linearly). Peak memory is extrapolated on the straight line
through the two measurements (memory grows with the rows held).

Printed: per job, measured seconds at both sizes, the exponent and the extrapolated seconds and
peak memory; then the extrapolated full-size CPU time and two wall-time figures on N cores: the
lower bound max(CPU / N, longest chain of jobs) and a greedy list schedule of the jobs in the
workflow's order (what ``--cores N`` does, up to job order). The reference is the goal of 60
minutes on 2 cores with under 8 GiB per job: the ratio of each estimate to it is printed.
With ``--measured DIR [DIR ...]`` (``benchmarks/`` folders of full-size runs; a later folder
wins for a job in several) the measured CPU seconds and memory are printed beside the
extrapolation.

Run: ``python bench/bench_lei2017.py [--scale 10] [--cores 2] [--measured .../benchmarks ...]``
(about 10 minutes at the default scale on 2 cores).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]
DATASET = "MSLR-WEB10K-standin"
EXPERIMENT = "lei2017_full"
GOAL_MINUTES, GOAL_MEMORY_GIB = 60.0, 8.0


def run(workdir: Path, n_queries: int, cores: int) -> tuple[float, pd.DataFrame]:
    """Run the experiment on the stand-in with ``n_queries`` queries; (wall seconds, jobs)."""
    registry = yaml.safe_load((REPO / "config/datasets.yaml").read_text())
    registry[DATASET]["generator"]["n_queries"] = n_queries
    for entry in registry.values():  # the copy lives elsewhere: feature-name files by absolute path
        if isinstance(entry.get("feature_names"), str):
            entry["feature_names"] = str(REPO / "config" / entry["feature_names"])
    workdir.mkdir(parents=True)
    (workdir / "datasets.yaml").write_text(yaml.safe_dump(registry))
    overlay = {"datasets_file": str(workdir / "datasets.yaml"), "datasets_present_only": True,
               "run": [EXPERIMENT], "experiments": {EXPERIMENT: {"artefacts": []}}}
    (workdir / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
                             "--configfile", str(REPO / "config/config.yaml"), str(REPO / "config/papers/lei2017.yaml"),
                             str(workdir / "overlay.yaml"), "--cores", str(cores)], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"the workflow failed at {n_queries} queries:\n{result.stderr[-3000:]}")
    return wall, jobs_of(workdir / "benchmarks")


def jobs_of(benchmarks: Path) -> pd.DataFrame:
    """One row per job of a run's ``benchmarks/`` folder: job (path without the suffix), rule,
    seconds (CPU), max_rss (MB)."""
    rows = []
    for path in sorted(benchmarks.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        job = str(path.relative_to(benchmarks).with_suffix(""))
        rss = pd.to_numeric(frame["max_rss"], errors="coerce").fillna(0.0)
        rows.append({"job": job.replace(DATASET + "/", ""), "rule": job.split("/")[0],
                     "seconds": float(pd.to_numeric(frame["cpu_time"], errors="coerce").fillna(0.0).iloc[0]),
                     "max_rss": float(rss.iloc[0])})
    return pd.DataFrame(rows)


def chain(job: str) -> str:
    """The stage of the chain download -> prepare -> select -> train -> tables a job belongs to."""
    return job.split("/")[0]


def schedule(jobs: pd.DataFrame, cores: int) -> tuple[float, float]:
    """(greedy list-schedule makespan, longest chain) in seconds of ``jobs`` (seconds_full) on
    ``cores``: the stages run in the workflow's order, a train job after its method's select."""
    t = dict(zip(jobs.job, jobs.seconds_full))
    pre = sum(v for k, v in t.items() if chain(k) in ("download", "prepare"))
    select = {k.split("/")[-1]: v for k, v in t.items() if chain(k) == "select"}
    trains = [(k, v) for k, v in t.items() if chain(k) == "train"]
    tail = sum(v for k, v in t.items() if chain(k) not in ("download", "prepare", "select", "train"))
    longest = pre + max(select.get(k.split("/")[-2], 0.0) + v for k, v in trains) + tail
    # greedy: select jobs longest first, then each train job as soon as its method is selected
    free = [pre] * cores
    done = {}
    for method, seconds in sorted(select.items(), key=lambda kv: -kv[1]):
        i = int(np.argmin(free))
        free[i] += seconds
        done[method] = free[i]
    for job, seconds in sorted(trains, key=lambda kv: (done.get(kv[0].split("/")[-2], pre), -kv[1])):
        i = int(np.argmin(free))
        free[i] = max(free[i], done.get(job.split("/")[-2], pre)) + seconds
    return max(free) + tail, longest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=10, help="run at 1/scale and 1/(2 scale) of 10,000 queries")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--measured", type=Path, nargs="+", help="benchmarks/ folders of full-size runs")
    parser.add_argument("--keep", type=Path, help="run in this (new) folder and keep it")
    args = parser.parse_args()
    full_queries = yaml.safe_load((REPO / "config/datasets.yaml").read_text())[DATASET]["generator"]["n_queries"]
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        small_q, smaller_q = full_queries // args.scale, full_queries // (2 * args.scale)
        wall_small2, smaller = run(root / f"q{smaller_q}", smaller_q, args.cores)
        wall_small, small = run(root / f"q{small_q}", small_q, args.cores)
    jobs = small.merge(smaller, on=["job", "rule"], suffixes=("", "_half"))
    floor = float(jobs.seconds.min())
    variable, variable_half = np.maximum(jobs.seconds - floor, 0.01), np.maximum(jobs.seconds_half - floor, 0.01)
    jobs["exponent"] = np.clip(np.log2(variable / variable_half), 1.0, 2.0)
    jobs["seconds_full"] = floor + variable * args.scale ** jobs.exponent
    slope = np.maximum(jobs.max_rss - jobs.max_rss_half, 0.0)  # MB per half of the small size
    jobs["max_rss_full"] = jobs.max_rss + slope * 2 * (args.scale - 1)
    if args.measured:
        measured = pd.concat([jobs_of(path) for path in args.measured]).drop_duplicates("job", keep="last")
        measured = measured.set_index("job")
        jobs["measured_full"] = jobs.job.map(measured.seconds)
        jobs["measured_rss"] = jobs.job.map(measured.max_rss)
    print(f"{EXPERIMENT} on {DATASET}: {smaller_q} and {small_q} of {full_queries} queries, {args.cores} cores; "
          f"wall {wall_small2:.0f} s and {wall_small:.0f} s")
    print(f"CPU seconds per job (floor {floor:.1f} s: a job's start and imports)")
    print(f"{'job':52} {'s 1/' + str(2 * args.scale):>8} {'s 1/' + str(args.scale):>8} {'exp':>5} "
          f"{'s full':>8} {'GB full':>8}" + (f" {'measured':>9} {'GB meas.':>8}" if args.measured else ""))
    for row in jobs.sort_values("seconds_full", ascending=False).itertuples():
        line = (f"{row.job:52} {row.seconds_half:8.1f} {row.seconds:8.1f} {row.exponent:5.2f} "
                f"{row.seconds_full:8.0f} {row.max_rss_full / 1024:8.2f}")
        if args.measured:
            line += f" {row.measured_full:9.0f} {row.measured_rss / 1024:8.2f}"
        print(line)
    cpu = jobs.seconds_full.sum()
    makespan, longest = schedule(jobs, args.cores)
    bound = max(cpu / args.cores, longest)
    peak = jobs.max_rss_full.max() / 1024
    print(f"\nextrapolated to {full_queries} queries: {cpu / 60:.1f} CPU-min; on {args.cores} cores "
          f"{bound / 60:.1f} min (lower bound) to {makespan / 60:.1f} min (greedy schedule); largest job "
          f"{peak:.1f} GB")
    print(f"ratio to the goal ({GOAL_MINUTES:.0f} min, {GOAL_MEMORY_GIB:.0f} GiB per job): time "
          f"{bound / 60 / GOAL_MINUTES:.2f}-{makespan / 60 / GOAL_MINUTES:.2f}, memory {peak / GOAL_MEMORY_GIB:.2f}")
    if args.measured:
        have = jobs.measured_full.notna()
        print(f"measured at full size ({int(have.sum())} of {len(jobs)} jobs): {jobs.measured_full[have].sum() / 60:.1f} "
              f"CPU-min; their extrapolation / measured = "
              f"{jobs.seconds_full[have].sum() / jobs.measured_full[have].sum():.2f}")


if __name__ == "__main__":
    main()

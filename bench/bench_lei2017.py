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
through the two measurements (memory grows with the rows held). The model misses what changes
with the size: FS-ED's divergence scorer is exact (quadratic) at small sizes and binned
(linear) at large ones, LambdaMART's early stopping may keep more trees on more data, and at
small sizes a job's memory is mostly the libraries', and where a job's time is mostly its fixed
cost at both sizes (a train job at a few hundred queries) the exponent follows the noise;
docs/leaderboard.md checks it against full-size jobs.

Printed: per job, measured seconds at both sizes, the exponent and the extrapolated seconds and
peak memory; then the extrapolated full-size CPU time and two wall-time figures on N cores: the
lower bound max(CPU / N, longest chain of jobs) and a greedy list schedule of the jobs in the
workflow's order (what ``--cores N`` does, up to job order). The reference is the goal of 60
minutes on 2 cores with under 8 GiB per job: the ratio of each estimate to it is printed.
With ``--measured DIR [DIR ...]`` (``benchmarks/`` folders of full-size runs; a later folder
wins for a job in several) the measured CPU seconds and memory are printed beside the
extrapolation.

Other experiments and stand-ins: ``--experiment lei2017_appendix_web30k --dataset
MSLR-WEB30K-standin --per-ranker --scale 40`` runs RankLib's eight models (Tables A.3-A.4) at
1/80 and 1/40 of MSLR-WEB30K's 31,531 queries, one train job per ranker (``train_batch:
false``) so that each ranker's time is its own, and extrapolates to the full size: the cluster's
job count, CPU-hours and largest job. ``--reference MSLR-WEB30K-standin-0.05`` names the
fraction run here (a registry entry of the same shape): it is extrapolated as well, the full
size's ratio to it is printed, and ``--measured`` then holds the reference run's
``benchmarks/`` (its measured CPU time beside the extrapolation, and their ratio). ``--keep DIR``
keeps the two runs; a kept folder is reused, so only what is missing runs (from the same
checkout: the registry copy names its feature-name files by absolute path). Another config's
experiment: ``--configfile config/leaderboard.yaml --experiment leaderboard_mslr --dataset
MSLR-WEB30K-standin --scale 200 --reference MSLR-WEB30K-standin-0.005`` (the leaderboard's MSLR
part, docs/leaderboard.md).

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
CONFIGFILE = REPO / "config/papers/lei2017.yaml"
GOAL_MINUTES, GOAL_MEMORY_GIB = 60.0, 8.0
TRAIN_BATCH = True  # the workflow's default; --per-ranker: one train job per ranker


def run(workdir: Path, n_queries: int, cores: int, experiment: str = EXPERIMENT,
        dataset: str = DATASET, configfile: Path = CONFIGFILE) -> tuple[float, pd.DataFrame]:
    """Run ``experiment`` on the stand-in ``dataset`` shrunk to ``n_queries`` queries; (wall
    seconds, jobs)."""
    registry = yaml.safe_load((REPO / "config/datasets.yaml").read_text())
    registry[dataset]["generator"]["n_queries"] = n_queries
    for entry in registry.values():  # the copy lives elsewhere: feature-name files by absolute path
        if isinstance(entry.get("feature_names"), str):
            entry["feature_names"] = str(REPO / "config" / entry["feature_names"])
    workdir.mkdir(parents=True, exist_ok=True)  # a kept folder again: Snakemake redoes nothing
    (workdir / "datasets.yaml").write_text(yaml.safe_dump(registry))
    overlay = {"datasets_file": str(workdir / "datasets.yaml"), "datasets_present_only": True,
               "train_batch": TRAIN_BATCH,
               "run": [experiment], "experiments": {experiment: {"feature_reports": [], "datasets": [dataset]}}}
    (workdir / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
                             "--configfile", str(REPO / "config/config.yaml"), str(configfile),
                             str(workdir / "overlay.yaml"), "--cores", str(cores)], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"the workflow failed at {n_queries} queries:\n{result.stderr[-3000:]}")
    return wall, jobs_of(workdir / "benchmarks", dataset)


def jobs_of(benchmarks: Path, dataset: str = DATASET) -> pd.DataFrame:
    """One row per job of a run's ``benchmarks/`` folder: job (path without the suffix), rule,
    seconds (CPU), max_rss (MB)."""
    rows = []
    for path in sorted(benchmarks.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        job = str(path.relative_to(benchmarks).with_suffix(""))
        rss = pd.to_numeric(frame["max_rss"], errors="coerce").fillna(0.0)
        rows.append({"job": job.replace(dataset + "/", ""), "rule": job.split("/")[0],
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


def extrapolate(jobs: pd.DataFrame, factor: float) -> tuple[pd.Series, pd.Series]:
    """(CPU seconds, peak MB) of every job at ``factor`` times the larger measured size, by the
    model of the module docstring (floor plus a part growing with exponent in [1, 2]; memory on
    the line through the two measurements)."""
    floor = float(jobs.seconds.min())
    variable = np.maximum(jobs.seconds - floor, 0.01)
    seconds = floor + variable * factor ** jobs.exponent
    slope = np.maximum(jobs.max_rss - jobs.max_rss_half, 0.0)  # MB per half of the small size
    return seconds, jobs.max_rss + slope * 2 * (factor - 1)


def summary(jobs: pd.DataFrame, seconds: pd.Series, rss: pd.Series, cores: int) -> dict:
    """CPU minutes, wall minutes on ``cores`` (lower bound and greedy schedule) and the largest
    job's GB of jobs with these extrapolated ``seconds`` and ``rss``."""
    frame = jobs.assign(seconds_full=seconds)
    makespan, longest = schedule(frame, cores)
    cpu = float(seconds.sum())
    return {"jobs": len(jobs), "cpu_min": cpu / 60, "bound_min": max(cpu / cores, longest) / 60,
            "greedy_min": makespan / 60, "chain_min": longest / 60, "peak_gb": float(rss.max()) / 1024}


def print_jobs(jobs: pd.DataFrame, scale: int, measured: bool) -> None:
    """One line per job: measured seconds at both sizes, the exponent, the full-size seconds and GB."""
    print(f"{'job':52} {'s 1/' + str(2 * scale):>8} {'s 1/' + str(scale):>8} {'exp':>5} "
          f"{'s full':>8} {'GB full':>8}" + (f" {'measured':>9} {'GB meas.':>8}" if measured else ""))
    for row in jobs.sort_values("seconds_full", ascending=False).itertuples():
        line = (f"{row.job:52} {row.seconds_half:8.1f} {row.seconds:8.1f} {row.exponent:5.2f} "
                f"{row.seconds_full:8.0f} {row.max_rss_full / 1024:8.2f}")
        if measured:
            line += f" {row.measured_full:9.0f} {row.measured_rss / 1024:8.2f}"
        print(line)


def print_size(label: str, n_queries: int, est: dict, cores: int) -> None:
    """The extrapolation of one size and its ratio to the goal (60 min on ``cores``, 8 GiB a job)."""
    print(f"\n{label}, {n_queries} queries: {est['jobs']} jobs, {est['cpu_min']:.1f} CPU-min "
          f"({est['cpu_min'] / 60:.2f} CPU-h); on {cores} cores {est['bound_min']:.1f} min (lower bound) to "
          f"{est['greedy_min']:.1f} min (greedy schedule); with a core per job (a cluster) the longest chain of "
          f"jobs, {est['chain_min']:.1f} min; largest job {est['peak_gb']:.1f} GB")
    print(f"ratio to the goal ({GOAL_MINUTES:.0f} min, {GOAL_MEMORY_GIB:.0f} GiB per job): time "
          f"{est['bound_min'] / GOAL_MINUTES:.2f}-{est['greedy_min'] / GOAL_MINUTES:.2f}, memory "
          f"{est['peak_gb'] / GOAL_MEMORY_GIB:.2f}")


def arguments() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", type=Path, default=CONFIGFILE, help="the config holding --experiment")
    parser.add_argument("--experiment", default=EXPERIMENT, help="an experiment of --configfile")
    parser.add_argument("--dataset", default=DATASET, help="the generated stand-in it runs on (its full size)")
    parser.add_argument("--reference", help="a registry stand-in of a fraction of --dataset (e.g. "
                                            "MSLR-WEB30K-standin-0.05): extrapolated too, and the full size's "
                                            "ratio to it printed; --measured then holds its run")
    parser.add_argument("--per-ranker", action="store_true",
                        help="one train job per ranker (train_batch: false), so that rankers run side by side")
    parser.add_argument("--scale", type=int, default=10, help="run at 1/scale and 1/(2 scale) of the full queries")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--measured", type=Path, nargs="+",
                        help="benchmarks/ folders of runs at the full (or --reference) size")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (a folder of an earlier run "
                                                  "is reused: only what is missing runs)")
    return parser.parse_args()


def main():
    args = arguments()
    registry = yaml.safe_load((REPO / "config/datasets.yaml").read_text())
    full_queries = registry[args.dataset]["generator"]["n_queries"]
    global TRAIN_BATCH
    TRAIN_BATCH = not args.per_ranker
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        small_q, smaller_q = full_queries // args.scale, full_queries // (2 * args.scale)
        wall_small2, smaller = run(root / f"q{smaller_q}", smaller_q, args.cores, args.experiment, args.dataset,
                                   args.configfile)
        wall_small, small = run(root / f"q{small_q}", small_q, args.cores, args.experiment, args.dataset,
                                args.configfile)
    jobs = small.merge(smaller, on=["job", "rule"], suffixes=("", "_half"))
    floor = float(jobs.seconds.min())
    variable, variable_half = np.maximum(jobs.seconds - floor, 0.01), np.maximum(jobs.seconds_half - floor, 0.01)
    jobs["exponent"] = np.clip(np.log2(variable / variable_half), 1.0, 2.0)
    jobs["seconds_full"], jobs["max_rss_full"] = extrapolate(jobs, full_queries / small_q)
    full = summary(jobs, jobs.seconds_full, jobs.max_rss_full, args.cores)
    reference = None
    if args.reference:
        ref_q = registry[args.reference]["generator"]["n_queries"]
        ref_seconds, ref_rss = extrapolate(jobs, ref_q / small_q)
        reference = (ref_q, ref_seconds, summary(jobs, ref_seconds, ref_rss, args.cores))
    if args.measured:
        measured = pd.concat([jobs_of(path, args.reference or args.dataset) for path in args.measured])
        measured = measured.drop_duplicates("job", keep="last").set_index("job")
        jobs["measured_full"] = jobs.job.map(measured.seconds)
        jobs["measured_rss"] = jobs.job.map(measured.max_rss)
    print(f"{args.experiment} on {args.dataset}: {smaller_q} and {small_q} of {full_queries} queries, "
          f"{args.cores} cores; wall {wall_small2:.0f} s and {wall_small:.0f} s")
    print(f"CPU seconds per job (floor {floor:.1f} s: a job's start and imports)")
    print_jobs(jobs, args.scale, bool(args.measured))
    print_size(f"extrapolated to the full size ({args.dataset})", full_queries, full, args.cores)
    if reference:
        ref_q, ref_seconds, ref = reference
        print_size(f"extrapolated to the reference {args.reference}", ref_q, ref, args.cores)
        print(f"full size / reference: CPU {full['cpu_min'] / ref['cpu_min']:.1f}x, "
              f"largest job {full['peak_gb'] / ref['peak_gb']:.1f}x")
    if args.measured:
        have = jobs.measured_full.notna()
        predicted = (reference[1] if reference else jobs.seconds_full)[have].sum()
        print(f"measured at the {'reference' if reference else 'full'} size ({int(have.sum())} of {len(jobs)} jobs): "
              f"{jobs.measured_full[have].sum() / 60:.1f} CPU-min; their extrapolation / measured = "
              f"{predicted / jobs.measured_full[have].sum():.2f}")


if __name__ == "__main__":
    main()

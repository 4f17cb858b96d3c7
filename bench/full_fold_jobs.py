"""Collect what every job of a run used and how large its data was: the measurements the cluster
requests are calibrated on.

Reads a workflow run's folder (``-d`` of ``snakemake``): each job's ``benchmarks/`` file (wall
seconds; CPU seconds and peak resident memory where its log does not end with the exact ones,
``benchmarks``) and, with the run's config (``--configfile``, as
given to ``snakemake``), the sizes the workflow gives the job (``held`` and ``work`` of
``ltrfs.pipeline.planning.requests``, from the run's prepared files) and its kind (scorer,
method, the train job's rankers). With ``--costs FILE`` the sized rows replace those of the same
jobs in ``FILE`` (``src/ltrfs/pipeline/job_costs.csv``: the leaderboard's small run and issue
43's full MSLR-WEB30K-standin Fold 1, ``config/full_fold.yaml``), from which every run's
requests are computed (``ltrfs.pipeline.resources``). Prints the run's rows as a Markdown table
with what the calibrated curves now ask and its ratio to what the job used (below 1x a cluster
would have killed it).

A batched select job (config ``select_batch``; ``benchmarks/select_batch/{dataset}/fold{fold}``)
gives, with the run's config, one row per method as rule select's job would
(``select/{dataset}/fold{fold}/{method}``): the method's part (its log's ``PART_USAGE``) plus an
equal share of what the job spent outside its parts (the interpreter, the imports, loading the
fold), so that the rows say what a job of its own would have used.

Columns: ``job`` (the benchmark path without ``.tsv``), ``rule``, ``name`` (the kind), ``dataset``,
``features`` (of the job's data), ``cpu_s``, ``wall_s``, ``peak_mb``, ``held``, ``work``
(empty for the rules that ask by input MiB).

With ``--check DATASET`` it predicts that dataset's jobs of the calibration file from the curves
of the other datasets' jobs and prints the ratios to what they used (the cost model's check).

Ends with the CPU and wall seconds summed by rule and in all. With ``--new-only`` (and
``--costs``) only the jobs the calibration file does not have are printed and merged: what a run
on top of another added (the neural board on the plain board's folder).

Run: ``python bench/full_fold_jobs.py RUN --configfile config/config.yaml config/leaderboard.yaml
[--config key=value ...] [--costs src/ltrfs/pipeline/job_costs.csv [--new-only]] [--dataset NAME]``, or
``python bench/full_fold_jobs.py --check MSLR-WEB30K-standin [--docs docs/full_size.md]`` (the
page's jobs table and the check's count rewritten from the calibration file)
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from contextlib import chdir
from pathlib import Path
from types import SimpleNamespace

import yaml

COLUMNS = ("job", "rule", "name", "dataset", "features", "cpu_s", "wall_s", "peak_mb", "held", "work")
SIZED = ("download", "prepare", "score", "score_chunk", "select", "train")
#: jobs shorter than this, measured and predicted, fit the smallest run-time request (1 minute,
#: with the requests' 1.5x margin)
SHORT_S = 40
COSTS = Path(__file__).resolve().parents[1] / "src/ltrfs/pipeline/job_costs.csv"


def benchmarks(run: Path) -> list[dict]:
    """One row per benchmark file of ``run``: job, rule, the file's last name, CPU and wall
    seconds, peak MB. CPU-seconds and peak memory are ``ltrfs.job_log.job_cost``'s: the larger of
    what the job's log ends with (the kernel's count) and the benchmark's, which samples the job
    (every 30 s after its first 15 s) and misses up to 30 CPU-seconds and any shorter peak."""
    from ltrfs.job_log import benchmark_record, job_cost

    rows = []
    for path in sorted((run / "benchmarks").rglob("*.tsv")):
        record = benchmark_record(path)
        if not record:
            continue
        job = str(path.relative_to(run / "benchmarks").with_suffix(""))
        cpu, peak = job_cost(path, record)
        rows.append({"job": job, "rule": job.split("/")[0], "name": job.split("/")[-1],
                     "cpu_s": round(cpu, 2), "wall_s": float(record["s"]), "peak_mb": None if peak != peak else round(peak, 2)})
    return rows


def wildcards(plan, job: str):
    """(rule, wildcards) of a benchmark path of a sized rule, as the rule files name them; None
    for the others."""
    rule, *parts = job.split("/")
    if rule not in SIZED:
        return None
    if rule == "download":
        return rule, SimpleNamespace(dataset=parts[0])
    dataset, fold = parts[0], parts[1].removeprefix("fold")
    if rule == "prepare":
        return rule, SimpleNamespace(dataset=dataset, fold=fold)
    name = parts[2]
    if rule == "score" and ".chunk" in name:
        scorer, _, chunk = name.partition(".chunk")
        i, _, n = chunk.partition("of")
        return "score_chunk", SimpleNamespace(dataset=dataset, fold=fold, scorer=scorer, chunk=i, n_chunks=n)
    if rule == "score":
        return rule, SimpleNamespace(dataset=dataset, fold=fold, scorer=name)
    if rule == "select":
        return rule, SimpleNamespace(dataset=dataset, fold=fold, method=name)
    if len(parts) == 4:  # rule train: train/{dataset}/fold{fold}/{method}/{ranker}
        return rule, SimpleNamespace(dataset=dataset, fold=fold, method=name, ranker=parts[3])
    rankers = plan.train.batches()[(dataset, name)][1]
    return rule, SimpleNamespace(dataset=dataset, fold=fold, method=name, rankers=tuple(rankers))


def load_plan(configfiles, overrides=()):
    """The run's plan (``ltrfs.pipeline.plan.Plan``) from its config files and ``key=value``
    overrides (YAML values), merged as ``--configfile``/``--config`` do."""
    from snakemake.utils import update_config

    from ltrfs.config_check import check
    from ltrfs.datasets.registry import load_registry
    from ltrfs.pipeline.plan import Plan

    config: dict = {}
    for path in configfiles:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    update_config(config, {k: yaml.safe_load(v) for k, v in (o.split("=", 1) for o in overrides)})
    registry = load_registry(config.get("datasets_file", "config/datasets.yaml"))
    check(config, Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml", registry)
    return Plan(config, registry)


def batch_parts(run: Path, plan, row: dict) -> list[dict]:
    """The per-method rows of a batched select job's row (module docstring): each method's part
    of the job (``ltrfs.job_log.PART_USAGE`` in ``logs/select/{dataset}/fold{fold}/{method}.log``)
    plus an equal share of the job's CPU and wall seconds outside its parts, its peak the part's
    (the job's process so far). The row itself where a part's log has no such line."""
    from ltrfs.job_log import read_usage

    _, dataset, fold = row["job"].split("/")
    methods = plan.select.batches().get(dataset, (None, []))[1]
    logs = [run / "logs/select" / dataset / fold / f"{m}.log" for m in methods]
    used = [read_usage(log.read_text(errors="replace")) if log.is_file() else None for log in logs]
    if not methods or any(u is None or "wall_s" not in u for u in used):
        return [row]
    outside_cpu = max(0.0, row["cpu_s"] - sum(u["cpu_s"] for u in used)) / len(methods)
    outside_wall = max(0.0, row["wall_s"] - sum(u["wall_s"] for u in used)) / len(methods)
    return [{**row, "job": f"select/{dataset}/{fold}/{m}", "rule": "select", "name": m,
             "cpu_s": round(u["cpu_s"] + outside_cpu, 2), "wall_s": round(u["wall_s"] + outside_wall, 2),
             "peak_mb": u["peak_mb"]} for m, u in zip(methods, used)]


def jobs(run: Path, plan=None, dataset: str | None = None) -> list[dict]:
    """The benchmark rows of ``run`` with their dataset (only ``dataset``'s, if given: a folder may
    hold other configs' jobs that the plan does not know), and with the plan: their kind and sizes
    (a batched select job's row as its methods' rows, ``batch_parts``)."""
    found = benchmarks(run)
    if plan is not None:
        found = [part for row in found
                 for part in (batch_parts(run, plan, row) if row["rule"] == "select_batch" else [row])]
    rows = []
    for row in found:
        parts = row["job"].split("/")
        row.update(dataset=parts[1] if len(parts) > 1 else "", features=None, held=None, work=None)
        if dataset is not None and row["dataset"] != dataset:
            continue
        spec = wildcards(plan, row["job"]) if plan is not None else None
        if spec is not None:
            with chdir(run):  # the plan's paths are relative to the run's folder
                sizes = plan.requests.sizes(*spec)
            if sizes is not None:
                row.update(name=sizes[0], held=round(sizes[1], 1), work=round(sizes[2], 1), features=sizes[3])
        rows.append(row)
    return rows


def read(path: Path) -> list[dict]:
    """The rows of a CSV this script wrote (numbers as numbers, absent values None)."""
    def value(text: str):
        if text == "":
            return None
        for number in (int, float):
            try:
                return number(text)
            except ValueError:
                pass
        return text
    with open(path, newline="") as fh:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def write(path: Path, rows: list[dict]) -> None:
    """Write ``rows`` to the CSV ``path`` (columns ``COLUMNS``)."""
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def merge(old: list[dict], new: list[dict]) -> list[dict]:
    """``old`` with the rows of ``new`` in place of those of the same job, sorted by job."""
    by_job = {r["job"]: r for r in old}
    by_job.update({r["job"]: r for r in new})
    return [by_job[job] for job in sorted(by_job)]


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table: each job (the last part of its benchmark path: the dataset,
    fold, scorer or method), what it used and what the calibrated curves ask
    (``ltrfs.pipeline.resources.request``), with the ratios to the measured peak and CPU time."""
    from ltrfs.pipeline.resources import request

    out = ["| stage | job | CPU s | wall s | peak GB | asks GB (x peak) | asks min (x CPU) |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        peak = float(r["peak_mb"] or 0)
        asks = ""
        if r.get("held") not in (None, ""):
            mem, minutes, _ = request(r["rule"], r["name"], float(r["held"]),
                                      float(r["work"]), int(r["features"]))
            asks = (f"{mem / 1024:.1f} ({mem / max(peak, 1):.1f}x) | "
                    f"{minutes:,} ({minutes * 60 / max(float(r['cpu_s']), 1):.1f}x)")
        else:
            asks = " | "
        out.append(f"| {r['rule']} | `{r['job'].split('/')[-1]}` | {float(r['cpu_s']):,.0f} | {float(r['wall_s']):,.0f} | "
                   f"{peak / 1024:.1f} | {asks} |")
    return "\n".join(out)


def totals(rows: list[dict]) -> str:
    """CPU and wall seconds of ``rows`` summed by rule and in all, one line each."""
    by_rule: dict[str, list[float]] = {}
    for r in rows:
        acc = by_rule.setdefault(r["rule"], [0, 0.0, 0.0])
        acc[0] += 1
        acc[1] += float(r["cpu_s"])
        acc[2] += float(r["wall_s"])
    lines = [f"{rule}: {n} jobs, {cpu:,.0f} CPU-s, {wall:,.0f} wall-s" for rule, (n, cpu, wall) in sorted(by_rule.items())]
    all_cpu, all_wall = sum(a[1] for a in by_rule.values()), sum(a[2] for a in by_rule.values())
    return "\n".join(lines + [f"all: {len(rows)} jobs, {all_cpu:,.0f} CPU-s, {all_wall:,.0f} wall-s"])


def held_out(rows: list[dict], dataset: str):
    """(curves, jobs): the cost curves fitted on every other dataset's sized jobs
    (``ltrfs.pipeline.resources.fit_curves``) and ``dataset``'s sized jobs, each as (row, its
    ``request`` arguments: rule, kind, held, work, features)."""
    from ltrfs.pipeline.resources import fit_curves

    sized = [r for r in rows if r.get("held") not in (None, "")]
    curves = fit_curves(r for r in sized if r["dataset"] != dataset)
    return curves, [(r, (r["rule"], r["name"], float(r["held"]), float(r["work"]), int(r["features"])))
                   for r in sized if r["dataset"] == dataset]


def predictions(rows: list[dict], dataset: str, held=None) -> list[tuple[dict, float, float]]:
    """(row, predicted CPU-seconds, predicted peak MB) for each sized job of ``dataset``, from the
    curves of every other dataset's jobs (``held_out``, ``ltrfs.pipeline.resources.predict``).
    Train jobs of one size count once, as the dearest of them (its row's ``of`` says how many):
    one curve serves every method's train job, whose cost depends on the features the method
    chose, so it is made to hold the dearest. ``held``: ``held_out(rows, dataset)``, when the
    caller has it (as the functions below)."""
    from ltrfs.pipeline.resources import predict

    curves, jobs = held or held_out(rows, dataset)
    kept: dict = {}
    for r, size in jobs:
        key = (size[0], size[1], size[3]) if size[0] == "train" else r["job"]
        same = kept.get(key)
        if same is None or float(r["cpu_s"]) > float(same[0]["cpu_s"]):
            kept[key] = ({**r, "of": (same[0]["of"] + 1) if same else 1}, size)
        else:
            same[0]["of"] += 1
    return [(r, *predict(*size, curves)) for r, size in kept.values()]


def check_counts(rows: list[dict], dataset: str, held=None) -> tuple[int, int, int]:
    """(within, short, total): ``dataset``'s jobs predicted within 1.5x in CPU time and memory;
    those whose time misses but is under ``SHORT_S`` both measured and predicted, with memory
    within 1.5x; all of them."""
    within = short = 0
    found = predictions(rows, dataset, held)
    for r, seconds, peak in found:
        cpu, used = float(r["cpu_s"]), float(r["peak_mb"])
        time_holds = 1 / 1.5 <= seconds / max(cpu, 1e-9) <= 1.5
        memory_holds = 1 / 1.5 <= peak / max(used, 1e-9) <= 1.5
        within += time_holds and memory_holds
        short += not time_holds and max(cpu, seconds) < SHORT_S and memory_holds
    return within, short, len(found)


def short_requests(rows: list[dict], dataset: str, held=None) -> list[tuple[str, bool]]:
    """``dataset``'s jobs whose request from the other datasets' curves (``request``: 1.5 times the
    curve, whole minutes) is below what they used, in run time or memory, each with whether the
    retry (twice the request) would have held them."""
    from ltrfs.pipeline.resources import request

    curves, jobs = held or held_out(rows, dataset)
    short = []
    for r, size in jobs:
        holds = [mem >= float(r["peak_mb"]) and 60 * minutes >= float(r["cpu_s"])
                 for mem, minutes, _ in (request(*size, attempt=a, curves=curves) for a in (1, 2))]
        if not holds[0]:
            short.append((r["job"].split("/")[-1], holds[1]))
    return short


def unchecked(rows: list[dict], dataset: str, held=None) -> list[str]:
    """``dataset``'s jobs whose kind was not measured on any other dataset: their prediction is
    the most of their rule's curves (``ltrfs.pipeline.resources.curve_for``), so the check says
    nothing of their own kind's cost."""
    from ltrfs.pipeline.resources import Highest, curve_for

    curves, jobs = held or held_out(rows, dataset)
    return [r["job"].split("/")[-1] for r, (rule, kind, _, _, features) in jobs
            if isinstance(curve_for(rule, kind, features, curves), Highest)]


def check(rows: list[dict], dataset: str) -> str:
    """How well the cost curves of every other dataset's jobs predict ``dataset``'s: a Markdown
    table of each job's measured and predicted CPU-seconds and peak memory with their ratios,
    and a last line with ``check_counts``."""
    held = held_out(rows, dataset)
    out = ["| stage | job | CPU s | predicted (x) | peak GB | predicted (x) |", "|---|---|---:|---:|---:|---:|"]
    for r, seconds, peak in predictions(rows, dataset, held):
        cpu, used = float(r["cpu_s"]), float(r["peak_mb"])
        name = f"`{r['job'].split('/')[-1]}`" + (f" (the dearest of {r['of']})" if r["of"] > 1 else "")
        out.append(f"| {r['rule']} | {name} | {cpu:,.0f} | {seconds:,.0f} "
                   f"({seconds / max(cpu, 1e-9):.2f}x) | {used / 1024:.1f} | {peak / 1024:.1f} "
                   f"({peak / max(used, 1e-9):.2f}x) |")
    within, short, total = check_counts(rows, dataset, held)
    out.append(f"\n{within} of {total} jobs of {dataset} predicted within 1.5x (CPU time and memory) by the curves "
               f"of the other datasets' jobs; {short} more under {SHORT_S} CPU-seconds both measured and predicted "
               "(the smallest run-time request, one minute, holds them) with memory within 1.5x")
    short = short_requests(rows, dataset, held)
    out.append(f"requests from those curves short of what the job used: {len(short)} "
               f"({', '.join(f'{name}{{}}'.format('' if retry else ' (and its retry)') for name, retry in short)})")
    missing = unchecked(rows, dataset, held)
    out.append(f"jobs whose kind no other dataset measured (the most of their rule's curves; not checked): "
               f"{len(missing)}" + (f" ({', '.join(missing)})" if missing else ""))
    return "\n".join(out)


def refresh_page(page: Path, rows: list[dict], dataset: str) -> None:
    """Write ``dataset``'s rows of the calibration file (``markdown``) over the jobs table of
    ``page`` (the Markdown table whose header ``markdown`` writes) and the count of the cost
    model's check (``check``'s last line) over the sentence that states it
    (``**N of M full-size jobs come within 1.5x**``)."""
    text = page.read_text()
    header = markdown([]).splitlines()[0]
    start = text.index(header)
    end = start
    for line in text[start:].splitlines(keepends=True):
        if not line.startswith("|"):
            break
        end += len(line)
    table = markdown([r for r in rows if r["dataset"] == dataset]) + "\n"
    text = text[:start] + table + text[end:]
    held = held_out(rows, dataset)
    within, short, total = check_counts(rows, dataset, held)
    text = re.sub(r"\*\*\d+ of \d+ full-size jobs come within 1\.5x\*\*( and \d+ more are under \d+ CPU-seconds)?",
                  f"**{within} of {total} full-size jobs come within 1.5x** and {short} more are under {SHORT_S} "
                  "CPU-seconds", text)
    text = re.sub(r"\*\*\d+ full-size jobs?\*\*", f"**{len(short_requests(rows, dataset, held))} full-size jobs**", text)
    page.write_text(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, nargs="?", default=Path("."), help="the run's folder (snakemake -d)")
    parser.add_argument("--configfile", nargs="+", default=[], help="the run's config files, in order")
    parser.add_argument("--config", nargs="*", default=[], help="the run's key=value overrides")
    parser.add_argument("--costs", type=Path, help="merge the sized rows into this CSV")
    parser.add_argument("--dataset", help="only this dataset's jobs")
    parser.add_argument("--new-only", action="store_true",
                        help="with --costs: only the jobs the file does not have yet (a run on top of another, "
                             "e.g. the neural board on the plain board's folder), printed and merged")
    parser.add_argument("--docs", type=Path, metavar="PAGE",
                        help="with --check: write DATASET's jobs table and the check's count into PAGE")
    parser.add_argument("--check", metavar="DATASET",
                        help="predict DATASET's jobs of the --costs file from the other datasets' and compare")
    args = parser.parse_args(argv)
    if args.new_only and not args.costs:
        parser.error("--new-only compares with a calibration file: give it with --costs")
    if args.check:
        rows = read(args.costs or COSTS)
        print(check(rows, args.check))
        if args.docs:
            refresh_page(args.docs, rows, args.check)
        return 0
    if not (args.run / "benchmarks").is_dir():
        print(f"full_fold_jobs: {args.run}/benchmarks is not a folder: is {args.run} a run's folder?", file=sys.stderr)
        return 2
    plan = load_plan(args.configfile, args.config) if args.configfile else None
    rows = jobs(args.run, plan, args.dataset)
    if args.costs:
        known = read(args.costs) if args.costs.exists() else []
        if args.new_only:
            have = {r["job"] for r in known}
            rows = [r for r in rows if r["job"] not in have]
        sized = [r for r in rows if r["held"] is not None]
        write(args.costs, merge(known, sized))
    print(markdown(rows))
    print(totals(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

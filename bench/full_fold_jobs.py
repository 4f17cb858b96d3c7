"""Collect what every job of a run used, with what it asked for: the full-fold cost table.

Reads a workflow run's folder (``-d`` of ``snakemake``): each job's ``benchmarks/`` file (CPU
seconds, wall seconds, peak resident memory) and, from the run's Snakemake logs
(``.snakemake/log/*.log``), the ``mem_mb`` and ``runtime`` (minutes) the job asked for (the last
log that ran the job wins, as the last run made its benchmark). Writes one row per job to a
CSV (``--out``; ``bench/full_fold_jobs.csv`` is the committed measurement of issue 43's full
MSLR-WEB30K-standin Fold 1, ``config/full_fold.yaml``) and prints it as a Markdown table with
the ratio of each request to what the job used (a request below 1x would have been killed on
a cluster).

Columns: ``job`` (the benchmark path without ``.tsv``), ``rule``, ``name`` (scorer, method or
dataset), ``cpu_s``, ``wall_s``, ``peak_mb`` (``max_rss``), ``asked_mb``, ``asked_min``.

Run: ``python bench/full_fold_jobs.py /path/to/run [--out bench/full_fold_jobs.csv]``
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

COLUMNS = ("job", "rule", "name", "cpu_s", "wall_s", "peak_mb", "asked_mb", "asked_min")
_BENCHMARK = re.compile(r"^\s+benchmark: benchmarks/(\S+)\.tsv$")
_RESOURCES = re.compile(r"^\s+resources: (.*)$")


def requests(run: Path) -> dict[str, dict]:
    """Job -> {"mem_mb", "runtime"} as the run's Snakemake logs print them, oldest log first."""
    out: dict[str, dict] = {}
    for log in sorted((run / ".snakemake" / "log").glob("*.log")):
        job = None
        for line in log.read_text(errors="replace").splitlines():
            if m := _BENCHMARK.match(line):
                job = m.group(1)
            elif job and (m := _RESOURCES.match(line)):
                items = dict(kv.split("=", 1) for kv in m.group(1).split(", ") if "=" in kv)
                out[job] = {"mem_mb": items.get("mem_mb"), "runtime": items.get("runtime")}
                job = None
    return out


def jobs(run: Path) -> list[dict]:
    """One row per benchmark file of ``run``, with the job's requests where a log names them."""
    asked = requests(run)
    rows = []
    for path in sorted((run / "benchmarks").rglob("*.tsv")):
        lines = path.read_text().splitlines()
        if len(lines) < 2:
            continue
        head, values = lines[0].split("\t"), lines[-1].split("\t")
        record = dict(zip(head, values))
        job = str(path.relative_to(run / "benchmarks").with_suffix(""))
        parts = job.split("/")
        rows.append({"job": job, "rule": parts[0], "name": parts[-1],
                     "cpu_s": float(record["cpu_time"]), "wall_s": float(record["s"]),
                     "peak_mb": float(record["max_rss"]) if record["max_rss"] != "NA" else None,
                     "asked_mb": asked.get(job, {}).get("mem_mb"), "asked_min": asked.get(job, {}).get("runtime")})
    return rows


def read(path: Path) -> list[dict]:
    """The rows of a CSV this script wrote (numbers as numbers, absent values None)."""
    def value(text: str):
        if text == "":
            return None
        try:
            return float(text) if "." in text else int(text)
        except ValueError:
            return text
    with open(path, newline="") as fh:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table (stage, the scorer, method or dataset, and the ratios of the
    requests to what the job used)."""
    out = ["| stage | job | CPU s | wall s | peak GB | asked GB (x peak) | asked min (x wall) |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        asked_mb, asked_min, peak = (float(r[c]) if r[c] not in (None, "") else None
                                     for c in ("asked_mb", "asked_min", "peak_mb"))
        mem = f"{asked_mb / 1024:.1f} ({asked_mb / peak:.1f}x)" if asked_mb and peak else ""
        minutes = f"{asked_min:.0f} ({asked_min * 60 / max(float(r['wall_s']), 1):.0f}x)" if asked_min else ""
        out.append(f"| {r['rule']} | `{r['name']}` | {float(r['cpu_s']):,.0f} | {float(r['wall_s']):,.0f} | "
                   f"{peak / 1024 if peak else 0:.1f} | {mem} | {minutes} |")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="the run's folder (snakemake -d)")
    parser.add_argument("--out", type=Path, help="write the rows to this CSV")
    args = parser.parse_args(argv)
    if not (args.run / "benchmarks").is_dir():
        print(f"full_fold_jobs: {args.run}/benchmarks is not a folder: is {args.run} a run's folder?", file=sys.stderr)
        return 2
    rows = jobs(args.run)
    if args.out:
        with open(args.out, "w", newline="") as fh:
            writer = csv.DictWriter(fh, COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

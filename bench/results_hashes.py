"""Hash every CSV under a results folder, timing and memory columns left out, to prove that a
change which should not move any number did not (docs/testing.md, "A refactor moves no number").

    python bench/results_hashes.py results > before.txt     # on main, after a run
    python bench/results_hashes.py results > after.txt      # after the change, after a run
    diff before.txt after.txt                               # empty: every table is the same

Left out: columns that measure the machine (``cpu_s``, ``peak_mb``, ``select_cpu_s``,
``select_peak_mb``, ``seconds``) and the leaderboard's ``pareto`` column, which is derived from
CPU seconds. Every other byte of every CSV counts.
"""
from __future__ import annotations

import csv
import hashlib
import io
import sys
from pathlib import Path

MACHINE_COLUMNS = {"cpu_s", "peak_mb", "select_cpu_s", "select_peak_mb", "seconds", "pareto"}


def digest(path: Path) -> str:
    """sha256 of the CSV with the machine-measured columns removed (the file's bytes otherwise)."""
    text = path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    if rows and MACHINE_COLUMNS & set(rows[0]):
        keep = [i for i, name in enumerate(rows[0]) if name not in MACHINE_COLUMNS]
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([[row[i] for i in keep if i < len(row)] for row in rows])
        text = out.getvalue()
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main(root: str = "results") -> int:
    base = Path(root)
    for path in sorted(base.rglob("*.csv")):
        print(f"{digest(path)}  {path.relative_to(base)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Validate the published-numbers tables in this folder (stdlib + pandas only).

    python config/published/check.py        # exit status 1 on any error

Checks every *.csv here: the exact columns, that `paper` matches the file name, that every value
parses as a float in the range its metric allows, that `k` is empty or an integer >= 1 (and set
for a `feature` row), that `convention` is one of the known ones (or empty), and that (paper,
table, dataset, method, ranker, k, metric) is unique. Names that are neither in
config/datasets.yaml / config/config.yaml nor in the lists of names invented here are reported as
notes (the configs change; they are not errors).
Prints the row count per paper and table.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
CONFIG = HERE.parent
COLUMNS = ["paper", "table", "dataset", "method", "ranker", "k", "metric", "value", "convention", "note"]
KEY = ["paper", "table", "dataset", "method", "ranker", "k", "metric"]
PAPERS = ["lai2013", "geng2007", "gupta2012", "lei2017", "pahikkala2010"]
CONVENTIONS = {"", "letor3", "letor4", "mslr", "standard"}

# metric -> kind. "rate": 0..1; "gain": -1..1; "count": integer >= 1; "positive": > 0
METRICS = {f"NDCG@{i}": "rate" for i in range(1, 11)}
METRICS.update({f"P@{i}": "rate" for i in range(1, 11)})
METRICS.update({"MAP": "rate", "MeanNDCG": "rate", "cv_error": "rate", "NDCG@10_gain": "gain",
                "runtime_hours": "positive"})
METRICS.update({m: "count" for m in ["k_best", "k_selected", "n_queries", "n_rows", "n_features", "n_labels",
                                     "n_queries_test", "n_rows_test", "n_rows_sample_train",
                                     "n_rows_sample_test"]})
METRICS["feature"] = "count"   # a feature's number (1-based column), k = its row in the paper's list

# names used in the CSVs that the configs do not define (see config/published/README.md)
INVENTED_DATASETS = {"MQ2007+MQ2008"}
EXTRA_RANKERS = {"svmmap"}      # implemented in src/ltrfs/rankers/svmmap.py, not configured in config.yaml


def yaml_keys(path: Path, section: str | None) -> set[str]:
    """Top-level keys (section None) or the two-space-indented keys under `section:`."""
    if not path.exists():
        return set()
    keys, inside = set(), section is None
    for line in path.read_text(encoding="utf-8").splitlines():
        if section is None:
            m = re.match(r"^([A-Za-z0-9_+.-]+):", line)
            if m:
                keys.add(m.group(1))
            continue
        if re.match(r"^\S", line):
            inside = line.startswith(f"{section}:")
            continue
        m = re.match(r"^  ([A-Za-z0-9_+.-]+):", line)
        if inside and m:
            keys.add(m.group(1))
    return keys


def as_int(s: str) -> int | None:
    try:
        f = float(s)
    except ValueError:
        return None
    return int(f) if f.is_integer() else None


def check_frame(name: str, df: pd.DataFrame, known: dict[str, set[str]], errors: list[str], notes: list[str]):
    paper = name.removesuffix(".csv")
    if list(df.columns) != COLUMNS:
        errors.append(f"{name}: columns {list(df.columns)} != {COLUMNS}")
        return
    for i, r in df.iterrows():
        where = f"{name}:{i + 2}"          # file line (header is line 1)
        if r["paper"] != paper:
            errors.append(f"{where}: paper {r['paper']!r} != file name {paper!r}")
        if not r["table"]:
            errors.append(f"{where}: empty table")
        if r["convention"] not in CONVENTIONS:
            errors.append(f"{where}: unknown convention {r['convention']!r}")
        kind = METRICS.get(r["metric"])
        if kind is None:
            errors.append(f"{where}: unknown metric {r['metric']!r}")
            continue
        try:
            v = float(r["value"])
        except ValueError:
            errors.append(f"{where}: value {r['value']!r} is not a number")
            continue
        ok = {"rate": 0.0 <= v <= 1.0, "gain": -1.0 <= v <= 1.0, "positive": v > 0,
              "count": as_int(r["value"]) is not None and v >= 1}[kind]
        if not ok:
            errors.append(f"{where}: {r['metric']} = {r['value']} outside its range ({kind})")
        if r["k"] and (as_int(r["k"]) is None or as_int(r["k"]) < 1):
            errors.append(f"{where}: k {r['k']!r} is not an integer >= 1")
        if r["metric"] == "feature" and not r["k"]:
            errors.append(f"{where}: a feature row needs k, its row in the paper's list")
        for col, names in known.items():
            if r[col] and names and r[col] not in names:
                notes.append(f"{paper}: {col} {r[col]!r} is not in the config")
    dup = df[df.duplicated(KEY, keep=False)]
    for key, grp in dup.groupby(KEY, sort=False):
        lines = ", ".join(str(i + 2) for i in grp.index)
        errors.append(f"{name}: duplicate key {key} on lines {lines}")


def main() -> int:
    known = {"dataset": yaml_keys(CONFIG / "datasets.yaml", None) | INVENTED_DATASETS,
             "method": yaml_keys(CONFIG / "config.yaml", "methods"),
             "ranker": yaml_keys(CONFIG / "config.yaml", "rankers") | EXTRA_RANKERS}
    errors: list[str] = []
    notes: list[str] = []
    frames = []
    files = sorted(HERE.glob("*.csv"))
    missing = sorted(set(PAPERS) - {f.stem for f in files})
    errors += [f"missing {p}.csv" for p in missing]
    for f in files:
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        check_frame(f.name, df, known, errors, notes)
        frames.append(df)
    allrows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)

    print("rows per paper and table")
    for paper in sorted({f.stem for f in files}):
        sub = allrows[allrows["paper"] == paper]
        print(f"  {paper}: {len(sub)}")
        for table, n in sub.groupby("table", sort=True).size().items():
            print(f"    {table}: {n}")
    print(f"total: {len(allrows)} rows in {len(files)} files")
    for n in sorted(set(notes)):
        print("note:", n)
    for e in errors:
        print("ERROR:", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""The papers' published numbers beside ours.

Published values are data (``config/published/{paper}.csv``, long format: paper, table,
dataset, method, ranker, k, metric, value, convention, note; how each was read is in
``config/published/README.md``); ours are never typed in: they come from the fold-averaged
results table of an experiment (``ltrfs.results.tables.summarise``, written as
``results/{dataset}/tables/{experiment}.csv``).

A published row (method, ranker) is matched to our row of the same method and ranker: the
row whose k was chosen on vali (k = "vali") when the method has a k grid, else its single
row (all features, or a method's own model). A published value for a fixed k matches our row
of that k; a published row without a ranker (a number of the method alone, e.g. WAF's feature
count) matches the method's first row. Counts (``COUNTS``: Gupta & Rosso's best number of
features, our table's ``k_best``) are compared as numbers, not against the tolerance. The
comparison lists, per published cell, ours, the published value and ours minus published.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ltrfs.results.tables import chosen_rows

COLUMNS = ["paper", "table", "dataset", "method", "ranker", "k", "metric", "value", "convention", "note"]
#: published "metrics" that are counts, compared without the tolerance (Gupta & Rosso's Table 1)
COUNTS = ("k_best",)


def load(paper: str, root="config/published") -> pd.DataFrame:
    """The published values of a paper.

    Parameters
    ----------
    paper : str
    root : path, default "config/published"
        The file is ``{root}/{paper}.csv`` (its README says how each value was read).

    Returns
    -------
    pandas.DataFrame
    """
    path = Path(root) / f"{paper}.csv"
    if not path.exists():
        raise ValueError(f"no published numbers for {paper!r}: {path} is missing")
    table = pd.read_csv(path, dtype={"k": "string", "ranker": "string"}, keep_default_na=False)
    if list(table.columns) != COLUMNS:
        raise ValueError(f"{path}: columns must be {', '.join(COLUMNS)}; got {', '.join(table.columns)}")
    table["value"] = table["value"].astype(float)
    return table


def _our_row(ours: pd.DataFrame, method: str, ranker: str, k: str) -> pd.Series | None:
    # an empty published ranker (a number of the method alone, e.g. WAF's k) matches any of ours
    rows = ours[(ours.method == method) & ((ours.ranker == ranker) if ranker else ours.ranker.notna())]
    rows = rows[rows.k == str(k)] if k else chosen_rows(rows)
    return rows.iloc[0] if len(rows) else None


def beside(ours: pd.DataFrame, published: pd.DataFrame, dataset: str, tables=None, rows=None) -> pd.DataFrame:
    """Our values beside the published ones, one row per published cell our table reports.

    Parameters
    ----------
    ours : pandas.DataFrame
        Our experiment table.
    published : pandas.DataFrame
        From ``load``.
    dataset : str
    tables : list of str or None
        Only these paper tables.
    rows : dict or None
        Published "method/ranker" -> ours, where our run has another name (e.g.
        ``{"fsmrank/own": "waf/fsmrank"}``: FSMRank ranking on all features in Lai's Table II).

    Returns
    -------
    pandas.DataFrame
        Columns table, method, ranker, k (ours: the k used, "vali (..)" when chosen), metric,
        ours, published, difference (ours - published; NaN where we have no row).
    """
    pub = published[published.dataset == dataset]
    if tables is not None:
        pub = pub[pub.table.isin(list(tables))]
    pub = pub[pub.metric.isin(ours.columns)]
    rows = rows or {}
    out = []
    for row in pub.itertuples(index=False):
        method, _, ranker = rows.get(f"{row.method}/{row.ranker}", f"{row.method}/{row.ranker}").partition("/")
        mine = _our_row(ours, method, ranker, row.k)
        value = float(mine[row.metric]) if mine is not None else np.nan
        if mine is None:
            k = ""
        elif mine["k"] == "vali":
            k = f"vali ({mine['k_chosen']})"
        else:
            k = str(mine["k"])
        out.append({"table": row.table, "method": row.method, "ranker": row.ranker, "k": k, "metric": row.metric,
                    "ours": value, "published": row.value, "difference": value - row.value})
    return pd.DataFrame(out, columns=["table", "method", "ranker", "k", "metric", "ours", "published",
                                      "difference"])


def to_markdown(comparison: pd.DataFrame, title: str = "", tolerance: float | None = None) -> str:
    """The comparison as one Markdown table per paper table.

    Parameters
    ----------
    comparison : pandas.DataFrame
        From ``beside``.
    title : str, default ''
    tolerance : float or None
        Marks with † every cell whose |difference| exceeds it.

    Returns
    -------
    str
        A row per (method, ranker), a column per metric with "ours / published (difference)".
    """
    lines = [f"### {title}", ""] if title else []
    for table, part in comparison.groupby("table", sort=False):
        metrics = list(dict.fromkeys(part.metric))
        lines += [f"#### {table}", "", "| method | ranker | k | " + " | ".join(metrics) + " |",
                  "|" + "---|" * (3 + len(metrics))]
        for (method, ranker), rows in part.groupby(["method", "ranker"], sort=False):
            cells = []
            by_metric = rows.set_index("metric")
            for metric in metrics:
                if metric not in by_metric.index:
                    cells.append("")
                    continue
                r = by_metric.loc[metric]
                if np.isnan(r["ours"]):
                    cells.append(f"— / {r['published']:.4f}")
                    continue
                flag = "†" if tolerance is not None and abs(r["difference"]) > tolerance else ""
                if metric in COUNTS:  # a number of features: no tolerance, no decimals
                    cells.append(f"{r['ours']:g} / {r['published']:g} ({r['difference']:+g})")
                    continue
                cells.append(f"{r['ours']:.4f} / {r['published']:.4f} ({r['difference']:+.4f}){flag}")
            k = rows["k"].iloc[0]
            lines.append(f"| {method} | {ranker or '—'} | {k} | " + " | ".join(cells) + " |")
        lines.append("")
    if comparison.empty:
        return "\n".join(lines + ["The paper publishes no number for this dataset (a stand-in's numbers, for "
                                   "instance, say nothing about the real data)."]) + "\n"
    note = ("Cells: ours / published (ours − published); ours is the test mean over the folds of the "
            "results table, at the k chosen on vali where the method has a k grid (k = \"vali (15,20)\": each "
            "fold's own choice, every k some fold chose in brackets); published values "
            "from config/published (see its README for how each was read); — : no run of ours.")
    if comparison.metric.isin(COUNTS).any():
        note += (" k_best: the number of features the paper reports as best; ours is the k whose vali "
                 "metric, averaged over the folds, is highest (ties: the smaller k).")
    if tolerance is not None:
        note += f" † |difference| > {tolerance:g}."
    return "\n".join(lines + [note]) + "\n"


def closest_convention(ours_by_convention: dict, published: pd.DataFrame, dataset: str, tables=None,
                       rows=None, metrics=None) -> pd.DataFrame:
    """Which metric convention each published table is closest to.

    Parameters
    ----------
    ours_by_convention : dict
        Convention -> our table of the same models evaluated in it.
    published : pandas.DataFrame
    dataset : str
    tables, rows
        As ``beside``.
    metrics : list of str or None
        Only these metrics.

    Returns
    -------
    pandas.DataFrame
        Columns table, convention, cells, mean_abs_difference (the mean |ours - published| over
        the cells both have; counts excluded).
    """
    out = []
    for convention, ours in ours_by_convention.items():
        comparison = beside(ours, published, dataset, tables, rows)
        comparison = comparison[~comparison.metric.isin(COUNTS) & comparison.ours.notna()]
        if metrics:
            comparison = comparison[comparison.metric.str.lower().isin([m.lower() for m in metrics])]
        for table, part in comparison.groupby("table", sort=False):
            out.append({"table": table, "convention": convention, "cells": len(part),
                        "mean_abs_difference": float(part.difference.abs().mean())})
    return pd.DataFrame(out, columns=["table", "convention", "cells", "mean_abs_difference"])


def closest_convention_markdown(frame: pd.DataFrame) -> str:
    """``closest_convention`` as a Markdown table.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    str
        A row per paper table, a column per convention with the mean |ours - published|, and the
        closest convention.
    """
    if frame.empty:
        return ""
    conventions = list(dict.fromkeys(frame.convention))
    lines = ["#### Which metric convention each published table is closest to", "",
             "| table | " + " | ".join(conventions) + " | closest |", "|" + "---|" * (len(conventions) + 2)]
    for table, part in frame.groupby("table", sort=False):
        by = part.set_index("convention")
        cells = [f"{by.loc[c, 'mean_abs_difference']:.4f} ({by.loc[c, 'cells']} cells)" if c in by.index else ""
                 for c in conventions]
        lines.append(f"| {table} | " + " | ".join(cells) + f" | {by.mean_abs_difference.idxmin()} |")
    lines += ["", "Cells: mean |ours − published| over the table's cells, the same models evaluated in each "
                  "convention (`also_conventions`); the smallest names the convention the paper's numbers are "
                  "closest to."]
    return "\n".join(lines) + "\n"

"""Stage leaderboard (``workflow/rules/leaderboard.smk``): every selector of the run ranked per
experiment and over all of them (Friedman, Nemenyi, critical-difference diagrams), with its
stability across folds, its selection cost, the smallest k that keeps up with all features and
the cross table of selector family x ranker (``results/leaderboard/{run_name}/``; the statistics are ``ltrfs.results.leaderboard``'s)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.formats import read_csv
from ltrfs.pipeline.planning.leaderboard import leaderboard_records
from ltrfs.results.figures import registry
from ltrfs.results.htmlpage import write_markdown
from ltrfs.results.leaderboard import (board, cross_family, cross_family_markdown, markdown, n_folds_text, read_costs,
                                       read_selections, recovery_table, smallest_k, stability_table)
from ltrfs.results.tables import NONINFERIORITY_MARGIN, REFERENCE_RANKER

__all__ = ["write_leaderboard", "leaderboard_records"]


def write_leaderboard(tables: list[dict], selections: list[dict], costs: list[dict], out: dict, *,
                      metrics=("NDCG@10", "MAP"), ks=None, baselines=("waf",), own=(), alpha: float = 0.05,
                      truths: dict | None = None, margin: float = NONINFERIORITY_MARGIN,
                      families: dict | None = None) -> None:
    """Read the experiments' tables, the selections and their costs, and write the leaderboard.

    Parameters
    ----------
    tables : list of dict
        The experiments' tables: records {experiment, dataset, path, metric: the table's metric,
        that of its tests against all features}.
    selections : list of dict
        The selection records (``ltrfs.results.leaderboard.read_selections``).
    costs : list of dict
        The selection costs (``ltrfs.results.leaderboard.read_costs``).
    out : dict
        Paths ``csv`` and ``md`` (the boards of every experiment and of ``all`` of them together,
        one row per (scope, method)), ``stability``, ``cost`` and ``smallest_k`` (CSV), optionally
        ``pairs`` (CSV: every pair's Wilcoxon signed-rank test over the blocks, Holm), ``html``
        (the Markdown as an HTML page), and the leaderboard's figures of the registry
        (``ltrfs.results.figures.registry.drawn_by("leaderboard")``): ``figure_{name}`` the PNG
        (for ``critical_difference`` a folder, ``{scope}.png`` per experiment and ``all.png``)
        and ``figure_{name}_csv`` its CSV where it has one; ``figure_planted_recovery`` only with
        ``truths``.
    metrics : sequence of str, default ("NDCG@10", "MAP")
        The metrics ranked.
    ks : dict or None, default None
        dataset -> its k values in the stability and recovery tables (None, or a dataset not in it: none).
    baselines : sequence of str, default ("waf",)
        The all-features baseline methods (they do not compete).
    own : sequence of str, default ()
        The rankers that are a method's own model (left out of the blocks).
    alpha : float, default 0.05
        Significance level.
    truths : dict or None, default None
        dataset -> truth.json of generated data: how much of the planted informative features
        each selector's top k finds (``ltrfs.results.leaderboard.recovery_table``).
    margin : float, default 0.01
        The tables' non-inferiority margin (config ``noninferiority_margin``), for the smallest-k note.
    families : dict or None, default None
        ``{"methods": method -> family, "rankers": ranker -> family}``: the cross table of selector
        family x ranker (``cross_family``) to ``out["cross_family"]`` and the Markdown; None: none.

    References
    ----------
    Demsar. Statistical comparisons of classifiers over multiple data sets. J. Mach. Learn. Res.
    7:1-30, 2006 (the Friedman and Nemenyi tests and the critical-difference diagram).
    """
    frames = [read_csv(r["path"], ("method", "ranker", "k"), dtype={"k": str}).assign(experiment=r["experiment"], dataset=r["dataset"])
              for r in tables]
    long = pd.concat(frames, ignore_index=True)
    selections = read_selections(selections)
    stab = stability_table(selections, ks or {})
    recovery = recovery_table(selections, truths or {}, ks or {})
    cost = read_costs(costs)
    first = metrics[0]
    table_metric = {r["experiment"]: r.get("metric", first) for r in tables}
    scopes = dict(tuple(long.groupby("experiment", sort=False)))
    small = pd.concat([smallest_k(part.drop_duplicates(["dataset", "method", "ranker", "k"]), table_metric[name],
                                  baselines=baselines, alpha=alpha)
                       .rename(columns={table_metric[name]: "value"}).assign(experiment=name, metric=table_metric[name])
                       for name, part in scopes.items()], ignore_index=True)
    boards, diagrams, wilcoxon = [], {}, []
    for scope, part in [*scopes.items(), ("all", long)]:
        if scope == "all" and len(boards) < 2:  # "all" is worth a board when two experiments have one
            break
        frame, stats_ = board(part, metrics, baselines=baselines, own=own, alpha=alpha, drop_sparse=True,
                              rope=margin)
        if frame.empty:
            continue
        diagrams[scope] = []
        for metric, s in stats_.items():
            frame[f"blocks_{metric}"] = s["blocks"]
            frame[f"datasets_{metric}"] = s["datasets"]
            frame[f"friedman_p_{metric}"] = s["p"]
            frame[f"cd_{metric}"] = s["cd"]
            frame[f"pairs_differ_{metric}"] = s["pairs_differ"]
            frame[f"pairs_{metric}"] = len(s["pairs"])
            frame[f"smallest_holm_p_{metric}"] = s["smallest_holm_p"]
            frame[f"bayes_datasets_{metric}"] = s["bayes_datasets"]
            wilcoxon.append(s["pairs"].assign(scope=scope, metric=metric))
            if s["nemenyi"] is not None:
                diagrams[scope].append((scope, metric, s))
        boards.append(frame.assign(scope=scope))
    result = pd.concat(boards, ignore_index=True) if boards else pd.DataFrame(columns=["scope", "method"])
    datasets = set(long.dataset)
    scope_datasets = {scope: set(part.dataset) for scope, part in scopes.items()}
    extra = []
    for row in result.itertuples(index=False):
        ds = scope_datasets.get(row.scope, datasets)
        s = stab[(stab.method == row.method) & stab.dataset.isin(ds)]
        c = cost[(cost.method == row.method) & cost.dataset.isin(ds)]
        planted = recovery[(recovery.method == row.method) & recovery.dataset.isin(ds)]
        extra.append({"jaccard": s.jaccard.mean(), "kuncheva": s.kuncheva.mean(),
                      "stability_folds": int(s.folds.min()) if len(s) else 0,
                      "select_cpu_s": c.cpu_s.mean(), "select_peak_mb": c.peak_mb.max(),
                      "planted_precision": planted.precision.mean() if len(planted) else np.nan})
    result = pd.concat([result.reset_index(drop=True), pd.DataFrame(extra)], axis=1)
    result = result[["scope", "method"] + [c for c in result.columns if c not in ("scope", "method")]]
    pair_columns = ["scope", "metric", "a", "b", "wins", "losses", "p", "p_holm"]
    tables = {"csv": result, "stability": stab, "cost": cost, "smallest_k": small,
              "pairs": (pd.concat(wilcoxon, ignore_index=True) if wilcoxon else pd.DataFrame(columns=pair_columns))}
    for key, frame in tables.items():
        if out.get(key):
            write_text(out[key], (frame[pair_columns] if key == "pairs" else frame).to_csv(index=False, float_format="%.6g"))
    text = markdown(result, small, metrics, alpha=alpha, n_folds=n_folds_text(long), recovery=recovery, margin=margin)
    if families is not None:
        text = text.rstrip("\n") + "\n\n" + _write_cross_table(long, families, first, baselines, own, out["cross_family"])
    write_markdown(out["md"], text, out.get("html"))
    chosen = long[(long.k.astype(str) == "vali") | long.method.isin(list(baselines))]
    chosen = chosen[~chosen.ranker.isin(list(own)) & (chosen.ranker != REFERENCE_RANKER)]
    data = {"diagrams": diagrams, "alpha": alpha, "stability": stab, "chosen": chosen, "cost": cost, "metric": first,
            "baselines": baselines, "recovery": recovery}
    for figure in registry.drawn_by("leaderboard"):
        files = registry.output_files(out, figure.name)
        if files["png"] is None:  # planted_recovery where no dataset has planted features
            continue
        if figure.per_scope:  # the folder is an output even when no scope has a diagram
            Path(files["png"]).parent.mkdir(parents=True, exist_ok=True)
        figure.draw(data, files)


def _write_cross_table(long: pd.DataFrame, families: dict, metric: str, baselines, own, path) -> str:
    """Write the cross table of selector family x ranker (``cross_family``) to ``path`` (CSV) and
    return its Markdown section (``families``: as ``write_leaderboard``'s)."""
    cross = cross_family(long, families["methods"], families["rankers"], metric, baselines=baselines,
                         exclude_rankers=own)
    write_text(path, cross.to_csv(index=False, float_format="%.6g"))
    return cross_family_markdown(cross, metric)

"""Stage leaderboard (``workflow/rules/leaderboard.smk``): every selector of the run ranked per
experiment and over all of them (Friedman, Nemenyi, critical-difference diagrams), with its
stability across folds, its selection cost and the smallest k that keeps up with all features
(``results/leaderboard/{run_name}/``; the statistics are ``ltrfs.leaderboard``'s)."""
from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from ltrfs import plots
from ltrfs.htmlpage import write_markdown
from ltrfs.leaderboard import (board, markdown, n_folds_text, read_costs, read_selections, recovery_table,
                               smallest_k, stability_table)
from ltrfs.formats import read_csv
from ltrfs.pipeline.artefacts import ArtefactsPlanning
from ltrfs.selection import SELECTORS
from ltrfs.tables import NONINFERIORITY_MARGIN, REFERENCE_RANKER
from ltrfs.util import write_text

__all__ = ["write_leaderboard", "leaderboard_records", "LeaderboardPlanning"]


def write_leaderboard(tables: list[dict], selections: list[dict], costs: list[dict], out: dict, *,
                      metrics=("NDCG@10", "MAP"), ks=(), baselines=("waf",), own=(), alpha: float = 0.05,
                      truths: dict | None = None, margin: float = NONINFERIORITY_MARGIN) -> None:
    """Read the experiments' tables, the selections and their costs, and write the leaderboard.

    Parameters
    ----------
    tables : list of dict
        The experiments' tables: records {experiment, dataset, path, metric: the table's metric,
        that of its tests against all features}.
    selections : list of dict
        The selection records (``ltrfs.leaderboard.read_selections``).
    costs : list of dict
        The selection costs (``ltrfs.leaderboard.read_costs``).
    out : dict
        Paths ``csv`` and ``md`` (the boards of every experiment and of ``all`` of them together,
        one row per (scope, method)), ``stability``, ``cost`` and ``smallest_k`` (CSV), optionally
        ``pairs`` (CSV: every pair's Wilcoxon signed-rank test over the blocks, Holm), ``html``
        (the Markdown as an HTML page), and the figures ``cd`` (a folder of critical-difference
        diagrams, ``{scope}.png`` per experiment and ``all.png``, one panel per metric),
        ``stability_png`` and ``pareto`` (PNG, each with its CSV beside it); with ``truths`` also
        ``recovery`` (CSV) and ``recovery_png``.
    metrics : sequence of str, default ("NDCG@10", "MAP")
        The metrics ranked.
    ks : iterable of int, default ()
        The k values of the stability and recovery tables.
    baselines : sequence of str, default ("waf",)
        The all-features baseline methods (they do not compete).
    own : sequence of str, default ()
        The rankers that are a method's own model (left out of the blocks).
    alpha : float, default 0.05
        Significance level.
    truths : dict or None, default None
        dataset -> truth.json of generated data: how much of the planted informative features
        each selector's top k finds (``ltrfs.leaderboard.recovery_table``).
    margin : float, default 0.01
        The tables' non-inferiority margin (config ``noninferiority_margin``), for the smallest-k note.

    References
    ----------
    Demsar. Statistical comparisons of classifiers over multiple data sets. J. Mach. Learn. Res.
    7:1-30, 2006 (the Friedman and Nemenyi tests and the critical-difference diagram).
    """
    frames = [read_csv(r["path"], ("method", "ranker", "k"), dtype={"k": str}).assign(experiment=r["experiment"], dataset=r["dataset"])
              for r in tables]
    long = pd.concat(frames, ignore_index=True)
    selections = read_selections(selections)
    stab = stability_table(selections, ks)
    recovery = recovery_table(selections, truths or {}, ks)
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
    write_text(out["csv"], result.to_csv(index=False, float_format="%.6g"))
    write_text(out["stability"], stab.to_csv(index=False, float_format="%.6g"))
    write_text(out["cost"], cost.to_csv(index=False, float_format="%.6g"))
    write_text(out["smallest_k"], small.to_csv(index=False, float_format="%.6g"))
    if out.get("pairs"):
        every = (pd.concat(wilcoxon, ignore_index=True) if wilcoxon else
                 pd.DataFrame(columns=["scope", "metric", "a", "b", "wins", "losses", "p", "p_holm"]))
        write_text(out["pairs"], every[["scope", "metric", "a", "b", "wins", "losses", "p", "p_holm"]]
                   .to_csv(index=False, float_format="%.6g"))
    write_markdown(out["md"], markdown(result, small, metrics, alpha=alpha, n_folds=n_folds_text(long), recovery=recovery,
                                        margin=margin),
                   out.get("html"))
    if "recovery" in out:
        write_text(out["recovery"], recovery.to_csv(index=False, float_format="%.6g"))
        plots.recovery_curves(recovery, out["recovery_png"])
    Path(out["cd"]).mkdir(parents=True, exist_ok=True)
    for scope, panels in diagrams.items():
        plots.cd_diagrams(panels, Path(out["cd"]) / f"{scope}.png", alpha=alpha)
    plots.stability_curves(stab, out["stability_png"])
    chosen = long[(long.k.astype(str) == "vali") | long.method.isin(list(baselines))]
    chosen = chosen[~chosen.ranker.isin(list(own)) & (chosen.ranker != REFERENCE_RANKER)]
    plots.accuracy_vs_cost(chosen, cost, first, out["pareto"], csv=out.get("pareto_csv"), baselines=baselines)


def leaderboard_records(tables: list, selections: list, *, results: str = "results", chunks: dict | None = None) -> dict:
    """The files a leaderboard reads, from the compact description the rule passes as params.

    The leaderboard rule's params hold only this description (a few hundred bytes), not the
    file lists: Snakemake compares a rule's params with those of the last run of its outputs,
    and shows the difference as the reason to rerun.

    Parameters
    ----------
    tables : list
        ``[experiment, dataset, metric]`` of every table ranked (metric: the table's vali metric).
    selections : list
        ``[dataset, method, algorithm, folds]`` of every competing method on a dataset.
    results : str, default "results"
        The results folder.
    chunks : dict or None, default None
        Scorer -> the number of jobs one fold's scores are split into (config ``chunks``).

    Returns
    -------
    dict
        ``tables`` ({experiment, dataset, metric, path}), ``selections`` ({dataset, method,
        fold, path}) and ``costs`` ({dataset, method, fold, paths: the benchmark files of the
        select job and of the scorer jobs it reads}).
    """
    chunks = chunks or {}
    out = {"tables": [{"experiment": e, "dataset": d, "metric": m, "path": f"{results}/{d}/tables/{e}.csv"}
                      for e, d, m in tables],
           "selections": [], "costs": []}
    for dataset, method, algorithm, folds in selections:
        for fold in folds:
            bench = f"benchmarks/score/{dataset}/fold{fold}"
            paths = [f"benchmarks/select/{dataset}/fold{fold}/{method}.tsv"]
            for scorer in SELECTORS[algorithm].requires:
                n = int(chunks.get(scorer, 1))
                paths.append(f"{bench}/{scorer}.tsv")
                paths += [f"{bench}/{scorer}.chunk{i}of{n}.tsv" for i in range(1, n + 1)] if n > 1 else []
            out["selections"].append({"dataset": dataset, "method": method, "fold": fold,
                                      "path": f"{results}/{dataset}/fold{fold}/select/{method}.json"})
            out["costs"].append({"dataset": dataset, "method": method, "fold": fold, "paths": paths})
    return out


class LeaderboardPlanning(ArtefactsPlanning):
    """What the leaderboard job reads and its settings (parameters as ``ltrfs.pipeline.run.Run``)."""

    @property
    def leaderboard(self) -> str:
        """The run's leaderboard folder, ``{results}/leaderboard/{run_name}``: runs of other configs
        in the same results folder keep theirs."""
        return f"{self.results}/leaderboard/{self.config['run_name']}"

    @cached_property  # the config is fixed once the workflow is parsed
    def leaderboard_spec(self) -> dict:
        """The compact description of what the leaderboard reads (``leaderboard_records``'s
        arguments): the tables of the experiments being run with their table metric, and every
        competing method (not WAF) on each of their datasets with its folds."""
        tables, selections, seen = [], [], set()
        for name, e, dataset in self.run_experiments():
            tables.append([name, dataset, self.table_metric(name)])
            for method in e["methods"]:
                algorithm = self.algorithm(method)
                if algorithm == "waf" or (dataset, method) in seen:
                    continue
                seen.add((dataset, method))
                selections.append([dataset, method, algorithm, list(self.folds(name, dataset))])
        scorers = {s for *_, algorithm, _ in selections for s in SELECTORS[algorithm].requires}
        chunks = {s: n for s in sorted(scorers) if (n := self.n_chunks(s)) > 1}
        return {"tables": tables, "selections": selections, "results": self.results, "chunks": chunks}

    @cached_property
    def leaderboard_records(self) -> dict:
        """What the leaderboard reads (``leaderboard_records`` of ``leaderboard_spec``)."""
        return leaderboard_records(**self.leaderboard_spec)

    def planted_datasets(self) -> list[str]:
        """The run's generated datasets (registry layout ``synthetic``): their truth.json names
        the planted features."""
        return sorted({r["dataset"] for r in self.leaderboard_records["tables"]
                       if self.registry[r["dataset"]]["layout"] == "synthetic"})

    def planted_truths(self) -> dict:
        """dataset -> its truth.json, for the run's generated datasets."""
        return {d: f"{self.resources}/{d}/data/truth.json" for d in self.planted_datasets()}

    def leaderboard_inputs(self, wildcards) -> list[str]:
        """An input function: every file of ``leaderboard_records``, and the generated datasets' manifests."""
        records = self.leaderboard_records
        return ([r["path"] for r in records["tables"]] + [r["path"] for r in records["selections"]]
                + [p for r in records["costs"] for p in r["paths"]]
                + [f"{self.resources}/{d}/manifest.json" for d in self.planted_datasets()])  # truth.json comes with it

    def leaderboard_ks(self) -> list[int]:
        """The union of the k grids of the experiments being run, sorted."""
        return sorted({int(k) for name in self.config["run"] for k in self.experiment(name)["k"]})

    def all_baselines(self) -> list[str]:
        """The all-features baseline methods of the experiments being run, sorted."""
        return sorted({m for name in self.config["run"] for m in self.baselines(name)})

    def all_own_rankers(self) -> list[str]:
        """The rankers of the experiments being run that are a method's own model, sorted."""
        return sorted({r for name in self.config["run"] for r in self.own_rankers(name)})

"""Planning of stage leaderboard (``workflow/rules/leaderboard.smk``): the run's leaderboard
folder, the compact description of what the leaderboard reads (its params) and the files that
description names (its inputs, and the job's reading list)."""
from __future__ import annotations

from functools import cached_property

from ltrfs.rankers import ranker_family
from ltrfs.selection import selector_family

__all__ = ["LeaderboardPlanning", "leaderboard_records"]


def leaderboard_records(tables: list, selections: list, *, results: str = "results", chunks: dict | None = None,
                        batched: list | None = None) -> dict:
    """The files a leaderboard reads, from the compact description the rule passes as params.

    The leaderboard rule's params hold only this description (a few hundred bytes), not the
    file lists: Snakemake compares a rule's params with those of the last run of its outputs,
    and shows the difference as the reason to rerun.

    Parameters
    ----------
    tables : list
        ``[experiment, dataset, metric]`` of every table ranked (metric: the table's vali metric).
    selections : list
        ``[dataset, method, scorers, folds]`` of every competing method on a dataset (scorers:
        those its algorithm reads, ``Selector.requires``).
    results : str, default "results"
        The results folder.
    chunks : dict or None, default None
        Scorer -> the number of jobs one fold's scores are split into (config ``chunks``).
    batched : list or None, default None
        ``[dataset, method]`` of the methods fitted in their fold's batched select job (config
        ``select_batch``): their cost is their part of it, the line their own log ends with.

    Returns
    -------
    dict
        ``tables`` ({experiment, dataset, metric, path}), ``selections`` ({dataset, method,
        fold, path}) and ``costs`` ({dataset, method, fold, paths: the benchmark files of the
        select job, or a batched method's log, and of the scorer jobs it reads}).
    """
    chunks, batched = chunks or {}, {tuple(pair) for pair in batched or ()}
    out = {"tables": [{"experiment": e, "dataset": d, "metric": m, "path": f"{results}/{d}/tables/{e}.csv"}
                      for e, d, m in tables],
           "selections": [], "costs": []}
    for dataset, method, scorers, folds in selections:
        for fold in folds:
            bench = f"benchmarks/score/{dataset}/fold{fold}"
            paths = [f"logs/select/{dataset}/fold{fold}/{method}.log" if (dataset, method) in batched
                     else f"benchmarks/select/{dataset}/fold{fold}/{method}.tsv"]
            for scorer in scorers:
                n = int(chunks.get(scorer, 1))
                paths.append(f"{bench}/{scorer}.tsv")
                paths += [f"{bench}/{scorer}.chunk{i}of{n}.tsv" for i in range(1, n + 1)] if n > 1 else []
            out["selections"].append({"dataset": dataset, "method": method, "fold": fold,
                                      "path": f"{results}/{dataset}/fold{fold}/select/{method}.json"})
            out["costs"].append({"dataset": dataset, "method": method, "fold": fold, "paths": paths})
    return out


class LeaderboardPlanning:
    """What the leaderboard job reads and its settings: the run's leaderboard folder, the files
    it reads and the baselines, rankers and k it ranks over.

    Parameters
    ----------
    run : ltrfs.pipeline.run.Run
        The run.
    score, select, tables : ScorePlanning, SelectPlanning, TablesPlanning
        The earlier planners it asks: how many jobs compute a scorer (``n_chunks``; their
        benchmark files are the cost), which methods are fitted in a batched select job (their
        logs are the cost) and each table's metric (``metric``).
    """

    def __init__(self, run, score, select, tables):
        self.run = run
        self.score = score
        self.select = select
        self.tables = tables

    @property
    def folder(self) -> str:
        """The run's leaderboard folder, ``{results}/leaderboard/{run_name}``: runs of other configs
        in the same results folder keep theirs."""
        return f"{self.run.results}/leaderboard/{self.run.config['run_name']}"

    @cached_property  # the config is fixed once the workflow is parsed
    def spec(self) -> dict:
        """The compact description of what the leaderboard reads (``leaderboard_records``'s
        arguments): the tables of the experiments being run with their table metric, and every
        competing method (not WAF) on each of their datasets with the scorers it reads and its folds."""
        from ltrfs.selection import SELECTORS  # every selector: not in the leaderboard job, which imports this module

        tables, selections, seen = [], [], set()
        for name, e, dataset in self.run.run_experiments():
            tables.append([name, dataset, self.tables.metric(name)])
            for method in e["methods"]:
                algorithm = self.run.algorithm(method)
                if algorithm == "waf" or (dataset, method) in seen:
                    continue
                seen.add((dataset, method))
                selections.append([dataset, method, list(SELECTORS[algorithm].requires),
                                   list(self.run.folds(name, dataset))])
        scorers = {s for _, _, reads, _ in selections for s in reads}
        chunks = {s: n for s in sorted(scorers) if (n := self.score.n_chunks(s)) > 1}
        batches = self.select.batches() if self.run.config["select_batch"] else {}
        batched = [[d, m] for d, m, _, _ in selections if m in batches.get(d, (None, ()))[1]]
        return {"tables": tables, "selections": selections, "results": self.run.results, "chunks": chunks,
                **({"batched": batched} if batched else {})}  # a run without the batch keeps its params

    @cached_property
    def records(self) -> dict:
        """What the leaderboard reads (``leaderboard_records`` of ``spec``)."""
        return leaderboard_records(**self.spec)

    def planted_datasets(self) -> list[str]:
        """The run's generated datasets (registry layout ``synthetic``): their truth.json names
        the planted features."""
        return sorted({r["dataset"] for r in self.records["tables"]
                       if self.run.registry[r["dataset"]]["layout"] == "synthetic"})

    def planted_truths(self) -> dict:
        """dataset -> its truth.json, for the run's generated datasets."""
        return {d: f"{self.run.resources}/{d}/data/truth.json" for d in self.planted_datasets()}

    def inputs(self, wildcards) -> list[str]:
        """An input function: every file of ``records``, and the generated datasets' manifests."""
        records = self.records
        return ([r["path"] for r in records["tables"]] + [r["path"] for r in records["selections"]]
                + [p for r in records["costs"] for p in r["paths"]]
                + [f"{self.run.resources}/{d}/manifest.json" for d in self.planted_datasets()])  # truth.json comes with it

    def ks(self) -> dict:
        """dataset -> the union of the k grids of the experiments being run on it, sorted: a
        dataset's stability and recovery are measured at its own experiments' ks only, so that a
        mean over k compares the selectors of one dataset on one grid."""
        grids: dict = {}
        for name in self.run.config["run"]:
            experiment = self.run.experiment(name)
            for dataset in experiment["datasets"]:
                grids.setdefault(dataset, set()).update(int(k) for k in experiment["k"])
        return {dataset: sorted(grid) for dataset, grid in sorted(grids.items())}

    def baselines(self) -> list[str]:
        """The all-features baseline methods of the experiments being run, sorted."""
        return sorted({m for name in self.run.config["run"] for m in self.run.baselines(name)})

    def families(self) -> dict:
        """``{"methods": method -> selector family, "rankers": ranker -> ranker family}`` of the
        experiments being run (``ltrfs.selection.selector_family``, ``ltrfs.rankers.ranker_family``):
        the leaderboard's cross table."""
        config = self.run.config
        experiments = [self.run.experiment(name) for name in config["run"]]
        return {"methods": {m: selector_family(config["methods"][m]["algorithm"]) for e in experiments for m in e["methods"]},
                "rankers": {r: ranker_family(config["rankers"][r]["algorithm"]) for e in experiments for r in e["rankers"]}}

    def own_rankers(self) -> list[str]:
        """The rankers of the experiments being run that are a method's own model, sorted."""
        return sorted({r for name in self.run.config["run"] for r in self.run.own_rankers(name)})

"""The one planning object the Snakefile builds: every stage's planning, composed.

Each stage's planner (``ltrfs.pipeline.planning.<stage>``) is built with the ``Run`` (the
config's own questions) and the earlier planners it asks, named: the tables ask train which
(method, ranker) pairs rank, the leaderboard asks score how a scorer is chunked and the tables
which metric each table uses. ``Plan`` holds them as attributes named as the stages
(``PLAN.train.ks``, ``PLAN.tables.run_records``, ...; the run itself is ``PLAN.run``) and adds
the targets of ``rule all`` and the summary at the end of a run.
"""
from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

from ltrfs.pipeline.planning.figures import FiguresPlanning
from ltrfs.pipeline.planning.leaderboard import LeaderboardPlanning
from ltrfs.pipeline.planning.prepare import PreparePlanning
from ltrfs.pipeline.planning.requests import RequestsPlanning
from ltrfs.pipeline.planning.score import ScorePlanning
from ltrfs.pipeline.planning.select import SelectPlanning
from ltrfs.pipeline.planning.tables import TablesPlanning
from ltrfs.pipeline.planning.train import TrainPlanning
from ltrfs.pipeline.run import Run

__all__ = ["Plan"]


class Plan:
    """The planning of a run: each stage's planner, and the targets of ``rule all``.

    Parameters
    ----------
    config : dict
        The checked config (``ltrfs.config_check.check``).
    registry : dict
        Dataset name -> registry entry.
    present : callable, optional
        ``present(dataset) -> bool`` (``ltrfs.pipeline.run.Run``).

    Attributes
    ----------
    run : ltrfs.pipeline.run.Run
        The config's own questions (folds, conventions, seeds, titles, folders).
    prepare, score, select, train, tables, figures, leaderboard
        The stages' planners (``ltrfs.pipeline.planning``).
    requests
        What the jobs ask of a cluster (``ltrfs.pipeline.planning.requests``).
    """

    def __init__(self, config: dict, registry: dict, present=None):
        self.run = run = Run(config, registry, present)
        self.prepare = PreparePlanning(run)
        self.score = ScorePlanning(run)
        self.select = SelectPlanning(run)
        self.train = TrainPlanning(run)
        self.tables = TablesPlanning(run, train=self.train)
        self.figures = FiguresPlanning(run)
        self.leaderboard = LeaderboardPlanning(run, score=self.score, select=self.select, tables=self.tables)
        self.requests = RequestsPlanning(run, self.prepare, self.score, self.select, self.train)

    def all_targets(self) -> list[str]:
        """What ``rule all`` asks for: every table and figure of the experiments being run, on
        their present datasets, and the leaderboard."""
        targets = []
        for name, _, dataset in self.run.run_experiments():
            targets += self.tables.targets(name, dataset) + self.figures.targets(name, dataset)
        folder = self.leaderboard.folder
        return targets + [f"{folder}/leaderboard.md", f"{folder}/leaderboard.html", f"{self.run.results}/versions.html"]

    def summary(self) -> str:
        """What a finished run tells at its end (``onsuccess``): the folders of its tables and
        figures, its leaderboard, how to make the report, how many fits were shared between
        methods (``shared_fits_note``) and a note per dataset whose convention scores short
        queries 0 (``short_query_notes``), one line each.

        Returns
        -------
        str
            Lines ``ltrfs: tables      results/synthetic/tables/`` and so on.
        """
        tables, figures = set(), set()
        for name, _, dataset in self.run.run_experiments():
            tables.update(str(PurePosixPath(p).parent) + "/" for p in self.tables.targets(name, dataset))
            figures.update(str(PurePosixPath(p).parent) + "/" for p in self.figures.targets(name, dataset))
        lines = ([f"{'tables':12s}{folder}" for folder in sorted(tables)]
                 + [f"{'figures':12s}{folder}" for folder in sorted(figures)]
                 + [f"{'leaderboard':12s}{self.leaderboard.folder}/leaderboard.md (and .html, .csv, figures beside it)",
                    f"{'report':12s}snakemake --report report.html, with this run's --configfile options"])
        return "".join(f"ltrfs: {line}\n" for line in ["the run is complete; its results:"] + lines
                       + self.shared_fits_note() + self.short_query_notes())

    def shared_fits_note(self) -> list[str]:
        """How many of the run's fits (a ranker at one k of a method) its train jobs read from
        another method's identical fit (config ``share_fits``, ``ltrfs.pipeline.shared_fits``),
        from the train jobs' info files that exist; none when no fit was shared.

        Returns
        -------
        list of str
            ``["fits        92 of 1,044 (ranker, k) fits were another method's, read, not fitted again (share_fits)"]``.
        """
        paths = {f"{self.run.fold_folder(dataset, fold)}/models/{method}/{ranker}.json"
                 for name, experiment, dataset in self.run.run_experiments()
                 for fold in self.run.folds(name, dataset) for method in experiment["methods"]
                 for ranker in experiment["rankers"]}
        total = shared = 0
        for path in sorted(paths):
            try:
                ks = json.loads(Path(path).read_text()).get("k") or {}
            except (OSError, ValueError, AttributeError):
                continue
            total += len(ks)
            shared += sum(1 for entry in ks.values() if isinstance(entry, dict) and entry.get("shared") is True)
        if not shared:
            return []
        return [f"{'fits':12s}{shared:,} of {total:,} (ranker, k) fits were another method's, read, not fitted "
                "again (share_fits)"]

    def short_query_notes(self) -> list[str]:
        """One line per dataset of the run whose convention scores its short test queries'
        NDCG@10 0 (``ltrfs.results.tables.short_query_footnote``), read from the folds' reference files
        that exist.

        Returns
        -------
        list of str
            ``"note: MQ2008: 372 of 784 queries of all folds' test sets have fewer than 10 ..."``.
        """
        from ltrfs.results.tables import read_references, short_query_footnote  # heavy (pandas): imported on use

        references: dict[str, dict] = {}
        for name, _, dataset in self.run.run_experiments():
            for record in self.tables.reference_records(name, dataset):
                references.setdefault(dataset, {})[record["path"]] = record
        notes = []
        for dataset, records in references.items():
            present = [r for r in records.values() if Path(r["path"]).is_file()]
            note = (short_query_footnote(read_references(present), self.run.convention_of(dataset), dataset=dataset)
                    if present else None)
            notes += [f"note: {dataset}: {note}"] if note else []
        return notes

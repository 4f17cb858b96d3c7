"""The one planning object the Snakefile builds: every stage's planning, in stage order.

Each stage module's ``*Planning`` class extends the previous stage's (prepare, score, select,
train, tables, artefacts, leaderboard), so a later stage can ask an earlier one (the tables
ask train which (method, ranker) pairs rank; the leaderboard asks score how a scorer is
chunked). ``Plan`` adds the targets of ``rule all``.
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from ltrfs.pipeline.leaderboard import LeaderboardPlanning
from ltrfs.tables import read_references, short_query_footnote

__all__ = ["Plan"]


class Plan(LeaderboardPlanning):
    """The planning of a run (``ltrfs.pipeline.run.Run``: a checked config and the registry)."""

    def all_targets(self) -> list[str]:
        """What ``rule all`` asks for: every table and figure of the experiments being run, on
        their present datasets, and the leaderboard."""
        targets = []
        for name, _, dataset in self.run_experiments():
            targets += self.table_targets(name, dataset) + self.figure_targets(name, dataset)
        return targets + [f"{self.leaderboard}/leaderboard.md", f"{self.leaderboard}/leaderboard.html",
                          f"{self.results}/versions.html"]

    def summary(self) -> str:
        """What a finished run tells at its end (``onsuccess``): the folders of its tables and
        figures, its leaderboard, how to make the report, and a note per dataset whose convention
        scores short queries 0 (``short_query_notes``), one line each.

        Returns
        -------
        str
            Lines ``ltrfs: tables      results/synthetic/tables/`` and so on.
        """
        tables, figures = set(), set()
        for name, _, dataset in self.run_experiments():
            tables.update(str(PurePosixPath(p).parent) + "/" for p in self.table_targets(name, dataset))
            figures.update(str(PurePosixPath(p).parent) + "/" for p in self.figure_targets(name, dataset))
        lines = ([f"{'tables':12s}{folder}" for folder in sorted(tables)]
                 + [f"{'figures':12s}{folder}" for folder in sorted(figures)]
                 + [f"{'leaderboard':12s}{self.leaderboard}/leaderboard.md (and .html, .csv, figures beside it)",
                    f"{'report':12s}snakemake --report report.html, with this run's --configfile options"])
        return "".join(f"ltrfs: {line}\n" for line in ["the run is complete; its results:"] + lines
                       + self.short_query_notes())

    def short_query_notes(self) -> list[str]:
        """One line per dataset of the run whose convention scores its short test queries'
        NDCG@10 0 (``ltrfs.tables.short_query_footnote``), read from the folds' reference files
        that exist.

        Returns
        -------
        list of str
            ``"note: MQ2008: 372 of 784 queries of all folds' test sets have fewer than 10 ..."``.
        """
        references: dict[str, dict] = {}
        for name, _, dataset in self.run_experiments():
            for record in self.reference_records(name, dataset):
                references.setdefault(dataset, {})[record["path"]] = record
        notes = []
        for dataset, records in references.items():
            present = [r for r in records.values() if Path(r["path"]).is_file()]
            note = short_query_footnote(read_references(present), self.convention_of(dataset), dataset=dataset) if present else None
            notes += [f"note: {dataset}: {note}"] if note else []
        return notes

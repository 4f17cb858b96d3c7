"""The one planning object the Snakefile builds: every stage's planning, in stage order.

Each stage module's ``*Planning`` class extends the previous stage's (prepare, score, select,
train, tables, artefacts, leaderboard), so a later stage can ask an earlier one (the tables
ask train which (method, ranker) pairs rank; the leaderboard asks score how a scorer is
chunked). ``Plan`` adds the targets of ``rule all``.
"""
from __future__ import annotations

from ltrfs.pipeline.leaderboard import LeaderboardPlanning

__all__ = ["Plan"]


class Plan(LeaderboardPlanning):
    """The planning of a run (``ltrfs.pipeline.run.Run``: a checked config and the registry)."""

    def all_targets(self) -> list[str]:
        """What ``rule all`` asks for: every table and figure of the experiments being run, on
        their present datasets, and the leaderboard."""
        targets = []
        for name, _, dataset in self.run_experiments():
            targets += self.table_targets(name, dataset) + self.figure_targets(name, dataset)
        return targets + [f"{self.leaderboard}/leaderboard.md", f"{self.leaderboard}/leaderboard.html"]

"""Planning of stage select (``workflow/rules/select.smk``): the score files, threads and conda
environment of the select jobs."""
from __future__ import annotations

from ltrfs.pipeline.planning.environments import conda_env
from ltrfs.selection import SELECTORS

__all__ = ["SelectPlanning"]


class SelectPlanning:
    """The inputs and threads of the select jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def scorer_inputs(self, wildcards) -> dict:
        """The per-fold score files the method's algorithm reads."""
        fold = self.run.fold.format(**wildcards)
        return {name: f"{fold}/scores/{name}.npz" for name in SELECTORS[self.run.algorithm(wildcards.method)].requires}

    def threads(self, wildcards) -> int:
        """The method's own ``threads`` (default 1)."""
        return self.run.method_config(wildcards).get("threads", 1)

    def conda_env(self, wildcards) -> str:
        """The job's conda environment (``ltrfs.pipeline.planning.environments``): the neural one for
        a neural selector."""
        return conda_env(self.run.algorithm(wildcards.method))

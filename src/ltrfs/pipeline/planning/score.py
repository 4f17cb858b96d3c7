"""Planning of stage score (``workflow/rules/score.smk``): the inputs and threads of the score
jobs, and how many jobs compute one fold's scorer (config ``chunks``)."""
from __future__ import annotations

from ltrfs import scoring

__all__ = ["ScorePlanning", "SCORE_THREADS"]

#: the threaded scorers' default threads (config ``score_threads``; or --set-threads score=N)
SCORE_THREADS = 2


class ScorePlanning:
    """The inputs and threads of the score jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def n_chunks(self, scorer: str) -> int:
        """How many jobs compute one fold's scorer (config ``chunks``; 1 = one job)."""
        return int((self.run.config.get("chunks") or {}).get(scorer, 1))

    def inputs(self, wildcards) -> dict:
        """A fold's splits, plus the chunk files when the scorer is split across jobs."""
        fold = self.run.fold.format(**wildcards)
        inputs = {"train": f"{fold}/data/train.npz", "vali": f"{fold}/data/vali.npz"}
        n = self.n_chunks(wildcards.scorer)
        if n > 1:
            inputs["chunks"] = [f"{fold}/scores/{wildcards.scorer}.chunk{i}of{n}.npz" for i in range(1, n + 1)]
        return inputs

    def threads(self, wildcards) -> int:
        """Threads of a score job: config ``score_threads`` (default ``SCORE_THREADS``), 1 for a
        scorer that runs on one, or that only merges its chunks."""
        merges = getattr(wildcards, "chunk", None) is None and self.n_chunks(wildcards.scorer) > 1
        threaded = scoring.uses_threads(wildcards.scorer) and not merges
        return int(self.run.config.get("score_threads", SCORE_THREADS)) if threaded else 1

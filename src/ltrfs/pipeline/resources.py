"""What a job asks of a cluster: memory (MB) and run time (minutes) that grow with its data.

Every job asks for amounts that grow with the data it reads, so a cluster gets honest
requests on MQ2008 and on MSLR alike; a retried job (profiles/slurm retries once) asks for
``attempt`` times as much. On the MQ2008 run every job stayed below its request (benchmarks/
max_rss; docs/cluster.md); the per-MB factors allow for float64 copies of the features and are
not yet measured on MSLR-sized data. Profiles can override any rule with ``set-resources``.
"""
from __future__ import annotations

import math
import os

__all__ = ["scaled", "input_mb"]


def scaled(base: float, per_mb: float, size=None):
    """A Snakemake resources callable: ``(base + per_mb * size) * attempt``, rounded up.

    Parameters
    ----------
    base, per_mb : float
        The amount for no data, and per MiB of it.
    size : callable, optional
        ``size(wildcards) -> MiB``; default the job's input size (``input_mb``).
    """
    def resource(wildcards, input, attempt):
        mb = input_mb(input) if size is None else size(wildcards)
        return int(math.ceil((base + per_mb * mb) * attempt))

    return resource


def input_mb(input) -> float:
    """MiB of the job's input files that exist (0 for those still to be made: Snakemake resets
    resources before it schedules a job, when all its input exists). Read with ``os.stat``
    rather than ``input.size_mb``, a coroutine that cannot run inside Snakemake's own event loop
    while it builds the DAG or a report (it printed "coroutine ... was never awaited" warnings)."""
    return sum(os.path.getsize(f) for f in input if os.path.isfile(f)) / 2**20

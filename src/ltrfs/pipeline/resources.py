"""What a job asks of a cluster: memory (MB) and run time (minutes) from the size of its data.

The jobs that grow with the data (download, prepare, score, select, train) ask by **cost
lines calibrated on measured jobs**: ``job_costs.csv`` beside this module holds each kind of
job's CPU-seconds and peak memory measured at two sizes or more (the leaderboard's
``MSLR-WEB30K-standin-0.005``, ``MSLR-WEB30K-standin-0.05`` and a full ``MSLR-WEB30K-standin``
fold; ``bench/full_fold_jobs.py`` writes it from the runs' ``benchmarks/`` and their files). A
kind's line through its smallest and largest measured size, raised until no measurement lies
above it (``CostLine.fit``), on data of the job's number of features where it was measured on
such data, gives

* memory ``1.5 x (m0 + m1 * held)`` MB, ``held`` what the job loads (cells of its input
  matrices, or bytes of text), with ``m1`` at least the 4 bytes of a loaded float32 cell
  (``HELD_MB``);
* run time ``1.5 x (t0 + t1 * work) / 60`` minutes rounded up (at least 1), ``work`` what it
  computes over (the cells it fits on, after a method's ``sample_queries`` or ``sample_size``;
  for a train job the rows times the sum of its k), CPU-seconds taken as wall seconds (no
  credit for a job's threads);

both times the attempt number (``profiles/slurm`` retries once, with twice as much). A kind
measured on other feature counts only takes its line through all its jobs, and a kind with no
measurement of its own (a method or scorer this table has not seen) the line that asks most
among its rule's kinds. The other rules (tables, figures, the leaderboard) are small
and ask ``base + per_mb x input MiB`` (``scaled``). docs/cluster.md tells the requests and how
far they lie above the measured jobs.
"""
from __future__ import annotations

import csv
import functools
import math
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["scaled", "input_mb", "CostLine", "cost_lines", "fit_lines", "predict", "request", "npz_shape", "COSTS_FILE",
           "MEMORY_MARGIN", "TIME_MARGIN", "HELD_MB"]

#: the measurements the cost lines are fitted on (``bench/full_fold_jobs.py --costs``)
COSTS_FILE = Path(__file__).with_name("job_costs.csv")
#: a request is this many times the line's prediction (the line lies on or above every measurement)
MEMORY_MARGIN = 1.5
TIME_MARGIN = 1.5
#: the least memory a job of a rule holds per unit of its ``held`` size, MB: the rules sized in
#: cells load them as float32 (download and prepare, sized in text MB, have no such floor)
HELD_MB = {rule: 4 / 2**20 for rule in ("score", "select", "train")}


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


@dataclass(frozen=True)
class CostLine:
    """A kind of job's cost: ``t0 + t1 * work`` CPU-seconds, ``m0 + m1 * held`` MB at peak."""

    t0: float
    t1: float
    m0: float
    m1: float

    @classmethod
    def fit(cls, points, held_mb: float = 0.0) -> "CostLine":
        """The line from the smallest to the largest measured size (``_upper_line``), raised
        until no measurement lies above it; through a single size, from the origin.

        Parameters
        ----------
        points : iterable of (held, work, cpu_s, peak_mb)
            Measured jobs of one kind, at one size or more.
        held_mb : float, default 0
            The least memory slope, MB per unit of ``held``: what a job must hold of its input
            (a float32 cell is 4 bytes), so that sizes where the libraries' own memory hides the
            data's do not give a slope below it.

        Returns
        -------
        CostLine

        Examples
        --------
        >>> CostLine.fit([(10, 10, 5.0, 100.0), (1000, 1000, 104.0, 1090.0)])
        CostLine(t0=4.0, t1=0.1, m0=90.0, m1=1.0)
        """
        pts = np.asarray(list(points), dtype=np.float64).reshape(-1, 4)
        t0, t1 = _upper_line(pts[:, 1], pts[:, 2])
        m0, m1 = _upper_line(pts[:, 0], pts[:, 3], held_mb)
        return cls(t0, t1, m0, m1)

    def seconds(self, work: float) -> float:
        """Predicted CPU-seconds."""
        return self.t0 + self.t1 * work

    def peak_mb(self, held: float) -> float:
        """Predicted peak memory, MB."""
        return self.m0 + self.m1 * held

    def most(self, other: "CostLine") -> "CostLine":
        """The larger of two lines, part by part (asks at least what either asks)."""
        return CostLine(*(max(a, b) for a, b in zip((self.t0, self.t1, self.m0, self.m1),
                                                     (other.t0, other.t1, other.m0, other.m1))))


def _upper_line(x: np.ndarray, y: np.ndarray, min_slope: float = 0.0) -> tuple[float, float]:
    """(intercept, slope >= min_slope) of the line from the least y at the least x to the largest
    y at the largest x (the steepest growth between the two sizes, whichever jobs were measured
    at each), raised so that every point lies on or below it; with one x, a line from the origin
    through its largest y."""
    lo, hi = float(np.min(x)), float(np.max(x))
    if hi <= lo:
        return 0.0, max(min_slope, float(np.max(y) / hi)) if hi > 0 else 0.0
    slope = max(min_slope, float((np.max(y[x == hi]) - np.min(y[x == lo])) / (hi - lo)))
    intercept = float(np.max(y - slope * x))
    if intercept < 0:  # grows faster than linearly: from the origin, above every point
        return 0.0, max(min_slope, float(np.max(y / np.where(x > 0, x, np.inf))))
    return intercept, slope


@functools.lru_cache(maxsize=4)
def cost_lines(path: Path = COSTS_FILE) -> dict:
    """``fit_lines`` of the measurements in the CSV ``path``."""
    with open(path, newline="") as handle:
        return fit_lines(csv.DictReader(handle))


def fit_lines(rows) -> dict:
    """The cost lines of measured jobs.

    Parameters
    ----------
    rows : iterable of dict
        With keys rule, name, features, held, work, cpu_s, peak_mb (numbers or their text).

    Returns
    -------
    dict
        (rule, kind, features) -> the line of that kind's jobs on data of that many features,
        where they were measured at two sizes or more (one size says nothing of how the cost
        grows: a line from the origin would scale the libraries' memory); (rule, kind, None) ->
        through all its jobs; (rule, None, None) -> the most of the rule's lines.
    """
    points: dict = {}
    for row in rows:
        point = tuple(float(row[c]) for c in ("held", "work", "cpu_s", "peak_mb"))
        for key in ((row["rule"], row["name"], int(float(row["features"]))), (row["rule"], row["name"], None)):
            points.setdefault(key, []).append(point)
    lines = {key: CostLine.fit(p, HELD_MB.get(key[0], 0.0)) for key, p in points.items()
             if key[2] is None or len({held for held, *_ in p}) > 1}
    for (rule, kind, features), line in list(lines.items()):
        if features is None:
            rule_key = (rule, None, None)
            lines[rule_key] = lines[rule_key].most(line) if rule_key in lines else line
    return lines


def request(rule: str, kind: str, held: float, work: float, features: int | None = None, attempt: int = 1,
            lines=None) -> tuple[int, int, float]:
    """What a job asks: (mem_mb, runtime minutes, predicted CPU-seconds).

    Parameters
    ----------
    rule : str
        The rule (download, prepare, score or score_chunk, select, train).
    kind : str
        The job's kind within the rule (the scorer, the method, the train job's rankers joined
        by ``+``).
    held, work : float
        The job's sizes (module docstring).
    features : int, optional
        The data's number of features: the line of the kind's jobs measured on as many features
        where there is one (a method's cost grows with them in its own way), else the line
        through all the kind's jobs, else (an unmeasured kind) the rule's most demanding line.
    attempt : int, default 1
        Snakemake's attempt number; the request is multiplied by it.
    lines : dict, optional
        ``cost_lines()`` by default.

    Returns
    -------
    (int, int, float)
    """
    seconds, peak = predict(rule, kind, held, work, features, lines)
    mem = math.ceil(MEMORY_MARGIN * peak) * attempt
    minutes = max(1, math.ceil(TIME_MARGIN * seconds / 60)) * attempt
    return int(mem), int(minutes), float(seconds)


def predict(rule: str, kind: str, held: float, work: float, features: int | None = None,
            lines=None) -> tuple[float, float]:
    """A job's predicted (CPU-seconds, peak MB): ``request``'s line, without its margins."""
    lines = cost_lines() if lines is None else lines
    rule = "score" if rule == "score_chunk" else rule  # a chunk is a share of its scorer's work
    line = lines.get((rule, kind, features)) or lines.get((rule, kind, None)) or lines[(rule, None, None)]
    return line.seconds(work), line.peak_mb(held)


def npz_shape(path) -> tuple[int, int, int] | None:
    """(rows, features, queries) of a prepared split (``.npz`` of ``ltrfs.ranking_data``) read
    from its arrays' headers alone (once per version of the file: Snakemake asks for every job's
    resources more than once), or None when the file is not there (yet) or not readable."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _npz_shape(os.fspath(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _npz_shape(path: str, mtime_ns: int, size: int) -> tuple[int, int, int] | None:
    """``npz_shape`` of one version of a file (its modification time and size)."""
    try:
        with zipfile.ZipFile(path) as z:
            shapes = {}
            for name in ("X.npy", "query_ptr.npy"):
                with z.open(name) as f:
                    major, _ = np.lib.format.read_magic(f)
                    read = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
                    shapes[name] = read(f)[0]
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    (rows, d), (ptr,) = shapes["X.npy"], shapes["query_ptr.npy"]
    return int(rows), int(d), int(ptr) - 1

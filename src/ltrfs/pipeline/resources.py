"""What a job asks of a cluster: memory (MB) and run time (minutes) from the size of its data.

The jobs that grow with the data (download, prepare, score, select, train) ask by **cost
curves calibrated on measured jobs**: ``job_costs.csv`` beside this module holds each kind of
job's CPU-seconds and peak memory measured at several sizes (the leaderboard's
``MSLR-WEB30K-standin-0.005``, ``-0.05``, ``-0.25`` (and ``-0.5`` for two kinds) and a full
``MSLR-WEB30K-standin`` fold; ``bench/full_fold_jobs.py`` writes it from the runs' ``benchmarks/`` and their files). A
kind's curve (``CostCurve``: through the most each measured size used, and beyond the largest
size growing as its two largest sizes grew), on data of the job's number of features where it
was measured on such data, gives

* memory ``1.5 x peak_mb(held)`` MB, ``held`` what the job loads (cells of its input matrices,
  or bytes of text), growing beyond the measured sizes by at least the 4 bytes of a loaded
  float32 cell (``HELD_MB``);
* run time ``1.5 x seconds(work) / 60`` minutes rounded up (at least 1), ``work`` what it
  computes over (the rows it fits on, after a method's ``sample_queries`` or ``sample_size``,
  times the feature columns of its fits, ``Selector.fit_columns``: d, or the sum of the sizes
  ``lambdamart_rfe`` visits, or d scaled by FS-BFS's estimated search runs; for a train job the rows times the sum of its k), CPU-seconds taken as wall seconds (no
  credit for a job's threads);

both times the attempt number (``profiles/slurm`` retries once, with twice as much). A kind
measured on other feature counts only takes its curve through all its jobs, and a kind with no
measurement of its own (a method or scorer this table has not seen) the most of its rule's
curves. The other rules (tables, figures, the leaderboard) are small
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

__all__ = ["scaled", "input_mb", "CostCurve", "Highest", "cost_curves", "fit_curves", "curve_for", "predict", "request",
           "npz_shape", "COSTS_FILE", "MEMORY_MARGIN", "TIME_MARGIN", "HELD_MB", "NOISE_S", "MEASURED_MB"]

#: the measurements the cost curves are fitted on (``bench/full_fold_jobs.py --costs``)
COSTS_FILE = Path(__file__).with_name("job_costs.csv")
#: a request is this many times the curve's prediction (the curve lies on or above every measurement)
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
class CostCurve:
    """A kind of job's cost through its measured jobs: CPU-seconds by ``work``, peak MB by ``held``.

    At a measured size, the most any job of that size or a smaller one used (a larger job is
    never asked less than a smaller one); straight between measured sizes; below the smallest,
    the smallest's cost. Beyond the largest size, from it and the nearest size at most half of it
    (``_growth``): run time as a power of the work, ``t(x) = t_n (x / x_n)^b``, with ``b`` their
    log-log slope held to [1, 2] (never slower than linear; 1 where the smaller of them took
    under ``NOISE_S``, job start rather than work); memory along their straight line, rising at
    least ``held_mb`` a unit. Without such a size, time grows in proportion from the largest
    size and memory by the larger of ``held_mb`` and the largest size's MB per unit.

    Attributes
    ----------
    work, seconds_at : tuple of float
        The measured ``work`` sizes, ascending, and the CPU-seconds of the curve at each.
    held, mb_at : tuple of float
        The measured ``held`` sizes, ascending, and the peak MB of the curve at each.
    held_mb : float
        The least memory slope beyond the largest size, MB per unit of ``held``.
    """

    work: tuple
    seconds_at: tuple
    held: tuple
    mb_at: tuple
    held_mb: float = 0.0

    @classmethod
    def fit(cls, points, held_mb: float = 0.0) -> "CostCurve":
        """The curve of measured jobs of one kind.

        Parameters
        ----------
        points : iterable of (held, work, cpu_s, peak_mb)
            Measured jobs of one kind, at one size or more.
        held_mb : float, default 0
            The least memory slope beyond the largest size, MB per unit of ``held``: what a job
            must hold of its input (a float32 cell is 4 bytes), so that sizes where the
            libraries' own memory hides the data's do not give a slope below it.

        Returns
        -------
        CostCurve

        Examples
        --------
        >>> curve = CostCurve.fit([(10, 10, 20.0, 100.0), (110, 100, 2000.0, 200.0)])
        >>> curve.seconds(55), curve.seconds(200), curve.peak_mb(210)
        (1010.0, 8000.0, 300.0)
        """
        pts = np.asarray(list(points), dtype=np.float64).reshape(-1, 4)
        work, seconds = _envelope(pts[:, 1], pts[:, 2])
        held, mb = _envelope(pts[:, 0], pts[:, 3])
        return cls(work, seconds, held, mb, float(held_mb))

    def seconds(self, work: float) -> float:
        """Predicted CPU-seconds."""
        x, y = self.work, self.seconds_at
        if work <= x[-1]:
            return float(np.interp(work, x, y))
        pair = _growth(x, y)
        if pair is None or y[pair] < NOISE_S or y[-1] <= y[pair]:
            return y[-1] * work / x[-1] if x[-1] > 0 else y[-1]
        b = min(2.0, max(1.0, math.log(y[-1] / y[pair]) / math.log(x[-1] / x[pair])))
        return y[-1] * (work / x[-1]) ** b

    def peak_mb(self, held: float) -> float:
        """Predicted peak memory, MB."""
        x, y = self.held, self.mb_at
        if held <= x[-1]:
            return float(np.interp(held, x, y))
        pair = _growth(x, y)
        if pair is None:
            slope = max(self.held_mb, y[-1] / x[-1] if x[-1] > 0 else 0.0)
        else:
            slope = max(self.held_mb, (y[-1] - y[pair]) / (x[-1] - x[pair]))
        return y[-1] + slope * (held - x[-1])



@dataclass(frozen=True)
class Highest:
    """The most of several curves at every size: a rule's fallback for a kind it has not measured."""

    curves: tuple

    def seconds(self, work: float) -> float:
        """The most predicted CPU-seconds."""
        return max(c.seconds(work) for c in self.curves)

    def peak_mb(self, held: float) -> float:
        """The most predicted peak memory, MB."""
        return max(c.peak_mb(held) for c in self.curves)


#: the least peak MB of a measured job: a workflow job's Python with NumPy holds more, so a smaller
#: peak (or no CPU-seconds) is a sample Snakemake's benchmark took before the job's work
MEASURED_MB = 50.0
#: CPU-seconds below which a measured job's time is its start (imports, loading) more than its
#: work: no growth exponent is read from it
NOISE_S = 10.0


def _envelope(x: np.ndarray, y: np.ndarray) -> tuple[tuple, tuple]:
    """The measured sizes in ascending order and, at each, the most any job of that size or a
    smaller one used."""
    sizes = np.unique(x)
    most = np.maximum.accumulate([float(np.max(y[x == s])) for s in sizes])
    return tuple(float(s) for s in sizes), tuple(float(v) for v in most)


def _growth(x: tuple, y: tuple) -> int | None:
    """Index of the largest measured size at most half the largest (the pair growth beyond the
    largest is read from), or None."""
    below = [i for i, s in enumerate(x) if 0 < s <= x[-1] / 2]
    return below[-1] if below else None


@functools.lru_cache(maxsize=4)
def cost_curves(path: Path = COSTS_FILE) -> dict:
    """``fit_curves`` of the measurements in the CSV ``path``."""
    with open(path, newline="") as handle:
        return fit_curves(csv.DictReader(handle))


def fit_curves(rows) -> dict:
    """The cost curves of measured jobs.

    Parameters
    ----------
    rows : iterable of dict
        With keys rule, name, features, held, work, cpu_s, peak_mb (numbers or their text).

    Returns
    -------
    dict
        (rule, kind, features) -> the curve of that kind's jobs on data of that many features,
        where they were measured at sizes at least twice apart (one size, or the folds of one
        dataset, say nothing of how the cost grows); (rule, kind, None) -> through all its jobs;
        (rule, None, None) -> the most of the rule's curves. Rows whose job Snakemake's sampler
        did not see at work (no CPU-seconds, or a peak under ``MEASURED_MB``) are left out.
    """
    points: dict = {}
    for row in rows:
        point = tuple(float(row[c]) for c in ("held", "work", "cpu_s", "peak_mb"))
        if not (all(math.isfinite(v) for v in point) and point[2] > 0 and point[3] >= MEASURED_MB):
            continue  # Snakemake's sampler saw the job before its work (or not at all): no measurement
        for key in ((row["rule"], row["name"], int(float(row["features"]))), (row["rule"], row["name"], None)):
            points.setdefault(key, []).append(point)
    curves = {key: CostCurve.fit(p, HELD_MB.get(key[0], 0.0)) for key, p in points.items()
              if key[2] is None or max(held for held, *_ in p) >= 2 * min(held for held, *_ in p)}
    for (rule, kind, features), curve in list(curves.items()):
        if features is None:
            rule_key = (rule, None, None)
            curves[rule_key] = Highest(curves.get(rule_key, Highest(())).curves + (curve,))
    return curves


def request(rule: str, kind: str, held: float, work: float, features: int | None = None, attempt: int = 1,
            curves=None) -> tuple[int, int, float]:
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
        The data's number of features: the curve of the kind's jobs measured on as many features
        where there is one (a method's cost grows with them in its own way), else the curve
        through all the kind's jobs, else (an unmeasured kind) the most of the rule's curves.
    attempt : int, default 1
        Snakemake's attempt number; the request is multiplied by it.
    curves : dict, optional
        ``cost_curves()`` by default.

    Returns
    -------
    (int, int, float)
    """
    seconds, peak = predict(rule, kind, held, work, features, curves)
    mem = math.ceil(MEMORY_MARGIN * peak) * attempt
    minutes = max(1, math.ceil(TIME_MARGIN * seconds / 60)) * attempt
    return int(mem), int(minutes), float(seconds)


def predict(rule: str, kind: str, held: float, work: float, features: int | None = None,
            curves=None) -> tuple[float, float]:
    """A job's predicted (CPU-seconds, peak MB): ``request``'s curve, without its margins."""
    curve = curve_for(rule, kind, features, curves)
    return curve.seconds(work), curve.peak_mb(held)


def curve_for(rule: str, kind: str, features: int | None = None, curves=None):
    """The curve a job is asked by (``request``): its kind's on as many features, else its
    kind's through all its jobs, else the most of its rule's curves (a ``Highest``).

    Parameters
    ----------
    rule, kind : str
        As ``request``'s (``score_chunk`` is asked as ``score``).
    features : int, optional
        The data's number of features.
    curves : dict, optional
        ``cost_curves()`` by default.

    Returns
    -------
    CostCurve or Highest
    """
    curves = cost_curves() if curves is None else curves
    rule = "score" if rule == "score_chunk" else rule  # a chunk is a share of its scorer's work
    return curves.get((rule, kind, features)) or curves.get((rule, kind, None)) or curves[(rule, None, None)]


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

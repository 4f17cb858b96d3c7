"""A job's log: the package's records, Python's warnings and the exception that ends the job, in
one file (``logs/`` alone tells why a job failed), and as its last line what the job used
(``USAGE``: CPU-seconds and peak resident memory, from the kernel's accounting).
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import re
import resource
import sys
import time
import traceback
from pathlib import Path

from ltrfs.user_errors import error_line, is_user_error


def _handler(path=None) -> logging.Handler:
    """A handler writing timestamped records to the file ``path`` (anew), or to stderr."""
    handler = logging.FileHandler(path, mode="w") if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
    return handler


def log_to(path=None, level: str = "INFO") -> None:
    """Send the package's log records (logger ``ltrfs``) to a file or to stderr, with timestamps.

    Warnings from Python go there too. An exception that ends the job is written there as well
    (one line ``ltrfs: error: ...`` for a user error, the full traceback for a bug) and, as
    before, to stderr, so that ``logs/`` alone tells why a job failed.

    Parameters
    ----------
    path : path, optional
        A job's Snakemake log; None: stderr.
    level : str, default "INFO"
        The logging level.
    """
    handler = _handler(path)
    root = logging.getLogger()
    for old in root.handlers:  # a batched job moves from one ranker's log to the next
        old.close()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.captureWarnings(True)
    if path:
        sys.excepthook = _log_uncaught
        atexit.unregister(_log_usage)  # once, however many logs a batched job moves through
        atexit.register(_log_usage)


@contextlib.contextmanager
def log_part(path):
    """One part of a batched job (a method of a batched select job): the package's records go to
    the part's own log ``path`` while it runs, then the exception that stops it, if one does, and
    last what the part used (``PART_USAGE``: the CPU-seconds and wall seconds between its start
    and end, the peak resident memory of the job's process so far); then the records go back to
    the job's log (``log_to``), which still ends with the whole job's ``USAGE``.

    Parameters
    ----------
    path : path
        The part's log, written anew.
    """
    root = logging.getLogger()
    handler, saved = _handler(path), root.handlers[:]
    root.handlers[:] = [handler]
    start, clock = usage(), time.perf_counter()
    try:
        yield
    except BaseException as exc:
        root.critical((error_line(exc) if is_user_error(exc) else traceback.format_exc()).rstrip())
        raise
    finally:
        end = usage()
        _write(handler, PART_USAGE.format(cpu_s=end["cpu_s"] - start["cpu_s"], wall_s=time.perf_counter() - clock,
                                          peak_mb=end["peak_mb"]))
        handler.close()
        root.handlers[:] = saved


#: the last line of a job's log: its CPU-seconds (user + system, its waited-for child processes
#: included) and peak resident memory, exact where Snakemake's ``benchmark:`` samples the job
#: (every 0.5 s for 15 s, then every 30 s: up to 30 CPU-seconds and any shorter peak missed)
USAGE = "job used {cpu_s:.2f} CPU-s and {peak_mb:.1f} MB at peak (resident)"
#: the last line of a part's log (``log_part``)
PART_USAGE = ("part used {cpu_s:.2f} CPU-s in {wall_s:.2f} s and {peak_mb:.1f} MB at peak (resident, the job's "
              "process so far)")
_USAGE = re.compile(r"(?:job|part) used ([0-9.]+) CPU-s(?: in ([0-9.]+) s)? and ([0-9.]+) MB at peak")


def usage() -> dict:
    """{"cpu_s", "peak_mb"} of this process and the child processes it has waited for
    (``getrusage``); the peak is the larger of the process's and its largest child's (not their
    sum, should they have run at once)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    unit = 2**20 if sys.platform == "darwin" else 2**10  # ru_maxrss: bytes on macOS, KiB on Linux
    return {"cpu_s": cpu, "peak_mb": max(own.ru_maxrss, kids.ru_maxrss) * unit / 2**20}


def read_usage(text: str) -> dict | None:
    """The last ``USAGE`` (or ``PART_USAGE``) line of a log's text as {"cpu_s", "peak_mb"} (and
    a part's "wall_s"), or None without one."""
    found = _USAGE.findall(text)
    if not found:
        return None
    cpu, wall, peak = found[-1]
    return {"cpu_s": float(cpu), "peak_mb": float(peak), **({"wall_s": float(wall)} if wall else {})}


def usage_of(benchmark) -> dict | None:
    """What the workflow job of a ``benchmarks/`` file used, from the ``USAGE`` line its log ends
    with (the rules name a job's log as its benchmark: ``logs/{job}.log`` for
    ``benchmarks/{job}.tsv``; a batched train job's line is in the log it ended in, its last
    ranker's, the newest of ``logs/{job}/*.log`` that is not a job of its own with a benchmark
    ``benchmarks/{job}/{ranker}.tsv``); None where there is none (a job of an older run, or one
    killed by a signal).

    Parameters
    ----------
    benchmark : path
        ``.../benchmarks/{job}.tsv``.

    Returns
    -------
    dict or None
        {"cpu_s", "peak_mb"}.
    """
    path = Path(benchmark).with_suffix("")
    parts = path.parts
    if "benchmarks" not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index("benchmarks")
    log = Path(*parts[:at], "logs", *parts[at + 1:])
    if log.with_name(log.name + ".log").is_file():
        newest = log.with_name(log.name + ".log")
    else:
        batch = [p for p in log.glob("*.log") if not (path / f"{p.stem}.tsv").exists()] if log.is_dir() else []
        if not batch:
            return None
        newest = max(batch, key=lambda p: p.stat().st_mtime)
    return read_usage(newest.read_text(errors="replace"))


def benchmark_record(benchmark) -> dict:
    """The last row of a Snakemake ``benchmarks/`` file as {column: text} (empty for a file
    without one)."""
    lines = Path(benchmark).read_text().splitlines()
    return dict(zip(lines[0].split("\t"), lines[-1].split("\t"))) if len(lines) > 1 else {}


def job_cost(benchmark, record: dict | None = None) -> tuple[float, float]:
    """(CPU-seconds, peak MB) of the workflow job of a ``benchmarks/`` file: the larger of its
    log's ``USAGE`` line (``usage_of``; the kernel's count, which misses children the job did not
    wait for) and Snakemake's sampled ``cpu_time`` and ``max_rss`` (which miss up to 30
    CPU-seconds and short peaks); NaN where neither says. For a part of a batched job, which has
    a log and no benchmark of its own (``log_part``), its log's ``PART_USAGE`` line.

    Parameters
    ----------
    benchmark : path
        ``.../benchmarks/{job}.tsv``, or a part's ``.../logs/{part}.log``.
    record : dict, optional
        The file's ``benchmark_record``, when the caller has read it.

    Returns
    -------
    (float, float)
    """
    if Path(benchmark).suffix == ".log":
        used = read_usage(Path(benchmark).read_text(errors="replace")) or {}
        return _most(used.get("cpu_s")), _most(used.get("peak_mb"))
    record = benchmark_record(benchmark) if record is None else record
    used = usage_of(benchmark) or {}
    return (_most(used.get("cpu_s"), record.get("cpu_time")), _most(used.get("peak_mb"), record.get("max_rss")))


def _most(*values) -> float:
    """The largest of the values that are numbers (Snakemake writes ``NA`` where it could not
    measure), NaN when none is."""
    numbers = []
    for value in values:
        try:
            numbers.append(float(value))
        except (TypeError, ValueError):
            continue
    numbers = [v for v in numbers if v == v]
    return max(numbers) if numbers else float("nan")


def _log_usage() -> None:
    """Write ``USAGE`` to the job's log whatever its level (the handlers directly)."""
    for handler in logging.getLogger().handlers:
        _write(handler, USAGE.format(**usage()))


def _write(handler: logging.Handler, text: str) -> None:
    """Write one INFO record to a handler whatever the logging level."""
    handler.handle(logging.makeLogRecord({"name": "ltrfs", "levelno": logging.INFO, "levelname": "INFO", "msg": text}))
    handler.flush()


def _log_uncaught(kind, exc, tb) -> None:
    text = error_line(exc) if is_user_error(exc) else "".join(traceback.format_exception(kind, exc, tb))
    logging.getLogger().critical(text.rstrip())
    for handler in logging.getLogger().handlers:
        handler.flush()
    print(text.rstrip(), file=sys.stderr)

"""A job's log: the package's records, Python's warnings and the exception that ends the job, in
one file (``logs/`` alone tells why a job failed), and as its last line what the job used
(``USAGE``: CPU-seconds and peak resident memory, from the kernel's accounting).
"""
from __future__ import annotations

import atexit
import logging
import re
import resource
import sys
import traceback
from pathlib import Path

from ltrfs.user_errors import error_line, is_user_error


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
    handler = logging.FileHandler(path, mode="w") if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
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


#: the last line of a job's log: its CPU-seconds (user + system, its waited-for child processes
#: included) and peak resident memory, exact where Snakemake's ``benchmark:`` samples the job
#: (every 0.5 s for 15 s, then every 30 s: up to 30 CPU-seconds and any shorter peak missed)
USAGE = "job used {cpu_s:.2f} CPU-s and {peak_mb:.1f} MB at peak (resident)"
_USAGE = re.compile(r"job used ([0-9.]+) CPU-s and ([0-9.]+) MB at peak")


def usage() -> dict:
    """{"cpu_s", "peak_mb"} of this process and its waited-for children so far (``getrusage``;
    the peak is the larger of the process's and its largest child's)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    return {"cpu_s": cpu, "peak_mb": max(own.ru_maxrss, kids.ru_maxrss) / 1024}  # KiB on Linux


def read_usage(text: str) -> dict | None:
    """The ``USAGE`` line of a job's log text as {"cpu_s", "peak_mb"}, or None without one."""
    found = _USAGE.findall(text)
    return {"cpu_s": float(found[-1][0]), "peak_mb": float(found[-1][1])} if found else None


def usage_of(benchmark) -> dict | None:
    """What the workflow job of a ``benchmarks/`` file used, from the ``USAGE`` line its log ends
    with (the rules name a job's log as its benchmark: ``logs/{job}.log`` for
    ``benchmarks/{job}.tsv``, or for a batched train job the log of its last ranker,
    ``logs/{job}/{ranker}.log``); None where no log has one (a job of an older run).

    Parameters
    ----------
    benchmark : path
        ``.../benchmarks/{job}.tsv``.

    Returns
    -------
    dict or None
        {"cpu_s", "peak_mb"}.
    """
    path = Path(benchmark)
    parts = path.with_suffix("").parts
    if "benchmarks" not in parts:
        return None
    at = len(parts) - 1 - parts[::-1].index("benchmarks")
    log = Path(*parts[:at], "logs", *parts[at + 1:])
    candidates = [log.with_name(log.name + ".log")]
    if log.is_dir():
        candidates += sorted(log.glob("*.log"), key=lambda p: p.stat().st_mtime)
    found = [read_usage(p.read_text(errors="replace")) for p in candidates if p.is_file()]
    found = [u for u in found if u is not None]
    return found[-1] if found else None


def _log_usage() -> None:
    logging.getLogger("ltrfs").info(USAGE.format(**usage()))
    for handler in logging.getLogger().handlers:
        handler.flush()


def _log_uncaught(kind, exc, tb) -> None:
    text = error_line(exc) if is_user_error(exc) else "".join(traceback.format_exception(kind, exc, tb))
    logging.getLogger().critical(text.rstrip())
    for handler in logging.getLogger().handlers:
        handler.flush()
    print(text.rstrip(), file=sys.stderr)

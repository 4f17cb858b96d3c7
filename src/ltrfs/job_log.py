"""A job's log: the package's records, Python's warnings and the exception that ends the job, in
one file (``logs/`` alone tells why a job failed).
"""
from __future__ import annotations

import logging
import sys
import traceback

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


def _log_uncaught(kind, exc, tb) -> None:
    text = error_line(exc) if is_user_error(exc) else "".join(traceback.format_exception(kind, exc, tb))
    logging.getLogger().critical(text.rstrip())
    for handler in logging.getLogger().handlers:
        handler.flush()
    print(text.rstrip(), file=sys.stderr)

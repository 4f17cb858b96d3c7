"""Small helpers used across the package: building estimators by name, stable seeds,
atomic file writes and ``key=value`` parameter parsing."""
from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import inspect
import json
import logging
import math
import os
import re
import secrets
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import yaml


def did_you_mean(name, valid) -> str:
    """The hint for a name that is not one of ``valid``: `` (did you mean 'x'?)``, or "".

    The closest valid name by ``difflib`` (ratio 0.6 or more), compared with ``-`` and spaces as
    ``_`` and in lower case, so ``gas-e`` and ``GAS_E`` find ``gas_e``.

    Parameters
    ----------
    name : object
        The name given.
    valid : iterable of str
        The valid names.

    Returns
    -------
    str
        The hint, with its leading space, or "" when no valid name is close.

    Examples
    --------
    >>> did_you_mean("gas-e", ["gas_e", "gas_l", "fs_ed"])
    " (did you mean 'gas_e'?)"
    >>> did_you_mean("zzz", ["gas_e"])
    ''
    """
    folded = {re.sub(r"[-\s]", "_", str(v)).lower(): str(v) for v in valid}
    key = re.sub(r"[-\s]", "_", str(name)).lower()
    close = [folded[key]] if key in folded else [folded[m] for m in difflib.get_close_matches(key, folded, n=1)]
    return f" (did you mean {close[0]!r}?)" if close and close[0] != name else ""


def unknown_name(kind: str, name, valid) -> str:
    """``unknown <kind> '<name>' (did you mean '<closest>'?); valid: <all, sorted>`` (``did_you_mean``).

    Parameters
    ----------
    kind : str
        What the name names ("method", "config ranker").
    name : object
        The name given.
    valid : iterable of str
        The valid names.

    Returns
    -------
    str
        The one-line message.

    Examples
    --------
    >>> unknown_name("method", "gas-e", ["gas_e", "gas_l", "fs_ed"])
    "unknown method 'gas-e' (did you mean 'gas_e'?); valid: fs_ed, gas_e, gas_l"
    """
    valid = sorted(map(str, valid))
    return f"unknown {kind} {name!r}{did_you_mean(name, valid)}; valid: {', '.join(valid) or '(none)'}"


def build_estimator(kind: str, registry: dict, name: str, params: dict):
    """Build an estimator by name with one-line errors.

    Parameters
    ----------
    kind : str
        "ranker" or "method", for messages.
    registry : dict
        Name -> class.
    name : str
        The estimator's name.
    params : dict
        Constructor parameters.

    Returns
    -------
    object
        ``registry[name](**params)``.

    Raises
    ------
    ValueError
        Naming an unknown name or parameter.
    """
    if name not in registry:
        raise ValueError(unknown_name(kind, name, registry))
    cls = registry[name]
    valid = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{kind} {name!r} has no parameter {unknown[0]!r}{did_you_mean(unknown[0], valid)}; "
                         f"valid: {', '.join(valid) or '(none)'}")
    return cls(**params)


def stable_seed(*parts) -> int:
    """A 31-bit seed from any parts, equal on every machine and Python run (unlike ``hash``).

    Parameters
    ----------
    *parts
        Config seed, dataset, fold, method, ... (anything with a ``str``).

    Returns
    -------
    int
    """
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little") & 0x7FFFFFFF


#: a write that failed for want of room: a full disk or quota, a file over the size limit
DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


@contextlib.contextmanager
def full_disk_named(path, outcome: str):
    """Re-raise a full-disk error of the block that names no file as one that names ``path``.

    Parameters
    ----------
    path : path
        The file or folder the block writes.
    outcome : str
        Added to the message (e.g. "; nothing was written").
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is None and exc.errno in DISK_FULL:
            raise OSError(exc.errno, f"{exc.strerror or exc}{outcome}", str(path)) from exc
        raise


@contextlib.contextmanager
def atomic_path(path):
    """A temporary path beside ``path``, renamed onto it when the block succeeds.

    On success the file is flushed to disk and renamed onto ``path``; otherwise it is deleted (a
    write that fails without naming its file, such as a full disk, is re-raised naming ``path``).
    The file gets the usual permissions (0o666 minus the umask), unlike ``tempfile.mkstemp``'s
    0o600.

    Parameters
    ----------
    path : path
        The file to write.

    Yields
    ------
    Path
        The temporary path to write.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:  # pragma: no cover - 32 random bits collided
            continue
        except OSError as exc:  # no space, no permission: name the output, not the temporary name
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
    with full_disk_named(path, "; nothing was written"):
        try:
            yield tmp
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def atomic_open(path):
    """A binary file open for writing on a temporary name beside ``path``, renamed onto
    ``path`` when the block succeeds (:func:`atomic_path`).

    Parameters
    ----------
    path : str or Path
        The file to write.

    Yields
    ------
    file object
        Open in ``"wb"`` mode.
    """
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        yield f


def write_text(path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_path`).

    Parameters
    ----------
    path : path
    text : str
    """
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path, obj) -> None:
    """Write ``obj`` as indented JSON (numpy values converted) to ``path``, atomically.

    Parameters
    ----------
    path : path
    obj : object
        JSON-serialisable, numpy scalars and arrays allowed.
    """
    write_text(path, json.dumps(obj, indent=1, sort_keys=False, default=json_default) + "\n")


def refuse_json_constant(name: str):
    """``json.loads``'s ``parse_constant`` for files of numbers from strangers: ``NaN``,
    ``Infinity`` and ``-Infinity`` are refused (a ValueError naming them)."""
    raise ValueError(f"{name} is not a number a model holds")


def finite_json_float(text: str) -> float:
    """``json.loads``'s ``parse_float`` that refuses a number overflowing to infinity (``1e999``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def json_default(value):
    """``json.dumps``'s ``default``: numpy scalars as Python numbers, arrays as lists.

    Parameters
    ----------
    value : object
        What ``json`` cannot write itself.

    Returns
    -------
    int, float, bool or list
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


#: a decimal number as YAML 1.2 writes it: ``1e-7``, ``1E-7``, ``.5``, ``5.``, ``-.5``, ``2.5e3``
NUMBER = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")


class NumberLoader(yaml.SafeLoader):
    """PyYAML's safe loader that also reads YAML 1.2's numbers as numbers.

    PyYAML follows YAML 1.1, where a float needs a dot and a signed exponent: it reads ``1e-7``,
    ``1E-7`` and ``-.5`` as text. This loader reads every ``NUMBER`` as a float (integers stay
    integers).
    """


NumberLoader.add_implicit_resolver("tag:yaml.org,2002:float", NUMBER, list("-+0123456789."))


def yaml_value(text: str):
    """A YAML value (a scalar, list or mapping), numbers read as YAML 1.2 writes them.

    Parameters
    ----------
    text : str
        E.g. ``"1e-7"``, ``"[.5, 5., 1E-3]"``, ``"map"``.

    Returns
    -------
    object
        ``NumberLoader``'s reading.

    Examples
    --------
    >>> yaml_value("1e-7"), yaml_value("[.5, 5., 1E-3]"), yaml_value("10"), yaml_value("ndcg@10")
    (1e-07, [0.5, 5.0, 0.001], 10, 'ndcg@10')
    """
    return yaml.load(text, Loader=NumberLoader)  # noqa: S506 - a SafeLoader subclass


def with_numbers(value):
    """``value`` with every text that is a number (``NUMBER``, not a bare integer) made a float.

    What a YAML 1.1 loader left as text, e.g. the ``1e-7`` of a config file that Snakemake read
    (``ltrfs.config_check.check`` applies this to the methods' and rankers' parameters and grids).

    Parameters
    ----------
    value : object
        A loaded YAML value; lists and mappings are walked.

    Returns
    -------
    object
        A copy with the numbers read.

    Examples
    --------
    >>> with_numbers({"tol": "1e-7", "C": ["1E-3", ".5", 2], "metric": "map", "id": "7"})
    {'tol': 1e-07, 'C': [0.001, 0.5, 2], 'metric': 'map', 'id': '7'}
    """
    if isinstance(value, dict):
        return {key: with_numbers(v) for key, v in value.items()}
    if isinstance(value, list):
        return [with_numbers(v) for v in value]
    if isinstance(value, str) and NUMBER.match(value.strip()) and not value.strip().lstrip("+-").isdigit():
        return float(value)
    return value


def parse_assignments(items) -> dict:
    """Parse ``NAME=VALUE`` assignments of the command line.

    Parameters
    ----------
    items : list of str
        E.g. ``["C=0.1", "metric=map", "C=[1,2]", "tol=1e-7"]``.

    Returns
    -------
    dict
        Name -> value, values read as YAML scalars or lists (``yaml_value``: ``1e-7``, ``.5``
        and ``5.`` are numbers).
    """
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects key=value, got {item!r}")
        try:
            out[key.strip()] = yaml_value(value)
        except yaml.YAMLError as exc:
            raise ValueError(f"--set {item!r}: not a YAML value ({str(exc).splitlines()[0]})") from None
    return out


class Progress:
    """Progress lines for a long loop of ``total`` steps, in the job's log (``tail -f`` it)::

        RF elimination curve: 12 of 55 forests (22%), 41 s elapsed, about 2.5 min left

    Call ``step(note=...)`` after each step; a line is logged at most every ``every`` seconds,
    and always for the last step. What is left is estimated linearly from the time so far.

    Parameters
    ----------
    what : str
        The loop's name at the start of each line.
    total : int
        Number of steps.
    unit : str, default "steps"
        What a step is, in the lines.
    every : float, default 10.0
        Seconds between lines, at least.
    """

    def __init__(self, what: str, total: int, unit: str = "steps", every: float = 10.0):
        self.what, self.total, self.unit, self.every = what, max(int(total), 1), unit, every
        self.log = logging.getLogger("ltrfs.progress")
        self._clock = time.perf_counter
        self.start = self.last = self._clock()
        self.done = 0

    def step(self, note: str = "") -> None:
        """Count one step done (``note`` is appended to the line), and log a line when one is due."""
        self.done += 1
        now = self._clock()
        if now - self.last < self.every and self.done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        left = elapsed * max(self.total - self.done, 0) / self.done
        self.log.info("%s: %d of %d %s (%d%%), %s elapsed, about %s left%s", self.what, self.done, self.total,
                      self.unit, round(100 * self.done / self.total), duration(elapsed), duration(left),
                      f" ({note})" if note else "")


def duration(seconds: float) -> str:
    """A duration for humans: ``"41 s"``, ``"2.5 min"``, ``"1.2 h"``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


#: errors of the machine, not of ltrfs: a full disk or quota, a file too large, no permission
_ENVIRONMENT_ERRNOS = {*DISK_FULL, errno.EACCES, errno.EROFS}


def is_user_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a problem of the user's input or machine rather than a bug.

    User errors are the package's own ValueError classes (DataError, ConfigError, FetchError,
    ...) and files that could not be written for lack of space or permission: they are told in
    one line; a bug is told with its traceback.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    bool
    """
    if isinstance(exc, OSError):
        return exc.errno in _ENVIRONMENT_ERRNOS and exc.filename is not None
    return isinstance(exc, ValueError) and type(exc).__module__.split(".")[0] == "ltrfs"


def error_line(exc: BaseException) -> str:
    """The one-line message of a user error: ``ltrfs: error: ...``.

    Parameters
    ----------
    exc : BaseException
        An OSError is told as "<file>: <what went wrong>" (``os_error_text``).

    Returns
    -------
    str
    """
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"ltrfs: error: {os_error_text(exc)}"
    return f"ltrfs: error: {exc}"


def os_error_text(exc: OSError, path=None) -> str:
    """"<path>: <what went wrong>", in the one wording of every reader for a missing file.

    A missing file is "<path>: no such file"; the readers of ``ltrfs.formats``,
    ``ltrfs.io`` and ``ltrfs.signed`` word it through here; other errors keep the system's words, in lower case.

    Parameters
    ----------
    exc : OSError
    path : path-like or None
        The file named; None: the error's own ``filename``.

    Returns
    -------
    str
    """
    path = exc.filename if path is None else path
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    return f"{path}: {(exc.strerror or str(exc)).lower()}"


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

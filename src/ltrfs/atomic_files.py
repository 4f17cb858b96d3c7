"""Files written whole or not at all: a temporary name beside the output, renamed onto it when the
write succeeds (a killed job leaves nothing a rerun would trust).
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path

from ltrfs.json_numbers import json_default
from ltrfs.user_errors import DISK_FULL


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

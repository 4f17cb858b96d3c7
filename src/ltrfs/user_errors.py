"""User errors told in one line, bugs with their traceback: which is which (``is_user_error``),
the one line (``error_line``), and the one wording of a file that could not be read or written.
"""
from __future__ import annotations

import errno


#: a write that failed for want of room: a full disk or quota, a file over the size limit
DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


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

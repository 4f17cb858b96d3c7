"""Pickles that cannot run a stranger's code: signed with the user's key.

Model and selector files are code-free JSON (``ltrfs.state``) wherever the model has such a form;
the others (ranker ``own`` of ``gbm_importance``, whose model is a scikit-learn or XGBoost
classifier object) and the model files of earlier versions are pickles, and loading a pickle
runs whatever code the file names. So every pickle ltrfs writes carries an HMAC-SHA256 of its
pickle under a key of the user (``key``), and ltrfs unpickles a file only when that signature
checks out: a file from elsewhere, crafted or merely written with another key, is refused before
a single byte is unpickled. A pickle one trusts anyway (a colleague's) is loaded with
``trust=True`` (``ltrfs predict --trust-model``).

File layout: the line ``LTRFS-SIGNED-PICKLE 1``, a line ``<hex HMAC> <payload bytes>``, then
the pickle. The key is ``$LTRFS_MODEL_KEY`` (hex) when set, else 32 random bytes kept in
``$XDG_CONFIG_HOME/ltrfs/model.key`` (``~/.config/ltrfs/model.key``, mode 600), made on first
use; nodes of a cluster that share the home folder share it.

The key is checked before use, each problem a one-line error naming where it is wrong: as ssh
does with a private key, a key file that its group or others may read or write (any of the mode
bits 077, e.g. 644) is refused, with the fix ``chmod 600 <file>``: whoever can read it can sign a
pickle that ltrfs then unpickles. A key file that is not 64 hex digits (one line) is refused
(delete it to get a new key), and so is a ``$LTRFS_MODEL_KEY`` that is not an even number of hex
digits, at least 32 (16 bytes).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
from pathlib import Path

from ltrfs.atomic_files import atomic_path
from ltrfs.docstrings import fill_doc
from ltrfs.ranking_data import DataError
from ltrfs.user_errors import os_error_text

MAGIC = b"LTRFS-SIGNED-PICKLE 1\n"


def key_path() -> Path:
    """The file of the user's signing key: ``$XDG_CONFIG_HOME/ltrfs/model.key`` (default ``~/.config``)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "ltrfs" / "model.key"


KEY_HEX_DIGITS = 64
ENV_MIN_HEX_DIGITS = 32


def _from_hex(text: str, digits: int | None = None) -> bytes | None:
    """The bytes of a hex string of ``digits`` digits (any even number >= 32 when None), else None."""
    if (len(text) != digits) if digits else (len(text) < ENV_MIN_HEX_DIGITS or len(text) % 2):
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def _read_key(path: Path) -> bytes:
    """The key in ``path``, refused in one line when others may read it or it is malformed."""
    with open(path, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if os.name == "posix" and mode & 0o077:
            raise DataError(f"{path}: your model key can be read or written by others (mode {mode & 0o777:o}); "
                            f"ltrfs refuses it, since whoever reads it can sign code that ltrfs would run: "
                            f"run `chmod 600 {path}`")
        raw = fh.read(4 * KEY_HEX_DIGITS)
    try:
        found = _from_hex(raw.decode("ascii").strip(), KEY_HEX_DIGITS)
    except UnicodeDecodeError:
        found = None
    if found is None:
        raise DataError(f"{path}: not an ltrfs model key (expected one line of {KEY_HEX_DIGITS} hex digits); "
                        "delete it to make a new key (models signed with the old one then need --trust-model)")
    return found


def key() -> bytes:
    """The user's signing key (see the module docstring); made on first use.

    Returns
    -------
    bytes
        The key.

    Raises
    ------
    DataError
        One line for a ``$LTRFS_MODEL_KEY`` that is not hex, or a key file that others may read or
        that is not 64 hex digits.
    """
    text = os.environ.get("LTRFS_MODEL_KEY", "").strip()
    if text:
        found = _from_hex(text)
        if found is None:
            raise DataError(f"LTRFS_MODEL_KEY: not a key (expected an even number of hex digits, at least "
                            f"{ENV_MIN_HEX_DIGITS}, such as the output of "
                            "`python -c 'import secrets; print(secrets.token_hex(32))'`)")
        return found
    path = key_path()
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = secrets.token_hex(32)
    fd = os.open(path.parent / f".model.key.{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(fresh + "\n")
    try:  # another process may have made it meanwhile: keep the first one
        os.link(path.parent / f".model.key.{os.getpid()}", path)
    except FileExistsError:
        pass
    finally:
        os.unlink(path.parent / f".model.key.{os.getpid()}")
    return _read_key(path)


def _signature(payload: bytes) -> str:
    return hmac.new(key(), payload, hashlib.sha256).hexdigest()


def dump(path, obj) -> None:
    """Pickle ``obj`` to ``path`` (atomically) with the user's signature.

    Parameters
    ----------
    path : str or os.PathLike
        The file written.
    obj : object
        The object pickled.
    """
    payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + f"{_signature(payload)} {len(payload)}\n".encode() + payload)


def read_bytes(path, what: str) -> bytes:
    """The bytes of a model or selector file, with one-line errors for a missing, empty or folder path.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        What the file holds, for error messages.

    Returns
    -------
    bytes
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, not a {what} file") from None
    if not raw:
        raise DataError(f"{path}: empty file, not a {what} file")
    return raw


#: docstring text of ``load`` and ``loads`` (``ltrfs.docstrings.fill_doc``)
_DOC = {"what_trust_returns": """what : str, default "model"
    What the file holds, for error messages.
trust : bool, default False
    Accept a file whose signature is not the user's (it is refused otherwise).

Returns
-------
object
    The unpickled object."""}


@fill_doc(**_DOC)
def load(path, what: str = "model", trust: bool = False):
    """The object in a file written by ``dump``.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    %(what_trust_returns)s

    Raises
    ------
    DataError
        For an empty, truncated or foreign file, or an untrusted signature.
    """
    return loads(read_bytes(path, what), path, what, trust)


@fill_doc(**_DOC)
def loads(raw: bytes, path, what: str = "model", trust: bool = False):
    """The object in the bytes ``raw`` of a file written by ``dump`` (``load`` once they are read).

    Parameters
    ----------
    raw : bytes
        The file's bytes.
    path : str or os.PathLike
        The file, for error messages.
    %(what_trust_returns)s
    """
    if not raw.startswith(MAGIC):
        raise DataError(f"{path}: not an ltrfs {what} file (no 'LTRFS-SIGNED-PICKLE' header; files of ltrfs "
                        "before signed models must be made again)")
    head, _, payload = raw[len(MAGIC):].partition(b"\n")
    try:
        signature, size = head.decode("ascii").split(" ")
        size = int(size)
    except (UnicodeDecodeError, ValueError):
        raise DataError(f"{path}: damaged {what} file (bad header)") from None
    if len(payload) != size:
        raise DataError(f"{path}: truncated or damaged {what} file ({len(payload)} of {size} bytes)")
    if not trust and not hmac.compare_digest(signature, _signature(payload)):
        raise DataError(f"{path}: this {what} file was not written with your ltrfs key ({key_path()}); it is a "
                        "pickle, which runs code when loaded, so ltrfs loads only the files it wrote for you. "
                        "If you trust where it comes from, load it with --trust-model")
    try:
        return pickle.loads(payload)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, TypeError, ValueError) as exc:
        raise DataError(f"{path}: damaged {what} file ({type(exc).__name__}: {exc})") from None

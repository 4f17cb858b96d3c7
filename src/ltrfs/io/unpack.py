"""Decompression with a ceiling: every compressed input is unpacked as a stream and refused
once its output passes a limit, so that a small hostile file cannot fill memory or disk.

The limit of one compressed input (a ``.gz``/``.bz2``/``.xz`` data file, or a dataset archive
as a whole) is::

    min(UNPACK_LIMIT, max(FLOOR, UNPACK_RATIO * compressed size))

with ``UNPACK_RATIO`` 100 and ``UNPACK_LIMIT`` 64 GiB by default. Real ranking data compresses
4-6 times (MSLR-WEB10K/30K, LETOR 3.0/4.0, Istella), so a ratio of 100 leaves a wide margin;
the 64 GiB cap is several times the largest real unpacked dataset (MSLR-WEB30K, about 20 GB
for its five folds). ``FLOOR`` (16 MiB) spares small, very repetitive files (tests, toy data)
the ratio. Both are raised with the environment variables ``LTRFS_UNPACK_RATIO`` (a number)
and ``LTRFS_UNPACK_LIMIT`` (bytes, or a number with the suffix K, M, G or T, powers of 1024),
which the workflow's jobs inherit.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile

from ltrfs.ranking_data import DataError

__all__ = ["RATIO_ENV", "LIMIT_ENV", "DEFAULT_RATIO", "DEFAULT_LIMIT", "FLOOR", "UnpackLimitError",
           "limits", "Budget", "opener", "read_all", "copy", "BudgetReader"]

RATIO_ENV = "LTRFS_UNPACK_RATIO"
LIMIT_ENV = "LTRFS_UNPACK_LIMIT"
DEFAULT_RATIO = 100.0
DEFAULT_LIMIT = 64 * 2 ** 30
FLOOR = 16 * 2 ** 20
CHUNK = 2 ** 20
_SUFFIX = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}


def _gzip(fh):
    return gzip.GzipFile(fileobj=fh, mode="rb")


_OPENERS = {".gz": _gzip, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}
_MAGIC = ((b"\x1f\x8b", _gzip), (b"BZh", bz2.BZ2File), (b"\xfd7zXZ\x00", lzma.LZMAFile))
#: errors of the decompressors on damaged input (a DataError is a ValueError: catch it first)
DAMAGE = (OSError, EOFError, lzma.LZMAError, ValueError)


class UnpackLimitError(DataError):
    """A compressed input unpacks to more than its limit; the message is one line."""


def _size_text(n: float) -> str:
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= scale:
            return f"{n / scale:,.4g} {unit}"
    return f"{int(n)} bytes"


def limits() -> tuple[float, int]:
    """The ratio and the absolute cap in force, from the environment or the defaults.

    Returns
    -------
    tuple of (float, int)
        ``(ratio, limit_bytes)``.

    Raises
    ------
    DataError
        When ``LTRFS_UNPACK_RATIO`` or ``LTRFS_UNPACK_LIMIT`` is set to something else than a
        positive number (a size for the limit).
    """
    ratio, limit = DEFAULT_RATIO, DEFAULT_LIMIT
    text = os.environ.get(RATIO_ENV, "").strip()
    if text:
        try:
            ratio = float(text)
        except ValueError:
            ratio = float("nan")
        if not ratio > 0 or ratio == float("inf"):
            raise DataError(f"{RATIO_ENV}={text!r}: expected a positive number, such as 200")
    text = os.environ.get(LIMIT_ENV, "").strip()
    if text:
        number, unit = text[:-1], text[-1].upper()
        if unit.isdigit():
            number, unit = text, ""
        try:
            limit = int(float(number) * _SUFFIX[unit]) if number else 0
        except (KeyError, ValueError, OverflowError):
            limit = 0
        if limit <= 0:
            raise DataError(f"{LIMIT_ENV}={text!r}: expected a positive size in bytes, or with a suffix "
                            "K, M, G or T, such as 128G")
    return ratio, limit


class Budget:
    """The bytes one compressed input may unpack to, and those it has unpacked so far.

    Parameters
    ----------
    source : str or Path
        The compressed file, named in the error.
    compressed_size : int
        Its size in bytes.
    """

    def __init__(self, source, compressed_size: int):
        self.source = source
        self.ratio, self.cap = limits()
        self.compressed_size = int(compressed_size)
        self.limit = int(min(self.cap, max(FLOOR, self.ratio * self.compressed_size)))
        self.used = 0

    def add(self, n: int) -> None:
        """Count ``n`` more unpacked bytes.

        Raises
        ------
        UnpackLimitError
            Once the total passes the limit.
        """
        self.used += n
        if self.used > self.limit:
            raise UnpackLimitError(
                f"{self.source}: unpacks to more than {_size_text(self.limit)} (limit: {self.ratio:g} times its "
                f"{_size_text(self.compressed_size)}, at least {_size_text(FLOOR)}, at most {_size_text(self.cap)}); "
                f"refused as a likely decompression bomb: if the file is genuine, raise the limit with "
                f"{RATIO_ENV}=<ratio> or {LIMIT_ENV}=<size such as 128G> (docs/datasets.md)")


def opener(name: str, head: bytes):
    """How to unpack a file, by suffix or magic bytes: a function of its open binary file that
    returns the decompressing stream, or None.

    Parameters
    ----------
    name : str
        The file name (its suffix is looked at first).
    head : bytes
        The file's first bytes (at least 6).

    Returns
    -------
    callable or None
        A gzip, bzip2 or xz reader of the open file; None for an uncompressed file.
    """
    cls = _OPENERS.get(os.path.splitext(name)[1].lower())
    if cls is None:
        for magic, candidate in _MAGIC:
            if head.startswith(magic):
                return candidate
    return cls


def read_all(src, budget: Budget) -> bytes:
    """Read a decompressing stream to its end within ``budget``.

    Parameters
    ----------
    src : binary file
        The decompressing stream.
    budget : Budget
        Counts what is read; memory stays within the limit plus one chunk.

    Returns
    -------
    bytes
        The unpacked content.
    """
    chunks = list(_chunks(src, budget))
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def copy(src, dst, budget: Budget) -> None:
    """Copy a decompressing stream to ``dst`` within ``budget``.

    Parameters
    ----------
    src : binary file
        The decompressing stream.
    dst : binary file
        Where the content goes.
    budget : Budget
        Counts what is read; the chunk that passes the limit is not written.
    """
    for chunk in _chunks(src, budget):
        dst.write(chunk)


def _chunks(src, budget: Budget):
    """The chunks of a decompressing stream, each counted against ``budget`` before it is handed
    on (the one past the limit raises instead)."""
    while chunk := src.read(CHUNK):
        budget.add(len(chunk))
        yield chunk


class BudgetReader(io.RawIOBase):
    """A readable stream over ``src`` that counts what passes through against ``budget``.

    Parameters
    ----------
    src : binary file
        The decompressing stream (read sequentially).
    budget : Budget
        Raises once more than its limit has been read.
    """

    def __init__(self, src, budget: Budget):
        super().__init__()
        self._src, self._budget = src, budget

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        """Read into ``b``, counting against the budget (damaged data: ``tarfile.ReadError``).

        Parameters
        ----------
        b : writable buffer
            Filled from the start.

        Returns
        -------
        int
            The number of bytes read, 0 at the end.
        """
        try:
            data = self._src.read(min(len(b), CHUNK))
        except (OSError, EOFError, lzma.LZMAError) as exc:  # damaged compressed data
            raise tarfile.ReadError(f"cannot decompress: {exc}") from None
        self._budget.add(len(data))
        b[:len(data)] = data
        return len(data)

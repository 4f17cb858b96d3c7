"""The syntax of two registry values: archive formats by file name, and checksums.

Leaf helpers with no dependency on the rest of the package: the registry validates entries
with them, ``fetch`` and the synthetic archive writer read the same formats.
"""
from __future__ import annotations

import re

_SUFFIXES = (  # longest first
    (".tar.gz", "tar.gz"), (".tgz", "tar.gz"), (".tar.bz2", "tar.bz2"), (".tbz2", "tar.bz2"),
    (".tar.xz", "tar.xz"), (".txz", "tar.xz"), (".tar", "tar"), (".zip", "zip"), (".rar", "rar"),
    (".gz", "gz"),
)
_HEX = re.compile(r"^[0-9a-f]+$")
_DIGEST_LEN = {"sha256": 64, "md5": 32}


def format_of(file_name: str) -> str:
    """The archive format implied by a file name.

    Parameters
    ----------
    file_name : str
        A file name (any letter case).

    Returns
    -------
    str
        ``tar.gz``, ``tar.bz2``, ``tar.xz``, ``tar``, ``zip``, ``rar`` or ``gz``, the longest
        suffix that matches; ``file`` when none does.
    """
    low = file_name.lower()
    for suffix, fmt in _SUFFIXES:
        if low.endswith(suffix):
            return fmt
    return "file"


def parse_checksum(value: str) -> tuple[str, str]:
    """Split a registry checksum into its algorithm and digest.

    Parameters
    ----------
    value : str
        ``"sha256:<64 hex digits>"`` or ``"md5:<32 hex digits>"`` (any letter case).

    Returns
    -------
    algo : {"sha256", "md5"}
    digest : str
        The digest in lower case.

    Raises
    ------
    ValueError
        When the value is malformed.
    """
    algo, sep, digest = str(value).partition(":")
    algo, digest = algo.strip().lower(), digest.strip().lower()
    if not sep or algo not in _DIGEST_LEN:
        raise ValueError("must be 'sha256:<hex>' or 'md5:<hex>'")
    if len(digest) != _DIGEST_LEN[algo] or not _HEX.match(digest):
        raise ValueError(f"{algo} digest must be {_DIGEST_LEN[algo]} hex digits, got {digest!r}")
    return algo, digest

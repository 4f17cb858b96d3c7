"""The manifest of a fetched dataset (``dest/manifest.json``) and the file digests it records.

``fetch`` (``ltrfs.datasets.download``) writes the manifest last; ``load_fold``
(``ltrfs.datasets.folds``) checks the data files it reads against it (:func:`verify_files`).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ltrfs.ranking_data import DataError

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
CHUNK = 1 << 20


def file_digests(path, algos=("sha256",), newlines: str = "raw") -> dict[str, str]:
    """Hex digests of a file, in one pass over it.

    Parameters
    ----------
    path : str or Path
        The file.
    algos : tuple of str, default ("sha256",)
        Algorithms (``sha256``, ``md5``).
    newlines : {"raw", "lf"}, default "raw"
        "lf" hashes the content with every CRLF replaced by LF.

    Returns
    -------
    dict
        Algorithm -> hex digest.
    """
    hashers = {a: hashlib.new(a) for a in algos}
    carry = b""
    with open(path, "rb") as fh:
        while True:
            block = fh.read(CHUNK)
            if newlines == "lf":
                block = carry + block
                carry = b""
                if block.endswith(b"\r"):
                    block, carry = block[:-1], b"\r"
                block = block.replace(b"\r\n", b"\n")
            if not block:
                break
            for h in hashers.values():
                h.update(block)
    if carry:
        for h in hashers.values():
            h.update(carry)
    return {a: h.hexdigest() for a, h in hashers.items()}


def read_manifest(dest) -> dict | None:
    """The manifest of a fetched dataset.

    Parameters
    ----------
    dest : str or Path
        The dataset's folder (``resources/{name}``).

    Returns
    -------
    dict or None
        The parsed ``manifest.json``; None when it is absent or unreadable.
    """
    try:
        return json.loads((Path(dest) / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def fingerprint(entry: dict, seed) -> str:
    """The fingerprint of the entry fields that decide a fetched dataset's files.

    Parameters
    ----------
    entry : dict
        A validated registry entry.
    seed : int
        The workflow seed (part of the fingerprint of a synthetic entry only).

    Returns
    -------
    str
        sha256 (hex) of those fields; a manifest whose fingerprint differs belongs to another entry.
    """
    keys = ("archive", "format", "checksum", "path", "files_sha256", "hash_newlines", "extract",
            "layout", "pattern", "splits", "generator")
    blob = {k: entry.get(k) for k in keys}
    if entry.get("layout") == "synthetic":
        blob["seed"] = seed
    return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()


def manifest_ok(dest, entry: dict, seed=0) -> bool:
    """Whether ``dest`` holds a complete manifest for this entry (a cheap check; no hashing).

    Parameters
    ----------
    dest : str or Path
        The dataset's folder.
    entry : dict
        A validated registry entry.
    seed : int, default 0
        The workflow seed.

    Returns
    -------
    bool
        True when the manifest has this entry's format and fingerprint and all its files are
        present with their recorded sizes.
    """
    dest = Path(dest)
    m = read_manifest(dest)
    if not m or m.get("format") != MANIFEST_FORMAT or m.get("fingerprint") != fingerprint(entry, seed):
        return False
    for rel, info in m.get("files", {}).items():
        p = dest / rel
        if not p.is_file() or p.stat().st_size != info.get("size"):
            return False
    return True


def verify_files(dest, paths) -> None:
    """Check data files against the sha256 and size that the manifest recorded.

    A file whose size, or whose content when its modification time changed, differs from what
    was recorded when it was fetched, extracted or generated is an error. Files the manifest
    does not list, and folders without a manifest (a local ``path:``), are not checked.

    Parameters
    ----------
    dest : str or Path
        The dataset's folder, holding ``manifest.json``.
    paths : iterable of path
        The data files to check (under ``dest``).

    Raises
    ------
    DataError
        Naming the changed file and saying how to get the original back.
    """
    dest = Path(dest)
    m = read_manifest(dest)
    if not m:
        return
    files = m.get("files", {})
    for path in map(Path, paths):
        rel = os.path.relpath(path, dest).replace(os.sep, "/")
        info = files.get(rel)
        if info is None:
            continue
        stat = path.stat()
        if stat.st_size == info.get("size") and stat.st_mtime_ns == info.get("mtime_ns"):
            continue  # untouched since the manifest was written
        if stat.st_size != info.get("size") or file_digests(path)["sha256"] != info.get("sha256"):
            raise DataError(f"{path}: changed since it was fetched (its sha256 and size are recorded in "
                            f"{dest / MANIFEST}); to get the original data back, delete {dest} and run "
                            "again, which fetches or extracts it afresh")

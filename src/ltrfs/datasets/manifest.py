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
    """Hex digests of a file for each algorithm in ``algos`` (``sha256``, ``md5``).

    ``newlines="lf"`` hashes the content with every CRLF replaced by LF. One pass over the file.
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
    """The manifest of a fetched dataset, or None when absent or unreadable."""
    try:
        return json.loads((Path(dest) / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def fingerprint(entry: dict, seed) -> str:
    """sha256 (hex) of the entry fields that decide a fetched dataset's files (and the seed of a
    synthetic one): a manifest whose fingerprint differs belongs to another entry."""
    keys = ("archive", "format", "checksum", "path", "files_sha256", "hash_newlines", "extract",
            "layout", "pattern", "splits", "generator")
    blob = {k: entry.get(k) for k in keys}
    if entry.get("layout") == "synthetic":
        blob["seed"] = seed
    return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()


def manifest_ok(dest, entry: dict, seed=0) -> bool:
    """True when ``dest`` holds a manifest for this entry whose files are all present with
    their recorded sizes (a cheap check; no hashing)."""
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
    """Check the data files ``paths`` (under ``dest``) against the sha256 and size that
    ``dest``'s manifest recorded when they were fetched, extracted or generated: a file whose
    size, or whose content when its modification time changed, differs is a DataError naming
    it and saying how to get the original back. Files the manifest does not list, and folders
    without a manifest (a local ``path:``), are not checked."""
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

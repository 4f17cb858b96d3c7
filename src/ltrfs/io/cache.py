"""The ``.npz`` cache of a :class:`~ltrfs.ranking_data.RankingData`, and :func:`read_any`.

The cache is an uncompressed ``.npz`` that needs no pickle; :func:`load_npz` reads its stored
members straight into aligned arrays and checks their dtypes, shapes and consistency.
"""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.atomic_files import atomic_open
from ltrfs.ranking_data import DataError, RankingData
from ltrfs.user_errors import os_error_text

__all__ = ["save_npz", "load_npz", "read_any"]

_NPZ_FORMAT = 1
_NPY_HEADER = re.compile(rb"\{'descr': '([<>|=]?[A-Za-z][0-9]*)', 'fortran_order': (True|False), "
                         rb"'shape': \(((?:\d+, ?)*\d*)\), \}\s*")
_NPZ_DTYPES = {"X": np.float32, "y": np.int32, "query_ptr": np.int64, "query_ids": np.int64}


def save_npz(data: RankingData, path) -> None:
    """Write ``data`` to ``path`` as an uncompressed ``.npz``, atomically (temp name + os.replace).

    Parameters
    ----------
    data : RankingData
        The dataset to cache.
    path : str or Path
        The ``.npz`` file to write.

    Notes
    -----
    Keys: X float32 (m, d), y int32 (m,), query_ptr int64 (q+1,), query_ids int64 (q,), docids
    'U' (m,) when present, format int64 () = 1. Nothing needs pickle.
    """
    arrays = {
        "format": np.array(_NPZ_FORMAT, dtype=np.int64),
        "X": np.ascontiguousarray(data.X, dtype=np.float32),
        "y": np.ascontiguousarray(data.y, dtype=np.int32),
        "query_ptr": np.ascontiguousarray(data.query_ptr, dtype=np.int64),
        "query_ids": np.ascontiguousarray(data.query_ids, dtype=np.int64),
    }
    if data.docids is not None:
        docids = np.asarray(data.docids)
        if docids.dtype.kind != "U":
            docids = docids.astype(str)
        arrays["docids"] = np.ascontiguousarray(docids)
    with atomic_open(Path(path)) as f:
        np.savez(f, **arrays)


def _read_member(f, zf: zipfile.ZipFile, info: zipfile.ZipInfo, path):
    """A stored .npy member read straight into a fresh (aligned) array; None -> generic reader."""
    if info.compress_type != zipfile.ZIP_STORED:
        return None
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise DataError(f"{path}: corrupt .npz (bad local header for {info.filename})")
    f.seek(info.header_offset + 30 + int.from_bytes(local[26:28], "little")
           + int.from_bytes(local[28:30], "little"))
    version = np.lib.format.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        return None
    pos = f.tell()
    nlen = 2 if version == (1, 0) else 4
    header = f.read(int.from_bytes(f.read(nlen), "little"))
    match = _NPY_HEADER.fullmatch(header)
    if match:  # the layout np.save writes: skip the generic literal_eval
        dtype = np.dtype(match.group(1).decode("ascii"))
        fortran = match.group(2) == b"True"
        shape = tuple(int(t) for t in match.group(3).split(b",") if t.strip())
    else:
        f.seek(pos)
        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                       else np.lib.format.read_array_header_2_0)
        shape, fortran, dtype = read_header(f)
    if dtype.hasobject:
        raise DataError(f"{path}: {info.filename} holds Python objects (pickle is not allowed)")
    arr = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
    if arr.nbytes:
        if f.readinto(memoryview(arr).cast("B")) != arr.nbytes:
            raise DataError(f"{path}: corrupt .npz ({info.filename} is truncated)")
    return arr.T if fortran else arr


def load_npz(path) -> RankingData:
    """Read a cache written by :func:`save_npz` (no pickle).

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.

    Returns
    -------
    RankingData

    Raises
    ------
    DataError
        For a file that is not a readable cache, or whose arrays are inconsistent.
    """
    path = Path(path)
    arrays = {}
    try:
        with open(path, "rb") as f, zipfile.ZipFile(f) as zf:
            for info in zf.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                arr = _read_member(f, zf, info, path)
                if arr is None:  # compressed member: the generic reader
                    with zf.open(info) as member:
                        arr = np.lib.format.read_array(member, allow_pickle=False)
                arrays[name] = arr
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except DataError:
        raise
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        raise DataError(f"{path}: not a readable .npz cache ({exc})") from None
    missing = [k for k in ("X", "y", "query_ptr", "query_ids") if k not in arrays]
    if missing:
        raise DataError(f"{path}: not an ltrfs .npz cache (missing {', '.join(missing)})")
    fmt = arrays.get("format")
    if fmt is None or fmt.shape != () or int(fmt) != _NPZ_FORMAT:
        raise DataError(f"{path}: unsupported ltrfs .npz cache format {fmt!r} "
                        f"(expected {_NPZ_FORMAT}); delete it to rebuild")
    for key, dt in _NPZ_DTYPES.items():
        if arrays[key].dtype != dt:
            raise DataError(f"{path}: {key} has dtype {arrays[key].dtype}, expected {np.dtype(dt)}")
    docids = arrays.get("docids")
    if docids is not None:
        if docids.dtype.kind not in "US" or docids.shape != arrays["y"].shape:
            raise DataError(f"{path}: docids must be a string array of shape {arrays['y'].shape}, "
                            f"got {docids.dtype} {docids.shape}")
        if docids.dtype.kind == "S":
            docids = docids.astype(str)
    try:
        return RankingData(X=arrays["X"], y=arrays["y"], query_ptr=arrays["query_ptr"],
                           query_ids=arrays["query_ids"], docids=docids)
    except DataError as exc:
        raise DataError(f"{path}: inconsistent cache: {exc}") from None


def read_any(path, **kw) -> RankingData:
    """Read a ``.npz`` cache with :func:`load_npz`, anything else with :func:`read_letor`.

    Parameters
    ----------
    path : str or Path
        A ``.npz`` cache or a LETOR text file.
    **kw
        ``n_features`` and ``null_policy``, passed on to :func:`read_letor`. For a ``.npz``,
        ``n_features`` (if given) must equal the cached width; ``null_policy`` is ignored (NULLs
        were resolved when the cache was built).

    Returns
    -------
    RankingData
    """
    path = Path(path)
    if path.suffix.lower() == ".npz":
        unknown = set(kw) - {"n_features", "null_policy"}
        if unknown:
            raise TypeError(f"read_any got unexpected keyword arguments {sorted(unknown)}")
        data = load_npz(path)
        nf = kw.get("n_features")
        if nf is not None and nf != data.n_features:
            raise DataError(f"{path}: cache has {data.n_features} features, n_features={nf} asked")
        return data
    from ltrfs.io.reader import read_letor  # heavy (the compiled text reader, Numba): imported on use

    return read_letor(path, **kw)

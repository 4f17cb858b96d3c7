"""Write a :class:`~ltrfs.ranking_data.RankingData` as LETOR text (compiled float formatter).

Every value is written as the shortest decimal that reads back to the same float32, so
``write_letor`` followed by ``read_letor`` round-trips bit for bit.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
from numba import njit

from ltrfs.atomic_files import atomic_open
from ltrfs.io.reader import POW10
from ltrfs.ranking_data import RankingData

__all__ = ["write_letor"]

@njit(cache=True)
def _put_int(out, p, v):
    """Decimal digits of the integer v at out[p:]; returns the new position."""
    if v < 0:
        out[p] = 45
        p += 1
        v = -v
    if v == 0:
        out[p] = 48
        return p + 1
    nd = 0
    t = v
    while t > 0:
        nd += 1
        t //= 10
    for k in range(nd - 1, -1, -1):
        out[p + k] = 48 + v % 10
        v //= 10
    return p + nd


@njit(cache=True)
def _exact_value(D, k):
    """Correctly rounded float64 of D * 10**k for D <= 2**53, |k| <= 22."""
    if k >= 0:
        return np.float64(D) * POW10[k]
    return np.float64(D) / POW10[-k]


@njit(cache=True)
def _shortest_digits(v):
    """Shortest (D, k) with float32(D * 10**k read as float64) == v, for 1e-14 <= |v| < 1e22.

    Tries 1..10 significant digits (D rounded from |v| / 10**k in float64; at 9 and 10 digits also
    D - 1 and D + 1, which covers any rounding error there); D = -1 if nothing round-trips.
    """
    a = abs(np.float64(v))
    e10 = int(np.floor(np.log10(a)))
    if e10 >= 0:
        if e10 <= 22 and POW10[e10] > a:
            e10 -= 1
    elif -e10 <= 22 and a * POW10[-e10] < 1.0:
        e10 -= 1
    target = np.float32(a)
    for p in range(1, 11):
        k = e10 - p + 1
        if k > 22 or k < -22:
            continue
        if k >= 0:
            q = a / POW10[k]
        else:
            q = a * POW10[-k]
        D0 = np.int64(np.rint(q))
        lo = D0 - 1 if p >= 9 else D0
        hi = D0 + 1 if p >= 9 else D0
        for D in range(lo, hi + 1):
            if D > 0 and np.float32(_exact_value(D, k)) == target:
                return D, k
    return np.int64(-1), 0


@njit(cache=True)
def _put_float32(out, p, v):
    """Shortest round-tripping decimal of float32 v (1e-14 <= |v| < 1e22 or 0) at out[p:].

    Returns the new position, or -1 if no candidate round-trips (not expected to happen).
    """
    if v == 0:
        if np.signbit(v):
            out[p] = 45
            p += 1
        out[p] = 48
        return p + 1
    D, k = _shortest_digits(v)
    if D < 0:
        return -1
    while D % 10 == 0:
        D //= 10
        k += 1
    if v < 0:
        out[p] = 45
        p += 1
    digits = np.empty(20, np.uint8)
    nd = 0
    t = D
    while t > 0:
        digits[nd] = 48 + t % 10
        t //= 10
        nd += 1
    digits[:nd] = digits[:nd][::-1].copy()
    lead = k + nd - 1  # decimal exponent of the leading digit
    if -4 <= lead <= 8:  # positional like %g (at most 9 integer digits), else d.ddde+XX
        if k >= 0:
            for j in range(nd):
                out[p] = digits[j]
                p += 1
            for j in range(k):
                out[p] = 48
                p += 1
        elif lead >= 0:
            for j in range(nd):
                if j == lead + 1:
                    out[p] = 46
                    p += 1
                out[p] = digits[j]
                p += 1
        else:
            out[p] = 48
            out[p + 1] = 46
            p += 2
            for j in range(-lead - 1):
                out[p] = 48
                p += 1
            for j in range(nd):
                out[p] = digits[j]
                p += 1
    else:
        out[p] = digits[0]
        p += 1
        if nd > 1:
            out[p] = 46
            p += 1
            for j in range(1, nd):
                out[p] = digits[j]
                p += 1
        out[p] = 101
        out[p + 1] = 45 if lead < 0 else 43
        p += 2
        if -10 < lead < 10:
            out[p] = 48
            p += 1
        p = _put_int(out, p, abs(lead))
    return p


@njit(cache=True)
def _format_rows(X, y, qid, r0, r1, spec_vals, spec_blob, spec_ptr, com_blob, com_ptr, has_com):
    """LETOR text of rows r0:r1 as uint8; returns (bytes, failing row or -1)."""
    d = X.shape[1]
    size = 0
    for r in range(r0, r1):
        size += 48 + d * 40
        if has_com:
            size += 3 + com_ptr[r + 1] - com_ptr[r]
    out = np.empty(size, np.uint8)
    p = 0
    for r in range(r0, r1):
        p = _put_int(out, p, np.int64(y[r]))
        out[p] = 32
        out[p + 1] = 113
        out[p + 2] = 105
        out[p + 3] = 100
        out[p + 4] = 58
        p = _put_int(out, p + 5, qid[r])
        for j in range(d):
            out[p] = 32
            p = _put_int(out, p + 1, j + 1)
            out[p] = 58
            p += 1
            v = X[r, j]
            a = abs(v)
            if v != 0 and (a < 1e-14 or a >= 1e22):
                t = np.searchsorted(spec_vals, v)
                for b in range(spec_ptr[t], spec_ptr[t + 1]):
                    out[p] = spec_blob[b]
                    p += 1
            else:
                p2 = _put_float32(out, p, v)
                if p2 < 0:
                    return out[:0], r
                p = p2
        if has_com:
            out[p] = 32
            out[p + 1] = 35
            p += 2
            for b in range(com_ptr[r], com_ptr[r + 1]):
                out[p] = com_blob[b]
                p += 1
        out[p] = 10
        p += 1
    return out[:p], -1


def write_letor(data: RankingData, path, *, chunk_rows: int = 8192) -> None:
    """Write ``data`` as dense LETOR text, atomically (temp name + os.replace).

    Line r: ``<y> qid:<qid> 1:<X[r,0]> ... d:<X[r,d-1]>[ #<docid>]``; every value is the shortest
    decimal that reads back to the same float32 (so write -> read round-trips bit for bit), ``-0``
    kept.

    Parameters
    ----------
    data : RankingData
        The dataset; docids are written after ``#`` and must not contain line breaks
        (``read_letor`` strips surrounding whitespace from them).
    path : str or Path
        The file to write; a ``.gz`` path is gzip-compressed (deterministic header).
    chunk_rows : int, default 8192
        Rows formatted per call of the compiled formatter.

    Raises
    ------
    ValueError
        For an empty dataset, a non-finite value or a docid with a line break.
    """
    X = np.ascontiguousarray(data.X, dtype=np.float32)
    m = X.shape[0]
    if m == 0:
        raise ValueError("write_letor: the dataset has no rows")
    if not np.isfinite(X).all():
        r, j = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(f"write_letor: X[{r}, {j}] = {X[r, j]} is not finite")
    y = np.ascontiguousarray(data.y, dtype=np.int64)
    qid = np.ascontiguousarray(data.qid, dtype=np.int64)
    a = np.abs(X)
    special = np.unique(X[(X != 0) & ((a < 1e-14) | (a >= 1e22))])
    del a
    # tiny / huge values (outside the compiled formatter's exact range): numpy's shortest repr
    spec_strs = [np.format_float_scientific(v, unique=True, trim="-") for v in special]
    for s, v in zip(spec_strs, special):
        if np.float32(float(s)) != v:  # pragma: no cover - numpy's float32 repr round-trips
            raise RuntimeError(f"write_letor: cannot format {v!r}")
    spec_bytes = [s.encode() for s in spec_strs]
    spec_ptr = np.zeros(len(spec_bytes) + 1, np.int64)
    spec_ptr[1:] = np.cumsum([len(b) for b in spec_bytes])
    spec_blob = np.frombuffer(b"".join(spec_bytes) or b"\0", np.uint8)
    has_com = data.docids is not None
    if has_com:
        com = [str(s).encode("utf-8") for s in np.asarray(data.docids).tolist()]
        for r, c in enumerate(com):
            if b"\n" in c or b"\r" in c:
                raise ValueError(f"write_letor: docid of row {r} contains a line break")
        com_ptr = np.zeros(m + 1, np.int64)
        com_ptr[1:] = np.cumsum([len(c) for c in com])
        com_blob = np.frombuffer(b"".join(com) or b"\0", np.uint8)
    else:
        com_ptr = np.zeros(m + 1, np.int64)
        com_blob = np.zeros(1, np.uint8)
    path = Path(path)
    with atomic_open(path) as f:
        sink = (gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0)
                if path.suffix.lower() == ".gz" else f)
        special = special.astype(np.float32)
        for r0 in range(0, m, chunk_rows):
            r1 = min(m, r0 + chunk_rows)
            text, bad = _format_rows(X, y, qid, r0, r1, special, spec_blob, spec_ptr, com_blob,
                                     com_ptr, has_com)
            if bad >= 0:  # pragma: no cover - a 9-digit candidate always round-trips
                raise RuntimeError(f"write_letor: cannot format row {bad}")
            sink.write(text.tobytes())
        if sink is not f:
            sink.close()

"""Read LETOR / SVMlight ranking files: one compiled pass over the raw bytes.

Text format, one query-document pair per line::

    <label> qid:<query id> <index>:<value> <index>:<value> ... # <comment>

Reading (:func:`read_letor` for a file, :func:`parse_letor` for its text, or a piece of it, in
memory) is one compiled pass over the raw bytes (Numba). Numbers are parsed
exactly: a decimal token whose digits form an integer mantissa ``w <= 2**53`` and whose decimal
exponent ``e`` has ``|e| <= 22`` is converted as ``w * 10**e`` (or ``w / 10**-e``), a single
correctly rounded IEEE operation on exact operands, so it equals Python's ``float(token)``; every
other syntactically valid token is handed to ``float()``. Values are parsed as float64 and then
rounded to float32 (the same two roundings as ``load_svmlight_file(...)`` followed by
``astype(np.float32)``).

Rules the reader enforces (each violation raises :class:`~ltrfs.ranking_data.DataError` with the one-line
message ``"<file>:<line>: <what is wrong>"``):

* the label is a relevance grade: an integer ``>= 0`` in the int32 range, written as digits with
  an optional ``+`` and an optional fractional part made only of zeros: ``2``, ``+2`` and ``2.0``
  are read as 2; ``-1``, ``1.5``, ``2e0`` and ``two`` are errors (a dataset's own label range,
  its registry ``label_levels``, is checked when its folds are prepared);
* ``qid:<integer>`` follows the label: a query id ``>= 0`` of at most 18 digits (0 is an id
  like any other, as in SVMlight; a negative id is an error);
* feature indices are integers ``>= 1``, strictly increasing within a line, and at most
  ``n_features`` when given; missing indices are 0 (sparse lines);
* values are decimal numbers (``1``, ``-0.5``, ``.5``, ``5.``, ``1e-3``); ``nan``, ``inf`` and
  values outside the float32 range are errors; values too small for float32 (below about
  1.4e-45 in magnitude, such as ``1e-50``) are read as 0, as float32 rounding makes them;
  ``NULL`` (LETOR 3.0, any letter case) follows ``null_policy``;
* a ``#`` starts the comment, which ends the line's features: a ``#`` directly followed by an
  ``<index>:<number>`` token is an error, since those features would be lost;
* the rows of one query are contiguous: a qid may not reappear after another qid;
* the dense matrix X may not exceed 16 times the size of the text (at least 64 MiB;
  ``max_dense_bytes``): a huge feature index or ``n_features`` is an error, not an allocation.

Accepted with a warning in the log: rows that repeat an earlier row of the same query (same
features and docid) are kept, and the warning names their lines.

Blank lines and lines holding only a comment are skipped; spaces and tabs separate tokens. LF,
CRLF and bare CR (old Mac exports) all end a line, so the three read identically and line
numbers in errors are those an editor shows. The text after the first ``#`` of a data line,
stripped, is the row's docid. A UTF-8 byte-order mark at the start is ignored; comments must be
UTF-8. Input compressed with gzip, bzip2 or xz is recognised by suffix or by magic bytes and
unpacked as a stream; one that unpacks to more than its limit (100 times its size, at least
16 MiB, at most 64 GiB; :mod:`ltrfs.io.unpack`) is refused before it fills memory.
"""
from __future__ import annotations

import logging
import math
import os
from pathlib import Path

import numpy as np
from numba import njit

from ltrfs.io import unpack
from ltrfs.io.duplicates import duplicate_rows
from ltrfs.ranking_data import DataError, RankingData
from ltrfs.user_errors import os_error_text

__all__ = ["read_letor", "parse_letor", "NULL_POLICIES", "DENSE_FLOOR", "DENSE_PER_BYTE"]

log = logging.getLogger(__name__)

NULL_POLICIES = ("min", "zero", "error")

# ----------------------------------------------------------------------------------------------
# Compiled scanner
# ----------------------------------------------------------------------------------------------

POW10 = np.array([10.0 ** k for k in range(23)], dtype=np.float64)  # exact in float64 (the writer uses it too)
_MAX_EXACT = 2 ** 53
_MANT_LIMIT = 10 ** 17  # accumulate mantissa digits while w < this (keeps w*10+d < 2**63)
# The dense matrix a file may fill: at most DENSE_FLOOR bytes or DENSE_PER_BYTE times the size
# of the (decompressed) text, whichever is larger. Dense LETOR text spends at least 4 bytes per
# value ("1:0 "), so real data needs far less (MSLR-WEB10K: 0.4x; sparse Yahoo! text about 1x).
DENSE_FLOOR = 64 * 2 ** 20
DENSE_PER_BYTE = 16

# error codes returned by _scan
_OK = 0
_E_LABEL = 1
_E_NOQID = 2
_E_QID = 3
_E_TOKEN = 4
_E_INDEX0 = 5
_E_ORDER = 6
_E_WIDTH = 7
_E_VALUE = 8
_E_NULL = 9
_E_TOOWIDE = 10
_E_INDEXBIG = 11
_E_LABELNEG = 12
_E_QIDPOS = 13
_E_HASHFEAT = 14


@njit(cache=True)
def _is_ws(c):
    return c == 32 or c == 9 or c == 13


@njit(cache=True)
def _is_delim(c):
    return c == 32 or c == 9 or c == 13 or c == 10 or c == 35


@njit(cache=True)
def _is_strip(c):
    # the ASCII characters Python's str.strip() removes
    return (9 <= c <= 13) or (28 <= c <= 32)


@njit(cache=True, error_model="numpy")
def _parse_number(buf, s, n):
    """Decimal number starting at buf[s] -> (value, status, end).

    Reads ``[+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?`` greedily and stops at ``end``;
    status 0: value is exact (= float(token)), 1: valid but outside the fast path (use float()),
    2: invalid syntax. The caller checks that the token ends at ``end``.
    """
    i = s
    neg = False
    if i < n and (buf[i] == 43 or buf[i] == 45):
        neg = buf[i] == 45
        i += 1
    w = 0
    exp10 = 0
    ndig = 0
    inexact = False
    while i < n:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        if w < _MANT_LIMIT:
            w = w * 10 + d
        else:
            exp10 += 1
            if d != 0:
                inexact = True
        ndig += 1
        i += 1
    if i < n and buf[i] == 46:
        i += 1
        while i < n:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            if w < _MANT_LIMIT:
                w = w * 10 + d
                exp10 -= 1
            elif d != 0:
                inexact = True
            ndig += 1
            i += 1
    if ndig == 0:
        return 0.0, 2, i
    if i < n and (buf[i] == 101 or buf[i] == 69):
        i += 1
        eneg = False
        if i < n and (buf[i] == 43 or buf[i] == 45):
            eneg = buf[i] == 45
            i += 1
        ev = 0
        nexp = 0
        while i < n:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            if ev < 100000:
                ev = ev * 10 + d
            nexp += 1
            i += 1
        if nexp == 0:
            return 0.0, 2, i
        exp10 += -ev if eneg else ev
    if w == 0:
        return (-0.0 if neg else 0.0), 0, i
    if inexact or w > _MAX_EXACT or exp10 > 22 or exp10 < -22:
        return 0.0, 1, i
    v = np.float64(w)
    if exp10 > 0:
        v = v * POW10[exp10]
    elif exp10 < 0:
        v = v / POW10[-exp10]
    return (-v if neg else v), 0, i


@njit(cache=True)
def _parse_label(buf, s, e):
    """[+-]?digits(.0*)? in buf[s:e] -> (value, ok); value within int32."""
    i = s
    neg = False
    if i < e and (buf[i] == 43 or buf[i] == 45):
        neg = buf[i] == 45
        i += 1
    v = 0
    nd = 0
    while i < e:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        v = v * 10 + d
        if v > 2147483648:
            return 0, False
        nd += 1
        i += 1
    if nd == 0:
        return 0, False
    if i < e and buf[i] == 46:
        i += 1
        while i < e and buf[i] == 48:
            i += 1
    if i != e:
        return 0, False
    if neg:
        v = -v
    if v > 2147483647:
        return 0, False
    return v, True


@njit(cache=True)
def _parse_int64(buf, s, e):
    """[+-]?digits in buf[s:e] -> (value, ok); at most 18 digits."""
    i = s
    neg = False
    if i < e and (buf[i] == 43 or buf[i] == 45):
        neg = buf[i] == 45
        i += 1
    if i >= e or e - i > 18:
        return 0, False
    v = 0
    while i < e:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return 0, False
        v = v * 10 + d
        i += 1
    return (-v if neg else v), True


@njit(cache=True)
def _count_data_lines(buf, start):
    """Lines whose first character other than a space or tab is neither a newline nor '#'."""
    n = buf.shape[0]
    count = 0
    i = start
    while i < n:
        while i < n and _is_ws(buf[i]):
            i += 1
        if i < n and buf[i] != 10 and buf[i] != 35:
            count += 1
        while i < n and buf[i] != 10:
            i += 1
        i += 1
    return count


@njit(cache=True)
def _guess_width(buf, start, max_lines):
    """Largest feature index on the first ``max_lines`` lines (index before each line's last ':')."""
    n = buf.shape[0]
    i = start
    best = 0
    lines = 0
    while i < n and lines < max_lines:
        last_colon = -1
        in_comment = False
        while i < n and buf[i] != 10:
            c = buf[i]
            if c == 35:
                in_comment = True
            elif c == 58 and not in_comment:
                last_colon = i
            i += 1
        i += 1
        lines += 1
        if last_colon > 0:
            j = last_colon - 1
            v = 0
            mult = 1
            while j >= start and 48 <= buf[j] <= 57 and mult <= 1000000000:
                v += (np.int64(buf[j]) - 48) * mult
                mult *= 10
                j -= 1
            if v > best and v < 100000000:
                best = v
    return best


@njit(cache=True)
def _grow2(a, n):
    b = np.empty((max(2 * a.shape[0], n), a.shape[1]), a.dtype)
    b[: a.shape[0]] = a
    return b


# One compiled kernel over the whole buffer, on purpose (about 220 lines): the per-byte state
# (position, row, column, error) stays in registers; splitting it into jitted helpers that pass
# that state back and forth costs reader speed (bench/bench_reader.py).
@njit(cache=True, error_model="numpy")
def _scan(buf, start, n_upper, cap, fixed, null_error, max_cells):
    """One pass over the bytes of a LETOR file; the dense matrix never exceeds ``max_cells``.

    Returns (X, y, row_line, cstart, cend, qstart, qids, fallback, nulls, err, m, nq, dmax,
    has_comment, comments_ascii). ``X`` is (n_upper, cap) float32 with rows [:m] filled;
    ``fallback`` rows are (row, col, start, end) of tokens for float(); ``nulls`` rows are
    (row, col, line); ``err`` is (code, line, a, b, c) with code 0 when the file is valid.
    """
    n = buf.shape[0]
    X = np.zeros((n_upper, cap), np.float32)
    y = np.empty(n_upper, np.int32)
    row_line = np.empty(n_upper, np.int64)
    cstart = np.zeros(n_upper, np.int64)
    cend = np.zeros(n_upper, np.int64)
    qstart = np.empty(n_upper + 1, np.int64)
    qids = np.empty(n_upper, np.int64)
    fb = np.empty((64, 4), np.int64)
    nfb = 0
    nl = np.empty((64, 3), np.int64)
    nnl = 0
    err = np.zeros(5, np.int64)
    code = 0
    row = 0
    nq = 0
    line = 0
    dmax = 0
    has_comment = False
    comments_ascii = True
    i = start
    while i < n:
        line += 1
        while i < n and _is_ws(buf[i]):
            i += 1
        if i >= n:
            break
        c = buf[i]
        if c == 10:
            i += 1
            continue
        if c == 35:  # comment-only line
            while i < n and buf[i] != 10:
                i += 1
            i += 1
            continue
        # label
        s = i
        while i < n and not _is_delim(buf[i]):
            i += 1
        lab, ok = _parse_label(buf, s, i)
        if not ok or lab < 0:
            code = _E_LABEL if not ok else _E_LABELNEG
            err[2] = s
            err[3] = i
            break
        while i < n and _is_ws(buf[i]):
            i += 1
        if not (i + 4 <= n and buf[i] == 113 and buf[i + 1] == 105 and buf[i + 2] == 100
                and buf[i + 3] == 58):
            code = _E_NOQID
            s = i
            while i < n and not _is_delim(buf[i]):
                i += 1
            err[2] = s
            err[3] = i
            break
        i += 4
        s = i
        while i < n and not _is_delim(buf[i]):
            i += 1
        qv, ok = _parse_int64(buf, s, i)
        if not ok or qv < 0:
            code = _E_QID if not ok else _E_QIDPOS
            err[2] = s
            err[3] = i
            break
        # features and comment
        prev = 0
        while True:
            while i < n and _is_ws(buf[i]):
                i += 1
            if i >= n:
                break
            c = buf[i]
            if c == 10:
                break
            if c == 35:
                has_comment = True
                i += 1
                s = i
                # '#' before an <index>:<number> token: the features after it would be lost
                j = i
                while j < n and _is_ws(buf[j]):
                    j += 1
                k = j
                while k < n and 48 <= buf[k] <= 57:
                    k += 1
                if (k > j and k + 1 < n and buf[k] == 58
                        and (48 <= buf[k + 1] <= 57 or buf[k + 1] == 45 or buf[k + 1] == 43 or buf[k + 1] == 46)):
                    code = _E_HASHFEAT
                    err[2] = j
                    e = k + 1
                    while e < n and not _is_delim(buf[e]):
                        e += 1
                    err[3] = e
                    break
                acc = 0
                while i < n:
                    c = buf[i]
                    if c == 10:
                        break
                    acc |= c
                    i += 1
                if acc >= 128:
                    comments_ascii = False
                e = i
                while s < e and _is_strip(buf[s]):
                    s += 1
                while e > s and _is_strip(buf[e - 1]):
                    e -= 1
                cstart[row] = s
                cend[row] = e
                break
            s = i
            idx = 0
            while i < n:
                d = np.int64(buf[i]) - 48
                if d < 0 or d > 9:
                    break
                if idx <= 2147483647:
                    idx = idx * 10 + d
                i += 1
            if i == s or i >= n or buf[i] != 58:
                while i < n and not _is_delim(buf[i]):
                    i += 1
                code = _E_TOKEN
                err[2] = s
                err[3] = i
                break
            if idx > 2147483647:
                code = _E_INDEXBIG
                err[2] = s
                err[3] = i
                break
            if idx == 0:
                code = _E_INDEX0
                break
            if idx <= prev:
                code = _E_ORDER
                err[2] = idx
                err[3] = prev
                break
            if idx > cap:
                if fixed:
                    code = _E_WIDTH
                    err[2] = idx
                    err[3] = cap
                    break
                if idx * n_upper > max_cells:
                    code = _E_TOOWIDE
                    err[2] = idx
                    err[3] = n_upper
                    break
                newcap = min(max(idx, 2 * cap, 8), max(max_cells // n_upper, idx))
                X2 = np.zeros((n_upper, newcap), np.float32)
                X2[: row + 1, :cap] = X[: row + 1, :]
                X = X2
                cap = newcap
            i += 1
            s = i
            v, st, i = _parse_number(buf, s, n)
            if i < n and not _is_delim(buf[i]):
                st = 2
                while i < n and not _is_delim(buf[i]):
                    i += 1
            if st == 0:
                X[row, idx - 1] = v
            elif st == 1:
                if nfb == fb.shape[0]:
                    fb = _grow2(fb, nfb + 1)
                fb[nfb, 0] = row
                fb[nfb, 1] = idx - 1
                fb[nfb, 2] = s
                fb[nfb, 3] = i
                nfb += 1
            elif (i - s == 4 and (buf[s] | 32) == 110 and (buf[s + 1] | 32) == 117
                  and (buf[s + 2] | 32) == 108 and (buf[s + 3] | 32) == 108):
                if null_error:
                    code = _E_NULL
                    err[2] = idx
                    break
                if nnl == nl.shape[0]:
                    nl = _grow2(nl, nnl + 1)
                nl[nnl, 0] = row
                nl[nnl, 1] = idx - 1
                nl[nnl, 2] = line
                nnl += 1
            else:
                code = _E_VALUE
                err[2] = s
                err[3] = i
                err[4] = idx
                break
            prev = idx
        if code != 0:
            break
        if prev > dmax:
            dmax = prev
        y[row] = lab
        row_line[row] = line
        if nq == 0 or qv != qids[nq - 1]:
            qstart[nq] = row
            qids[nq] = qv
            nq += 1
        row += 1
        i += 1  # past the newline
    err[0] = code
    err[1] = line
    qstart[nq] = row
    return (X, y, row_line, cstart, cend, qstart[: nq + 1], qids[:nq], fb[:nfb], nl[:nnl], err,
            row, nq, dmax, has_comment, comments_ascii)


@njit(cache=True)
def _gather_ascii(buf, starts, ends, width):
    """Comment spans as a (m, width) uint32 array of code points (zero padded) for a 'U' view."""
    m = starts.shape[0]
    out = np.zeros((m, width), np.uint32)
    for r in range(m):
        s = starts[r]
        for k in range(ends[r] - s):
            out[r, k] = buf[s + k]
    return out


# ----------------------------------------------------------------------------------------------
# Reading text
# ----------------------------------------------------------------------------------------------

def _read_bytes(path: Path) -> bytes:
    """The file's bytes; a gzip/bzip2/xz file (by suffix or magic bytes) is unpacked as a stream
    within the limit of :mod:`ltrfs.io.unpack`."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(6)
            cls = unpack.opener(path.name, head)
            fh.seek(0)
            if cls is None:
                return fh.read()
            budget = unpack.Budget(path, os.fstat(fh.fileno()).st_size)
            try:
                with cls(fh) as src:
                    return unpack.read_all(src, budget)
            except DataError:
                raise
            except unpack.DAMAGE as exc:
                raise DataError(f"{path}: cannot decompress ({exc})") from None
    except FileNotFoundError as exc:
        raise DataError(os_error_text(exc, path)) from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a directory, not a data file") from None


def _token(raw: bytes, s: int, e: int) -> str:
    t = raw[s:e].decode("utf-8", errors="replace")
    return t if len(t) <= 40 else t[:37] + "..."


def _scan_error(raw, err, max_cells) -> tuple[int, str]:
    """(line, what is wrong) of the scanner's error ``err``."""
    code, line, a, b, c = (int(v) for v in err)
    if code == _E_LABEL:
        what = (f"bad label {_token(raw, a, b)!r} (the label must be an integer such as 2 or 2.0,"
                " within int32)")
    elif code == _E_NOQID:
        found = _token(raw, a, b)
        what = ("missing qid (expected 'qid:<integer>' after the label"
                + (f", found {found!r})" if found else ")"))
    elif code == _E_LABELNEG:
        what = f"negative label {_token(raw, a, b)!r} (relevance labels are integers >= 0)"
    elif code == _E_QID:
        what = f"bad qid {_token(raw, a, b)!r} (expected an integer of at most 18 digits)"
    elif code == _E_QIDPOS:
        what = f"negative qid {_token(raw, a, b)!r} (query ids are integers >= 0)"
    elif code == _E_HASHFEAT:
        what = (f"feature token {_token(raw, a, b)!r} after '#': the text after '#' is a comment, so the "
                "features after it would be lost (remove the '#', or put the comment at the end of the line)")
    elif code == _E_TOKEN:
        what = f"bad feature token {_token(raw, a, b)!r} (expected <index>:<value>)"
    elif code == _E_INDEX0:
        what = "feature index 0 (indices start at 1)"
    elif code == _E_ORDER:
        what = (f"duplicate feature index {a}" if a == b else
                f"feature index {a} after {b} (indices must be strictly increasing)")
    elif code == _E_WIDTH:
        what = f"feature index {a} exceeds n_features={b}"
    elif code == _E_VALUE:
        tok = _token(raw, a, b)
        try:
            bad = not math.isfinite(float(tok))
        except ValueError:
            bad = False
        what = (f"non-finite value {tok!r} for feature {c}" if bad
                else f"bad value {tok!r} for feature {c} (expected a decimal number)")
    elif code == _E_NULL:
        what = f"NULL value for feature {a} (null_policy='error')"
    elif code == _E_TOOWIDE:
        what = (f"feature index {a} needs a dense matrix of {b} rows x {a} features "
                f"({4 * a * b / 2 ** 20:,.0f} MiB), more than {_limit(max_cells)}; "
                "the index is not that of dense LETOR data: check the file")
    elif code == _E_INDEXBIG:
        what = f"feature index {_token(raw, a, b)!r} is too large"
    else:  # pragma: no cover - every code is listed above
        what = f"unknown parse error {code}"
    return line, what


def _limit(max_cells: int) -> str:
    return (f"the {4 * max_cells / 2 ** 20:,.0f} MiB a file of this size may fill: {DENSE_PER_BYTE}x its size, "
            f"at least {DENSE_FLOOR // 2 ** 20} MiB")


def _decode_docids(raw, buf, cstart, cend, ascii_ok, row_line):
    """(docids 'U' array, None) or (None, (line, problem)) for the first comment not in UTF-8."""
    width = max(int((cend - cstart).max()), 1)
    if ascii_ok:
        codes = _gather_ascii(buf, cstart, cend, width)
        return codes.view(f"<U{width}").reshape(-1), None
    out = []
    for r, (s, e) in enumerate(zip(cstart.tolist(), cend.tolist())):
        try:
            out.append(raw[s:e].decode("utf-8").strip())
        except UnicodeDecodeError:
            return None, (int(row_line[r]), "comment is not valid UTF-8")
    return np.array(out, dtype=str), None


def _fallback_values(raw, fb, row_line):
    """float32 values of the tokens outside the exact fast path, by Python's float().

    Returns (values, None) or (None, (line, problem)) for the first value outside float32.
    """
    rows, cols, starts, ends = fb.T.tolist()
    vals = np.array([float(raw[s:e]) for s, e in zip(starts, ends)], dtype=np.float64)
    with np.errstate(over="ignore"):
        v32 = vals.astype(np.float32)
    bad = np.flatnonzero(~np.isfinite(v32))
    if bad.size:
        k = int(bad[0])
        return None, (int(row_line[rows[k]]), f"value {_token(raw, starts[k], ends[k])!r} of "
                      f"feature {cols[k] + 1} is outside the float32 range")
    return v32, None


def _noncontiguous_query(query_ids, query_ptr, row_line):
    """None, or (line, problem) for the first qid that reappears after another qid."""
    if len(np.unique(query_ids)) == len(query_ids):
        return None
    order = np.argsort(query_ids, kind="stable")
    later = order[1:][query_ids[order[1:]] == query_ids[order[:-1]]]
    k = int(later.min())
    first = int(np.flatnonzero(query_ids[:k] == query_ids[k])[0])
    return (int(row_line[query_ptr[k]]),
            f"qid {query_ids[k]} reappears after other queries (first seen at line "
            f"{row_line[query_ptr[first]]}; the rows of a query must be contiguous)")


def _apply_nulls(X, nulls, query_ptr, policy):
    """Replace NULL entries (rows (row, col, line) of ``nulls``) by 0 or the per-query minimum."""
    rows = nulls[:, 0]
    cols = nulls[:, 1]
    if policy == "zero":
        X[rows, cols] = 0.0
        return
    ucols, cpos = np.unique(cols, return_inverse=True)
    sub = X[:, ucols]  # copy, (m, k)
    sub[rows, cpos] = np.inf
    mins = np.minimum.reduceat(sub, query_ptr[:-1], axis=0)  # (q, k)
    mins[np.isinf(mins)] = 0.0  # every value of the query is NULL
    qrow = np.searchsorted(query_ptr, rows, side="right") - 1
    X[rows, cols] = mins[qrow, cpos]


def read_letor(path, *, n_features: int | None = None, null_policy: str = "min",
               max_dense_bytes: int | None = None) -> RankingData:
    """Read a LETOR / SVMlight ranking file into a :class:`RankingData`.

    Parameters
    ----------
    path : str or Path
        Text file; ``.gz``/``.bz2``/``.xz`` (by suffix or magic bytes) is decompressed.
    n_features, null_policy, max_dense_bytes
        As :func:`parse_letor`.

    Returns
    -------
    RankingData
        As :func:`parse_letor`.

    Raises
    ------
    DataError
        ``"<file>:<line>: <what is wrong>"``; see the module docstring for the accepted syntax.
    """
    path = Path(path)
    return parse_letor(_read_bytes(path), source=path, n_features=n_features, null_policy=null_policy,
                       max_dense_bytes=max_dense_bytes)


def parse_letor(raw: bytes, *, source, first_line: int = 1, n_features: int | None = None,
                null_policy: str = "min", max_dense_bytes: int | None = None) -> RankingData:
    """Parse LETOR / SVMlight text (plain bytes) into a :class:`RankingData`.

    Parameters
    ----------
    raw : bytes
        The text: a whole file or a piece of one that starts at a line.
    source : str or Path
        The file the text comes from, named in errors and warnings.
    first_line : int, default 1
        The line number of ``raw``'s first line in ``source`` (errors and warnings name the
        file's own lines for a piece).
    n_features : int, optional
        Width d of X; None (default) -> the largest feature index in the text; an index above a
        given ``n_features`` is an error.
    null_policy : {"min", "zero", "error"}, default "min"
        LETOR 3.0 ``NULL`` values: "min" -> the minimum of that feature over the query's non-NULL
        values (0 when the whole query is NULL for it), as LETOR's Feature-min files; "zero" -> 0;
        "error" -> DataError.
    max_dense_bytes : int, optional
        The largest X the text may fill; None (default) -> ``DENSE_PER_BYTE`` (16) times its
        size, at least ``DENSE_FLOOR`` (64 MiB): a feature index or an ``n_features`` that needs
        more is a DataError, not an allocation.

    Returns
    -------
    RankingData
        X float32 (m, d) with column j = feature j + 1 (missing features 0), y int32 (m,),
        query_ptr int64 (q + 1,), query_ids int64 (q,), docids str (m,) (text after ``#``,
        stripped; "" on lines without a comment; None when no line has one).

    Raises
    ------
    DataError
        ``"<source>:<line>: <what is wrong>"``; see the module docstring for the accepted syntax.
    """
    if null_policy not in NULL_POLICIES:
        raise ValueError(f"null_policy must be one of {NULL_POLICIES}, got {null_policy!r}")
    if n_features is not None:
        if isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features must be a positive integer or None, got {n_features!r}")
        n_features = int(n_features)
    path, lines_before = source, int(first_line) - 1
    if b"\0" in raw[:4096]:
        raise DataError(f"{path}: binary data (NUL bytes), not a LETOR text file")
    if b"\r" in raw:  # CRLF and bare CR (old Mac exports) end a line as LF does
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    buf = np.frombuffer(raw, dtype=np.uint8)
    start = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    n_upper = int(_count_data_lines(buf, start))
    if n_upper == 0:
        raise DataError(f"{path}: empty file (no data lines)")
    max_cells = (max(DENSE_FLOOR, DENSE_PER_BYTE * len(raw)) if max_dense_bytes is None else int(max_dense_bytes)) // 4
    if n_features is not None:
        if n_upper * n_features > max_cells:
            raise DataError(f"{path}: {n_upper} data lines x n_features={n_features} need a dense matrix of "
                            f"{4 * n_upper * n_features / 2 ** 20:,.0f} MiB, more than "
                            f"{_limit(max_cells)}; check n_features and the file")
        cap, fixed = n_features, True
    else:
        cap, fixed = min(int(_guess_width(buf, start, 100)), max(max_cells // n_upper, 1)), False
    (X, y, row_line, cstart, cend, query_ptr, query_ids, fb, nulls, err, m, _nq, dmax,
     has_comment, comments_ascii) = _scan(buf, start, n_upper, cap, fixed, null_policy == "error", max_cells)
    problems = []  # every problem found, reported on the earliest line
    err[1] += lines_before
    if err[0] != _OK:  # the rows before it are still checked for the problems below
        problems.append(_scan_error(raw, err, max_cells))
        fb = fb[fb[:, 0] < m]
    elif m == 0:
        raise DataError(f"{path}: empty file (no data lines)")
    d = n_features if fixed else dmax
    # trim the over-allocation (rows: blank/comment lines; columns: width guess) when it matters
    if X.shape[1] != d or m < 0.9 * X.shape[0]:
        X = np.ascontiguousarray(X[:m, :d])
    else:
        X = X[:m]
    y, row_line, cstart, cend = y[:m], row_line[:m] + lines_before, cstart[:m], cend[:m]
    # checks that need the whole file (up to a scanner error)
    problem = _noncontiguous_query(query_ids, query_ptr, row_line)
    if problem:
        problems.append(problem)
    if len(fb):
        values, problem = _fallback_values(raw, fb, row_line)
        if problem:
            problems.append(problem)
        else:
            X[fb[:, 0], fb[:, 1]] = values
    docids = None
    if has_comment and m:
        docids, problem = _decode_docids(raw, buf, cstart, cend, comments_ascii, row_line)
        if problem:
            problems.append(problem)
    if problems:
        line, what = min(problems)
        raise DataError(f"{path}:{line}: {what}")
    if len(nulls):
        _apply_nulls(X, nulls, query_ptr, null_policy)
    repeats = duplicate_rows(X, query_ptr, docids)
    if len(repeats):
        pairs = ", ".join(f"line {row_line[r]} repeats line {row_line[e]}" for r, e in repeats[:3].tolist())
        log.warning("%s: %d duplicate rows (%s as an earlier row; kept): %s%s", path, len(repeats),
                    "same query, features and docid" if docids is not None else "same query and features",
                    pairs, ", ..." if len(repeats) > 3 else "")
    return RankingData(X=X, y=y, query_ptr=query_ptr, query_ids=query_ids, docids=docids)

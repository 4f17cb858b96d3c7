"""Tests of ltrfs.io: the LETOR/SVMlight reader, the writer and the .npz cache."""
from __future__ import annotations

import bz2
import gzip
import logging
import lzma
import os
import re
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib

import numpy as np
import pytest

from ltrfs.ranking_data import DataError, RankingData
from ltrfs.io import duplicate_rows, load_npz, read_any, read_letor, save_npz, write_letor
from ltrfs.io.reader import _parse_number

F32 = np.float32

HAND = (
    "# a header comment line\n"
    "2 qid:1 1:0.5 2:-1.25 3:3 #doc A\n"
    "0 qid:1 1:0 2:1e-3 3:.5 # doc B  \n"
    "\n"
    "   \t\n"
    "1 qid:7 2:4 #docC\n"
)
HAND_X = np.array([[0.5, -1.25, 3.0], [0.0, 0.001, 0.5], [0.0, 4.0, 0.0]], dtype=F32)


def write(tmp_path, text, name="data.txt"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, newline="")
    return path


def assert_same(a: RankingData, b: RankingData, docids=True):
    for key in ("X", "y", "query_ptr", "query_ids"):
        u, v = getattr(a, key), getattr(b, key)
        assert u.dtype == v.dtype and u.shape == v.shape, key
        assert u.tobytes() == v.tobytes(), key
    if docids:
        if a.docids is None:
            assert b.docids is None
        else:
            assert b.docids is not None and a.docids.dtype == b.docids.dtype
            assert np.array_equal(a.docids, b.docids)


# ------------------------------------------------------------------------------- basic reading

def test_hand_written_file(tmp_path):
    d = read_letor(write(tmp_path, HAND))
    assert d.X.dtype == np.float32 and d.X.flags.c_contiguous
    assert d.y.dtype == np.int32 and d.query_ptr.dtype == np.int64 and d.query_ids.dtype == np.int64
    np.testing.assert_array_equal(d.X, HAND_X)
    np.testing.assert_array_equal(d.y, [2, 0, 1])
    np.testing.assert_array_equal(d.query_ptr, [0, 2, 3])
    np.testing.assert_array_equal(d.query_ids, [1, 7])
    np.testing.assert_array_equal(d.qid, [1, 1, 7])
    assert d.docids.tolist() == ["doc A", "doc B", "docC"]


def test_crlf_and_bare_cr_equal_lf(tmp_path):
    lf = read_letor(write(tmp_path, HAND, "lf.txt"))
    crlf = read_letor(write(tmp_path, HAND.replace("\n", "\r\n"), "crlf.txt"))
    assert_same(lf, crlf)
    # old Mac exports end lines with a bare CR: every line is a row, the comments stay per row
    cr = read_letor(write(tmp_path, HAND.replace("\n", "\r"), "cr.txt"))
    assert_same(lf, cr)
    assert cr.docids.tolist() == ["doc A", "doc B", "docC"]


def test_values_below_float32_become_zero(tmp_path):
    d = read_letor(write(tmp_path, "1 qid:1 1:1e-50 2:1e-40 3:-1e-46\n"))
    np.testing.assert_array_equal(d.X, np.array([[0.0, np.float32(1e-40), 0.0]], F32))


def test_duplicate_rows_are_kept_with_a_warning_naming_their_lines(tmp_path, caplog):
    text = ("1 qid:1 1:1 2:3 #a\n0 qid:1 1:1 2:3 #b\n1 qid:1 1:1 2:3 #a\n"   # line 3 repeats line 1
            "1 qid:2 1:1 2:3 #a\n")                                          # another query: not a repeat
    with caplog.at_level(logging.WARNING, logger="ltrfs.io"):
        d = read_letor(write(tmp_path, text))
    assert d.n_rows == 4
    assert len(caplog.records) == 1
    assert "1 duplicate rows (same query, features and docid as an earlier row; kept): line 3 repeats line 1" \
        in caplog.records[0].getMessage()
    # without docids, equal features in one query are repeats
    X = np.array([[1, 2], [1, 2], [0, 2], [1, 2], [0, 2]], F32)
    np.testing.assert_array_equal(duplicate_rows(X, np.array([0, 4, 5])), [[1, 0], [3, 0]])
    np.testing.assert_array_equal(duplicate_rows(X, np.array([0, 1, 2, 3, 4, 5])), np.empty((0, 2)))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ltrfs.io"):
        read_letor(write(tmp_path, HAND, "clean.txt"))
    assert not caplog.records


def test_no_trailing_newline_bom_tabs_and_signs(tmp_path):
    text = "\ufeff+2\tqid:+5\t1:+1.5\t3:-2E2\n+0 qid:5 2:7.\n2.0 qid:3 1:1e+1"
    d = read_letor(write(tmp_path, text))
    np.testing.assert_array_equal(d.X, np.array([[1.5, 0, -200], [0, 7, 0], [10, 0, 0]], F32))
    np.testing.assert_array_equal(d.y, [2, 0, 2])  # "2.0" is read as the integer 2
    np.testing.assert_array_equal(d.query_ids, [5, 3])
    assert d.docids is None


def test_sparse_lines_and_width(tmp_path):
    text = "1 qid:3 2:0.25 5:1\n0 qid:3\n0 qid:4 1:-1 #x\n"
    path = write(tmp_path, text)
    d = read_letor(path)
    expect = np.zeros((3, 5), F32)
    expect[0, 1], expect[0, 4], expect[2, 0] = 0.25, 1, -1
    np.testing.assert_array_equal(d.X, expect)
    assert d.docids.tolist() == ["", "", "x"]
    d8 = read_letor(path, n_features=8)
    assert d8.X.shape == (3, 8)
    np.testing.assert_array_equal(d8.X[:, :5], expect)
    assert not d8.X[:, 5:].any()
    with pytest.raises(DataError, match=re.escape(f"{path}:1: feature index 5 exceeds n_features=4")):
        read_letor(path, n_features=4)


def test_width_grows_beyond_the_first_lines(tmp_path):
    # the width is guessed from the first 100 lines; a later, wider line must still be right
    rng = np.random.default_rng(3)
    lines, X = [], np.zeros((150, 60), F32)
    for r in range(150):
        hi = 3 if r < 120 else 60
        cols = np.sort(rng.choice(hi, size=min(3, hi), replace=False))
        vals = rng.integers(1, 100, size=len(cols)) / 8
        X[r, cols] = vals
        lines.append(f"{r % 4} qid:{r // 10} " + " ".join(f"{c + 1}:{v}" for c, v in zip(cols, vals)))
    X = X[:, : int(np.flatnonzero(X.any(axis=0)).max()) + 1]
    d = read_letor(write(tmp_path, "\n".join(lines) + "\n"))
    np.testing.assert_array_equal(d.X, X)
    assert d.X.flags.c_contiguous


def test_docids_utf8_and_blank_comment(tmp_path):
    text = "1 qid:1 1:1 # caf\u00e9 \u2013 \u00fcber \n0 qid:1 1:2 #\n0 qid:1 1:3\n"
    d = read_letor(write(tmp_path, text))
    assert d.docids.tolist() == ["caf\u00e9 \u2013 \u00fcber", "", ""]
    bad = write(tmp_path, b"1 qid:1 1:1 #ok\n1 qid:1 1:1 #\xff\xfe\n", "bad.txt")
    with pytest.raises(DataError, match=re.escape(f"{bad}:2: comment is not valid UTF-8")):
        read_letor(bad)


def test_hash_directly_after_a_value(tmp_path):
    d = read_letor(write(tmp_path, "1 qid:2 1:0.5#d1\n0 qid:2#d2\n"))
    np.testing.assert_array_equal(d.X, np.array([[0.5], [0]], F32))
    assert d.docids.tolist() == ["d1", "d2"]


def test_gzip_by_suffix_and_by_magic(tmp_path):
    plain = read_letor(write(tmp_path, HAND))
    gz = tmp_path / "data.txt.gz"
    gz.write_bytes(gzip.compress(HAND.encode()))
    assert_same(plain, read_letor(gz))
    hidden = tmp_path / "gzipped_but_named.txt"
    hidden.write_bytes(gzip.compress(HAND.encode()))
    assert_same(plain, read_letor(hidden))


def _bomb(path, compressor, size, unit=b"\n"):
    """Write ``size`` bytes of ``unit`` through ``compressor`` (a zlib/bz2/lzma compress object)."""
    block = unit * (2 ** 22 // len(unit))
    with open(path, "wb") as fh:
        for _ in range(size // len(block)):
            fh.write(compressor.compress(block))
        fh.write(compressor.flush())
    return path


@pytest.mark.parametrize("make", [
    lambda: bz2.BZ2Compressor(9),
    lambda: zlib.compressobj(9, zlib.DEFLATED, 31),  # gzip
    lambda: lzma.LZMACompressor(),
], ids=["bz2", "gz", "xz"])
def test_a_decompression_bomb_is_refused_at_the_floor_in_bounded_memory(tmp_path, make):
    # 64 MiB of newlines in a few hundred bytes: past the 16 MiB floor, far below the ratio's cap
    bomb = _bomb(tmp_path / "bomb.txt", make(), 64 * 2 ** 20)
    assert 100 * bomb.stat().st_size < 16 * 2 ** 20  # the floor, not the ratio, is the limit
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(DataError) as exc:
            read_letor(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 5
    assert peak < 40 * 2 ** 20, peak  # the 16 MiB floor and a chunk, not the 64 MiB
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"{bomb}: unpacks to more than 16 MiB")
    assert "LTRFS_UNPACK_RATIO=" in msg and "LTRFS_UNPACK_LIMIT=" in msg


def test_the_default_ratio_refuses_a_bomb_above_the_floor(tmp_path):
    # 256 MiB in about 260 KB (ratio ~1000): refused at 100x the compressed size, ~25 MiB
    bomb = _bomb(tmp_path / "zeros.txt.gz", zlib.compressobj(9, zlib.DEFLATED, 31), 256 * 2 ** 20)
    limit = 100 * bomb.stat().st_size
    assert limit > 16 * 2 ** 20
    start = time.perf_counter()
    with pytest.raises(DataError, match=r"zeros\.txt\.gz: unpacks to more than .* \(limit: 100 times its"):
        read_letor(bomb)
    assert time.perf_counter() - start < 5


def test_the_unpack_limit_is_set_by_environment(tmp_path, monkeypatch):
    bomb = _bomb(tmp_path / "nl.txt.bz2", bz2.BZ2Compressor(9), 8 * 2 ** 20)
    with pytest.raises(DataError, match="empty file"):  # 8 MiB: within the 16 MiB floor
        read_letor(bomb)
    monkeypatch.setenv("LTRFS_UNPACK_LIMIT", "4M")
    with pytest.raises(DataError, match=r"unpacks to more than 4 MiB .*at most 4 MiB"):
        read_letor(bomb)
    monkeypatch.setenv("LTRFS_UNPACK_LIMIT", str(9 * 2 ** 20))
    with pytest.raises(DataError, match="empty file"):
        read_letor(bomb)
    real = tmp_path / "real.txt.gz"
    real.write_bytes(gzip.compress(HAND.encode()))
    monkeypatch.setenv("LTRFS_UNPACK_LIMIT", "100")  # a limit below the text: refused
    with pytest.raises(DataError, match="real.txt.gz: unpacks to more than 100 bytes"):
        read_letor(real)
    monkeypatch.delenv("LTRFS_UNPACK_LIMIT")
    monkeypatch.setenv("LTRFS_UNPACK_RATIO", "1e-9")  # the floor still lets small files through
    assert_same(read_letor(write(tmp_path, HAND)), read_letor(real))


@pytest.mark.parametrize("name, value, message", [
    ("LTRFS_UNPACK_RATIO", "lots", "LTRFS_UNPACK_RATIO='lots': expected a positive number"),
    ("LTRFS_UNPACK_RATIO", "-3", "LTRFS_UNPACK_RATIO='-3': expected a positive number"),
    ("LTRFS_UNPACK_RATIO", "nan", "LTRFS_UNPACK_RATIO='nan': expected a positive number"),
    ("LTRFS_UNPACK_LIMIT", "12X", "LTRFS_UNPACK_LIMIT='12X': expected a positive size"),
    ("LTRFS_UNPACK_LIMIT", "0", "LTRFS_UNPACK_LIMIT='0': expected a positive size"),
    ("LTRFS_UNPACK_LIMIT", "G", "LTRFS_UNPACK_LIMIT='G': expected a positive size"),
])
def test_a_bad_unpack_setting_is_one_line(tmp_path, monkeypatch, name, value, message):
    real = tmp_path / "real.txt.gz"
    real.write_bytes(gzip.compress(HAND.encode()))
    monkeypatch.setenv(name, value)
    with pytest.raises(DataError, match=re.escape(message)):
        read_letor(real)


def test_the_bomb_given_to_ltrfs_eval_is_one_line_and_exit_2(tmp_path):
    bomb = _bomb(tmp_path / "bomb.txt.bz2", bz2.BZ2Compressor(9), 64 * 2 ** 20)
    scores = write(tmp_path, "1\n", "scores.txt")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("LTRFS_UNPACK_LIMIT", None)
    env.pop("LTRFS_UNPACK_RATIO", None)
    result = subprocess.run([sys.executable, "-m", "ltrfs", "eval", str(bomb), str(scores)],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"ltrfs: error: {bomb}: unpacks to more than 16 MiB")


# ------------------------------------------------------------------------------- NULL values

NULL_TEXT = (
    "0 qid:1 1:NULL 2:0.5\n"
    "1 qid:1 1:3 2:NULL\n"
    "2 qid:1 1:2 2:0.25\n"
    "0 qid:2 1:NULL 2:1\n"
    "1 qid:2 1:null 2:-2\n"
    "0 qid:3 1:4 3:5\n"
    "0 qid:3 1:NULL 3:NULL\n"
    "1 qid:3 3:-1\n"
)


def test_null_policy_min(tmp_path):
    d = read_letor(write(tmp_path, NULL_TEXT))
    # per-query minima over the non-NULL values (implicit zeros of sparse lines count):
    # q1 f1 min(3, 2) = 2; q1 f2 min(0.5, 0.25) = 0.25; q2 f1 all NULL -> 0;
    # q3 f1 min(4, 0 [row 8 has no f1]) = 0; q3 f3 min(5, -1) = -1
    expect = np.array([
        [2, 0.5, 0], [3, 0.25, 0], [2, 0.25, 0],
        [0, 1, 0], [0, -2, 0],
        [4, 0, 5], [0, 0, -1], [0, 0, -1],
    ], F32)
    np.testing.assert_array_equal(d.X, expect)


def test_null_policy_zero(tmp_path):
    d = read_letor(write(tmp_path, NULL_TEXT), null_policy="zero")
    expect = np.array([
        [0, 0.5, 0], [3, 0, 0], [2, 0.25, 0],
        [0, 1, 0], [0, -2, 0],
        [4, 0, 5], [0, 0, 0], [0, 0, -1],
    ], F32)
    np.testing.assert_array_equal(d.X, expect)


def test_null_policy_error(tmp_path):
    path = write(tmp_path, "0 qid:1 1:1 2:1\n" + NULL_TEXT)
    with pytest.raises(DataError, match=re.escape(f"{path}:2: NULL value for feature 1")):
        read_letor(path, null_policy="error")
    with pytest.raises(ValueError, match="null_policy"):
        read_letor(path, null_policy="mean")


# ------------------------------------------------------------------------------- errors

ERROR_CASES = [
    ("missing qid", "1 qid:1 1:1\n1 1:0.5\n", 2, "missing qid"),
    ("missing qid, label only", "1 qid:1 1:1\n\n3\n", 3, "missing qid"),
    ("bad qid", "1 qid:x1 1:0.5\n", 1, "bad qid 'x1'"),
    ("bad number", "1 qid:1 1:0.5 2:abc\n", 1, "bad value 'abc' for feature 2"),
    ("bad number, two points", "1 qid:1 1:0.5.1\n", 1, "bad value '0.5.1' for feature 1"),
    ("empty value", "1 qid:1 1: 2:3\n", 1, "bad value '' for feature 1"),
    ("nan", "# c\n1 qid:1 1:nan\n", 2, "non-finite value 'nan' for feature 1"),
    ("inf", "1 qid:1 1:1 3:-inf\n", 1, "non-finite value '-inf' for feature 3"),
    ("float64 overflow", "1 qid:1 1:1\n1 qid:1 1:1e400\n", 2, "value '1e400' of feature 1 is outside the float32"),
    ("float32 overflow", "1 qid:1 2:1e39\n", 1, "value '1e39' of feature 2 is outside the float32"),
    ("fractional label", "1 qid:1 1:1\n1.5 qid:1 1:1\n", 2, "bad label '1.5'"),
    ("label in exponent form", "2e0 qid:1 1:1\n", 1, "bad label '2e0'"),
    ("label too large", "3000000000 qid:1 1:1\n", 1, "bad label '3000000000'"),
    ("duplicate index", "1 qid:1 1:1 2:1 2:3\n", 1, "duplicate feature index 2"),
    ("decreasing index", "1 qid:1 3:1 2:1\n", 1, "feature index 2 after 3"),
    ("index zero", "1 qid:1 0:1\n", 1, "feature index 0"),
    ("not index:value", "1 qid:1 1:1 foo\n", 1, "bad feature token 'foo'"),
    ("negative index", "1 qid:1 -1:1\n", 1, "bad feature token '-1:1'"),
    ("index beyond int32", "1 qid:1 1:1\n1 qid:1 99999999999:1\n", 2,
     "feature index '99999999999' is too large"),
    ("dense matrix too large", "1 qid:1 2000000000:1\n1 qid:1 1:1\n1 qid:1 1:1\n", 1,
     "feature index 2000000000 needs a dense matrix of 3 rows x 2000000000 features (22,888 MiB), more than "
     "the 64 MiB a file of this size may fill"),
    ("index beyond what a small file may fill", "1 qid:1 1:1\n1 qid:1 16777217:1\n", 2,
     "feature index 16777217 needs a dense matrix of 2 rows"),
    ("negative label", "1 qid:1 1:1\n-1 qid:1 1:1\n", 2, "negative label '-1' (relevance labels are integers >= 0)"),
    ("negative qid", "1 qid:1 1:1\n1 qid:-3 1:1\n", 2, "negative qid '-3' (query ids are integers >= 0)"),
    ("'#' before features", "0 qid:1 1:0.1 #2:0.2 3:0.3\n", 1,
     "feature token '2:0.2' after '#': the text after '#' is a comment, so the features after it would be lost"),
    ("'# ' before features", "0 qid:1 1:1\n0 qid:1 1:0.1 # 12:-.5\n", 2, "feature token '12:-.5' after '#'"),
    ("qid not contiguous", "1 qid:1 1:1\n1 qid:2 1:1\n\n1 qid:1 1:1\n", 4,
     "qid 1 reappears after other queries (first seen at line 1"),
    ("earliest of two whole-file problems", "1 qid:1 1:1\n1 qid:2 1:1e39\n1 qid:1 1:1\n", 2,
     "value '1e39' of feature 1 is outside the float32 range"),
    ("earliest of two whole-file problems, reversed", "1 qid:1 1:1\n1 qid:2 1:1\n1 qid:1 1:1e39\n",
     3, "qid 1 reappears"),
]


@pytest.mark.parametrize("name,text,line,what", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_name_file_and_line(tmp_path, name, text, line, what):
    for variant, body in (("lf", text), ("crlf", text.replace("\n", "\r\n")), ("cr", text.replace("\n", "\r"))):
        path = write(tmp_path, body, f"{variant}.txt")
        with pytest.raises(DataError) as info:
            read_letor(path)
        msg = str(info.value)
        assert "\n" not in msg
        assert msg.startswith(f"{path}:{line}: "), msg
        assert what in msg, msg


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n  # another\n\r\n"])
def test_empty_file(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(DataError, match=re.escape(f"{path}: empty file")):
        read_letor(path)


def test_comment_text_that_is_not_a_feature_is_a_docid(tmp_path):
    d = read_letor(write(tmp_path, "1 qid:1 1:1 #docid = GX000-00 at 12:30\n0 qid:1 1:2 #12:ab\n"))
    assert d.docids.tolist() == ["docid = GX000-00 at 12:30", "12:ab"]


def test_n_features_beyond_what_the_file_may_fill(tmp_path):
    path = write(tmp_path, "1 qid:1 1:1\n" * 3)
    with pytest.raises(DataError, match=re.escape(f"{path}: 3 data lines x n_features=6000000 need a dense matrix "
                                                  "of 69 MiB, more than the 64 MiB")):
        read_letor(path, n_features=6_000_000)
    assert read_letor(path, n_features=6_000_000, max_dense_bytes=80 * 2 ** 20).X.shape == (3, 6_000_000)


def test_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_letor(tmp_path / "absent.txt")
    path = write(tmp_path, HAND)
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="n_features"):
            read_letor(path, n_features=bad)


# ------------------------------------------------------------------------------- exact numbers

def _tokens(rng, n):
    out = []
    for _ in range(n):
        kind = rng.integers(6)
        if kind == 0:
            out.append(f"{rng.random():.6f}")
        elif kind == 1:
            out.append(repr(float(rng.standard_normal() * 10.0 ** rng.integers(-30, 30))))
        elif kind == 2:
            out.append(f"{rng.random() * 1000:.{rng.integers(0, 25)}f}")
        elif kind == 3:
            digits = "".join(str(v) for v in rng.integers(0, 10, size=rng.integers(1, 30)))
            point = rng.integers(0, len(digits) + 1)
            out.append(("-" if rng.random() < 0.3 else "") + digits[:point] + "." + digits[point:]
                       + (f"e{rng.integers(-40, 40)}" if rng.random() < 0.5 else ""))
        elif kind == 4:
            out.append(str(int(rng.integers(-10 ** 12, 10 ** 12))))
        else:
            out.append(f"{rng.random():.9e}")
    return [t for t in out if t not in (".", "-.") and not t.startswith((".e", "-.e"))]


def test_parse_number_equals_python_float():
    rng = np.random.default_rng(0)
    tokens = _tokens(rng, 5000) + ["0", "-0", "0.0", "9007199254740992", "9007199254740993",
                                   "1e22", "1e23", "1e-22", "1e-23", "0e999", "5.", ".5",
                                   "123456789012345678901234567890", "0.000000000000000000001234"]
    n_fast = 0
    for tok in tokens:
        b = np.frombuffer(tok.encode(), np.uint8)
        v, status, end = _parse_number(b, 0, len(b))
        assert end == len(b) and status in (0, 1), tok
        if status == 0:
            n_fast += 1
            assert struct.pack("<d", v) == struct.pack("<d", float(tok)), tok
    assert n_fast > 2000  # the fast path carries the common cases
    for tok in ["", "-", ".", "e5", "1e", "1e+", "+.e1"]:
        b = np.frombuffer(tok.encode(), np.uint8)
        assert _parse_number(b, 0, len(b))[1] == 2, tok


def test_equals_sklearn_on_random_file(tmp_path):
    from sklearn.datasets import load_svmlight_file
    rng = np.random.default_rng(1)
    tokens = iter(_tokens(rng, 12000))
    lines = []
    qid = 100
    for r in range(500):
        if rng.random() < 0.15:
            qid += int(rng.integers(1, 5))
        cols = np.flatnonzero(rng.random(30) < 0.6) + 1
        feats = []
        for c in cols:
            tok = next(tokens)
            if abs(float(tok)) > 3e38:  # outside float32: an error for us, inf for sklearn
                tok = "1.5"
            feats.append(f"{c}:{tok}")
        comment = f" # doc{r}" if rng.random() < 0.5 else ""
        lines.append(f"{rng.integers(0, 5)} qid:{qid} " + " ".join(feats) + comment)
    path = write(tmp_path, "\n".join(lines) + "\n")
    X, y, q = load_svmlight_file(str(path), query_id=True, n_features=30)
    d = read_letor(path, n_features=30)
    # bit for bit, except that sklearn's sparse matrix drops explicit -0 values (+ 0 maps -0 to 0)
    assert (d.X + F32(0)).tobytes() == X.toarray().astype(np.float32).tobytes()
    np.testing.assert_array_equal(d.y, y)
    np.testing.assert_array_equal(d.qid, q)


@pytest.fixture(scope="module")
def mq2008_fold1_train(mq2008_dir):
    """MQ2008/Fold1/train.txt from the session fixture of conftest.py (skips when absent)."""
    return mq2008_dir / "Fold1" / "train.txt"


def test_mq2008_fold1_train_equals_sklearn(mq2008_fold1_train):
    from sklearn.datasets import load_svmlight_file
    d = read_letor(mq2008_fold1_train)
    assert d.n_rows == 9630 and d.n_queries == 471 and d.n_features == 46
    X, y, q = load_svmlight_file(str(mq2008_fold1_train), query_id=True)
    assert d.X.tobytes() == X.toarray().astype(np.float32).tobytes()
    np.testing.assert_array_equal(d.y, y)
    np.testing.assert_array_equal(d.qid, q)
    assert d.docids[0].startswith("docid = GX")
    # features 6-10 and 43 are 0 on every row (a property of the original data)
    assert not d.X[:, [5, 6, 7, 8, 9, 42]].any()


# ------------------------------------------------------------------------------- cache, writer

def _random_data(rng, m=300, d=12, docids=True):
    sizes = []
    while sum(sizes) < m:
        sizes.append(int(rng.integers(1, 20)))
    sizes[-1] -= sum(sizes) - m
    sizes = [s for s in sizes if s > 0]
    X = (rng.standard_normal((m, d)) * 10.0 ** rng.integers(-6, 6, size=(m, d))).astype(F32)
    X[rng.random((m, d)) < 0.2] = 0
    return RankingData(
        X=X, y=rng.integers(0, 5, m).astype(np.int32),
        query_ptr=np.r_[0, np.cumsum(sizes)].astype(np.int64),
        query_ids=rng.choice(10 ** 9, size=len(sizes), replace=False).astype(np.int64),
        docids=np.array([f"doc-{i} \u00e9" for i in range(m)]) if docids else None)


@pytest.mark.parametrize("docids", [True, False])
def test_npz_round_trip_bit_for_bit(tmp_path, docids):
    data = _random_data(np.random.default_rng(2), docids=docids)
    path = tmp_path / "cache.npz"
    save_npz(data, path)
    assert sorted(os.listdir(tmp_path)) == ["cache.npz"]  # no temporary file left behind
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # usual permissions, not mkstemp's 0600
    back = load_npz(path)
    assert_same(data, back)
    assert back.X.flags.c_contiguous and back.X.flags.aligned and back.X.flags.writeable
    with np.load(path, allow_pickle=False) as z:  # plain numpy can read it without pickle
        assert z["X"].tobytes() == data.X.tobytes()
        assert ("docids" in z.files) == docids
    assert_same(data, read_any(path))


def test_npz_overwrite_and_errors(tmp_path):
    rng = np.random.default_rng(4)
    path = tmp_path / "c.npz"
    save_npz(_random_data(rng, m=50), path)
    second = _random_data(rng, m=40)
    save_npz(second, path)
    assert_same(second, load_npz(path))
    np.savez(tmp_path / "other.npz", X=np.zeros((2, 2), F32))
    with pytest.raises(DataError, match="not an ltrfs .npz cache"):
        load_npz(tmp_path / "other.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(DataError, match="junk.npz: not a readable .npz cache"):
        load_npz(tmp_path / "junk.npz")
    np.savez(tmp_path / "pickled.npz", format=np.array(1), X=np.zeros((1, 1), F32),
             y=np.zeros(1, np.int32), query_ptr=np.array([0, 1]), query_ids=np.array([1]),
             docids=np.array(["a"], dtype=object))
    with pytest.raises(DataError, match="pickled.npz: docids.npy holds Python objects"):
        load_npz(tmp_path / "pickled.npz")
    np.savez(tmp_path / "broken.npz", format=np.array(1), X=np.zeros((3, 1), F32),
             y=np.zeros(3, np.int32), query_ptr=np.array([0, 2]), query_ids=np.array([1]))
    with pytest.raises(DataError, match="broken.npz: inconsistent cache: query_ptr must rise"):
        load_npz(tmp_path / "broken.npz")
    with pytest.raises(DataError, match="c.npz: binary data"):
        read_letor(path)
    with pytest.raises(DataError, match="cache has 12 features"):
        read_any(path, n_features=13)


def test_failed_writes_leave_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    import ltrfs.io.writer as lio  # the module write_letor runs in (its _format_rows is patched)

    data = _random_data(np.random.default_rng(5), m=40)
    cache, text = tmp_path / "c.npz", tmp_path / "t.txt"
    save_npz(data, cache)
    write_letor(data, text)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken_savez(f, **arrays):
        f.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(lio.np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        save_npz(_random_data(np.random.default_rng(9), m=30), cache)
    monkeypatch.undo()

    calls = []
    real = lio._format_rows

    def broken_format(*args):
        calls.append(1)
        if len(calls) == 2:
            raise MemoryError("out of memory")
        return real(*args)

    monkeypatch.setattr(lio, "_format_rows", broken_format)
    with pytest.raises(MemoryError):
        write_letor(_random_data(np.random.default_rng(9), m=30), text, chunk_rows=10)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_write_read_round_trip(tmp_path):
    data = _random_data(np.random.default_rng(6))
    # values the compiled formatter hands to numpy: tiny, huge, subnormal, extremes; and -0
    special = np.array([1e-20, -3.4028235e38, 1.4e-45, -1.17549435e-38, 2.5e25, 9.99e-15, -0.0],
                       F32)
    data.X[0, : len(special)] = special
    path = tmp_path / "out.txt"
    write_letor(data, path)
    back = read_letor(path)
    assert_same(data, back)
    first = path.read_text().splitlines()[0]
    assert first.startswith(f"{data.y[0]} qid:{data.query_ids[0]} 1:1e-20 2:-3.4028235e+38 3:1e-45 ")
    assert " 7:-0 " in first and first.endswith(" #doc-0 \u00e9")
    # gzip output, deterministic bytes
    write_letor(data, tmp_path / "a.txt.gz")
    write_letor(data, tmp_path / "b.txt.gz")
    assert (tmp_path / "a.txt.gz").read_bytes() == (tmp_path / "b.txt.gz").read_bytes()
    assert_same(data, read_any(tmp_path / "a.txt.gz"))


def test_write_is_shortest_round_trip(tmp_path):
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32).view(F32)
    vals = bits[np.isfinite(bits) & (np.abs(bits) > 1e-12) & (np.abs(bits) < 1e20)][:10000]
    vals = np.concatenate([vals, np.array([0.1, 0.2, 1 / 3, 100, 1e8, 123456790, 0.007470,
                                           16777216, 16777217, 1e-5, 1e-6], F32)])
    m = len(vals)
    data = RankingData(X=vals.reshape(m, 1), y=np.zeros(m, np.int32),
                       query_ptr=np.array([0, m], np.int64), query_ids=np.array([1], np.int64))
    path = tmp_path / "v.txt"
    write_letor(data, path)
    assert read_letor(path).X.tobytes() == data.X.tobytes()
    written = [line.split()[2][2:] for line in path.read_text().splitlines()]
    for v, s in zip(vals.tolist(), written):
        # no shorter mantissa than numpy's shortest float32 repr
        ref = np.format_float_scientific(np.float32(v), unique=True, trim="-")
        digits = lambda t: len(t.split("e")[0].replace("-", "").replace(".", "").strip("0"))  # noqa: E731
        assert digits(s) <= digits(ref), (v, s, ref)
    assert written[-11:] == ["0.1", "0.2", "0.33333334", "100", "100000000", "123456790",
                             "0.00747", "16777216", "16777216", "1e-05", "1e-06"]


def test_write_letor_rejects_bad_input(tmp_path):
    data = _random_data(np.random.default_rng(8), m=10)
    data.X[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"X\[3, 2\] = nan is not finite"):
        write_letor(data, tmp_path / "x.txt")
    data = _random_data(np.random.default_rng(8), m=10)
    data.docids[4] = "two\nlines"
    with pytest.raises(ValueError, match="docid of row 4 contains a line break"):
        write_letor(data, tmp_path / "x.txt")
    assert os.listdir(tmp_path) == []


def test_read_any_dispatch(tmp_path):
    path = write(tmp_path, HAND)
    text = read_any(path, n_features=4)
    assert text.X.shape == (3, 4)
    save_npz(text, tmp_path / "h.npz")
    assert_same(text, read_any(tmp_path / "h.npz"))


def test_atomic_outputs_have_the_usual_permissions(tmp_path):
    import os

    from ltrfs.atomic_files import write_text

    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_a_read_only_fold_refuses_writes_and_keeps_its_values():
    """RankingData.read_only (a batched select job's fold): every array refuses a write, the values
    and the views methods take of them stay as they were."""
    data = RankingData(np.arange(12, dtype=np.float32).reshape(6, 2), np.array([0, 1, 2, 0, 1, 2], np.int32),
                       np.array([0, 3, 6]), np.array([7, 8]), np.array(list("abcdef")))
    assert data.read_only() is data
    for array in (data.X, data.y, data.query_ptr, data.query_ids, data.docids):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = array[1]
    assert data.X[0, 0] == 0 and data.y[0] == 0 and data.docids[0] == "a"
    assert data.subset_queries([1]).X.tolist() == [[6, 7], [8, 9], [10, 11]]  # a copy: writable
    assert data.select_features([1]).X[:, 0].tolist() == [1, 3, 5, 7, 9, 11]

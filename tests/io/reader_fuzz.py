"""Differential fuzzing of the LETOR reader (``ltrfs.io.read_letor``) against a slow reference.

``reference_read`` states the reader's documented policy (``ltrfs.io``'s module docstring) in
plain Python, line by line; ``cases`` mutates valid LETOR, MSLR-style and LETOR 3.0 files
(truncations, bit flips, byte edits, every token class replaced by bad or odd tokens, huge
feature ids, CR / CRLF / mixed line endings, UTF-16 and Latin-1 text, empty and one-byte
files, repeated and moved lines). ``run`` reads each case with both and reports every case
where they disagree (accepted by one and refused by the other, or different arrays) and every
exception other than ``DataError``.

Run as a script (``python tests/io/reader_fuzz.py N SEED [unbounded]``) it first caps its address space
(RLIMIT_AS) at what it uses after a warm-up read plus ``ltrfs.io``'s dense-matrix bound for the
largest case and 256 MiB of slack, so a case that allocates beyond the bound fails with
MemoryError and is reported; it prints a JSON summary. ``unbounded`` lifts the reader's bound
(not the cap), to show that the harness catches such a reader. tests/io/test_reader_fuzz.py runs it.
"""
from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

WS = " \t"
_LABEL = re.compile(rb"[+-]?(\d+)(\.0*)?")
_QID = re.compile(rb"qid:([+-]?)(\d{1,18})")
_FEATURE = re.compile(rb"(\d*):(.*)", re.S)
_NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HASH_FEATURE = re.compile(rb"[ \t]*\d+:[0-9+\-.]")
_STRIP = bytes(range(9, 14)) + bytes(range(28, 33))  # the ASCII str.strip() removes


class Refused(Exception):
    """The policy refuses the file (at ``line``, or None for a whole-file problem)."""

    def __init__(self, line=None):
        super().__init__(line)
        self.line = line


def reference_read(raw: bytes, dense_floor: int, dense_per_byte: int):
    """(X float32 (m, d), y, query ids per row, docids or None) by the documented policy, or
    raise Refused. Plain text only (compression is not fuzzed)."""
    if b"\0" in raw[:4096]:
        raise Refused()
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    size = len(raw)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    rows, labels, qids, comments = [], [], [], []
    seen_qids, any_comment = {}, False
    width, number = 0, 0
    data_lines = sum(1 for text in lines if text.lstrip(b" \t")[:1] not in (b"", b"#"))
    if data_lines == 0:
        raise Refused()
    max_cells = max(dense_floor, dense_per_byte * size) // 4
    for number, text in enumerate(lines, 1):
        body = text.lstrip(b" \t")
        if not body or body.startswith(b"#"):
            continue
        data, hash_, comment = body.partition(b"#")
        tokens = [t for t in re.split(rb"[ \t]+", data) if t]
        if hash_ and _HASH_FEATURE.match(comment):
            raise Refused(number)
        try:
            docid = comment.strip(_STRIP).decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(number) from None
        label = _LABEL.fullmatch(tokens[0]) if tokens else None
        if not label or int(tokens[0].split(b".")[0]) < 0 or int(label.group(1)) > 2 ** 31 - 1:
            raise Refused(number)
        qid = _QID.fullmatch(tokens[1]) if len(tokens) > 1 else None
        if not qid or (qid.group(1) == b"-" and int(qid.group(2)) > 0):
            raise Refused(number)
        q = int(qid.group(2))
        values, prev = {}, 0
        for tok in tokens[2:]:
            feat = _FEATURE.fullmatch(tok)
            if not feat or not feat.group(1):
                raise Refused(number)
            index = int(feat.group(1))
            if index > 2 ** 31 - 1 or index == 0 or index <= prev or index * data_lines > max_cells:
                raise Refused(number)
            value = feat.group(2)
            if value.upper() == b"NULL":
                values[index] = None
            elif _NUMBER.fullmatch(value):
                with np.errstate(over="ignore"):
                    v = np.float32(float(value))
                if not math.isfinite(float(value)) or not np.isfinite(v):
                    raise Refused(number)
                values[index] = v
            else:
                raise Refused(number)
            prev = index
        width = max(width, prev)
        if q in seen_qids and qids[-1] != q:
            raise Refused(number)
        seen_qids.setdefault(q, number)
        rows.append(values)
        labels.append(int(label.group(1)))
        qids.append(q)
        any_comment |= bool(hash_)
        comments.append(docid)
    docids = comments if any_comment else None
    X = np.zeros((len(rows), width), np.float32)
    for r, values in enumerate(rows):
        for index, v in values.items():
            if v is None:  # NULL: the query's minimum of the feature, 0 (absent) included
                same = [k for k in range(len(rows)) if qids[k] == qids[r]]
                known = [rows[k].get(index, np.float32(0)) for k in same]
                known = [v for v in known if v is not None]
                X[r, index - 1] = min(known) if known else 0
            else:
                X[r, index - 1] = v
    return X, np.array(labels, np.int32), np.array(qids, np.int64), docids


# ------------------------------------------------------------------------------- the cases

def _base_files(rng) -> list[bytes]:
    """Valid files: LETOR 4.0-like with docid comments, MSLR-like dense, LETOR 3.0 with NULLs."""
    letor4, mslr, letor3 = [], [], []
    for q in range(3):
        for i in range(int(rng.integers(2, 5))):
            vals = " ".join(f"{j}:{rng.random():.6f}" for j in range(1, 9))
            letor4.append(f"{rng.integers(0, 3)} qid:{10032 + q} {vals} #docid = GX{q:03d}-{i:02d} inc = 1 prob = 0.02")
            mslr.append(f"{rng.integers(0, 5)} qid:{q + 1} " + " ".join(f"{j}:{rng.integers(0, 90)}" for j in range(1, 7)))
            null = " ".join(f"{j}:{'NULL' if rng.random() < 0.2 else f'{rng.random():.4f}'}" for j in range(1, 6))
            letor3.append(f"{rng.integers(0, 2)} qid:{q} {null} #docid = {q}-{i}")
    return ["\n".join(letor4).encode() + b"\n", "\r\n".join(mslr).encode() + b"\r\n", "\n".join(letor3).encode()]


_BAD_TOKENS = {
    "label": [b"-1", b"1.5", b"2e0", b"x", b"3000000000", b"+2", b"2.0", b"-0", b"", b"0x1", b"\xff"],
    "qid": [b"qid:0", b"qid:-1", b"qid:x", b"qid:" + b"9" * 19, b"qid:", b"qid:+7", b"qi:1", b"qid:1:2"],
    "index": [b"0", b"2147483647", b"2147483648", b"99999999999", b"16777216", b"1", b"-1", b"", b"a", b"007"],
    "value": [b"nan", b"inf", b"-inf", b"1e-50", b"1e39", b"1e400", b"NULL", b"null", b"", b"1..2", b"1e",
              b"0x10", b"1_0", b"\xc3\xa9", b".5", b"5.", b"-0", b"4.9e-324", b"3.4028235e38", b"3.4028236e38"],
}


def _mutate(raw: bytes, rng) -> bytes:
    """One random mutation of ``raw``."""
    kind = int(rng.integers(0, 14))
    n = len(raw)
    if kind == 0 and n:  # truncation
        return raw[: int(rng.integers(0, n))]
    if kind == 1 and n:  # bit flips
        out = bytearray(raw)
        for _ in range(int(rng.integers(1, 4))):
            p = int(rng.integers(0, n))
            out[p] ^= 1 << int(rng.integers(0, 8))
        return bytes(out)
    if kind == 2 and n:  # insert or delete a byte
        p = int(rng.integers(0, n))
        if rng.random() < 0.5:
            return raw[:p] + raw[p + 1:]
        return raw[:p] + bytes([int(rng.choice(list(b" \t\n\r#:.-+0123456789qideE\x00\xff")))]) + raw[p:]
    lines = raw.split(b"\n")
    r = int(rng.integers(0, len(lines)))
    tokens = lines[r].split(b" ")
    if kind in (3, 4, 5, 6) and len(tokens) > 2:  # a token class replaced
        if kind == 3:
            tokens[0] = _BAD_TOKENS["label"][int(rng.integers(0, len(_BAD_TOKENS["label"])))]
        elif kind == 4:
            tokens[1] = _BAD_TOKENS["qid"][int(rng.integers(0, len(_BAD_TOKENS["qid"])))]
        else:
            t = int(rng.integers(2, len(tokens)))
            if b":" in tokens[t]:
                index, value = tokens[t].split(b":", 1)
                if kind == 5:
                    index = _BAD_TOKENS["index"][int(rng.integers(0, len(_BAD_TOKENS["index"])))]
                else:
                    value = _BAD_TOKENS["value"][int(rng.integers(0, len(_BAD_TOKENS["value"])))]
                tokens[t] = index + b":" + value
        lines[r] = b" ".join(tokens)
        return b"\n".join(lines)
    if kind == 7 and len(tokens) > 3:  # '#' before a feature token
        t = int(rng.integers(2, len(tokens)))
        tokens[t] = b"#" + tokens[t] if rng.random() < 0.5 else b"# " + tokens[t]
        lines[r] = b" ".join(tokens)
        return b"\n".join(lines)
    if kind == 8:  # line endings
        lf = raw.replace(b"\r\n", b"\n")
        return [lf.replace(b"\n", b"\r"), lf.replace(b"\n", b"\r\n"),
                b"".join(line + (b"\r", b"\n", b"\r\n")[i % 3] for i, line in enumerate(lf.split(b"\n")))][int(rng.integers(0, 3))]
    if kind == 9:  # encodings
        text = raw.decode("utf-8", errors="replace")
        return [text.encode("utf-16"), text.replace("GX", "G\u00e9").encode("latin-1", errors="replace"),
                b"\xef\xbb\xbf" + raw][int(rng.integers(0, 3))]
    if kind == 10:  # empty and one-byte files
        return [b"", bytes([int(rng.integers(0, 256))])][int(rng.integers(0, 2))]
    if kind == 11:  # a line repeated (a duplicate row) or moved away from its query
        line = lines[r]
        p = int(rng.integers(0, len(lines) + 1))
        return b"\n".join(lines[:p] + [line] + lines[p:])
    if kind == 12:  # a huge feature id appended to a line
        lines[r] = lines[r].split(b"#")[0].rstrip() + b" " + str(int(rng.choice([2 ** 31 - 1, 10 ** 8, 2 ** 24]))).encode() + b":1"
        return b"\n".join(lines)
    return raw + raw[: int(rng.integers(0, n + 1))] if n else raw  # kind 13: a torn append


def cases(n: int, seed: int):
    """``n`` malformed or odd inputs, reproducible from ``seed``: (name, bytes)."""
    rng = np.random.default_rng(seed)
    bases = _base_files(rng)
    for i in range(n):
        raw = bases[i % len(bases)]
        for _ in range(int(rng.integers(1, 4))):
            raw = _mutate(raw, rng)
        yield f"case{i}", raw


def run(inputs: list, folder: Path, dense_floor: int) -> dict:
    """Read every case of ``inputs`` ((name, bytes) of ``cases``) with ``read_letor`` and
    ``reference_read`` (with ``dense_floor``); the disagreements."""
    from ltrfs import io
    from ltrfs.ranking_data import DataError

    path = folder / "case.txt"
    failures, refused, accepted = [], 0, 0
    for name, raw in inputs:
        path.write_bytes(raw)
        try:
            want = reference_read(raw, dense_floor, io.DENSE_PER_BYTE)
        except Refused as exc:
            want = exc
        try:
            got = io.read_letor(path)
        except DataError as exc:
            got = exc
        except BaseException as exc:  # noqa: BLE001 - every other exception is a failure
            failures.append({"case": name, "raw": raw[:300].decode("latin-1"),
                             "problem": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        if isinstance(got, DataError) or isinstance(want, Refused):
            if not (isinstance(got, DataError) and isinstance(want, Refused)):
                failures.append({"case": name, "raw": raw[:300].decode("latin-1"),
                                 "problem": f"reader: {got if isinstance(got, DataError) else 'accepted'}; "
                                            f"policy: {'refused at line %s' % want.line if isinstance(want, Refused) else 'accepted'}"})
            elif "\n" in str(got) or (want.line is not None and f":{want.line}: " not in str(got)):
                failures.append({"case": name, "raw": raw[:300].decode("latin-1"),
                                 "problem": f"message {str(got)!r} should name line {want.line}"})
            refused += 1
            continue
        X, y, qids, docids = want
        same = (got.X.shape == X.shape and got.X.tobytes() == X.tobytes() and np.array_equal(got.y, y)
                and np.array_equal(got.qid, qids)
                and ((got.docids is None and docids is None) or (got.docids is not None and docids is not None
                                                                  and got.docids.tolist() == docids)))
        if not same:
            failures.append({"case": name, "raw": raw[:300].decode("latin-1"), "problem": "different arrays"})
        accepted += 1
    return {"cases": len(inputs), "refused": refused, "accepted": accepted, "failures": failures}


def main() -> None:
    import resource

    from ltrfs import io

    n, seed = int(sys.argv[1]), int(sys.argv[2])
    floor = io.DENSE_FLOOR
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.txt"
        warm.write_bytes(b"1 qid:1 1:0.5 2:NULL #d\n0 qid:1 1:1e-3 2:1\n")
        io.read_letor(warm)  # compile (or load) the scanner before the cap
        inputs = list(cases(n, seed))
        largest = max(len(raw) for _, raw in inputs)
        with open("/proc/self/status") as fh:
            vm = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        cap = vm + max(floor, io.DENSE_PER_BYTE * largest) + 256 * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        if sys.argv[3:] == ["unbounded"]:  # the harness's own check: a reader without the bound
            io.reader.DENSE_FLOOR = 2 ** 40  # the module read_letor reads it from
        summary = run(inputs, Path(tmp), floor)
    summary["address_space_cap_mib"] = round(cap / 2 ** 20)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

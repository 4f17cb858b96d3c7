"""The LETOR reader against malformed input (tests/io/reader_fuzz.py): no exception but DataError,
the documented policy's verdict on every file (refused at its first bad line, or read to the
same arrays as a plain-Python reading of the policy), and memory within the reader's bound.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from reader_fuzz import Refused, cases, reference_read  # noqa: E402


def fuzz(n: int, seed: int, *flags) -> dict:
    """Run the fuzzer in its own process under its address-space cap; its JSON summary."""
    out = subprocess.run([sys.executable, str(HERE / "reader_fuzz.py"), str(n), str(seed), *flags],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def assert_no_failures(summary: dict, n: int) -> None:
    assert summary["cases"] == n and summary["refused"] + summary["accepted"] + len(summary["failures"]) == n
    # both verdicts occur often: the mutations make bad files and odd but valid ones
    assert summary["refused"] > 0.5 * n and summary["accepted"] > 0.1 * n
    assert summary["failures"] == [], json.dumps(summary["failures"][:5], indent=1)


def test_fuzz_sample_of_1000_cases():
    assert_no_failures(fuzz(1000, 20261126), 1000)


@pytest.mark.slow
def test_fuzz_10000_cases():
    assert_no_failures(fuzz(10_000, 7), 10_000)


def test_fuzz_harness_catches_a_reader_without_the_memory_bound():
    summary = fuzz(300, 11, "unbounded")
    problems = [f["problem"] for f in summary["failures"]]
    assert any(p.startswith("MemoryError") for p in problems), problems


def test_the_cases_cover_every_mutation_class():
    raws = [raw for _, raw in cases(1000, 20261126)]
    assert any(raw == b"" for raw in raws) and any(len(raw) == 1 for raw in raws)
    assert any(b"\r" in raw and b"\r\n" not in raw for raw in raws)        # bare CR
    assert any(raw.startswith(b"\xff\xfe") for raw in raws)               # UTF-16
    assert any(b"#2:" in raw or b"# 3:" in raw for raw in raws)           # '#' before a feature
    assert any(b"2147483647:" in raw for raw in raws)                     # huge feature id
    assert any(b"qid:-1" in raw for raw in raws) and any(raw.startswith(b"-1 ") or b"\n-1 " in raw for raw in raws)


@pytest.mark.parametrize("text,line", [("1 qid:1 1:1\n-1 qid:1 1:1\n", 2), ("0 qid:1 1:0.1 #2:0.2\n", 1),
                                       ("1 qid:1 1:1\r1 qid:1 2147483647:1\r", 2), ("0 qid:1 1:1 2:1\n", None)])
def test_reference_policy_by_hand(text, line):
    if line is None:
        X, y, qids, docids = reference_read(text.encode(), 64 * 2 ** 20, 16)
        assert X.tolist() == [[1.0, 1.0]] and y.tolist() == [0] and qids.tolist() == [1] and docids is None
    else:
        with pytest.raises(Refused) as info:
            reference_read(text.encode(), 64 * 2 ** 20, 16)
        assert info.value.line == line


def test_cli_on_malformed_files_gives_one_line_errors(tmp_path):
    """Through ``ltrfs eval``: a refused file exits 2 with one line naming the file and line,
    no traceback; an accepted one exits 0."""
    picked, want = [], {"refused": 8, "accepted": 2}
    for name, raw in cases(400, 5):
        try:
            rows = len(reference_read(raw, 64 * 2 ** 20, 16)[1])
            verdict = "accepted"
        except Refused:
            rows, verdict = 1, "refused"
        if want[verdict]:
            want[verdict] -= 1
            picked.append((name, raw, verdict, rows))
    assert len(picked) == 10
    for name, raw, verdict, rows in picked:
        data = tmp_path / f"{name}.txt"
        data.write_bytes(raw)
        scores = tmp_path / "scores.txt"
        scores.write_text("0\n" * rows)
        out = subprocess.run([sys.executable, "-m", "ltrfs", "eval", "--convention", "standard", str(data), str(scores)],
                             capture_output=True, text=True)
        assert "Traceback" not in out.stderr, out.stderr
        if verdict == "refused":
            assert out.returncode == 2 and out.stderr.startswith(f"ltrfs: error: {data}"), out.stderr
            assert out.stderr.count("\n") == 1, out.stderr
        else:
            assert out.returncode == 0 and "NDCG@10" in out.stdout, out.stderr

"""bench/bench_install.py's parts that need no network: a folder's size, a failed step's one line."""
from __future__ import annotations

import sys

import pytest

from conftest import bench_script


def test_folder_mb_counts_the_files_once_and_not_links(tmp_path):
    bench = bench_script("bench_install")
    (tmp_path / "a").write_bytes(b"x" * 2**20)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"x" * 2**19)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert bench.folder_mb(tmp_path) == pytest.approx(1.5)


def test_a_failed_install_step_stops_with_its_command_and_output(tmp_path):
    bench = bench_script("bench_install")
    with pytest.raises(SystemExit, match=r"bench_install: .* failed: .*no such thing"):
        bench.timed([sys.executable, "-c", "import sys; sys.exit('no such thing')"])
    assert bench.timed([sys.executable, "-c", "pass"]) > 0

"""bench/report_screenshot.py builds the report in a temporary folder, outside the repository and the run folder.

Snakemake and Chromium are replaced by fakes that write what the real ones write (the report,
the screenshot, the clicked page's DOM), so the test runs without a finished run or a browser."""
import types
from pathlib import Path

import pytest

from conftest import bench_script

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def script():
    return bench_script("report_screenshot")


def _fakes(calls: list, report_dirs: list):
    def run(cmd, **kwargs):
        calls.append(cmd)
        if "--report" in cmd:
            report = Path(cmd[cmd.index("--report") + 1])
            report_dirs.append(report.parent)
            report.write_text("<html><body><p>report</p></body></html>")
            return types.SimpleNamespace(returncode=0, stderr="", stdout="")
        shot = [a for a in cmd if a.startswith("--screenshot=")]
        if shot:
            Path(shot[0].split("=", 1)[1]).write_bytes(b"\x89PNG fake")
        return types.SimpleNamespace(returncode=0, stdout='<body data-clicked="9">', stderr="")  # every click made
    return run


@pytest.mark.parametrize("view", [[], ["demo", "Tables"]])
def test_the_report_is_built_in_a_temporary_folder_and_the_repository_is_unchanged(script, monkeypatch, tmp_path,
                                                                                 view):
    calls, report_dirs = [], []
    monkeypatch.setattr(script.subprocess, "run", _fakes(calls, report_dirs))
    monkeypatch.setattr(script, "chromium", lambda: "chromium")
    out = tmp_path / "shot.png"
    script.main(["--workdir", str(tmp_path), "--out", str(out), *(["--view", *view] if view else [])])
    assert out.read_bytes() == b"\x89PNG fake"
    (folder,) = report_dirs
    assert REPO not in folder.parents and folder != REPO and tmp_path not in folder.parents
    assert not folder.exists()  # the temporary folder is gone with its report
    shot = calls[-1]
    assert shot[-1].endswith("report_view.html" if view else "report.html")
    assert any(a.startswith("--user-data-dir=") and str(folder) in a for a in shot)
    assert not (REPO / "report_view.html").exists() and not (tmp_path / "report.html").exists()


def test_report_dir_keeps_the_report_and_its_clicking_copy(script, monkeypatch, tmp_path):
    monkeypatch.setattr(script.subprocess, "run", _fakes([], []))
    monkeypatch.setattr(script, "chromium", lambda: "chromium")
    keep = tmp_path / "kept"
    script.main(["--workdir", str(tmp_path), "--out", str(tmp_path / "s.png"), "--report-dir", str(keep),
                 "--view", "Leaderboard"])
    assert sorted(p.name for p in keep.iterdir()) == ["report.html", "report_view.html"]
    assert '["Leaderboard"]' in (keep / "report_view.html").read_text()


def test_without_chromium_it_names_the_package_and_installs_nothing(script, monkeypatch):
    monkeypatch.setattr(script.shutil, "which", lambda name: None)
    ran = []
    monkeypatch.setattr(script.subprocess, "run", lambda *a, **k: ran.append(a))
    with pytest.raises(SystemExit) as info:
        script.chromium()
    assert "apt-get install chromium" in str(info.value) and ran == []

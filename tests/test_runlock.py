"""Who holds the working directory's lock (ltrfs.runlock): only a dead holder's lock goes."""
import json
import os
import socket
import subprocess
import sys

from ltrfs import runlock


def locked(state, holder):
    (state / "locks").mkdir(parents=True, exist_ok=True)
    (state / "locks" / "0.input.lock").write_text("a\n")
    (state / "locks" / "0.output.lock").write_text("b\n")
    if holder is not None:
        (state / runlock.OWNER).write_text(holder if isinstance(holder, str) else json.dumps(holder))


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_claim_and_release(tmp_path):
    runlock.claim(tmp_path)
    holder = json.loads((tmp_path / runlock.OWNER).read_text())
    assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
    assert runlock.release_stale(tmp_path) is None  # no lock files: nothing to do
    runlock.release(tmp_path)
    assert not (tmp_path / runlock.OWNER).exists()


def test_dead_holder_of_this_host_loses_its_lock(tmp_path):
    pid = dead_pid()
    locked(tmp_path, {"host": socket.gethostname(), "pid": pid, "started": "2026-11-26 04:00:00"})
    message = runlock.release_stale(tmp_path)
    assert message == (f"ltrfs: removed the lock of the run started 2026-11-26 04:00:00 (process {pid} on "
                       f"{socket.gethostname()}), which is no longer running; the jobs it left unfinished are run again")
    assert not list((tmp_path / "locks").iterdir()) and not (tmp_path / runlock.OWNER).exists()


def test_other_host_unknown_or_unreadable_holder_keeps_the_lock(tmp_path):
    for holder in ({"host": "another-node", "pid": dead_pid()}, None, "{not json", {"host": socket.gethostname()}):
        locked(tmp_path, holder)
        assert runlock.release_stale(tmp_path) is None
        assert len(list((tmp_path / "locks").glob("*.lock"))) == 2


def test_a_process_that_is_not_snakemake_does_not_hold_a_lock(tmp_path):
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not runlock.running_snakemake(other.pid)
        locked(tmp_path, {"host": socket.gethostname(), "pid": other.pid})
        assert runlock.release_stale(tmp_path) is not None  # a reused process id
    finally:
        other.kill()
        other.wait()

"""Resume after a crash without ``--unlock``: who holds the working directory's Snakemake lock.

Snakemake locks the working directory for a run (``.snakemake/locks/``) and removes the lock
when the run ends; a run that is killed (``kill -9``, a power cut, a login node reboot) leaves
the lock behind, and every later run stops with a LockException until ``--unlock``. The
workflow records who holds the lock (``claim``, on start: host, process id, start time) and,
when it is parsed again, removes a lock whose holder is gone (``release_stale``): a lock left by
a process of this host that no longer runs Snakemake. A lock of a live run, or of a run on
another host (which cannot be checked from here), stays, and Snakemake refuses as before.
Snakemake's ``--rerun-incomplete`` (in ``profiles/default``) then reruns the jobs the crash cut
short.
"""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

OWNER = "ltrfs_lock_owner.json"


def claim(state: Path = Path(".snakemake")) -> None:
    """Record this process as the holder of the lock in ``state`` (Snakemake's folder)."""
    state.mkdir(parents=True, exist_ok=True)
    tmp = state / f".{OWNER}.{os.getpid()}"
    tmp.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                               "started": time.strftime("%Y-%m-%d %H:%M:%S")}))
    os.replace(tmp, state / OWNER)


def release(state: Path = Path(".snakemake")) -> None:
    """Forget the holder (the run ended; Snakemake removes its lock itself)."""
    owner = state / OWNER
    try:
        if json.loads(owner.read_text()).get("pid") == os.getpid():
            owner.unlink()
    except (OSError, ValueError):
        pass


def running_snakemake(pid: int) -> bool:
    """Whether process ``pid`` of this host exists and runs Snakemake (on a system without
    /proc: whether it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: not ours to judge
    try:
        return b"snakemake" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()
    except OSError:
        return True


def release_stale(state: Path = Path(".snakemake")) -> str | None:
    """Remove the lock files in ``state``/locks when their holder (``claim``) was a process of
    this host that no longer runs Snakemake; the message to show, or None when nothing was
    removed."""
    locks = sorted((state / "locks").glob("*.lock"))
    owner = state / OWNER
    if not locks or not owner.exists():
        return None
    try:
        holder = json.loads(owner.read_text())
        host, pid = holder["host"], int(holder["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if host != socket.gethostname() or pid == os.getpid() or running_snakemake(pid):
        return None
    for lock in locks:
        lock.unlink(missing_ok=True)
    owner.unlink(missing_ok=True)
    return (f"ltrfs: removed the lock of the run started {holder.get('started', '?')} (process {pid} on {host}), "
            "which is no longer running; the jobs it left unfinished are run again")

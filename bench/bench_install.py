"""What the neural extra costs to install and import, against the base install it sits on.

    python bench/bench_install.py [--keep DIR]

In a new virtual environment (a temporary folder, or ``--keep DIR``): ``pip install -r
envs/requirements.lock`` (the base: the README's commands), then ``pip install -r
envs/neural.lock`` (the extra, one retry for an index the machine cannot reach), each timed
end to end, with the size of the environment's folder after each. Then the imports, the median
of 3 fresh interpreters each: ``import numpy`` (the reference), ``import torch`` and the three
packages of the extra (``torch, pytorch_tabnet, lassonet``). The extra's figures are printed as
ratios to the base's (install time and size) and to numpy's import. pip's cache and the
machine's wheel folders count as they are: say which in a report (an empty cache and a remote
index download the 192 MB PyTorch wheel besides).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORTS = {"numpy (reference)": "numpy", "torch": "torch", "the extra": "torch, pytorch_tabnet, lassonet"}


def folder_mb(path: Path) -> float:
    """Megabytes of the files under ``path`` (apparent sizes)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def timed(command: list[str]) -> float:
    """Seconds ``command`` took; a failure stops the bench with its command and output's tail."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        sys.exit(f"bench_install: {' '.join(command)} failed: {' | '.join(tail)}")
    return time.perf_counter() - start


def import_seconds(python: Path, modules: str, repeats: int = 3) -> float:
    """Median seconds of ``import modules`` in a fresh interpreter of the environment."""
    code = f"import time; s = time.perf_counter(); import {modules}; print(time.perf_counter() - s)"
    return statistics.median(float(subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                                                  check=True).stdout) for _ in range(repeats))


def main(argv=None) -> None:
    """Build the environment, time both installs and the imports, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build the environment here and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ltrfs-install-") as tmp:
        env = args.keep or Path(tmp) / "venv"
        venv.create(env, with_pip=True)
        python = env / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        empty = folder_mb(env)
        base_s = timed(pip + ["-r", str(ROOT / "envs/requirements.lock")])
        base_mb = folder_mb(env) - empty
        extra_s = timed(pip + ["--retries", "1", "-r", str(ROOT / "envs/neural.lock")])
        extra_mb = folder_mb(env) - empty - base_mb
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; pip's cache and wheel folders as configured")
        print(f"base install (envs/requirements.lock): {base_s:6.1f} s, {base_mb:7.0f} MB")
        print(f"neural extra (envs/neural.lock):       {extra_s:6.1f} s, {extra_mb:7.0f} MB "
              f"({extra_s / base_s:.2f}x the base's time, {extra_mb / base_mb:.2f}x its size)")
        reference = None
        for name, modules in IMPORTS.items():
            seconds = import_seconds(python, modules)
            reference = reference or seconds
            print(f"import {name:22s} {seconds:6.2f} s ({seconds / reference:5.1f}x numpy's)")


if __name__ == "__main__":
    main()

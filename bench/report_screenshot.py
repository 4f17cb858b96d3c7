"""A screenshot of the Snakemake HTML report of a finished run, as a user's browser shows it.

Builds ``report.html`` in the run folder (``snakemake --report``, with the run's config
files) and takes a headless Chromium screenshot of its first page. Chromium comes from the
Debian package ``chromium``, installed here with apt-get when it is missing (root on Debian;
otherwise the script says what to install and stops).

Run: ``python bench/report_screenshot.py [--workdir .] [--configfile ...] [--out docs/figures/report.png]``
after ``snakemake --cores 2`` (the default run) in the same folder.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def chromium() -> str:
    """The Chromium executable, installed with apt-get if needed."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit("report_screenshot: no Chromium; install the Debian package 'chromium' (apt-get install chromium)")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, stdout=subprocess.DEVNULL)
    return shutil.which("chromium")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("."))
    parser.add_argument("--configfile", nargs="*", default=[], help="the run's --configfile arguments")
    parser.add_argument("--out", type=Path, default=REPO / "docs/figures/report.png")
    parser.add_argument("--size", default="1400,900", help="window width,height in pixels")
    args = parser.parse_args()
    workdir = args.workdir.resolve()
    report = workdir / "report.html"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--report", str(report)]
    if args.configfile:
        cmd += ["--configfile", *[str(Path(c).resolve()) for c in args.configfile]]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--window-size={args.size}", f"--screenshot={args.out.resolve()}", report.as_uri()],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"{report} ({report.stat().st_size / 1e6:.1f} MB) -> {args.out} ({args.out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()

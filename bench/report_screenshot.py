"""A screenshot of the Snakemake HTML report of a finished run, as a user's browser shows it.

Builds ``report.html`` in the run folder (``snakemake --report``, with the run's config
files) and takes a headless Chromium screenshot of its first page or, with ``--view``, of the
page a user reaches by clicking the given texts in turn (a category, a subcategory, then a
result's row, whose eye button opens it): the report has no addresses for its pages, so the
clicks are made by a small script added to a copy of the report. Chromium comes from the
Debian package ``chromium``, installed here with apt-get when it is missing (root on Debian;
otherwise the script says what to install and stops).

Run after ``snakemake --cores 2`` (the default run) in the same folder:
``python bench/report_screenshot.py [--workdir .] [--configfile ...] [--out docs/figures/report.png]``
and, for the table view in docs/outputs.md,
``python bench/report_screenshot.py --view demo Tables synthetic --out docs/figures/report_table.png``
(the two screenshots of docs/outputs.md, section 'The report': ``--view Leaderboard "leaderboard (tables)"`` and this one).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Clicks the visible element whose whole text is each of CLICKS in turn; a table cell (a
# result's row) is opened with the row's eye button. The body's data-clicked attribute counts
# the clicks made.
CLICKER = """<script>
window.addEventListener("load", () => {
  const clicks = CLICKS;
  let i = 0;
  function step() {
    if (i >= clicks.length) return;
    const el = [...document.querySelectorAll("a, button, li, span, div, td")].reverse()
      .find(e => e.textContent.trim() === clicks[i] && e.offsetParent !== null);
    if (el) {
      const eye = el.tagName === "TD" ? el.closest("tr").querySelector('a[iconname="eye"]') : null;
      (eye || el).click();
      i++;
      document.body.dataset.clicked = i;
    }
    setTimeout(step, 300);
  }
  setTimeout(step, 500);
});
</script>
"""


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
    parser.add_argument("--view", nargs="*", default=[], metavar="TEXT",
                        help="texts to click in turn before the screenshot, e.g. demo Tables synthetic")
    args = parser.parse_args()
    workdir = args.workdir.resolve()
    report = workdir / "report.html"
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--report", str(report)]
    if args.configfile:
        cmd += ["--configfile", *[str(Path(c).resolve()) for c in args.configfile]]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode:
        sys.exit(f"report_screenshot: snakemake --report failed:\n{built.stderr}")
    page = report
    if args.view:  # the script goes after the report's own closing tag (earlier ones sit in its scripts)
        head, tail = report.read_text().rsplit("</body>", 1)
        page = workdir / "report_view.html"
        page.write_text(head + CLICKER.replace("CLICKS", json.dumps(args.view)) + "</body>" + tail)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    browser = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--virtual-time-budget=8000", f"--window-size={args.size}"]
    if args.view:
        dom = subprocess.run([*browser, "--dump-dom", page.as_uri()], check=True, capture_output=True, text=True).stdout
        done = re.search(r'data-clicked="(\d+)"', dom)
        clicked = int(done.group(1)) if done else 0
        if clicked < len(args.view):
            sys.exit(f"report_screenshot: no visible {args.view[clicked]!r} to click in the report "
                     f"(after {args.view[:clicked]})")
    subprocess.run([*browser, f"--screenshot={args.out.resolve()}", page.as_uri()],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"{report} ({report.stat().st_size / 1e6:.1f} MB) -> {args.out} ({args.out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()

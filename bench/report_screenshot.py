"""A screenshot of the Snakemake HTML report of a finished run, as a user's browser shows it.

Builds the run's report (``snakemake --report``, with the run's config files) in a temporary
folder (``--report-dir`` keeps it in a folder of your choice), so that neither the repository
nor the run folder changes, and takes a headless Chromium screenshot of its first page or,
with ``--view``, of the page a user reaches by clicking the given texts in turn (a category, a
subcategory, then a result's row, whose eye button opens it): the report has no addresses for
its pages, so the clicks are made by a small script added to a copy of the report. Chromium comes from the
Debian package ``chromium`` (``apt-get install chromium``); where it is missing, the script says so
and stops, installing nothing itself.

Run after ``snakemake --cores 2`` (the default run) in the same folder:
``python bench/report_screenshot.py [--workdir .] [--configfile ...] [--out docs/figures/report.png] [--report-dir DIR]``
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
import tempfile
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
    """The Chromium executable; when there is none, exit naming the package to install (a tool
    a user runs says what is missing and installs nothing itself)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    sys.exit("report_screenshot: no Chromium on PATH (chromium, chromium-browser or google-chrome); on Debian: "
             "apt-get install chromium")


def build_report(workdir: Path, configfiles, report: Path) -> None:
    """``snakemake --report`` of the run in ``workdir``, written to ``report`` (outside the run
    folder and the repository, so that a screenshot changes neither)."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--report", str(report)]
    if configfiles:
        cmd += ["--configfile", *[str(Path(c).resolve()) for c in configfiles]]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode:
        sys.exit(f"report_screenshot: snakemake --report failed:\n{built.stderr}")


def screenshot(report: Path, out: Path, size: str, view, profile: Path) -> None:
    """A headless Chromium screenshot of ``report`` (after clicking the ``view`` texts in a copy
    of it beside it) into ``out``; Chromium keeps its profile in ``profile``."""
    page = report
    if view:  # the script goes after the report's own closing tag (earlier ones sit in its scripts)
        head, tail = report.read_text().rsplit("</body>", 1)
        page = report.with_name("report_view.html")
        page.write_text(head + CLICKER.replace("CLICKS", json.dumps(view)) + "</body>" + tail)
    out.parent.mkdir(parents=True, exist_ok=True)
    browser = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               f"--user-data-dir={profile}", "--virtual-time-budget=8000", f"--window-size={size}"]
    if view:
        dom = subprocess.run([*browser, "--dump-dom", page.as_uri()], check=True, capture_output=True, text=True).stdout
        done = re.search(r'data-clicked="(\d+)"', dom)
        clicked = int(done.group(1)) if done else 0
        if clicked < len(view):
            sys.exit(f"report_screenshot: no visible {view[clicked]!r} to click in the report (after {view[:clicked]})")
    subprocess.run([*browser, f"--screenshot={out.resolve()}", page.as_uri()],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv=None) -> None:
    """Build the report into a temporary folder (or ``--report-dir``) and take the screenshot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("."))
    parser.add_argument("--configfile", nargs="*", default=[], help="the run's --configfile arguments")
    parser.add_argument("--out", type=Path, default=REPO / "docs/figures/report.png")
    parser.add_argument("--size", default="1400,900", help="window width,height in pixels")
    parser.add_argument("--view", nargs="*", default=[], metavar="TEXT",
                        help="texts to click in turn before the screenshot, e.g. demo Tables synthetic")
    parser.add_argument("--report-dir", type=Path, default=None,
                        help="keep report.html (and report_view.html, the copy that clicks) in this folder; "
                             "default: a temporary folder, removed afterwards")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="report_screenshot_") as tmp:
        folder = args.report_dir.resolve() if args.report_dir else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        report = folder / "report.html"
        build_report(args.workdir.resolve(), args.configfile, report)
        screenshot(report, args.out, args.size, args.view, Path(tmp) / "chromium")
        print(f"{report} ({report.stat().st_size / 1e6:.1f} MB) -> {args.out} ({args.out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()

"""What a workflow job spends before its work: each job script's imports, and Snakemake's own
start of one job.

    python bench/bench_job_start.py [--repeats 5] [--scripts score select ...] [--no-snakemake]

For each script in ``workflow/scripts/`` its own top-level import lines (read with ``ast``) are
timed in a fresh interpreter, the median of ``--repeats`` runs: cold, with a fresh empty
``NUMBA_CACHE_DIR`` each run, and warm, the same folder again. Against the goals of issue 42
(score, select and train jobs 0.4 s; tables, figures, feature reports and the leaderboard
1.0 s, on an idle machine), and as a ratio to the reference measured in the same run: a bare
``python -c pass`` start. Then one trivial job through Snakemake's ``script:`` directive (a
temporary Snakefile of one rule whose script writes an empty file), end to end, minus the bare
start. For scale, ``import numpy, numba`` alone: what a job that runs a compiled kernel pays
anyway. A library a job imports on use (inside the function that needs it) is not counted:
the figure jobs load matplotlib and pandas when they draw. The jobs import this checkout's
``src/`` as the workflow's do (``PYTHONPATH``).
"""
from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "workflow" / "scripts"

#: the goal of a job's imports in seconds, by script (issue 42); scripts not named have none
GOALS = {**{s: 0.4 for s in ("score", "score_chunk", "select", "select_batch", "train", "train_batch", "reference",
                             "rescore")},
         **{s: 1.0 for s in ("tables", "published", "top_features", "report_data", "figure_metric_vs_k",
                             "figure_paper", "feature_report", "leaderboard")}}

#: what the timed interpreter runs: the imports between two clock readings, the seconds printed
_TIMED = "import time as _t\n_start = _t.perf_counter()\n{imports}\nprint(_t.perf_counter() - _start)\n"


def import_lines(script: Path) -> str:
    """The script's top-level ``import`` and ``from ... import`` statements, as source text."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    return "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))


def _env(numba_cache) -> dict:
    """The job's environment: this checkout's package first, the given Numba cache folder."""
    path = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, NUMBA_CACHE_DIR=str(numba_cache))


def _timed_imports(imports: str, numba_cache) -> float:
    """Seconds of ``imports`` in a fresh interpreter (as the interpreter itself measures them)."""
    out = subprocess.run([sys.executable, "-c", _TIMED.format(imports=imports)], env=_env(numba_cache),
                         check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure_script(script: Path, repeats: int = 5) -> dict:
    """The median seconds of a job script's imports, cold and warm Numba cache.

    Parameters
    ----------
    script : Path
        A file of ``workflow/scripts/``.
    repeats : int, default 5
        Runs of each; each cold run gets a fresh empty cache folder, its warm run the same folder.

    Returns
    -------
    dict
        ``script`` (the name), ``imports`` (the lines timed), ``cold`` and ``warm`` (seconds, the
        medians), ``goal`` (seconds or None) and ``runs`` (the cold and warm seconds of each run).
    """
    imports = import_lines(script)
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            runs.append((_timed_imports(imports, cache), _timed_imports(imports, cache)))
    return {"script": script.stem, "imports": imports, "cold": statistics.median(c for c, _ in runs),
            "warm": statistics.median(w for _, w in runs), "goal": GOALS.get(script.stem), "runs": runs}


def numba_floor(repeats: int = 5) -> float:
    """Median seconds of ``import numpy, numba`` alone (warm cache): what any job that runs a
    compiled kernel pays, for scale."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        return statistics.median(_timed_imports("import numpy, numba", cache) for _ in range(repeats))


def bare_start(repeats: int = 5) -> float:
    """The reference: median seconds of a bare ``python -c pass``, end to end."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_SNAKEFILE = """rule trivial:
    output:
        "out.txt",
    script:
        "noop.py"
"""


def snakemake_job(repeats: int = 5) -> float:
    """Median seconds of ``snakemake --cores 1`` running one trivial ``script:`` job, end to end."""
    venv_bin = str(Path(sys.executable).parent)  # the job's python is the one on PATH
    env = dict(os.environ, PATH=os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="job-start-") as folder:
            Path(folder, "Snakefile").write_text(_SNAKEFILE)
            Path(folder, "noop.py").write_text("open(snakemake.output[0], 'w').close()\n")
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "-q", "-d", folder,
                            "-s", str(Path(folder, "Snakefile"))], env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scripts", nargs="*", help="script names (default: every script)")
    parser.add_argument("--no-snakemake", action="store_true", help="skip the trivial Snakemake job")
    args = parser.parse_args()
    scripts = sorted(SCRIPTS.glob("*.py"))
    if args.scripts:
        scripts = [s for s in scripts if s.stem in args.scripts]
    bare = bare_start(args.repeats)
    print(f"reference: a bare `python -c pass` start, median of {args.repeats}: {bare:.3f} s")
    print(f"for scale: `import numpy, numba` alone, median of {args.repeats}: {numba_floor(args.repeats):.3f} s")
    print(f"\n{'script':20s} {'cold s':>7s} {'warm s':>7s} {'goal':>5s} {'ok?':>4s} {'warm/bare':>9s}")
    for script in scripts:
        r = measure_script(script, args.repeats)
        ok = "-" if r["goal"] is None else ("yes" if max(r["cold"], r["warm"]) <= r["goal"] else "no")
        goal = "-" if r["goal"] is None else f"{r['goal']:.1f}"
        print(f"{r['script']:20s} {r['cold']:7.3f} {r['warm']:7.3f} {goal:>5s} {ok:>4s} {r['warm'] / bare:8.1f}x",
              flush=True)
    if not args.no_snakemake:
        job = snakemake_job(args.repeats)
        print(f"\none trivial job through Snakemake's script: directive, end to end: {job:.2f} s; "
              f"minus the bare start: {job - bare:.2f} s ({(job - bare) / bare:.1f}x the bare start)")


if __name__ == "__main__":
    main()

"""Benchmark: FenchelRank (l1-ball path) and sparse RankSVM (lambda path: l1, log) on the
pair-free pairwise squared hinge (``ltrfs.rankers.sparse_pairwise``).

For each data set, the selectors' path (20 points, min_ratio 1e-3, the defaults) is timed from
the min-max scaled training split on (the vali choice costs one matrix-vector product per point
and is not timed), and so is a plain reference measured in the same run: scipy's L-BFGS-B on the
same l1 problem at one lambda (0.05 lambda_max, split variables w = u - v, u, v >= 0, the same
pair-free loss oracle, default tolerances). The ratio path / reference says how many
"plain generic solves" one path costs.

(1) MQ2008 Fold 1 train (skipped with a message when the archive is absent).
(2) A generated set of 700 features and about 35k rows (``ltrfs.datasets.synthetic.make``:
    350 queries of ~100 documents, 40 informative, 60 redundant, 600 noise features).

Usage: python bench/bench_sparse_rankers.py [path/to/MQ2008.zip] [--no-scale]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from ltrfs.io import read_letor
from ltrfs.rankers.sparse_pairwise import (l1_ball_path, lambda_max, path_grid, penalty_path, scaled_loss,
                                           unconstrained_radius)

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
SCALE = {"n_queries": 350, "docs_median": 100, "docs_sigma": 0.2, "docs_max": 300, "n_informative": 40,
         "n_redundant": 60, "n_noise": 600, "n_levels": 3, "seed": 0}


def reference_seconds(loss, lam: float) -> tuple[float, float, int]:
    """scipy L-BFGS-B on f(u - v) + lam sum(u + v), u, v >= 0: (seconds, objective, oracle calls)."""
    d = loss.d

    def fun(z):
        f, g = loss(z[:d] - z[d:])
        return f + lam * z.sum(), np.r_[g + lam, -g + lam]

    start = time.perf_counter()
    res = minimize(fun, np.zeros(2 * d), jac=True, method="L-BFGS-B", bounds=[(0, None)] * (2 * d))
    return time.perf_counter() - start, float(res.fun), int(res.nfev)


def run(label: str, X, y, query_ptr) -> None:
    print(f"{label}: {X.shape[0]} rows x {X.shape[1]} features, {len(query_ptr) - 1} queries")
    loss, _, _ = scaled_loss(X, y, query_ptr)
    loss(np.zeros(loss.d))  # load the compiled kernels before anything is timed
    top = lambda_max(loss)
    ref_s, ref_obj, ref_calls = reference_seconds(loss, 0.05 * top)
    print(f"  reference: scipy L-BFGS-B, l1 at 0.05 lambda_max: {ref_s:.2f} s, {ref_calls} oracle calls, "
          f"objective {ref_obj:.6f}")
    rows = []
    start = time.perf_counter()
    calls = loss.n_evals
    r_max, _ = unconstrained_radius(loss)
    points = l1_ball_path(loss, path_grid(r_max, 20, 1e-3, increasing=True))
    rows.append(("fenchelrank", time.perf_counter() - start, loss.n_evals - calls, points))
    for penalty in ("l1", "log"):
        start, calls = time.perf_counter(), loss.n_evals
        points = penalty_path(loss, path_grid(top, 20, 1e-3), penalty)
        rows.append((f"sparse_ranksvm {penalty}", time.perf_counter() - start, loss.n_evals - calls, points))
    for name, seconds, calls, points in rows:
        print(f"  {name:<20} path of 20: {seconds:7.2f} s ({seconds / 20:.3f} s per point), {calls} oracle calls, "
              f"ratio to the reference {seconds / ref_s:5.1f}; non-zero weights along the path "
              f"{[int(np.count_nonzero(p.w)) for p in points][::4]}")


def mq2008(archive: Path) -> None:
    if not archive.exists():
        print(f"(1) skipped: {archive} is absent")
        return
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(archive) as z:
        member = next(n for n in z.namelist() if n.endswith("Fold1/train.txt"))
        path = z.extract(member, tmp)
        tr = read_letor(path)
    run("(1) MQ2008 Fold1 train", tr.X, tr.y, tr.query_ptr)


def generated() -> None:
    from ltrfs.datasets.synthetic import make

    data, _ = make(**SCALE)
    run("(2) generated", data.X, data.y, data.query_ptr)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", type=Path, default=DEFAULT_ZIP)
    parser.add_argument("--no-scale", action="store_true", help="skip the 700-feature generated set")
    args = parser.parse_args(argv)
    mq2008(args.archive)
    if not args.no_scale:
        generated()
    return 0


if __name__ == "__main__":
    sys.exit(main())

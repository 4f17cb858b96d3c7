"""Benchmark: FenchelRank (l1-ball path) and sparse RankSVM (lambda path: l1, log) on the
pair-free pairwise squared hinge (``ltrfs.rankers.sparse_pairwise``).

For each data set, the selectors' path (20 points, min_ratio 1e-3, the defaults) is timed from
the min-max scaled training split on (the vali choice costs one matrix-vector product per point
and is not timed), and so is a plain reference measured in the same run: scipy's L-BFGS-B along
the same 20-point l1 path (split variables w = u - v, u, v >= 0, the same pair-free loss oracle,
default tolerances, warm started). The ratio path / reference compares our proximal solvers with
a generic bound-constrained quasi-Newton method on the same oracle (FenchelRank's radii and the
log penalty solve other problems on the same data, so their ratios compare cost, not results).

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
from ltrfs.rankers.sparse_pairwise import (
    l1_ball_path,
    lambda_max,
    path_grid,
    penalty_path,
    scaled_loss,
    unconstrained_radius,
)

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
SCALE = {"n_queries": 350, "docs_median": 100, "docs_sigma": 0.2, "docs_max": 300, "n_informative": 40,
         "n_redundant": 60, "n_noise": 600, "n_levels": 3, "seed": 0}


def reference_path(loss, lambdas) -> tuple[float, list, int]:
    """scipy L-BFGS-B along the l1 path: min f(u - v) + lam sum(u + v), u, v >= 0, each lambda
    warm started from the previous solution: (seconds, weights per point, oracle calls)."""
    d = loss.d
    z, weights, calls = np.zeros(2 * d), [], loss.n_evals
    start = time.perf_counter()
    for lam in lambdas:
        def fun(x, lam=lam):
            f, g = loss(x[:d] - x[d:])
            return f + lam * x.sum(), np.r_[g + lam, -g + lam]

        z = minimize(fun, z, jac=True, method="L-BFGS-B", bounds=[(0, None)] * (2 * d)).x
        weights.append(z[:d] - z[d:])
    return time.perf_counter() - start, weights, loss.n_evals - calls


def run(label: str, X, y, query_ptr) -> None:
    print(f"{label}: {X.shape[0]} rows x {X.shape[1]} features, {len(query_ptr) - 1} queries")
    loss, _, _ = scaled_loss(X, y, query_ptr)
    loss(np.zeros(loss.d))  # load the compiled kernels before anything is timed
    top = lambda_max(loss)
    lambdas = path_grid(top, 20, 1e-3)
    ref_s, ref_w, ref_calls = reference_path(loss, lambdas)
    print(f"  reference: scipy L-BFGS-B along the 20-point l1 path: {ref_s:.2f} s, {ref_calls} oracle calls; "
          f"non-zero weights {[int(np.count_nonzero(w)) for w in ref_w][::4]}")
    rows = []
    start, calls = time.perf_counter(), loss.n_evals
    r_max, _ = unconstrained_radius(loss)
    points = l1_ball_path(loss, path_grid(r_max, 20, 1e-3, increasing=True))
    rows.append(("fenchelrank", time.perf_counter() - start, loss.n_evals - calls, points))
    for penalty in ("l1", "log"):
        start, calls = time.perf_counter(), loss.n_evals
        points = penalty_path(loss, lambdas, penalty)
        rows.append((f"sparse_ranksvm {penalty}", time.perf_counter() - start, loss.n_evals - calls, points))
    for name, seconds, calls, points in rows:
        print(f"  {name:<20} path of 20: {seconds:7.2f} s ({seconds / 20:.3f} s per point), {calls} oracle calls, "
              f"ratio to the reference {seconds / ref_s:5.2f}; non-zero weights "
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

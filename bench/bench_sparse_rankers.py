"""Benchmark: FenchelRank (l1-ball path) and sparse RankSVM (lambda path: l1, log) on the
pair-free pairwise squared hinge (``ltrfs.rankers.sparse_pairwise``): time, and how well the
paths are solved.

For each data set, the selectors' path (20 points, min_ratio 1e-3, the defaults) is timed from
the min-max scaled training split on (the vali choice costs one matrix-vector product per point
and is not timed), and so is a plain reference measured in the same run: scipy's L-BFGS-B along
the same 20-point l1 path (split variables w = u - v, u, v >= 0, the same pair-free loss oracle,
tight tolerances ftol 1e-15, gtol 1e-12, warm started). The ratio path / reference compares our
solvers with a generic bound-constrained quasi-Newton method on the same oracle (FenchelRank's
radii and the log penalty solve other problems on the same data, so their ratios compare cost,
not results).

Accuracy, per path: iterations (largest per point), how many points are ``converged`` and the
largest optimality measure (FenchelRank: Frank-Wolfe gap / f, tol 1e-6; sparse RankSVM: KKT
violation / lambda, tol 1e-5); for the l1 path the largest KKT violation / lambda of the
reference and the largest relative objective difference to it; for FenchelRank ``r_max``
against the l1 norm of L-BFGS-B's unconstrained minimiser, and the largest relative objective
difference to SLSQP on the ball at every radius (``--slsqp``; warm started, ftol 1e-14). Then,
on MQ2008, the first 10 features of each path's entry order at the default tol and at tol 1e-9
(with max_iter 20000).

(1) MQ2008 Fold 1 train (skipped with a message when the archive is absent).
(2) A generated set of 700 features and about 35k rows (``ltrfs.datasets.synthetic.make``:
    350 queries of ~100 documents, 40 informative, 60 redundant, 600 noise features).

Usage: python bench/bench_sparse_rankers.py [path/to/MQ2008.zip] [--no-scale] [--slsqp]
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
    entry_order,
    l1_ball_path,
    l1_kkt_violation,
    lambda_max,
    path_grid,
    penalty_path,
    scaled_loss,
    unconstrained_radius,
)

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
SCALE = {"n_queries": 350, "docs_median": 100, "docs_sigma": 0.2, "docs_max": 300, "n_informative": 40,
         "n_redundant": 60, "n_noise": 600, "n_levels": 3, "seed": 0}
TIGHT = {"tol": 1e-9, "max_iter": 20000}


def reference_path(loss, lambdas) -> tuple[float, list, list, int]:
    """scipy L-BFGS-B along the l1 path: min f(u - v) + lam sum(u + v), u, v >= 0, each lambda
    warm started from the previous solution: (seconds, weights per point, objectives, oracle calls)."""
    d = loss.d
    z, weights, objectives, calls = np.zeros(2 * d), [], [], loss.n_evals
    start = time.perf_counter()
    for lam in lambdas:
        def fun(x, lam=lam):
            f, g = loss(x[:d] - x[d:])
            return f + lam * x.sum(), np.r_[g + lam, -g + lam]

        res = minimize(fun, z, jac=True, method="L-BFGS-B", bounds=[(0, None)] * (2 * d),
                       options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
        z = res.x
        weights.append(z[:d] - z[d:])
        objectives.append(float(res.fun))
    return time.perf_counter() - start, weights, objectives, loss.n_evals - calls


def slsqp_ball(loss, radii) -> list[float]:
    """SLSQP on the l1 ball at every radius (split variables, warm started): the objectives."""
    d = loss.d
    z, out = np.zeros(2 * d), []
    for r in radii:
        def fun(x):
            f, g = loss(x[:d] - x[d:])
            return f, np.r_[g, -g]

        res = minimize(fun, z, jac=True, method="SLSQP", bounds=[(0, None)] * (2 * d),
                       constraints=[{"type": "ineq", "fun": lambda x, r=r: r - x.sum(),
                                     "jac": lambda x: -np.ones(2 * d)}], options={"ftol": 1e-14, "maxiter": 5000})
        z = res.x
        out.append(float(res.fun))
    return out


def top10(points) -> list[int]:
    return entry_order(np.array([p.w for p in points]))[0][:10].tolist()


def run(label: str, X, y, query_ptr, slsqp: bool = False, tight: bool = True) -> None:
    print(f"{label}: {X.shape[0]} rows x {X.shape[1]} features, {len(query_ptr) - 1} queries")
    loss, _, _ = scaled_loss(X, y, query_ptr)
    loss(np.zeros(loss.d))  # load the compiled kernels before anything is timed
    top = lambda_max(loss)
    lambdas = path_grid(top, 20, 1e-3)
    ref_s, ref_w, ref_obj, ref_calls = reference_path(loss, lambdas)
    ref_kkt = max(l1_kkt_violation(w, loss(w)[1], lam) / lam for w, lam in zip(ref_w, lambdas))
    print(f"  reference: scipy L-BFGS-B along the 20-point l1 path: {ref_s:.2f} s, {ref_calls} oracle calls; "
          f"non-zero weights {[int(np.count_nonzero(w)) for w in ref_w][::4]}; largest KKT violation / lambda "
          f"{ref_kkt:.2g}")
    rows = []
    start, calls = time.perf_counter(), loss.n_evals
    r_max, free = unconstrained_radius(loss)
    radii = path_grid(r_max, 20, 1e-3, increasing=True)
    points = l1_ball_path(loss, radii, w_free=free.w)
    rows.append(("fenchelrank", time.perf_counter() - start, loss.n_evals - calls, points))
    free_ref = minimize(lambda w: loss(w), np.zeros(loss.d), jac=True, method="L-BFGS-B",
                        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    print(f"  fenchelrank r_max {r_max:.6g} ({free.n_iter} Newton steps, relative gradient {free.optimality:.2g}); "
          f"L-BFGS-B's unconstrained minimiser: l1 norm {np.abs(free_ref.x).sum():.6g}, f {free_ref.fun:.10g} "
          f"(ours {free.loss:.10g})")
    for penalty in ("l1", "log"):
        start, calls = time.perf_counter(), loss.n_evals
        path = penalty_path(loss, lambdas, penalty)
        rows.append((f"sparse_ranksvm {penalty}", time.perf_counter() - start, loss.n_evals - calls, path))
    for name, seconds, calls, path in rows:
        print(f"  {name:<20} path of 20: {seconds:7.2f} s ({seconds / 20:.3f} s per point), {calls} oracle calls, "
              f"ratio to the reference {seconds / ref_s:5.2f}; non-zero weights "
              f"{[int(np.count_nonzero(p.w)) for p in path][::4]}")
        print(f"    iterations per point: largest {max(p.n_iter for p in path)}, total {sum(p.n_iter for p in path)}; "
              f"converged {sum(p.converged for p in path)} of 20; largest optimality measure "
              f"{max(p.optimality for p in path):.2g}")
    l1 = rows[1][3]
    rel = max(abs(p.objective - o) / o for p, o in zip(l1, ref_obj))
    print(f"  sparse_ranksvm l1 against the reference: largest relative objective difference {rel:.2g}")
    if slsqp:
        ball = slsqp_ball(loss, radii)
        rel = max((p.loss - o) / o for p, o in zip(rows[0][3], ball))
        low = min((p.loss - o) / o for p, o in zip(rows[0][3], ball))
        print(f"  fenchelrank against SLSQP on the ball: relative objective difference {low:.2g} .. {rel:.2g}")
    if not tight:
        return
    start = time.perf_counter()
    tight = [l1_ball_path(loss, radii, w_free=free.w, **TIGHT), penalty_path(loss, lambdas, "l1", **TIGHT),
             penalty_path(loss, lambdas, "log", **TIGHT)]
    print(f"  tol 1e-9 (max_iter 20000): {time.perf_counter() - start:.1f} s for the three paths")
    for (name, _, _, path), tight_path in zip(rows, tight):
        print(f"    {name:<20} first 10 by entry: default {top10(path)}, tol 1e-9 {top10(tight_path)}")


def mq2008(archive: Path, slsqp: bool) -> None:
    if not archive.exists():
        print(f"(1) skipped: {archive} is absent")
        return
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(archive) as z:
        member = next(n for n in z.namelist() if n.endswith("Fold1/train.txt"))
        path = z.extract(member, tmp)
        tr = read_letor(path)
    run("(1) MQ2008 Fold1 train", tr.X, tr.y, tr.query_ptr, slsqp)


def generated() -> None:
    from ltrfs.datasets.synthetic import make

    data, _ = make(**SCALE)
    run("(2) generated", data.X, data.y, data.query_ptr, tight=False)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", type=Path, default=DEFAULT_ZIP)
    parser.add_argument("--no-scale", action="store_true", help="skip the 700-feature generated set")
    parser.add_argument("--slsqp", action="store_true", help="FenchelRank against SLSQP at every radius (slow)")
    args = parser.parse_args(argv)
    mq2008(args.archive, args.slsqp)
    if not args.no_scale:
        generated()
    return 0


if __name__ == "__main__":
    sys.exit(main())

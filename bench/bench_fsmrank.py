"""Benchmark: FSMRank (Lai et al. 2013), accelerated proximal gradient with line search.

(1) MQ2008 Fold 1: one solve with the paper's settings (T = 400, tol 1e-4) at lambda1 = 0.01,
    lambda2 = 0.001 and at lambda1 = lambda2 = 0: seconds (target < 3 s), iterations, final L,
    non-zero weights; plus the 25-point lambda grid in total.
(2) MQ2008, all 5 folds: FSMRank as a ranker, lambda1 x lambda2 from the default grid chosen on
    vali MAP (letor4) (``FSMRankSelector``); 5-fold means of test NDCG@1/3/5/10 and MAP (letor4)
    next to Lai et al. Table II (FSMRank: 0.3686, 0.4399, 0.4791, 0.2327, 0.4771). Extra rows:
    the same choice on vali NDCG@10, and the paper's model run for all T = 400 iterations
    (tol = 0), to show how much the stopping rule matters.
(3) MQ2008 Fold 1, FSMRank vs projected subgradient on the same objective after equal wall
    time (the paper's Fig. 5): objective at a few time marks, subgradient step0 = 1/L0 (default),
    2^4/L0 and 2^10/L0 (FSMRank's starting step), and the optimum from 3000 FSMRank iterations.
(4) An MSLR-WEB10K-sized synthetic fold (6000 queries, ~120 documents each, 136 features, 5
    levels; generated once by a child process and cached under the temp dir): seconds of the
    Pearson step, seconds per FSMRank iteration (10 iterations, float32 X used in place),
    oracle calls, peak RSS and tracemalloc peak of the fitting process. Skip with --no-scale.

Usage: python bench/bench_fsmrank.py [path/to/MQ2008.zip] [--no-scale] [--folds 1 2 ...]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metrics import evaluate, mean_metrics
from ltrfs.rankers.fsmrank import (LAMBDA1_GRID, LAMBDA2_GRID, FSMProblem, extended_pearson, fsmrank_solve,
                                   subgradient_solve)
from ltrfs.selection.fsmrank import FSMRankSelector

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
PUBLISHED = {"NDCG@1": 0.3686, "NDCG@3": 0.4399, "NDCG@5": 0.4791, "NDCG@10": 0.2327, "MAP": 0.4771}
SCALE = {"n_queries": 6000, "docs_median": 120, "docs_sigma": 0.2, "n_informative": 40, "n_redundant": 40,
         "n_noise": 56, "n_levels": 5, "seed": 0}
SCALE_ITERS = 10


def load_fold(root: Path, fold: int):
    d = root / f"Fold{fold}"
    return tuple(read_letor(d / f"{s}.txt") for s in ("train", "vali", "test"))


def convergence_fold1(root: Path) -> None:
    tr, _, _ = load_fold(root, 1)
    print(f"(1) MQ2008 Fold1 train: {tr.X.shape[0]} rows x {tr.X.shape[1]} features, {tr.n_queries} queries")
    start = time.perf_counter()
    A, s, P = extended_pearson(tr.X, tr.y)
    pearson_s = time.perf_counter() - start
    print(f"  Pearson A, s: {pearson_s:.3f} s; smallest eigenvalue of the 46x46 |corr| matrix "
          f"{np.linalg.eigvalsh(P).min():.4f} (negative: A is not PSD, the objective not exactly convex)")
    for l1, l2 in ((0.01, 0.001), (0.0, 0.0)):
        problem = FSMProblem(tr.X, tr.y, tr.query_ptr, A, s, l1, l2)
        start = time.perf_counter()
        res = fsmrank_solve(problem)
        sec = time.perf_counter() - start
        print(f"  lambda1={l1:g} lambda2={l2:g}: {sec:.3f} s (target < 3 s), {res.n_iter} iterations "
              f"(stopped by tol: {res.converged}), {res.n_evals} oracle calls, F {res.objective:.6f}, "
              f"final L {res.lipschitz[-1]:.4g} (L0 {problem.L0():.4g}), "
              f"{np.count_nonzero(res.w_hat)}/{len(res.w_hat)} non-zero weights")
    start = time.perf_counter()
    iters = 0
    for l1 in LAMBDA1_GRID:
        for l2 in LAMBDA2_GRID:
            iters += fsmrank_solve(FSMProblem(tr.X, tr.y, tr.query_ptr, A, s, l1, l2)).n_iter
    print(f"  the {len(LAMBDA1_GRID) * len(LAMBDA2_GRID)}-point lambda grid: {time.perf_counter() - start:.2f} s, "
          f"{iters} iterations in all")


def five_folds(root: Path, folds, variants: bool) -> None:
    print("(2) MQ2008 FSMRank as a ranker, lambdas from the default grid chosen on vali; test metrics (letor4)")
    setups = [("vali MAP, tol 1e-4 (default)", {})]
    if variants:
        setups += [("vali NDCG@10, tol 1e-4", {"vali_metric": "ndcg@10"}),
                   ("vali MAP, tol 0 (T=400)", {"tol": 0.0})]
    rows = {name: [] for name, _ in setups}
    seconds = {name: 0.0 for name, _ in setups}
    for fold in folds:
        tr, va, te = load_fold(root, fold)
        for name, params in setups:
            sel = FSMRankSelector(**params).fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
            seconds[name] += sel.seconds_
            test = mean_metrics(evaluate(te.y, sel.predict_scores(te.X), te.query_ptr, "letor4"))
            rows[name].append(test)
            print(f"  Fold{fold} [{name}]: lambda1={sel.chosen_['lambda1']:g} lambda2={sel.chosen_['lambda2']:g} "
                  f"vali {sel.chosen_['vali']:.4f}, {sel.n_iter_} it, {np.count_nonzero(sel.coef_)} non-zero; "
                  f"test NDCG@10 {test['NDCG@10']:.4f} MAP {test['MAP']:.4f}  (grid fit {sel.seconds_:.2f} s)")
    print(f"  {'mean of ' + str(len(folds)) + ' folds':<34}" + "".join(f"{k:>9}" for k in PUBLISHED) + "   seconds")
    for name, _ in setups:
        means = [np.mean([r[k] for r in rows[name]]) for k in PUBLISHED]
        print(f"  {'ltrfs ' + name:<34}" + "".join(f"{v:9.4f}" for v in means) + f"   {seconds[name]:7.2f}")
    print(f"  {'Lai et al. Table II FSMRank':<34}" + "".join(f"{v:9.4f}" for v in PUBLISHED.values()))
    means = [np.mean([r[k] for r in rows[setups[0][0]]]) for k in PUBLISHED]
    diff = [m - p for m, p in zip(means, PUBLISHED.values())]
    print(f"  {'difference (default row)':<34}" + "".join(f"{v:+9.4f}" for v in diff)
          + f"   within 0.02: {all(abs(v) <= 0.02 for v in diff)}")


def vs_subgradient(root: Path, seconds: float) -> None:
    tr, _, _ = load_fold(root, 1)
    l1, l2 = 0.01, 0.001
    A, s, _ = extended_pearson(tr.X, tr.y)
    problem = FSMProblem(tr.X, tr.y, tr.query_ptr, A, s, l1, l2)
    opt = fsmrank_solve(problem, max_iter=3000, tol=0.0).objective
    print(f"(3) MQ2008 Fold1, lambda1={l1:g} lambda2={l2:g}: objective after equal wall time "
          f"(F* ~ {opt:.8f} from 3000 FSMRank iterations; F(0) = 1)")
    runs = [("FSMRank (APG + line search)", fsmrank_solve(problem, max_iter=100000, tol=0.0, max_seconds=seconds)),
            ("subgradient, step0 = 1/L0", subgradient_solve(problem, max_iter=10 ** 7, max_seconds=seconds)),
            ("subgradient, step0 = 2^4/L0", subgradient_solve(problem, max_iter=10 ** 7, step0=2 ** 4 / problem.L0(),
                                                              max_seconds=seconds)),
            ("subgradient, step0 = 2^10/L0", subgradient_solve(problem, max_iter=10 ** 7, step0=2 ** 10 / problem.L0(),
                                                               max_seconds=seconds))]
    marks = [m for m in (0.05, 0.1, 0.25, 0.5, 1.0, 2.0) if m <= seconds]
    print(f"  {'method':<30}{'iters':>7}" + "".join(f"{'F@' + format(m, 'g') + 's':>13}" for m in marks)
          + f"{'best F - F*':>13}{'last F':>11}")
    for name, res in runs:
        vals = []
        for m in marks:
            idx = np.searchsorted(res.seconds, m, side="right") - 1
            best = res.objectives[: idx + 1].min()  # best objective reached by that time
            vals.append(best)
        print(f"  {name:<30}{res.n_iter:7d}" + "".join(f"{v:13.7f}" for v in vals)
              + f"{res.objectives.min() - opt:13.3e}{res.objectives[-1]:11.4g}")
    print("  (F@t = best objective reached by time t; the subgradient's last iterate need not be its best)")


def scale_generate(path: str) -> None:
    from ltrfs.datasets.synthetic import make

    data, _ = make(**SCALE)
    np.savez(path, X=data.X, y=data.y, query_ptr=data.query_ptr)


def scale_child(path: str) -> None:
    import resource
    import tracemalloc

    with np.load(path) as z:
        X, y, ptr = z["X"], z["y"], z["query_ptr"]
    small = FSMProblem(X[:300], y[:300], np.array([0, 100, 200, 300]), np.eye(X.shape[1]), np.ones(X.shape[1]), 0.1, 0.1)
    fsmrank_solve(small, max_iter=2)  # JIT outside the timings (cached on disk after the first run)
    tracemalloc.start()
    start = time.perf_counter()
    A, s, _ = extended_pearson(X, y)
    pearson_s = time.perf_counter() - start
    problem = FSMProblem(X, y, ptr, A, s, 0.01, 0.001)
    setup_s = time.perf_counter() - start - pearson_s
    res = fsmrank_solve(problem, max_iter=SCALE_ITERS, tol=0.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"rows": int(X.shape[0]), "features": int(X.shape[1]), "queries": int(len(ptr) - 1),
                      "pairs": problem.n_pairs, "pearson_s": pearson_s, "setup_s": setup_s,
                      "iter_s": float(res.seconds[-1] / res.n_iter), "n_iter": res.n_iter, "n_evals": res.n_evals,
                      "F": res.objectives.tolist(), "peak_rss": rss, "tracemalloc_peak": peak,
                      "X_bytes": int(X.nbytes)}))


def scale_demo() -> None:
    cache = Path(tempfile.gettempdir()) / ("ltrfs_bench_fsmrank_" + "_".join(f"{k}{v}" for k, v in SCALE.items())
                                           + ".npz")
    print(f"(4) MSLR-WEB10K-sized synthetic fold {SCALE}")
    if not cache.exists():
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--scale-generate", str(cache)], check=True)
        print(f"  generated in {time.perf_counter() - start:.1f} s (cached at {cache})")
    out = subprocess.run([sys.executable, __file__, "--scale-child", str(cache)], check=True,
                         stdout=subprocess.PIPE, text=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"  {r['rows']} rows x {r['features']} features, {r['queries']} queries, {r['pairs']} labelled pairs "
          f"(never built)")
    print(f"  Pearson A, s {r['pearson_s']:.2f} s; problem setup {r['setup_s']:.2f} s; "
          f"{r['iter_s']:.3f} s per FSMRank iteration ({r['n_iter']} iterations, {r['n_evals']} oracle calls; "
          f"T = 400 would take about {400 * r['iter_s']:.0f} s)")
    print(f"  F over the iterations: {', '.join(f'{v:.4f}' for v in r['F'])}")
    print(f"  peak RSS of the fitting process {r['peak_rss'] / 2**30:.2f} GiB (includes the loaded float32 X "
          f"{r['X_bytes'] / 2**30:.2f} GiB, used in place), tracemalloc peak {r['tracemalloc_peak'] / 2**30:.3f} GiB")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--no-scale", dest="scale", action="store_false", help="skip part (4)")
    parser.add_argument("--no-variants", dest="variants", action="store_false",
                        help="part (2): only the default setting")
    parser.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--seconds", type=float, default=1.0, help="part (3): wall time per method")
    parser.add_argument("--scale-child", help=argparse.SUPPRESS)
    parser.add_argument("--scale-generate", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scale_child:
        scale_child(args.scale_child)
        return 0
    if args.scale_generate:
        scale_generate(args.scale_generate)
        return 0
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_fsmrank: {archive} not found; nothing to benchmark on MQ2008 (give the MQ2008.zip path)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        X = np.random.default_rng(0).random((6, 3))
        fsmrank_solve(FSMProblem(X, np.array([0, 1, 2, 0, 1, 2]), np.array([0, 3, 6]), np.eye(3), np.ones(3),
                                 0.1, 0.1), max_iter=2)  # JIT compile outside the timings
        convergence_fold1(root)
        five_folds(root, args.folds, args.variants)
        vs_subgradient(root, args.seconds)
    if args.scale:
        scale_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: ltrfs RankSVM-Primal (squared pairwise hinge, pair-free truncated Newton).

(1) MQ2008, all 5 folds: for every C of the default grid (1e-5 * 2^i, i = 0..19, a warm-started
    path in increasing C) fit on train, score vali; the C with the best vali NDCG@10 (LETOR 4.0
    convention; ties -> smaller C) is evaluated on test. Prints per fold the chosen C, seconds
    per C and in total, and the 5-fold means of test NDCG@1/3/5/10 and MAP (letor4) next to
    Lai et al. 2013 Table II (RankSVM-primal: N@10 0.2309, MAP 0.4744).
(2) MQ2008 Fold 1, same objective solved by liblinear on the explicit pair differences
    (sklearn LinearSVC(loss="squared_hinge", penalty="l2", dual=False, fit_intercept=False,
    C = C / n_queries), each pair once with alternating sign): time ratio (pair building
    reported apart) and relative objective gap, both objectives evaluated by the same oracle.
(3) An MSLR-WEB10K-sized synthetic fold (6000 queries, ~120 documents each, ~730,000 rows,
    136 features, 5 label levels) trains one C with RankSVM-Primal and with the hinge-loss
    cutting-plane RankSVM: seconds, peak RSS and tracemalloc peak of each fitting process (data generated once by a child process and cached under the temp dir, so
    the generator's own memory is not counted). Skip with --no-scale.

Usage: python bench/bench_ranksvm_primal.py [path/to/MQ2008.zip] [--no-scale] [--folds 1 2 ...]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metrics import evaluate, mean_metrics, metric_per_query
from ltrfs.rankers.pairs import levels_within_queries
from ltrfs.rankers.ranksvm_primal import RankSVMPrimal, squared_hinge_pairs

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
PUBLISHED = {"NDCG@1": 0.3725, "NDCG@3": 0.4333, "NDCG@5": 0.4765, "NDCG@10": 0.2309, "MAP": 0.4744}
SCALE = dict(n_queries=6000, docs_median=120, docs_sigma=0.2, n_informative=40, n_redundant=40,
             n_noise=56, n_levels=5, seed=0)
SCALE_C = 1.0


def qid_rows(data) -> np.ndarray:
    return np.repeat(data.query_ids, np.diff(data.query_ptr))


def mq2008_folds(root: Path, folds) -> None:
    print("(1) MQ2008, C from the default grid chosen on vali NDCG@10 (letor4), test metrics (letor4)")
    grid = RankSVMPrimal.default_grid["C"]
    rows = []
    for fold in folds:
        d = root / f"Fold{fold}"
        tr, va, te = (read_letor(d / f"{s}.txt") for s in ("train", "vali", "test"))
        model = RankSVMPrimal(warm_start=True)
        seconds, vali, coefs = [], [], []
        for C in grid:
            model.set_params(C=C).fit(tr.X, tr.y, qid_rows(tr))
            seconds.append(model.seconds_)
            coefs.append(model.coef_.copy())
            vali.append(float(metric_per_query(va.y, model.predict(va.X), va.query_ptr, "ndcg@10", "letor4").mean()))
        best = int(np.argmax(vali))
        scores = te.X.astype(np.float64) @ coefs[best]
        test = mean_metrics(evaluate(te.y, scores, te.query_ptr, "letor4"))
        rows.append(test)
        print(f"  Fold{fold}: C={grid[best]:.4g} vali NDCG@10 {vali[best]:.4f}  test NDCG@10 {test['NDCG@10']:.4f} "
              f"MAP {test['MAP']:.4f}  | {len(grid)} C values in {sum(seconds):.2f} s "
              f"(mean {np.mean(seconds) * 1e3:.1f} ms, max {max(seconds) * 1e3:.1f} ms per C)")
    print(f"  {'mean of ' + str(len(rows)) + ' folds':<22}" + "".join(f"{k:>10}" for k in PUBLISHED))
    print(f"  {'ltrfs ranksvm_primal':<22}" + "".join(f"{np.mean([r[k] for r in rows]):10.4f}" for k in PUBLISHED))
    print(f"  {'Lai et al. Table II':<22}" + "".join(f"{v:10.4f}" for v in PUBLISHED.values()))


def explicit_pairs(X, y, ptr):
    diffs = []
    for a, b in zip(ptr[:-1], ptr[1:]):
        yy = y[a:b]
        i, j = np.nonzero(yy[:, None] > yy[None, :])
        diffs.append(X[a + i] - X[a + j])
    D = np.vstack(diffs)
    t = np.ones(len(D))
    t[1::2] = -1
    D[1::2] *= -1
    return D, t


def vs_explicit(root: Path) -> None:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    tr = read_letor(root / "Fold1" / "train.txt")
    te = read_letor(root / "Fold1" / "test.txt")
    X = tr.X.astype(np.float64)
    n = len(tr.query_ptr) - 1
    levels = levels_within_queries(tr.y, tr.query_ptr)
    start = time.perf_counter()
    D, t = explicit_pairs(X, tr.y, tr.query_ptr)
    pair_s = time.perf_counter() - start
    print(f"(2) MQ2008 Fold1 vs liblinear on explicit pairs: {X.shape[0]} rows, {n} queries, {len(D)} pairs "
          f"(pair matrix {D.nbytes / 2**20:.1f} MiB built in {pair_s:.3f} s, not counted below)")
    print(f"  {'C':>9} {'ours s':>8} {'it':>3} {'Hv':>4} {'liblinear s':>11} {'ratio':>7} {'obj ours':>13} "
          f"{'obj liblinear':>13} {'rel gap':>9} {'N@10 ours':>9} {'N@10 lib':>9}")
    for C in (1e-4, 1e-2, 0.1, 1.0, 5.24288):
        best = np.inf
        for _ in range(3):
            model = RankSVMPrimal(C=C).fit(tr.X, tr.y, qid_rows(tr))
            best = min(best, model.seconds_)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            start = time.perf_counter()
            svc = LinearSVC(loss="squared_hinge", penalty="l2", dual=False, fit_intercept=False, C=C / n,
                            tol=1e-6, max_iter=10_000).fit(D, t)
            lib_s = time.perf_counter() - start
        w_lib = svc.coef_.ravel()
        loss_lib = squared_hinge_pairs(X @ w_lib, levels, tr.query_ptr)[0]
        obj_lib = 0.5 * w_lib @ w_lib + C / n * loss_lib
        nd = [float(metric_per_query(te.y, te.X.astype(np.float64) @ w, te.query_ptr, "ndcg@10", "letor4").mean())
              for w in (model.coef_, w_lib)]
        print(f"  {C:9.4g} {best:8.4f} {model.n_iter_:3d} {model.n_hessp_:4d} {lib_s:11.4f} {lib_s / best:7.1f} "
              f"{model.objective_:13.8g} {obj_lib:13.8g} {(model.objective_ - obj_lib) / obj_lib:9.1e} "
              f"{nd[0]:9.4f} {nd[1]:9.4f}")
    print("  (ratio = liblinear seconds / ours; rel gap < 0: our objective is lower)")


def scale_child(path: str, name: str) -> None:
    """Run in a fresh process: load the cached synthetic fold, fit one C of ranker ``name``
    (ranksvm_primal, or the hinge-loss cutting-plane ranksvm for comparison), print JSON."""
    from ltrfs.rankers import make_ranker

    import logging
    import resource
    import tracemalloc

    logging.basicConfig(level=logging.DEBUG, format="    %(message)s", stream=sys.stderr)
    logging.getLogger("numba").setLevel(logging.WARNING)
    with np.load(path) as z:
        X, y, ptr = z["X"], z["y"], z["query_ptr"]
    qid = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    make_ranker(name, C=1.0).fit(X[:200], y[:200], qid[:200])  # JIT (cached on disk after the first run)
    tracemalloc.start()
    start = time.perf_counter()
    model = make_ranker(name, C=SCALE_C).fit(X, y, qid)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    print(json.dumps({"rows": int(X.shape[0]), "features": int(X.shape[1]), "queries": int(len(ptr) - 1),
                      "seconds": seconds, "n_iter": model.n_iter_, "n_hessp": getattr(model, "n_hessp_", 0),
                      "converged": model.converged_, "objective": model.objective_,
                      "peak_rss": rss, "tracemalloc_peak": peak, "X_bytes": int(X.nbytes)}))


def scale_generate(path: str) -> None:
    from ltrfs.datasets.synthetic import make

    data, _ = make(**SCALE)
    np.savez(path, X=data.X, y=data.y, query_ptr=data.query_ptr)


def scale_demo() -> None:
    cache = Path(tempfile.gettempdir()) / ("ltrfs_bench_ranksvm_primal_" +
                                           "_".join(f"{k}{v}" for k, v in SCALE.items()) + ".npz")
    print(f"(3) MSLR-WEB10K-sized synthetic fold {SCALE}, C={SCALE_C}")
    if not cache.exists():
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--scale-generate", str(cache)], check=True)
        print(f"  generated in {time.perf_counter() - start:.1f} s (cached at {cache})")
    for name, steps in (("ranksvm_primal", "Newton iterations"), ("ranksvm", "cutting-plane iterations")):
        out = subprocess.run([sys.executable, __file__, "--scale-child", str(cache), "--ranker", name],
                             check=True, stdout=subprocess.PIPE, text=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {name}: {r['rows']} rows x {r['features']} features, {r['queries']} queries: fit "
              f"{r['seconds']:.1f} s (limit 120 s), {r['n_iter']} {steps}, {r['n_hessp']} Hv, converged "
              f"{r['converged']}, objective {r['objective']:.8g}")
        print(f"    peak RSS of the fitting process {r['peak_rss'] / 2**30:.2f} GiB (limit 4 GiB; includes the "
              f"loaded float32 X {r['X_bytes'] / 2**30:.2f} GiB), tracemalloc peak during fit "
              f"{r['tracemalloc_peak'] / 2**30:.2f} GiB (mostly the float64 copy of X)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--no-scale", dest="scale", action="store_false", help="skip part (3)")
    parser.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--scale-child", help=argparse.SUPPRESS)
    parser.add_argument("--scale-generate", help=argparse.SUPPRESS)
    parser.add_argument("--ranker", default="ranksvm_primal", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scale_child:
        scale_child(args.scale_child, args.ranker)
        return 0
    if args.scale_generate:
        scale_generate(args.scale_generate)
        return 0
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_ranksvm_primal: {archive} not found; nothing to benchmark on MQ2008 "
              "(give the MQ2008.zip path)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        RankSVMPrimal().fit(np.eye(3), [0, 1, 2], [1, 1, 1])  # JIT compile outside the timings
        mq2008_folds(root, args.folds)
        vs_explicit(root)
    if args.scale:
        scale_demo()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: ltrfs RankSVM (pair-free 1-slack cutting planes) vs scikit-learn LinearSVC on
explicit pairs, same objective, on MQ2008 Fold 1.

Objective of both: 1/2 ||w||^2 + (C/n) sum_q sum_{y_i > y_j} max(0, 1 - w.(x_i - x_j)), n = number
of training queries (svm_rank's -c). LinearSVC(loss="hinge", fit_intercept=False) sees every
pair once (x_i - x_j with label +1, or its negation with label -1, alternating) with
C_liblinear = C / n, which makes its objective identical.

Printed per C: training seconds of each (LinearSVC's pair building is reported apart from its
fit), the ratio, both objective values (each evaluated exactly by the O(n log n) oracle),
test NDCG@10 (LETOR 4.0 convention) of both, and the peak Python-heap memory of our fit
(tracemalloc) next to the size of the explicit pair matrix.

A last line runs ours alone on synthetic long queries (50 x 1000 documents, ~13 million pairs)
whose explicit pair matrix would take ~4.4 GiB (skip with --no-scale).

Usage: python bench/bench_ranksvm.py [path/to/MQ2008.zip] [--repeat N] [--no-scale]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ltrfs.rankers.ranksvm import RankSVM, pairwise_hinge

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
GRID = [1e-5 * 2**i for i in (0, 7, 12, 16, 19)]  # 1e-5, 1.28e-3, 0.041, 0.655, 5.24 (default grid points)


def read_split(path: Path):
    """(X float32, y int, query_ptr int64) via ltrfs.io.read_letor, else scikit-learn's reader."""
    try:
        from ltrfs.io import read_letor
    except ImportError:
        read_letor = None
    if read_letor is not None:
        data = read_letor(path)
        return data.X, data.y.astype(np.int64), data.query_ptr
    from sklearn.datasets import load_svmlight_file

    from ltrfs.ranking_data import query_ptr_from_qid

    X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=46)
    return X.toarray().astype(np.float32), y.astype(np.int64), query_ptr_from_qid(qid)[0]


def ndcg10(y, scores, query_ptr) -> float:
    try:
        from ltrfs.metrics import metric_per_query
    except ImportError:
        metric_per_query = None
    if metric_per_query is not None:
        return float(metric_per_query(y, scores, query_ptr, "ndcg@10", "letor4").mean())
    # LETOR 4.0 rule: gain 2^r - 1, discount 1 at ranks 1-2 and 1/log2(i) after, 0 if < 10 docs
    disc = np.r_[1.0, 1.0, 1.0 / np.log2(np.arange(3, 11))]
    vals = []
    for a, b in zip(query_ptr[:-1], query_ptr[1:]):
        if b - a < 10:
            vals.append(0.0)
            continue
        gains = 2.0 ** y[a:b] - 1
        dcg = gains[np.argsort(-scores[a:b], kind="stable")][:10] @ disc
        ideal = np.sort(gains)[::-1][:10] @ disc
        vals.append(dcg / ideal if ideal > 0 else 0.0)
    return float(np.mean(vals))


def explicit_pairs(X, y, query_ptr):
    diffs = []
    for a, b in zip(query_ptr[:-1], query_ptr[1:]):
        yy = y[a:b]
        i, j = np.nonzero(yy[:, None] > yy[None, :])
        diffs.append(X[a + i].astype(np.float64) - X[a + j])
    D = np.vstack(diffs)
    t = np.ones(len(D))
    t[1::2] = -1
    D[1::2] *= -1
    return D, t


def objective(w, X, y, query_ptr, C) -> float:
    loss = pairwise_hinge(X.astype(np.float64) @ w, y, query_ptr)[0]
    return 0.5 * w @ w + C / (len(query_ptr) - 1) * loss


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best kept) for our fit")
    parser.add_argument("--no-scale", dest="scale", action="store_false",
                        help="skip the synthetic long-query run (13 million pairs)")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_ranksvm: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            for split in ("train", "test"):
                zf.extract(f"MQ2008/Fold1/{split}.txt", tmp)
        X, y, ptr = read_split(Path(tmp) / "MQ2008/Fold1/train.txt")
        Xt, yt, ptr_t = read_split(Path(tmp) / "MQ2008/Fold1/test.txt")
    qid = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    n = len(ptr) - 1

    RankSVM(C=1.0).fit(X[:200], y[:200], qid[:200])  # JIT compile (cached on disk after the first run)
    start = time.perf_counter()
    D, t = explicit_pairs(X, y, ptr)
    pair_seconds = time.perf_counter() - start
    print(f"MQ2008 Fold1 train: {X.shape[0]} rows, {X.shape[1]} features, {n} queries, {len(D)} pairs "
          f"(explicit pair matrix {D.nbytes / 2**20:.1f} MiB, built in {pair_seconds:.3f} s)")
    print("reference: sklearn LinearSVC(loss='hinge', fit_intercept=False, C=C/n, tol=1e-4, max_iter=100000) "
          "on explicit pairs; ours: RankSVM(C, epsilon=0.001) (svm_rank's tolerance)")
    header = (f"{'C':>10} {'ours s':>8} {'iters':>5} {'svc s':>8} {'svc/ours':>9} {'obj ours':>12} "
              f"{'obj svc':>12} {'rel diff':>9} {'NDCG@10 ours':>12} {'NDCG@10 svc':>11} {'peak MiB':>8}")
    print(header)
    for C in GRID:
        ours_s, model = best_time(lambda: RankSVM(C=C).fit(X, y, qid), args.repeat)
        tracemalloc.start()
        RankSVM(C=C).fit(X, y, qid)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc_s, svc = best_time(lambda: LinearSVC(loss="hinge", fit_intercept=False, C=C / n, tol=1e-4,
                                                     max_iter=100_000, random_state=0).fit(D, t), 1)
        w_svc = svc.coef_.ravel()
        obj_ours = model.objective_
        obj_svc = objective(w_svc, X, y, ptr, C)
        nd_ours = ndcg10(yt, model.predict(Xt), ptr_t)
        nd_svc = ndcg10(yt, Xt.astype(np.float64) @ w_svc, ptr_t)
        print(f"{C:10.4g} {ours_s:8.4f} {model.n_iter_:5d} {svc_s:8.3f} {svc_s / ours_s:9.1f} {obj_ours:12.6g} "
              f"{obj_svc:12.6g} {(obj_ours - obj_svc) / obj_svc:9.2e} {nd_ours:12.4f} {nd_svc:11.4f} "
              f"{peak / 2**20:8.2f}")
    print(f"(data X float32 {X.nbytes / 2**20:.2f} MiB; our fit keeps a float64 copy, {X.size * 8 / 2**20:.2f} MiB; "
          "'rel diff' < 0 means our objective is lower)")
    if args.scale:
        scale_demo()
    return 0


def scale_demo(n_queries=50, n_docs=1000, d=46, C=1e-3):
    """Long queries: the explicit pairs would not fit in memory; ours stays O(m d)."""
    from ltrfs.rankers.pairs import count_pairs

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_queries * n_docs, d)).astype(np.float32)
    y = np.digitize(X[:, :5].sum(axis=1) + rng.normal(size=len(X)), [1.0, 2.5, 4.0])
    qid = np.repeat(np.arange(n_queries), n_docs)
    ptr = np.arange(0, len(X) + 1, n_docs)
    n_pairs = int(count_pairs(y, ptr).sum())
    tracemalloc.start()
    start = time.perf_counter()
    model = RankSVM(C=C).fit(X, y, qid)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"scale: {n_queries} queries x {n_docs} docs x {d} features, {n_pairs} pairs (explicit pair matrix "
          f"would be {n_pairs * d * 8 / 2**30:.1f} GiB; LinearSVC not run): ours C={C:g} {seconds:.2f} s "
          f"(with tracemalloc on), {model.n_iter_} iterations, peak {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    sys.exit(main())

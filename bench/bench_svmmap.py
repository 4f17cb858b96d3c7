"""Benchmark: SVM-map (ltrfs.rankers.svmmap) on LETOR 4.0 MQ2008, next to the published row,
and the speed of its most-violated-constraint search.

1. MQ2008, 5 folds: C chosen on vali by MAP (letor4 convention) over the class's default grid
   with ``ltrfs.pipeline.train.fit_best`` (warm start along the grid), test NDCG@1/3/5/10 and MAP
   (``ltrfs.metrics.evaluate``, letor4), mean over the folds, next to the SVMMAP row of Lai et
   al. 2013, Table II (LETOR's baseline). Seconds per fold (the whole grid) are printed.

   Reading of the published row: the text extraction of Table II gives the MQ2008 block one
   cell per line, row by row, N@1 .. N@10 then MAP. SVMMAP's line has only ten numbers
   (0.3516 ... 0.2179: N@1..N@10, rising to N@7 and falling at N@8..N@10 as every MQ2008 row
   does in the letor4 convention), and the ListNet line above it ends with two numbers,
   "0.4775 0.4569": ListNet's MAP (0.4775, as docs/mq2008.md also reads it) and
   SVMMAP's MAP cell, set on the same text line. The OHSUMED, HP2004 and NP2004 blocks show
   the same displacement ("0.4457 0.4453", "0.6899 0.7176", "0.6720 0.6620" after ListNet,
   and a SVMMAP row one number short). So SVMMAP on MQ2008: N@1 0.3516, N@3 0.4102,
   N@5 0.4515, N@10 0.2179, MAP 0.4569.

2. Speed of the separation oracle: the greedy search (divide and conquer over the
   non-relevant documents' monotone insertion positions, O(n log n) per query) against the
   naive per-document scan of all positions (Algorithm 2 as written, O(R N) per query), both
   compiled, on MQ2008 Fold 1 train at the learned w, and on synthetic long queries; the
   ratio is printed, and both must give the same constraint.

Usage: OMP_NUM_THREADS=1 python bench/bench_svmmap.py [path/to/MQ2008.zip] [--folds 1,2,3,4,5]
Exits 0 with a message when the archive is absent (part 2 still runs on synthetic data).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.rankers.svmmap import SVMMAP, most_violated

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
#: Lai et al. 2013, Table II, MQ2008, SVMMAP (LETOR baseline): N@1, N@3, N@5, N@10, MAP
PUBLISHED = (0.3516, 0.4102, 0.4515, 0.2179, 0.4569)
COLUMNS = ("NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP")


def best_time(fn, repeat=5):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def time_oracle(label, scores, y, query_ptr, repeat=5):
    most_violated(scores[:20], y[:20], np.array([0, 20]))  # compile outside the timing
    most_violated(scores[:20], y[:20], np.array([0, 20]), method="naive")
    t_fast, (d_fast, c_fast) = best_time(lambda: most_violated(scores, y, query_ptr), repeat)
    t_naive, (d_naive, c_naive) = best_time(lambda: most_violated(scores, y, query_ptr, method="naive"), repeat)
    same = np.allclose(d_fast, d_naive, atol=1e-12) and np.allclose(c_fast, c_naive, atol=1e-12)
    sizes = np.diff(query_ptr)
    print(f"  {label:44s} {len(sizes):5d} queries, {sizes.max():6d} docs max: greedy {t_fast * 1e3:9.3f} ms  "
          f"naive {t_naive * 1e3:9.3f} ms  ratio naive/greedy {t_naive / t_fast:7.1f}  same result: {same}")
    return t_naive / t_fast


def mq2008(archive: Path, folds):
    from ltrfs.pipeline.train import fit_best
    from ltrfs.io import read_letor
    from ltrfs.metrics import evaluate

    rows, w_fold1 = [], None
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        print(f"MQ2008, SVMMAP, C on vali MAP (letor4) over the default grid "
              f"({SVMMAP.default_grid['C'][0]:g} .. {SVMMAP.default_grid['C'][-1]:g}, {len(SVMMAP.default_grid['C'])} values)")
        print(f"  {'fold':6s} {'C':>10s} " + " ".join(f"{c:>8s}" for c in COLUMNS) + f" {'vali MAP':>9s} {'seconds':>8s}")
        for fold in folds:
            train, vali, test = (read_letor(root / f"Fold{fold}" / f"{s}.txt") for s in ("train", "vali", "test"))
            start = time.perf_counter()
            model, point, trials = fit_best({"algorithm": "svmmap"}, train, vali, metric="map",
                                            convention="letor4", seed=0, threads=1)
            seconds = time.perf_counter() - start
            q = evaluate(test.y, model.predict(test.X), test.query_ptr, "letor4")
            row = [q.ndcg[:, 0].mean(), q.ndcg[:, 2].mean(), q.ndcg[:, 4].mean(), q.ndcg[:, 9].mean(), q.map.mean()]
            rows.append(row)
            vali_best = max(t["vali"] for t in trials)
            print(f"  {fold:<6d} {point['C']:10.4g} " + " ".join(f"{v:8.4f}" for v in row)
                  + f" {vali_best:9.4f} {seconds:8.2f}", flush=True)
            if fold == folds[0]:
                w_fold1 = (train, model.coef_)
    mean = np.mean(rows, axis=0)
    print(f"  {'mean':6s} {'':10s} " + " ".join(f"{v:8.4f}" for v in mean))
    print(f"  {'Lai':6s} {'(LETOR)':>10s} " + " ".join(f"{v:8.4f}" for v in PUBLISHED))
    print(f"  {'diff':6s} {'':10s} " + " ".join(f"{a - b:+8.4f}" for a, b in zip(mean, PUBLISHED)))
    return w_fold1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--folds", default="1,2,3,4,5")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    folds = [int(f) for f in args.folds.split(",")]
    total = time.perf_counter()
    fold1 = None
    if archive.exists():
        fold1 = mq2008(archive, folds)
    else:
        print(f"bench_svmmap: {archive} not found; skipping the MQ2008 table")

    print("most violated constraint: greedy (divide and conquer, O(n log n)) vs naive scan (O(R N)), best of 5")
    if fold1 is not None:
        train, w = fold1
        time_oracle("MQ2008 Fold1 train at the learned w", train.X.astype(np.float64) @ w,
                    train.y, train.query_ptr)
    rng = np.random.default_rng(0)
    for n_queries, size, share in ((200, 100, 0.3), (20, 1000, 0.3), (5, 10000, 0.3), (5, 10000, 0.05)):
        y = (rng.random(n_queries * size) < share).astype(np.int64)
        scores = rng.normal(size=len(y)) + y  # informative scores: positions spread over the list
        ptr = np.arange(n_queries + 1, dtype=np.int64) * size
        time_oracle(f"synthetic {n_queries} x {size} docs, {share:.0%} relevant", scores, y, ptr, repeat=3)
    print(f"total {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

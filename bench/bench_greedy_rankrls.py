"""Benchmark: Greedy RankRLS (Pahikkala et al. 2010), speed and MQ2008 accuracy.

Part 1 (synthetic, ``ltrfs.datasets.synthetic.make``): the full 46-step path on an
MQ2007-sized set (about 43,000 rows, 1,000 queries, 46 features) on one thread (goal: under
2 s); the scaling ratios when m, n or k doubles (O(k m n): each should be about 2; k is
doubled from 10 to 20 with n = 92, where the shrinking candidate set matters least, and also
from 23 to 46 with n = 46, where it matters most: sum_{t<k} (n - t) grows by 1.5 there); the
speed-up over the naive wrapper (``naive_greedy_path``) on a small instance, with the largest
relative difference of the LQO errors. Times are the best of ``--repeat`` runs; numba
compilation (or loading its cache) happens before timing.

Part 2 (MQ2008, 5 folds, LETOR 4.0 convention, when the archive is present): for every lambda
of {2^-7, 2^2, 2^6, 2^8} the greedy path on train and the test MAP / MeanNDCG of the RankRLS
model on the first k features, averaged over folds (k = 1, 2, 3, 5, 10, 20, 46); Greedy
RankRLS with lambda and k chosen on vali (MAP); baselines RankRLS on all 46 features (lambda
from the same grid on vali, paper weighting; and ``ltrfs.rankers.RankRLS`` with its default
grid) and RankSVM (``ltrfs.rankers.RankSVM``, C from its default grid on vali).

Published: the paper gives its results only as curves (MAP about 0.455-0.480 and MeanNDCG
about 0.480-0.500 over k on its MQ2007 / MQ2008 panels; no table); SPEC section 5 has no
Greedy RankRLS number. For reference the script prints RankSVM-primal on MQ2008 from Lai et
al. 2013 Table II (SPEC section 5): MAP 0.4744.

Usage: python bench/bench_greedy_rankrls.py [--repeat 3] [--no-mq2008] [--threads 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs import metrics
from ltrfs.datasets import synthetic
from ltrfs.selection.greedy_rankrls import GreedyRankRLS, greedy_path, naive_greedy_path

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP", "/work/shared/data/MQ2008.zip"))
GRID = (2.0 ** -7, 2.0 ** 2, 2.0 ** 6, 2.0 ** 8)
KS = (1, 2, 3, 5, 10, 20, 46)
PUBLISHED_RANKSVM_MAP = 0.4744  # Lai et al. 2013 Table II, RankSVM-primal, MQ2008


def best_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def paired_times(fa, fb, repeat):
    """Best-of-``repeat`` times of fa and fb, run alternately (the machine's load drifts)."""
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(best_time(fa, 1))
        tb.append(best_time(fb, 1))
    return min(ta), min(tb)


def synthetic_set(n_queries, n_features, seed=0):
    informative = 8 * n_features // 46
    redundant = 8 * n_features // 46
    data, _ = synthetic.make(n_queries=n_queries, n_informative=informative, n_redundant=redundant,
                             n_noise=n_features - informative - redundant, docs_median=41.0, docs_sigma=0.3,
                             docs_min=5, seed=seed)
    return data


def part1(args):
    print("== Part 1: speed (synthetic, one thread unless --threads) ==")
    warm = synthetic_set(20, 6)
    greedy_path(warm.X, warm.y, warm.query_ptr, 1.0, n_jobs=args.threads)
    base = synthetic_set(1000, 46)
    m, n = base.X.shape
    t_full = best_time(lambda: greedy_path(base.X, base.y, base.query_ptr, 1.0, n_jobs=args.threads), args.repeat)
    print(f"full path: m={m} rows, q=1000 queries, n={n} features, k={n}: {t_full:.3f} s "
          f"(goal < 2 s) -> {'OK' if t_full < 2 else 'SLOWER THAN GOAL'}")

    double_m = synthetic_set(2000, 46)
    wide = synthetic_set(1000, 92)
    r = args.repeat + 2

    def path(data, k):
        return lambda: greedy_path(data.X, data.y, data.query_ptr, 1.0, k, n_jobs=args.threads)

    t_m0, t_m = paired_times(path(base, 23), path(double_m, 23), r)
    print(f"double m ({m} -> {double_m.X.shape[0]} rows, n=46, k=23): {t_m0:.3f} -> {t_m:.3f} s, "
          f"ratio {t_m / t_m0:.2f}")
    t_n1, t_n2 = paired_times(path(base, 10), path(wide, 10), r)
    print(f"double n (46 -> 92 features, k=10): {t_n1:.3f} -> {t_n2:.3f} s, ratio {t_n2 / t_n1:.2f}")
    t_k1, t_k2 = paired_times(path(wide, 10), path(wide, 20), r)
    print(f"double k (10 -> 20, n=92): {t_k1:.3f} -> {t_k2:.3f} s, ratio {t_k2 / t_k1:.2f} "
          f"(candidate-work ratio {(20 * 92 - 190) / (10 * 92 - 45):.2f})")
    t_k3, t_k4 = paired_times(path(base, 23), path(base, 46), r)
    print(f"double k (23 -> 46, n=46): {t_k3:.3f} -> {t_k4:.3f} s, ratio {t_k4 / t_k3:.2f} "
          f"(candidate-work ratio {(46 * 46 - 1035) / (23 * 46 - 253):.2f})")

    small = synthetic_set(60, 16, seed=3)
    k = 8
    t_fast = best_time(lambda: greedy_path(small.X, small.y, small.query_ptr, 1.0, k), args.repeat)
    t0 = time.perf_counter()
    order_n, err_n = naive_greedy_path(small.X, small.y, small.query_ptr, 1.0, k)
    t_naive = time.perf_counter() - t0
    order, err = greedy_path(small.X, small.y, small.query_ptr, 1.0, k)
    same = np.array_equal(order, order_n)
    rel = float(np.max(np.abs(err - err_n) / np.abs(err_n)))
    print(f"naive wrapper, m={small.X.shape[0]}, q=60, n=16, k={k}: naive {t_naive:.3f} s, fast {t_fast * 1e3:.2f} ms, "
          f"speed-up {t_naive / t_fast:.0f}x; same order: {same}; max rel. LQO difference {rel:.1e}")


def part2(args):
    print("\n== Part 2: MQ2008, 5 folds, test (letor4) ==")
    if args.no_mq2008:
        print("skipped (--no-mq2008)")
        return
    if not DEFAULT_ZIP.exists():
        print(f"MQ2008 archive not found at {DEFAULT_ZIP}; skipping the real-data part")
        return
    from ltrfs.experiments import fit_best
    from ltrfs.io import read_letor

    curves = {lam: {"map": np.zeros(46), "meanndcg": np.zeros(46)} for lam in GRID}
    chosen, baselines = [], {"rankrls (grid above, paper weights)": [], "ltrfs RankRLS (default grid)": [],
                             "RankSVM (default C grid)": []}
    t_sel = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(DEFAULT_ZIP) as archive:
            archive.extractall(tmp)
        for fold in range(1, 6):
            root = Path(tmp) / "MQ2008" / f"Fold{fold}"
            tr, va, te = (read_letor(root / f"{s}.txt") for s in ("train", "vali", "test"))

            def test_metrics(scores):
                return (float(metrics.metric_per_query(te.y, scores, te.query_ptr, "map").mean()),
                        float(metrics.metric_per_query(te.y, scores, te.query_ptr, "meanndcg").mean()))

            t0 = time.perf_counter()
            sel = GreedyRankRLS(n_jobs=args.threads).fit(tr.X, tr.y, tr.qid, va.X, va.y, va.qid)
            t_sel += time.perf_counter() - t0
            for lam in GRID:
                for k in range(1, 47):
                    mp, nd = test_metrics(sel.predict_path(te.X, lam, k))
                    curves[lam]["map"][k - 1] += mp / 5
                    curves[lam]["meanndcg"][k - 1] += nd / 5
            mp, nd = test_metrics(sel.predict_scores(te.X))
            chosen.append((sel.chosen_["lam"], sel.chosen_["k"], mp, nd))
            # RankRLS with all features, paper weights: the k = 46 end of each path, lambda on vali
            best = max(GRID, key=lambda lam: sel.details_["lambdas"][repr(lam)]["vali"]["map"][-1])
            baselines["rankrls (grid above, paper weights)"].append(test_metrics(sel.predict_path(te.X, best, 46)))
            model, _, _ = fit_best({"algorithm": "rankrls"}, tr, va, metric="map", convention="letor4", seed=0,
                                   threads=args.threads)
            baselines["ltrfs RankRLS (default grid)"].append(test_metrics(model.predict(te.X)))
            model, point, _ = fit_best({"algorithm": "ranksvm"}, tr, va, metric="map", convention="letor4", seed=0,
                                       threads=args.threads)
            baselines["RankSVM (default C grid)"].append(test_metrics(model.predict(te.X)))
            print(f"fold {fold}: greedy chose lam={sel.chosen_['lam']:g}, k={sel.chosen_['k']} "
                  f"(vali MAP {sel.chosen_['vali']:.4f}) test MAP {mp:.4f} MeanNDCG {nd:.4f}; "
                  f"RankSVM C={point['C']:g}; selector fit (4 paths + vali) {sel.seconds_:.2f} s")
    print("\nTest MAP / MeanNDCG vs number of selected features, mean of 5 folds:")
    print("lambda   " + "".join(f"   k={k:<9d}" for k in KS))
    for lam in GRID:
        cells = "".join(f" {curves[lam]['map'][k - 1]:.4f}/{curves[lam]['meanndcg'][k - 1]:.4f}" for k in KS)
        print(f"2^{int(np.log2(lam)):<6d}{cells}")
    for lam in GRID:
        kb = int(np.argmax(curves[lam]["map"])) + 1
        print(f"  lambda 2^{int(np.log2(lam))}: best test MAP over k {curves[lam]['map'][kb - 1]:.4f} at k={kb}")
    arr = np.array([c[2:] for c in chosen])
    print(f"\nGreedy RankRLS, lambda and k chosen on vali: test MAP {arr[:, 0].mean():.4f}, "
          f"MeanNDCG {arr[:, 1].mean():.4f} (choices {[(c[0], c[1]) for c in chosen]})")
    for name, vals in baselines.items():
        v = np.array(vals)
        print(f"{name:40s} test MAP {v[:, 0].mean():.4f}, MeanNDCG {v[:, 1].mean():.4f}")
    print(f"published (Lai et al. 2013 Table II, RankSVM-primal, MQ2008): MAP {PUBLISHED_RANKSVM_MAP}")
    print("published (Pahikkala et al. 2010): curves only, MAP ~0.455-0.480, MeanNDCG ~0.480-0.500 over k")
    print(f"time: Greedy RankRLS selector fits (4 lambdas x 46 steps + vali curves), 5 folds: {t_sel:.2f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-mq2008", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    if not args.no_speed:
        part1(args)
    part2(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: Greedy RankRLS (Pahikkala et al. 2010), speed and MQ2008 accuracy.

Part 1 (synthetic, ``ltrfs.datasets.synthetic.make``): the full 46-step path on an
MQ2007-sized set (about 43,000 rows, 1,000 queries, 46 features) on one thread (goal: under
2 s); the scaling ratios when m, n or k doubles (O(k m n): each should be about 2; k is
doubled from 10 to 20 with n = 92, where the shrinking candidate set matters least, and also
from 23 to 46 with n = 46, where it matters most: sum_{t<k} (n - t) grows by 1.5 there); the
speed-up over the naive wrapper (``naive_greedy_path``) on a small instance, with the largest
relative difference of the LQO errors. Times are the best of ``--repeat`` runs; numba
compilation (or loading its cache) happens before timing.

Part 1b (scaling figure, same generator, unless ``--no-figure``): seconds per greedy step,
the time of a k = 10 step path (its O(m n) set-up included) divided by k, best of ``--repeat``
rounds, for m of about 5,000 to 82,000 rows (120 to 1,920 queries of about 42 documents, n = 46)
and for n of 23 to 368 features (m = 20,475 rows, 480 queries); prints every point and the
least-squares slope b of log(seconds per step) = a + b log(size) per sweep (O(k m n): b close
to 1; with k fixed, the shrinking candidate set alone gives an n slope a little above 1, also
printed), and writes greedy_rankrls_scaling.png / .pdf (two log-log panels, points and fit)
and greedy_rankrls_scaling.csv (sweep, m, n, k, seconds_per_step) to ``--figure DIR``.

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

Usage: python bench/bench_greedy_rankrls.py [--repeat 3] [--no-mq2008] [--threads 1] [--no-speed]
       [--figure docs/figures/pahikkala2010 | --no-figure]
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
SWEEP_K = 10
SWEEP_QUERIES = (120, 240, 480, 960, 1920)  # about 5,000 to 82,000 rows at n = 46
SWEEP_FEATURES = (23, 46, 92, 184, 368)     # at SWEEP_N_QUERIES queries
SWEEP_N_QUERIES = 480                       # m = 20,475 rows
FIGURE_DIR = Path(__file__).resolve().parents[1] / "docs" / "figures" / "pahikkala2010"
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


def warm_up(threads):
    """Compile the numba kernels (or load their cache) outside every timing."""
    warm = synthetic_set(20, 6)
    greedy_path(warm.X, warm.y, warm.query_ptr, 1.0, n_jobs=threads)


def part1(args):
    print("== Part 1: speed (synthetic, one thread unless --threads) ==")
    warm_up(args.threads)
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


def scaling_sweeps(args):
    """Seconds per greedy step (k = SWEEP_K path time / k, best of --repeat rounds, each round
    timing every point once, so load drift hits all points alike) over the m and n sweeps:
    {"m": (sizes, shapes, seconds), "n": (...)} with shapes (m, n) per point."""
    warm_up(args.threads)
    sets = {"m": [synthetic_set(q, 46) for q in SWEEP_QUERIES],
            "n": [synthetic_set(SWEEP_N_QUERIES, n) for n in SWEEP_FEATURES]}
    datas = sets["m"] + sets["n"]
    paths = [lambda d=d: greedy_path(d.X, d.y, d.query_ptr, 1.0, SWEEP_K, n_jobs=args.threads) for d in datas]
    sec = np.min([[best_time(p, 1) for p in paths] for _ in range(args.repeat)], axis=0) / SWEEP_K
    out, start = {}, 0
    for sweep, group in sets.items():
        shapes = np.array([d.X.shape for d in group])
        out[sweep] = (shapes[:, 0 if sweep == "m" else 1], shapes, sec[start:start + len(group)])
        start += len(group)
    return out


def part1b(args):
    """Print the sweeps' points and fitted log-log slopes; write the figure (PNG, PDF) and CSV."""
    threads = f"{args.threads} thread" + ("s" if args.threads > 1 else "")
    print(f"\n== Part 1b: scaling figure, seconds per greedy step (k={SWEEP_K}, {threads}) ==")
    res = scaling_sweeps(args)
    fits = {s: np.polyfit(np.log(size), np.log(sec), 1) for s, (size, _, sec) in res.items()}
    n_sizes = res["n"][0]
    work_slope = np.polyfit(np.log(n_sizes), np.log(SWEEP_K * n_sizes - SWEEP_K * (SWEEP_K - 1) / 2), 1)[0]
    for s, (size, shapes, sec) in res.items():
        pts = ", ".join(f"{v}: {t * 1e3:.2f} ms" for v, t in zip(size, sec))
        print(f"{s} sweep ({'n=46' if s == 'm' else f'm={shapes[0, 0]}'}): {pts}")
        print(f"  fitted slope of log(s/step) on log {s}: {fits[s][0]:.3f}"
              + (f" (candidate count sum_t (n - t) alone: {work_slope:.3f})" if s == "n" else ""))
    out = Path(args.figure)
    out.mkdir(parents=True, exist_ok=True)
    rows = [f"{s},{m},{n},{SWEEP_K},{t:.6e}" for s, (_, shapes, sec) in res.items() for (m, n), t in zip(shapes, sec)]
    (out / "greedy_rankrls_scaling.csv").write_text("sweep,m,n,k,seconds_per_step\n" + "\n".join(rows) + "\n")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker as mticker

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), constrained_layout=True)
    m_fixed = res["n"][1][0, 0]
    labels = {"m": ("training rows m", "n = 46 features, ~42 documents per query"),
              "n": ("features n", f"m = {m_fixed:,} rows, {SWEEP_N_QUERIES} queries")}
    for ax, (s, (size, _, sec)) in zip(axes, res.items()):
        grid = np.geomspace(size[0], size[-1], 50)
        ax.loglog(size, sec, "o", color="C0", label=f"measured (best of {args.repeat})")
        ax.loglog(grid, np.exp(np.polyval(fits[s], np.log(grid))), "-", color="C1",
                  label=f"fit: slope {fits[s][0]:.2f}")
        ax.loglog(grid, sec[0] * grid / size[0], ":", color="0.5", label="slope 1 (linear), through first point")
        ax.set(xlabel=labels[s][0], ylabel="seconds per greedy step", title=labels[s][1])
        ax.set_xticks(size, [f"{v:,}" for v in size])
        ax.xaxis.set_minor_locator(mticker.NullLocator())
        ax.yaxis.set_major_locator(mticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="upper left", fontsize=9)
    fig.suptitle(f"Greedy RankRLS (Pahikkala et al. 2010), synthetic data: time per greedy step, "
                 f"k = {SWEEP_K} steps, {threads}")
    for ext in ("png", "pdf"):
        fig.savefig(out / f"greedy_rankrls_scaling.{ext}", dpi=150)
    plt.close(fig)
    print(f"wrote {out}/greedy_rankrls_scaling.png, .pdf, .csv")


def part2(args):
    print("\n== Part 2: MQ2008, 5 folds, test (letor4) ==")
    if args.no_mq2008:
        print("skipped (--no-mq2008)")
        return
    if not DEFAULT_ZIP.exists():
        print(f"MQ2008 archive not found at {DEFAULT_ZIP}; skipping the real-data part")
        return
    from ltrfs.pipeline.train import fit_best
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
    ap.add_argument("--figure", default=str(FIGURE_DIR), metavar="DIR",
                    help="directory of the scaling figure (PNG, PDF) and its CSV (default: docs/figures/pahikkala2010)")
    ap.add_argument("--no-figure", action="store_true")
    args = ap.parse_args()
    if not args.no_speed:
        part1(args)
    if not args.no_figure:
        part1b(args)
    part2(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

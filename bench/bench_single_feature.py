"""Benchmark: the compiled single-feature importance table (ltrfs.scoring.single_feature).

Data (numpy, seeded): 10,000 queries, 1,200,000 rows (query sizes LogNormal, scaled to the row
total, 1..1000 documents), 136 float32 features of MSLR-like kinds (continuous, integer counts
with many ties, zero-inflated, per-query constants, coarse fractions, two constant columns);
labels 0..4 from a latent relevance.

Printed: the time of ``single_feature_table`` (tie rule --ties, default "expected") on all
features (after a warm-up compile) with 1 and 2 threads (best wall time of --repeat runs, and
that run's process CPU time: on a loaded machine the 2-thread wall time shows contention, the CPU
time does not); the time of the reference (the loop of ``metrics.evaluate`` over features,
descending and ascending, that ``ltrfs.scoring.single_feature_table`` used) on a sample of
features, extrapolated to all of them, and the ratio; the largest difference between the two on
the sampled features; peak RSS of the process. Goal (issue 3): < 10 s on 2 cores.

Tie rules: ``single_feature_table`` with ties="file_order" and ties="expected" timed on the same
data in the same run (runs interleaved, best wall time of each over --tie-repeat runs on
--tie-threads threads), on these data (MSLR-shaped) and on an MQ2008-shaped case (784 queries,
15,211 rows, 46 features, labels 0..2, letor4), and the ratio expected / file_order. Goal:
<= 1.20. ``--ties-only`` runs only this part.

Usage: python bench/bench_single_feature.py [--queries 10000] [--rows 1200000] [--features 136]
                                            [--sample 4] [--convention mslr] [--repeat 2]
                                            [--ties expected] [--ties-only] [--tie-repeat 3]
                                            [--tie-threads 2]
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from ltrfs import metrics
from ltrfs.scoring.single_feature import METRIC_NAMES, single_feature_table


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def current_rss_gib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**30


def make_data(n_queries: int, rows: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    raw = rng.lognormal(0.0, 0.6, n_queries)
    sizes = np.maximum(1, np.floor(raw / raw.sum() * rows)).astype(np.int64)
    sizes = np.minimum(sizes, 1000)
    short = rows - int(sizes.sum())  # spread the remainder one row at a time
    while short > 0:
        pick = rng.choice(np.flatnonzero(sizes < 1000), min(short, n_queries), replace=False)
        sizes[pick] += 1
        short -= pick.size
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    qrow = np.repeat(np.arange(n_queries), sizes)
    latent = (rng.standard_normal(m) + rng.normal(0.0, 0.6, n_queries)[qrow]).astype(np.float32)
    y = np.searchsorted(np.array([0.3, 1.1, 1.8, 2.4], np.float32), latent).astype(np.int32)
    X = np.empty((m, d), np.float32)
    for f in range(d):
        kind = f % 6
        v = np.float32(rng.uniform(0.0, 0.9)) * latent + rng.standard_normal(m, dtype=np.float32)
        if kind == 0:  # continuous score
            X[:, f] = v
        elif kind == 1:  # counts: a handful of values, many ties
            X[:, f] = np.floor(np.exp(0.5 * v))
        elif kind == 2:  # zero-inflated
            X[:, f] = np.where(rng.random(m) < 0.6, np.float32(0.0), np.exp(v))
        elif kind == 3:  # query-level: constant within each query
            X[:, f] = rng.standard_normal(n_queries).astype(np.float32)[qrow]
        elif kind == 4:  # coarse fractions
            X[:, f] = np.round(1.0 / (1.0 + np.exp(-v)), 2)
        else:  # negative-valued continuous
            X[:, f] = -np.abs(v)
    X[:, [5, d - 7]] = 1.0  # constant columns
    return X, y, ptr


def reference_table(X, y, ptr, features, convention, ties="file_order"):
    """The pre-kernel implementation (a loop of metrics.evaluate) on the given features."""
    out = {name: np.empty(len(features)) for name in METRIC_NAMES}
    out.update({f"{name}:asc": np.empty(len(features)) for name in METRIC_NAMES})
    for i, f in enumerate(features):
        column = X[:, f].astype(np.float64)
        for suffix, scores in (("", column), (":asc", -column)):
            qm = metrics.evaluate(y, scores, ptr, convention=convention, max_k=10, ties=ties)
            means = np.concatenate([qm.precision.mean(0), [qm.map.mean()], qm.ndcg.mean(0),
                                    [qm.mean_ndcg.mean()]])
            for name, value in zip(METRIC_NAMES, means):
                out[name + suffix][i] = value
    return out


def time_tie_rules(name, X, y, ptr, convention, threads, repeat) -> float:
    """Best wall time of ``single_feature_table`` with each tie rule (runs interleaved) and the
    ratio expected / file_order, printed; returns the ratio."""
    best = {"file_order": np.inf, "expected": np.inf}
    for _ in range(repeat):
        for ties in best:
            t0 = time.perf_counter()
            single_feature_table(X, y, ptr, convention, n_threads=threads, ties=ties)
            best[ties] = min(best[ties], time.perf_counter() - t0)
    ratio = best["expected"] / best["file_order"]
    sizes = np.diff(ptr)
    print(f"ties, {name} ({X.shape[0]:,} rows, {len(sizes):,} queries, median {int(np.median(sizes))} "
          f"documents, {X.shape[1]} features, {convention}, {threads} thread(s), best of {repeat}): "
          f"file_order {best['file_order']:.3f} s, expected {best['expected']:.3f} s, "
          f"ratio expected/file_order {ratio:.3f} (goal <= 1.20: {'met' if ratio <= 1.20 else 'NOT met'})")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=1_200_000)
    parser.add_argument("--features", type=int, default=136)
    parser.add_argument("--sample", type=int, default=4, help="features timed with the reference")
    parser.add_argument("--convention", default="mslr")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ties", default="expected", choices=metrics.TIES,
                        help="tie rule of the thread and reference timings")
    parser.add_argument("--ties-only", action="store_true",
                        help="only time file_order against expected ties (skip threads and reference)")
    parser.add_argument("--tie-repeat", type=int, default=3, help="runs per tie rule (MSLR-shaped case)")
    parser.add_argument("--tie-threads", type=int, default=2, help="threads of the tie-rule timings")
    args = parser.parse_args()

    t0 = time.perf_counter()
    X, y, ptr = make_data(args.queries, args.rows, args.features)
    d = X.shape[1]
    sizes = np.diff(ptr)
    print(f"data: {X.shape[0]:,} rows, {len(sizes):,} queries (median {int(np.median(sizes))}, "
          f"max {sizes.max()} documents), {d} float32 features, labels 0..{y.max()}, "
          f"convention {args.convention}; made in {time.perf_counter() - t0:.1f} s; "
          f"RSS {current_rss_gib():.2f} GiB, peak so far {peak_rss_gib():.2f} GiB")

    t0 = time.perf_counter()
    for ties in metrics.TIES:
        for dtype in (np.float32, np.float64):
            single_feature_table(X[:200].astype(dtype), y[:200], np.array([0, 100, 200]), args.convention,
                                 n_threads=2, ties=ties)
    print(f"warm-up (compile or load from cache): {time.perf_counter() - t0:.1f} s")

    if not args.ties_only:
        times = {}
        table = None
        for threads in (1, 2):
            best = cpu = np.inf
            for _ in range(args.repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                table = single_feature_table(X, y, ptr, args.convention, n_threads=threads, ties=args.ties)
                if time.perf_counter() - t0 < best:
                    best, cpu = time.perf_counter() - t0, time.process_time() - c0
            times[threads] = best
            print(f"kernel (ties {args.ties}): {d} features, {threads} thread(s): best {best:.2f} s wall of "
                  f"{args.repeat} ({best / d * 1e3:.1f} ms per feature; {cpu:.2f} s CPU); "
                  f"peak RSS {peak_rss_gib():.2f} GiB")

        rng = np.random.default_rng(1)
        sample = np.sort(rng.choice(d, min(args.sample, d), replace=False))
        t0 = time.perf_counter()
        ref = reference_table(X, y, ptr, sample, args.convention, args.ties)
        ref_time = time.perf_counter() - t0
        projected = ref_time / len(sample) * d
        diff = max(float(np.abs(ref[k] - table[k][sample]).max()) for k in ref)
        print(f"reference (loop of metrics.evaluate): {len(sample)} features {sample.tolist()} in "
              f"{ref_time:.2f} s -> {projected:.1f} s projected for {d} features")
        print(f"ratio reference / kernel: {projected / times[1]:.0f}x (1 thread), "
              f"{projected / times[2]:.0f}x (2 threads); largest difference on the sample {diff:.1e}")
        print(f"goal (< 10 s on 2 cores): {'met' if times[2] < 10 else 'NOT met'} ({times[2]:.2f} s); "
              f"peak RSS {peak_rss_gib():.2f} GiB (data {X.nbytes / 2**30:.2f} GiB)")

    time_tie_rules("MSLR-shaped", X, y, ptr, args.convention, args.tie_threads, args.tie_repeat)
    Xs, ys, ptrs = make_data(784, 15_211, 46, seed=2)
    time_tie_rules("MQ2008-shaped", Xs, np.minimum(ys, 2), ptrs, "letor4", args.tie_threads,
                   max(20, args.tie_repeat))


if __name__ == "__main__":
    main()

"""Benchmark: FS-ED's expected divergence on a Yahoo!-set-2-sized problem.

Data: ``ltrfs.datasets.synthetic.make`` with 700 features (40 informative, 60 redundant, 600
noise), 5 label levels, split by query into train (~35,000 rows) and vali (~1/3 of train).

Printed:
  * the chosen mode (binned, ``approx=True``) on all 700 features with ``--threads`` threads, and
    with one thread (goal: under 60 s on 2 cores; the paper: about 1.5 h on 8 processors);
  * the reference: the exact O(M x points) evaluation (every class density summed over all
    training rows, numpy, chunked), timed on ``--sample`` features and extrapolated;
  * the exact windowed mode (``approx=False``) on the same sample;
  * speed-ups of both modes over the reference (per feature), and the largest difference of
    the divergences between approx, exact and the reference on the sample;
  * optionally MQ2008 Fold 1 (exact and approx) when the archive is present.
Numba compilation (or loading its cache) is done before timing and reported apart.

Usage: python bench/bench_fs_ed.py [--threads 2] [--sample 4] [--queries 1450] [--no-mq2008]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.datasets import synthetic
from ltrfs.scoring import divergence as dv

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP", "/work/shared/data/MQ2008.zip"))


def reference(Xt, yt, Xv, features, chunk=1024) -> np.ndarray:
    """Exact expected divergence, O(M x points) per feature: every kernel of every class row
    at every vali point (numpy, in chunks of points), densities normalised over the points."""
    labels = np.unique(yt)
    out = np.empty(len(features))
    for n, f in enumerate(features):
        x, pts = Xt[:, f].astype(np.float64), Xv[:, f].astype(np.float64)
        if x.min() == x.max():
            out[n] = 0.0
            continue
        hs = dv.class_bandwidths(x, yt)
        probs = []
        for r in labels:
            xr, h = x[yt == r], hs[int(r)]
            dens = np.empty(pts.size)
            for s in range(0, pts.size, chunk):
                z = (pts[s:s + chunk, None] - xr[None, :]) / h
                dens[s:s + chunk] = np.exp(-0.5 * z * z).sum(1)
            probs.append(dens / dens.sum())
        d = 0.0
        for a in range(len(labels)):
            for b in range(a + 1, len(labels)):
                p, q = probs[a], probs[b]
                m = 0.5 * (p + q)
                with np.errstate(divide="ignore", invalid="ignore"):
                    t = np.where(p > 0, p * np.log2(p / m), 0.0) + np.where(q > 0, q * np.log2(q / m), 0.0)
                d += (labels[b] - labels[a]) * 0.5 * t.sum()
        out[n] = d
    return out


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sample", type=int, default=4, help="features timed with the O(M x points) reference")
    ap.add_argument("--queries", type=int, default=1450, help="queries generated (3/4 go to train)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-mq2008", action="store_true")
    args = ap.parse_args()

    # compile / load the Numba cache on a tiny problem
    rng = np.random.default_rng(0)
    _, t_warm = timed(lambda: [dv.expected_divergence(rng.random((50, 2)), rng.integers(0, 3, 50),
                                                      rng.random((20, 2)), approx=a) for a in (False, True)])
    print(f"numba compile / cache load: {t_warm:.2f} s (not part of the timings below)")

    (data, _), t_gen = timed(lambda: synthetic.make(n_queries=args.queries, n_informative=40, n_redundant=60,
                                                    n_noise=600, n_levels=5, seed=args.seed))
    n_train = (3 * data.n_queries) // 4
    train = data.subset_queries(np.arange(n_train))
    vali = data.subset_queries(np.arange(n_train, data.n_queries))
    d = train.n_features
    print(f"synthetic (generated in {t_gen:.1f} s): train {train.n_rows} rows x {d} features, "
          f"vali {vali.n_rows} rows, labels {np.bincount(train.y).tolist()}")

    Xt, yt, Xv = train.X, train.y, vali.X
    approx_all, t_all = timed(lambda: dv.expected_divergence(Xt, yt, Xv, approx=True, n_threads=args.threads))
    print(f"chosen mode (approx=True, TAU={dv.TAU}), all {d} features, {args.threads} threads: {t_all:.2f} s "
          f"(goal < 60 s)")
    _, t_one = timed(lambda: dv.expected_divergence(Xt, yt, Xv, approx=True, n_threads=1))
    print(f"chosen mode, 1 thread: {t_one:.2f} s (thread speed-up {t_one / t_all:.2f}x)")

    sample = np.linspace(0, d - 1, args.sample).round().astype(np.int64)
    ref, t_ref = timed(lambda: reference(Xt, yt, Xv, sample))
    exact, t_exact = timed(lambda: dv.expected_divergence(Xt, yt, Xv, sample, approx=False, n_threads=1))
    per_ref, per_exact, per_chosen = t_ref / sample.size, t_exact / sample.size, t_all / d
    print(f"reference O(M x points), numpy, {sample.size} features {sample.tolist()}: {per_ref:.3f} s/feature "
          f"-> {per_ref * d:.0f} s for {d} features (1 thread)")
    print(f"exact windowed mode (approx=False), 1 thread: {per_exact:.3f} s/feature -> {per_exact * d:.0f} s "
          f"for {d} features; speed-up over the reference {per_ref / per_exact:.1f}x")
    print(f"chosen mode: {per_chosen * 1e3:.2f} ms/feature ({args.threads} threads); speed-up over the "
          f"reference {per_ref / per_chosen:.0f}x ({per_ref / (t_one / d):.0f}x per thread)")
    print(f"max |exact - reference| on the sample: {np.abs(exact - ref).max():.2e}; "
          f"max |approx - exact|: {np.abs(approx_all[sample] - exact).max():.2e} (tolerance 1e-3)")

    if not args.no_mq2008:
        if not DEFAULT_ZIP.exists():
            print(f"MQ2008 part skipped: {DEFAULT_ZIP} is absent")
            return
        from ltrfs.io import read_letor

        with tempfile.TemporaryDirectory() as tmp:
            with zipfile.ZipFile(DEFAULT_ZIP) as archive:
                for split in ("train", "vali"):
                    archive.extract(f"MQ2008/Fold1/{split}.txt", tmp)
            tr = read_letor(Path(tmp) / "MQ2008/Fold1/train.txt")
            va = read_letor(Path(tmp) / "MQ2008/Fold1/vali.txt")
        e, t_e = timed(lambda: dv.expected_divergence(tr.X, tr.y, va.X, n_threads=args.threads))
        a, t_a = timed(lambda: dv.expected_divergence(tr.X, tr.y, va.X, approx=True, n_threads=args.threads))
        print(f"MQ2008 Fold1 ({tr.n_rows} train, {va.n_rows} vali rows, {tr.n_features} features, "
              f"{args.threads} threads): exact {t_e:.2f} s, approx {t_a:.3f} s, max |approx - exact| "
              f"{np.abs(a - e).max():.2e}")


if __name__ == "__main__":
    main()

"""Benchmark: FS-BFS (best-first search + Coordinate Ascent) on 700 features and on MQ2008.

Part 1, cost on a Yahoo!-set-2-sized problem: ``ltrfs.datasets.synthetic.make`` with 700
features (40 informative, 60 redundant, 600 noise), 5 label levels, 1300 queries of median 27
documents; the first 3/4 of the queries (about 35,000 rows) are the training split. FS-BFS builds
``--synth-k`` subsets (50) with the search bounds given on the command line; the time of every
subset is printed. With ``--synth-subsets N`` < k only N subsets are built and the time for k is
projected from their mean (said so in the output). Goal: k = 50 under 30 minutes on 2 cores (the
FS-ED paper: FS-BFS made no progress in 7 days on Yahoo!'s 700 features). ``--quick`` uses 400
queries instead (about 11,000 rows, still 700 features).

Part 2, MQ2008 (5 folds, when /work/shared/data/MQ2008.zip is present): FS-BFS with k = 15
subsets on train (k in {5, 10, 15} are prefixes of one run), then RankSVM (C on vali from its
default grid, vali NDCG@10) and LambdaMART (early stopping on vali) trained on the projected
features; mean test NDCG@10 and MAP (letor4). SPEC section 5 gives no FS-BFS numbers; printed for
reference: Lai et al. 2013 Table II (all 46 features) and the number of FS-BFS features that
gave the best result in Gupta & Rosso 2012 Table 1.

Usage: python bench/bench_fs_bfs.py [--quick] [--threads 1] [--folds 1 2 3 4 5] [--no-mq2008]
       [--no-synth] [--synth-subsets N] [--max-candidates 5] [--max-size 5]
       [--mq-max-candidates 10] [--mq-max-size 3]
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.datasets import synthetic
from ltrfs.metrics import evaluate, mean_metrics, metric_per_query
from ltrfs.selection.fs_bfs import FSBFS

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP", "/work/shared/data/MQ2008.zip"))
KS = (5, 10, 15)


def synthetic_part(args):
    n_queries = 400 if args.quick else 1300
    data, truth = synthetic.make(n_queries=n_queries, docs_median=27, n_informative=40, n_redundant=60,
                                 n_noise=600, n_levels=5, seed=args.seed)
    n_train = (3 * data.n_queries) // 4
    train = data.subset_queries(np.arange(n_train))
    k = args.synth_k
    n_build = min(k, args.synth_subsets or k)
    print(f"[700 features] synthetic {'(quick) ' if args.quick else ''}train: {train.n_rows} rows, "
          f"{train.n_queries} queries, {train.n_features} features, labels {np.bincount(train.y).tolist()}")
    sel = FSBFS(k=n_build, max_candidates=args.max_candidates, open_size=args.open_size, max_stale=args.max_stale,
                max_size=args.max_size, random_state=args.seed, n_jobs=args.threads)
    print(f"  bounds: max_candidates={sel.max_candidates}, open_size={sel.open_size}, max_stale={sel.max_stale}, "
          f"max_size={sel.max_size}; CA 5 restarts, 25 iterations, step 0.05, scale 2, tolerance 0.001; "
          f"{args.threads} thread(s)")
    t0 = time.perf_counter()
    sel.fit(train.X, train.y, train.qid)
    total = time.perf_counter() - t0
    per = np.array(sel.details_["subset_seconds"])
    roles = {int(f["id"]) - 1: f["role"] for f in truth["features"]} if isinstance(truth, dict) and \
        "features" in truth else {}
    for j, S in enumerate(sel.subsets_):
        tags = "".join((roles.get(int(f), "?") or "?")[0] for f in S)
        print(f"  subset {j + 1:2d}: {len(S)} features ({tags}), train NDCG@10 {sel.subset_scores_[j]:.4f}, "
              f"{sel.details_['expansions'][j]} expansions, {sel.details_['evaluations'][j]} CA runs, {per[j]:.1f} s")
    print(f"  single-feature scores: {sel.seconds_ - per.sum():.1f} s; {len(per)} subsets in {total:.1f} s "
          f"(mean {per.mean():.1f} s per subset)")
    if n_build < k:
        projected = (sel.seconds_ - per.sum()) + per.mean() * k
        print(f"  PROJECTED (not measured) time for k={k}: {projected:.0f} s = {projected / 60:.1f} min "
              f"from the mean of {n_build} subsets (later subsets on weaker features may differ)")
    else:
        print(f"  MEASURED time for k={k}: {total:.0f} s = {total / 60:.1f} min (goal < 30 min)")


def ranksvm_on_vali(Ztr, tr, Zva, va):
    from ltrfs.rankers import RankSVM

    best = None
    model = RankSVM(warm_start=True)
    for C in RankSVM.default_grid["C"]:
        model.set_params(C=C).fit(Ztr, tr.y, tr.qid)
        v = metric_per_query(va.y, model.predict(Zva), va.query_ptr, "ndcg@10", "letor4").mean()
        if best is None or v > best[0]:
            best = (v, C, model.coef_.copy())
    return best


def mq2008_part(args):
    if not DEFAULT_ZIP.exists():
        print(f"MQ2008 part skipped: {DEFAULT_ZIP} is absent")
        return
    from ltrfs.io import read_letor
    from ltrfs.rankers import LambdaMART

    rows = {(k, r): [] for k in KS for r in ("RankSVM", "LambdaMART")}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(DEFAULT_ZIP) as archive:
            for fold in args.folds:
                for split in ("train", "vali", "test"):
                    archive.extract(f"MQ2008/Fold{fold}/{split}.txt", tmp)
        for fold in args.folds:
            tr, va, te = (read_letor(Path(tmp) / f"MQ2008/Fold{fold}/{s}.txt") for s in ("train", "vali", "test"))
            sel = FSBFS(k=max(KS), max_candidates=args.mq_max_candidates, open_size=args.open_size,
                        max_stale=args.max_stale, max_size=args.mq_max_size, random_state=args.seed,
                        n_jobs=args.threads)
            sel.fit(tr.X, tr.y, tr.qid)
            sizes = [len(S) for S in sel.subsets_]
            print(f"[MQ2008 Fold{fold}] FS-BFS: {len(sizes)} subsets of sizes {sizes} in {sel.seconds_:.1f} s "
                  f"(max_candidates={sel.max_candidates}, max_size={sel.max_size}); train NDCG@10 of the subsets "
                  f"{np.round(sel.subset_scores_, 4).tolist()}")
            for k in KS:
                if k > len(sizes):
                    print(f"  k={k}: only {len(sizes)} subsets built (features exhausted); skipped")
                    continue
                Ztr, Zva, Zte = sel.transform(tr.X, k), sel.transform(va.X, k), sel.transform(te.X, k)
                t0 = time.perf_counter()
                v, C, coef = ranksvm_on_vali(Ztr, tr, Zva, va)
                m = mean_metrics(evaluate(te.y, Zte @ coef, te.query_ptr, "letor4"))
                rows[(k, "RankSVM")].append((m["NDCG@10"], m["MAP"]))
                t_svm = time.perf_counter() - t0
                t0 = time.perf_counter()
                lm = LambdaMART(random_state=args.seed, n_jobs=args.threads).fit(Ztr, tr.y, tr.qid, Zva, va.y, va.qid)
                m2 = mean_metrics(evaluate(te.y, lm.predict(Zte), te.query_ptr, "letor4"))
                rows[(k, "LambdaMART")].append((m2["NDCG@10"], m2["MAP"]))
                print(f"  k={k:2d}: RankSVM (C={C:g}, vali N@10 {v:.4f}) test N@10 {m['NDCG@10']:.4f} MAP "
                      f"{m['MAP']:.4f} [{t_svm:.1f} s]; LambdaMART test N@10 {m2['NDCG@10']:.4f} MAP {m2['MAP']:.4f} "
                      f"[{time.perf_counter() - t0:.1f} s]")
            sys.stdout.flush()
    print(f"MQ2008 mean over folds {args.folds} (test, letor4):")
    for (k, r), vals in rows.items():
        if vals:
            a = np.array(vals)
            print(f"  FS-BFS k={k:2d} + {r:10s}: NDCG@10 {a[:, 0].mean():.4f}  MAP {a[:, 1].mean():.4f}  ({len(vals)} folds)")
    print("  published reference (all 46 features; Lai et al. 2013 Table II, letor4): RankSVM-primal NDCG@10 0.2309, "
          "MAP 0.4744; RankBoost 0.2255 / 0.4775. Gupta & Rosso 2012 Table 1: FS-BFS's best number of features "
          "on MQ2008 was 12 (RankSVM), 7 (RankBoost), 7 (LambdaMART); its Fig. 2 values are not in SPEC.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a smaller 700-feature instance (400 queries)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synth-k", type=int, default=50)
    ap.add_argument("--synth-subsets", type=int, default=None, help="build only this many and project to --synth-k")
    ap.add_argument("--max-candidates", type=int, default=5)
    ap.add_argument("--max-size", type=int, default=5)
    ap.add_argument("--open-size", type=int, default=10)
    ap.add_argument("--max-stale", type=int, default=5)
    ap.add_argument("--mq-max-candidates", type=int, default=10)
    ap.add_argument("--mq-max-size", type=int, default=3, help="3 leaves >= 15 subsets of 46 features (8 gave only 9)")
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--no-synth", action="store_true")
    ap.add_argument("--no-mq2008", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="log every subset (INFO)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(message)s")
    t0 = time.perf_counter()
    if not args.no_synth:
        synthetic_part(args)
    if not args.no_mq2008:
        mq2008_part(args)
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()

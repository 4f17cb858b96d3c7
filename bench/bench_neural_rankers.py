"""Benchmark: ltrfs RankNet and ListNet on MQ2008, all 5 folds, against the published ListNet.

Per fold: fit on train with vali as the validation split (model choice / early stopping on vali
NDCG@10, LETOR 4.0 convention; both rankers have an empty default grid, so there is no grid
search), then score test with ``ltrfs.metrics.evaluate(y, s, ptr, "letor4")`` and
``mean_metrics``. Printed per fold and as the 5-fold mean: test NDCG@10 and MAP, epochs
(iterations) run, the epoch kept, seconds per epoch and in total. The mean is printed next to
LETOR's published linear ListNet (Lai et al. 2013 Table II: NDCG@10 0.2303, MAP 0.4775); SPEC
section 5 lists no RankNet number for MQ2008.

Models run: ListNet (default: L-BFGS), ListNet with RankLib's optimiser (per-query gradient
steps, 1500 epochs, learning rate 1e-5; skip with --no-ranklib), RankNet (default: Adam).
For the two ListNet optimisers the final training loss is printed too (L-BFGS should reach the
same or a lower loss).

Usage: python bench/bench_neural_rankers.py [path/to/MQ2008.zip] [--no-ranklib] [--n-jobs N]
Exits 0 with a message when the archive is absent.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metrics import evaluate, mean_metrics
from ltrfs.rankers.listnet import ListNet
from ltrfs.rankers.ranknet import RankNet

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
PUBLISHED = {"listnet": (0.2303, 0.4775)}  # Lai et al. 2013, Table II (LETOR 4.0 baseline)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--no-ranklib", dest="ranklib", action="store_false",
                        help="skip ListNet with RankLib's per-query SGD (1500 epochs)")
    parser.add_argument("--n-jobs", type=int, default=1, help="BLAS threads per fit")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_neural_rankers: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0

    models = {"ListNet (L-BFGS, default)": lambda: ListNet(n_jobs=args.n_jobs)}
    if args.ranklib:
        models["ListNet (RankLib SGD, 1500 ep, lr 1e-5)"] = lambda: ListNet(solver="sgd", n_jobs=args.n_jobs)
    models["RankNet (10 hidden, Adam, default)"] = lambda: RankNet(n_jobs=args.n_jobs)

    # compile the Numba kernels once (cached on disk afterwards) so fold 1 is not charged for it
    rng = np.random.default_rng(0)
    Xw, yw, qw = rng.random((40, 3)), rng.integers(0, 3, 40), np.repeat(np.arange(4), 10)
    for make in models.values():
        make().set_params(**({"epochs": 1} if "epochs" in make().get_params() else {"max_iter": 1})).fit(Xw, yw, qw)

    results = {name: [] for name in models}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        for fold in range(1, 6):
            tr, va, te = (read_letor(root / f"Fold{fold}" / f"{s}.txt") for s in ("train", "vali", "test"))
            if fold == 1:
                print(f"MQ2008 Fold1: train {tr.n_rows} rows / {tr.n_queries} queries, {tr.n_features} features; "
                      f"vali {va.n_queries} queries; test {te.n_queries} queries")
            for name, make in models.items():
                start = time.perf_counter()
                model = make().fit(tr.X, tr.y, tr.qid, va.X, va.y, va.qid)
                seconds = time.perf_counter() - start
                mm = mean_metrics(evaluate(te.y, model.predict(te.X), te.query_ptr, "letor4"))
                results[name].append({"ndcg10": mm["NDCG@10"], "map": mm["MAP"], "vali": model.best_score_,
                                      "epochs": model.n_iter_, "best": model.best_iteration_,
                                      "seconds": seconds, "per_epoch": seconds / max(model.n_iter_, 1),
                                      "loss": model.train_loss_[-1] if model.train_loss_ else float("nan")})
                r = results[name][-1]
                print(f"  fold {fold} {name:40s} test NDCG@10 {r['ndcg10']:.4f} MAP {r['map']:.4f} "
                      f"(vali NDCG@10 {r['vali']:.4f}) epochs {r['epochs']:4d} kept {r['best']:4d} "
                      f"{r['per_epoch'] * 1000:7.2f} ms/epoch {r['seconds']:6.2f} s  final train loss {r['loss']:.5f}",
                      flush=True)

    print("\nmean over 5 folds, test, LETOR 4.0 convention")
    print(f"{'model':42s} {'NDCG@10':>8} {'MAP':>7} {'pub NDCG@10':>11} {'pub MAP':>8} {'ms/epoch':>9} "
          f"{'s/fold':>7} {'s total':>8}")
    for name, rows in results.items():
        nd = np.mean([r["ndcg10"] for r in rows])
        mp = np.mean([r["map"] for r in rows])
        pub = PUBLISHED["listnet"] if name.startswith("ListNet") else None
        pub_txt = f"{pub[0]:11.4f} {pub[1]:8.4f}" if pub else f"{'-':>11} {'-':>8}"
        per_epoch = 1000 * sum(r["seconds"] for r in rows) / max(sum(r["epochs"] for r in rows), 1)
        total = sum(r["seconds"] for r in rows)
        print(f"{name:42s} {nd:8.4f} {mp:7.4f} {pub_txt} {per_epoch:9.2f} {total / 5:7.2f} {total:8.2f}")
    print("(published: Lai et al. 2013 Table II, LETOR's linear ListNet baseline; no published RankNet "
          "number for MQ2008 in SPEC section 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

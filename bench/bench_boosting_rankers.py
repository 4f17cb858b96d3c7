"""Benchmark: ltrfs RankBoost, AdaRank-NDCG and AdaRank-MAP on MQ2008 (5 folds) against the
published numbers (Lai et al. 2013, Table II, LETOR 4.0 convention).

Per fold: fit on train.txt with vali.txt as the validation split (best-on-vali model; no
grid: these rankers have none), score test.txt, evaluate with ltrfs.metrics.evaluate(...,
"letor4") and mean_metrics. Printed: per fold NDCG@10, MAP, rounds run, weak rankers kept and
seconds (total and per round); then the 5-fold means next to the published values and the
gaps (acceptance: within 0.02).

``--variants`` also runs the settings tried while checking the gap: RankBoost with RankLib's
signed selection (select="max") and without early stopping; AdaRank with NDCG@10 as E, the
paper's query-weight update and without RankLib's enqueue phase.

Usage: python bench/bench_boosting_rankers.py [path/to/MQ2008.zip] [--variants]
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
from ltrfs.rankers.adarank import AdaRankMAP, AdaRankNDCG
from ltrfs.rankers.rankboost import RankBoost

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
PUBLISHED = {"RankBoost": (0.2255, 0.4775), "AdaRank-NDCG": (0.2307, 0.4824), "AdaRank-MAP": (None, None)}


def models(variants: bool):
    out = [("RankBoost", "RankBoost", lambda: RankBoost()),
           ("AdaRank-NDCG", "AdaRank-NDCG", lambda: AdaRankNDCG()),
           ("AdaRank-MAP", "AdaRank-MAP", lambda: AdaRankMAP())]
    if variants:
        out += [("RankBoost select=max", "RankBoost", lambda: RankBoost(select="max")),
                ("RankBoost no early stop", "RankBoost", lambda: RankBoost(early_stopping_rounds=None)),
                ("AdaRank-NDCG E=ndcg@10", "AdaRank-NDCG", lambda: AdaRankNDCG(metric="ndcg@10")),
                ("AdaRank-NDCG vali ndcg@10", "AdaRank-NDCG", lambda: AdaRankNDCG(vali_metric="ndcg@10")),
                ("AdaRank-NDCG paper update", "AdaRank-NDCG", lambda: AdaRankNDCG(weight_update="paper")),
                ("AdaRank-NDCG no enqueue", "AdaRank-NDCG", lambda: AdaRankNDCG(enqueue=False)),
                ("AdaRank-MAP paper update", "AdaRank-MAP", lambda: AdaRankMAP(weight_update="paper"))]
    return out


def load(root: Path, fold: int, split: str):
    data = read_letor(root / f"Fold{fold}" / f"{split}.txt")
    qid = np.repeat(np.arange(len(data.query_ptr) - 1), np.diff(data.query_ptr))
    return data.X, data.y, qid, data.query_ptr


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--variants", action="store_true", help="also run the settings tried for the gap")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_boosting_rankers: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        root = Path(tmp) / "MQ2008"
        folds = {i: {s: load(root, i, s) for s in ("train", "vali", "test")} for i in range(1, 6)}
    # compile the Numba kernels (cached on disk after the first run) outside the timings
    X, y, qid, _ = folds[1]["train"]
    RankBoost(n_rounds=2).fit(X[:300], y[:300], qid[:300])
    AdaRankNDCG(n_rounds=2).fit(X[:300], y[:300], qid[:300])

    summary = []
    for label, published_key, make in models(args.variants):
        print(f"\n{label}: {make()!r}")
        print(f"{'fold':>4} {'NDCG@10':>8} {'MAP':>7} {'rounds':>6} {'kept':>5} {'seconds':>8} {'ms/round':>9}")
        rows = []
        for i in range(1, 6):
            Xtr, ytr, qtr, _ = folds[i]["train"]
            Xv, yv, qv, _ = folds[i]["vali"]
            Xt, yt, _, pt = folds[i]["test"]
            start = time.perf_counter()
            model = make().fit(Xtr, ytr, qtr, Xv, yv, qv)
            seconds = time.perf_counter() - start
            mm = mean_metrics(evaluate(yt, model.predict(Xt), pt, "letor4"))
            rounds = max(model.n_iter_, 1)
            rows.append((mm["NDCG@10"], mm["MAP"], seconds))
            print(f"{i:>4} {mm['NDCG@10']:8.4f} {mm['MAP']:7.4f} {model.n_iter_:6d} {len(model.alphas_):5d} "
                  f"{seconds:8.3f} {1000 * seconds / rounds:9.2f}")
        nd, mp, secs = np.mean(rows, axis=0)
        pub = PUBLISHED[published_key]
        summary.append((label, nd, mp, pub, np.sum([r[2] for r in rows])))
        print(f"mean {nd:8.4f} {mp:7.4f}   (total {secs * 5:.2f} s)")

    print("\nMQ2008 test, mean of 5 folds, LETOR 4.0 convention (published: Lai et al. 2013, Table II)")
    print(f"{'model':<28} {'NDCG@10':>8} {'pub':>7} {'gap':>7} {'MAP':>7} {'pub':>7} {'gap':>7} {'fit s':>7}")
    for label, nd, mp, pub, secs in summary:
        if pub[0] is None:
            print(f"{label:<28} {nd:8.4f} {'-':>7} {'-':>7} {mp:7.4f} {'-':>7} {'-':>7} {secs:7.2f}")
        else:
            print(f"{label:<28} {nd:8.4f} {pub[0]:7.4f} {nd - pub[0]:+7.4f} {mp:7.4f} {pub[1]:7.4f} "
                  f"{mp - pub[1]:+7.4f} {secs:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""GBM importance (Lei & Han's multinomial boosting, 1250 trees, 4 splits, shrinkage 0.001):
the XGBoost histogram backend against scikit-learn's exact GradientBoostingClassifier
(``backend="exact"``, the reference), on MQ2008 Fold 1 train (9,630 rows x 46 features, 3
labels) when ../shared/data/MQ2008.zip exists, and on a synthetic MSLR-like sample (about
3,000 rows x 136 features, 5 labels: the exact backend takes over 13 minutes on the report's
10,000 rows).

Printed per dataset and backend: seconds, the speed-up over exact, Spearman's rho between the
two importances, and how many of the top k features the two share (k = 5, 10, 20).
Run: ``python bench/bench_gbm_importance.py [--threads 1] [--n-estimators 1250]``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

from ltrfs.datasets import synthetic
from ltrfs.selection.boosting import GBMImportance

from bench_statistical import datasets  # MQ2008 Fold 1 train when the archive is there


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--n-estimators", type=int, default=1250)
    args = parser.parse_args()
    sets = [(name, data) for name, data, _ in datasets() if name.startswith("MQ2008")]
    data, _ = synthetic.make(n_queries=25, n_informative=20, n_redundant=40, n_noise=76, n_levels=5,
                             docs_median=120, docs_sigma=0.1, docs_max=160, seed=1)
    sets.append((f"synthetic {data.n_rows} rows x {data.n_features}, 5 labels", data))
    print(f"{'data':44} {'backend':8} {'seconds':>8} {'x exact':>8} {'rho':>6}  top5 top10 top20")
    for name, data in sets:
        results = {}
        for backend in ("exact", "xgboost"):
            start = time.perf_counter()
            sel = GBMImportance(backend=backend, n_estimators=args.n_estimators, n_jobs=args.threads).fit(
                data.X, data.y, data.qid)
            results[backend] = (time.perf_counter() - start, sel)
        ref_seconds, ref = results["exact"]
        for backend, (seconds, sel) in results.items():
            rho = spearmanr(sel.scores_, ref.scores_).statistic
            shared = [len(set(sel.ranking_[:k]) & set(ref.ranking_[:k])) for k in (5, 10, 20)]
            print(f"{name:44} {backend:8} {seconds:8.1f} {ref_seconds / seconds:8.1f} {rho:6.3f}  "
                  f"{shared[0]:4d} {shared[1]:5d} {shared[2]:5d}")


if __name__ == "__main__":
    main()

"""Speed of the glmnet-style L1 path (ltrfs.selection.statistical.l1_path) against
scikit-learn's L1 logistic regression solvers on the same penalty path.

Data: MQ2008 Fold1 train (9,630 rows x 46 features, labels >= 1 relevant) when
../shared/data/MQ2008.zip exists, and a synthetic MSLR-sized sample (about 12,000 rows x 136
features, 5 label levels; the report subsampled 10,000 rows). For each, the binomial lasso is
fitted along ``--n-lambdas`` penalties from lambda_max down to 1e-4 lambda_max with

    cd         l1_path (coordinate descent, covariance updates; default tol 1e-9)
    saga       LogisticRegression(solver="saga", tol=1e-4), warm-started along the path
    liblinear  LogisticRegression(solver="liblinear", tol=1e-4), one fit per penalty

at C = 1 / (n lambda), the same objective. Printed: seconds, the ratio to cd, and the largest
gap of the penalised objective to cd's over the path (positive: the library's solution is
worse than cd's; liblinear also penalises its intercept, so its own optimum is a little off).
Also timed: the continuation-ratio path of ordinal_cr on the 5-level data (no library
reference exists for it). Run: ``python bench/bench_statistical.py [--n-lambdas 30]``.
"""
from __future__ import annotations

import argparse
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.datasets import synthetic
from ltrfs.ranking_data import label_levels
from ltrfs.selection import statistical as st
from ltrfs.selection.l1_logistic import sklearn_path

MQ2008_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"


def datasets():
    out = []
    if MQ2008_ZIP.exists():
        from ltrfs import io

        with tempfile.TemporaryDirectory() as tmp:
            with zipfile.ZipFile(MQ2008_ZIP) as archive:
                archive.extract("MQ2008/Fold1/train.txt", tmp)
            data = io.read_letor(Path(tmp) / "MQ2008" / "Fold1" / "train.txt")
        out.append(("MQ2008 Fold1 train", data, 1))
    else:
        print(f"(MQ2008 skipped: {MQ2008_ZIP} is absent)")
    data, _ = synthetic.make(n_queries=400, n_informative=20, n_redundant=40, n_noise=76, n_levels=5, seed=1)
    out.append(("synthetic 5-level, 136 features", data, 2))
    return out


def objective(Xs, yb, coef, intercept, lam) -> float:
    """Mean log-loss + lambda ||coef||_1 (the objective both solvers minimise)."""
    z = Xs @ coef + intercept
    return float(np.mean(np.logaddexp(0.0, z) - yb * z) + lam * np.abs(coef).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-lambdas", type=int, default=30)
    args = parser.parse_args()
    # compile once, outside the timings
    Xw, yw = np.random.default_rng(0).standard_normal((50, 3)), np.r_[np.zeros(25), np.ones(25)]
    st.l1_path(Xw, np.ones((50, 1), bool), yw[:, None], np.array([0.1, 0.01]))
    for label, data, relevant_min in datasets():
        Xs, _, _ = st.standardise(data.X.astype(np.float64))
        yb = (data.y >= relevant_min).astype(np.int64)
        n, d = Xs.shape
        mask, t = np.ones((n, 1), bool), yb[:, None].astype(np.float64)
        lambdas = st.lambda_path(st.lambda_max(Xs, mask, t), args.n_lambdas, 1e-4)
        print(f"\n{label}: {n} rows x {d} features, {int(yb.sum())} relevant, {args.n_lambdas} penalties")
        start = time.perf_counter()
        ref = st.l1_path(Xs, mask, t, lambdas)
        cd_seconds = time.perf_counter() - start
        print(f"  {'cd (ltrfs)':<12} {cd_seconds:8.2f} s   ratio 1.00")
        for solver in ("saga", "liblinear"):
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                coef, icpt = sklearn_path(Xs, yb, 1.0 / (n * lambdas), solver, tol=1e-4, max_iter=1000, random_state=0)
            seconds = time.perf_counter() - start
            gap = max(objective(Xs, yb, coef[k], icpt[k], lam) - objective(Xs, yb, ref["coef"][k],
                                                                            ref["intercept"][k, 0], lam)
                      for k, lam in enumerate(lambdas))
            print(f"  {solver:<12} {seconds:8.2f} s   ratio {seconds / cd_seconds:6.1f}x slower than cd,"
                  f" max objective gap to cd {gap:+.2e}")
        if len(np.unique(data.y)) > 2:
            classes, level = label_levels(data.y)
            mask, t = st.cr_masks(level, len(classes))
            Xw, _, _ = st.standardise(data.X.astype(np.float64), weights=mask.sum(1))
            lambdas = st.lambda_path(st.lambda_max(Xw, mask, t), 100, 1e-4)
            start = time.perf_counter()
            res = st.l1_path(Xw, mask, t, lambdas, stop_early=True)
            print(f"  continuation-ratio path ({len(classes)} levels, {res['n_total']} expanded rows, "
                  f"{len(res['lambdas'])} penalties): {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()

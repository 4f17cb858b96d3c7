"""LambdaMART importance selectors (lambdamart_gain, lambdamart_shap, permutation, lambdamart_rfe):
time, cost in model fits, and the ratio to a plain reference measured in the same run.

Data: MQ2008 Fold 1 train + vali (9,630 + 2,707 rows x 46 features) when the archive is present
(``LTRFS_MQ2008_ZIP``, default /work/shared/data/MQ2008.zip; skipped with a line otherwise), and
a generated Yahoo!-set-2-sized problem (``ltrfs.datasets.synthetic.make``: 700 features, 40
informative, 60 redundant, 600 noise, 5 labels; 3/4 of the queries, about 35,000 rows, train,
the rest vali).

References, each timed in the same run:
  * ``lambdamart_gain``: one plain LambdaMART fit (``ltrfs.rankers.LambdaMART``, same
    parameters): the selector's cost is that fit plus reading the booster's scores;
  * ``lambdamart_shap``: the contributions pass (XGBoost ``pred_contribs``) against shap's
    ``TreeExplainer`` on the same booster and rows, if shap is installed (else said so);
  * ``permutation``: the permutation loop against a naive loop that copies the vali rows for
    every feature and repeat, permutes the column query by query and re-scores with the model's
    ``predict`` (no skipping of the features the model does not use);
  * ``lambdamart_rfe``: its time in units of one plain fit (its cost in model fits, measured).

Measured 2026-11-27 (docs/methods.md has the table): on the 700-feature set one plain fit took
139 s, the permutation loop 0.26 x the naive loop's time, lambdamart_rfe 915 s for 55 fits.

Usage: python bench/bench_lambdamart_importance.py [--threads 1] [--repeats 2] [--queries 1450]
       [--large-rfe-step 0.1] [--no-large-rfe] [--only-rfe] [--no-mq2008] [--no-large]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs import metrics
from ltrfs.datasets import synthetic
from ltrfs.job_log import log_to
from ltrfs.rankers import LambdaMART
from ltrfs.selection.lambdamart_importance import LambdaMARTGain, mean_abs_contributions
from ltrfs.selection.lambdamart_rfe import LambdaMARTRFE, elimination_sizes
from ltrfs.selection.permutation import PermutationImportance, permutation_drops, used_features

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP", "/work/shared/data/MQ2008.zip"))


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def mq2008():
    """(name, train, vali) of MQ2008 Fold 1, or None without the archive."""
    if not DEFAULT_ZIP.exists():
        print(f"(MQ2008 skipped: {DEFAULT_ZIP} is absent)")
        return None
    from ltrfs import io

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(DEFAULT_ZIP) as archive:
            for split in ("train", "vali"):
                archive.extract(f"MQ2008/Fold1/{split}.txt", tmp)
        train, vali = (io.read_letor(Path(tmp) / "MQ2008" / "Fold1" / f"{s}.txt") for s in ("train", "vali"))
    return "MQ2008 Fold1", train, vali


def large(n_queries: int, seed: int):
    """(name, train, vali) of the generated 700-feature set."""
    full, _ = synthetic.make(n_queries=n_queries, n_informative=40, n_redundant=60, n_noise=600, n_levels=5,
                             seed=seed)
    n_train = (3 * full.n_queries) // 4
    train = full.subset_queries(np.arange(n_train))
    vali = full.subset_queries(np.arange(n_train, full.n_queries))
    return f"generated {train.n_rows} train rows x 700", train, vali


def naive_permutation(model, vali, n_repeats: int, seed: int) -> np.ndarray:
    """The reference: a fresh copy per feature and repeat, permuted query by query, re-scored."""
    def score(X):
        return metrics.metric_per_query(vali.y, model.predict(X), vali.query_ptr, "ndcg@10", "letor4",
                                        "expected").mean()

    base, ptr = score(vali.X), vali.query_ptr
    drops = np.empty((n_repeats, vali.X.shape[1]))
    for r in range(n_repeats):
        keys = np.random.default_rng([seed, r]).random(vali.n_rows)
        for j in range(vali.X.shape[1]):
            X = vali.X.copy()
            for q in range(len(ptr) - 1):
                rows = np.arange(ptr[q], ptr[q + 1])
                X[rows, j] = vali.X[rows[np.argsort(keys[rows], kind="stable")], j]
            drops[r, j] = base - score(X)
    return drops


def bench_one(name, train, vali, args, rfe_step):
    kw = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    params = {"n_jobs": args.threads}
    _, fit_s = timed(lambda: LambdaMART(n_jobs=args.threads).fit(train.X, train.y, train.qid, **kw))
    print(f"\n{name}: {train.n_rows} train rows, {vali.n_rows} vali rows, {train.X.shape[1]} features; "
          f"one plain LambdaMART fit {fit_s:.1f} s")
    print(f"{'method':18} {'seconds':>8} {'model fits':>10} {'reference':>34} {'ref s':>8} {'ratio':>7}")
    if not args.only_rfe:
        bench_importances(train, vali, args, kw, params, fit_s)
    if rfe_step is None:
        print(f"{'lambdamart_rfe':18} skipped (--no-large-rfe)")
        return
    rfe, rfe_s = timed(lambda: LambdaMARTRFE(step=rfe_step, **params).fit(train.X, train.y, train.qid, **kw))
    n_fits = len(elimination_sizes(train.X.shape[1], rfe_step))
    print(f"{'lambdamart_rfe':18} {rfe_s:8.1f} {n_fits:10d} {'one plain LambdaMART fit':>34} {fit_s:8.1f} "
          f"{rfe_s / fit_s:7.2f}  (step {rfe_step}; best size {rfe.chosen_['best_size']})")


def bench_importances(train, vali, args, kw, params, fit_s):
    """The rows of lambdamart_gain, lambdamart_shap and permutation."""
    gain, gain_s = timed(lambda: LambdaMARTGain(**params).fit(train.X, train.y, train.qid, **kw))
    print(f"{'lambdamart_gain':18} {gain_s:8.1f} {1:10d} {'one plain LambdaMART fit':>34} {fit_s:8.1f} "
          f"{gain_s / fit_s:7.2f}")
    booster = gain.model_.booster_
    _, contrib_s = timed(lambda: mean_abs_contributions(booster, vali.X))
    try:
        import shap  # optional: the reference of the contributions pass
    except ImportError:
        shap = None
    if shap is not None:
        _, shap_s = timed(lambda: shap.TreeExplainer(booster).shap_values(vali.X))
        print(f"{'lambdamart_shap':18} {gain_s + contrib_s:8.1f} {1:10d} {'shap TreeExplainer (pass only)':>34} "
              f"{shap_s:8.1f} {contrib_s / shap_s:7.2f}")
    else:
        print(f"{'lambdamart_shap':18} {gain_s + contrib_s:8.1f} {1:10d} {'shap not installed: pass alone':>34} "
              f"{contrib_s:8.1f} {'-':>7}")
    perm, perm_s = timed(lambda: PermutationImportance(n_repeats=args.repeats, **params).fit(
        train.X, train.y, train.qid, **kw))

    def score(scores):
        return metrics.metric_per_query(vali.y, scores, vali.query_ptr, "ndcg@10", "letor4", "expected").mean()

    used = np.flatnonzero(used_features(perm.model_, vali.X.shape[1]))
    (drops, _), loop_s = timed(lambda: permutation_drops(perm.model_.predict, score, vali.X, vali.query_ptr, used,
                                                         args.repeats, 0))
    naive, naive_s = timed(lambda: naive_permutation(perm.model_, vali, args.repeats, 0))
    same = np.allclose(drops, naive, atol=1e-12)
    print(f"{'permutation':18} {perm_s:8.1f} {1:10d} {'naive loop (loop only)':>34} {naive_s:8.1f} "
          f"{loop_s / naive_s:7.2f}  (loop {loop_s:.1f} s, {perm.chosen_['n_predictions']} predictions; "
          f"equal drops: {same})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2, help="permutation repeats (the method's default is 5)")
    ap.add_argument("--queries", type=int, default=1450, help="queries generated (3/4 go to train)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--large-rfe-step", type=float, default=0.1)
    ap.add_argument("--no-large-rfe", action="store_true")
    ap.add_argument("--only-rfe", action="store_true", help="time only lambdamart_rfe (and the plain fit)")
    ap.add_argument("--no-mq2008", action="store_true")
    ap.add_argument("--no-large", action="store_true")
    args = ap.parse_args()
    log_to()  # the progress lines (time left) of permutation and lambdamart_rfe, on stderr
    LambdaMART(n_estimators=2).fit(np.random.default_rng(0).random((20, 2)), np.arange(20) % 2, np.zeros(20))  # import
    if not args.no_mq2008 and (sets := mq2008()) is not None:
        bench_one(*sets, args, rfe_step=0.1)
    if not args.no_large:
        bench_one(*large(args.queries, args.seed), args, rfe_step=None if args.no_large_rfe else args.large_rfe_step)


if __name__ == "__main__":
    main()

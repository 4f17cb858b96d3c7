"""Benchmark: settings of INVASE and LassoNet on the planted-signal problem, the numbers of
docs/neural.md's INVASE and LassoNet sections.

The problem is the one of ``tests/selection/test_selection.py``: ``synthetic.make(n_queries=240,
seed=0)``, 30 features of which 16 carry the signal (8 informative, 8 redundant), queries 1-160
train and 161-240 vali, each fit seeded with ``random_state=1`` as the workflow seeds it.
Printed per setting: P@8 and P@16 (the share of signal features among the first 8 and 16 of the
ranking), the seconds of the fit, and for LassoNet the lambdas its path took and how many
features were left at its end. The reference is chance: 16/30 = 0.53 at both depths.

Settings: INVASE with its three rewards (``query``, the default; ``batch``; ``none``, Lyu et
al.'s code in effect); LassoNet with one hidden layer of 64 (the test's network) at the
authors' path (x1.02, at most 100 lambdas), at x1.1 until no feature is left, at x1.05 for at
most 200; and at their path with their network ([256, 256, 256], dropout 0.3).

Usage: python bench/bench_neural_variants.py [--only invase|lassonet]
Exits 0 with a message when the neural extra is absent. About 3 minutes on one core.
"""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

SETTINGS = {
    "invase": [("reward query (default)", {"reward": "query"}),
               ("reward batch", {"reward": "batch"}),
               ("reward none (invase_lyu)", {"reward": "none"})],
    "lassonet": [("[64], x1.02, at most 100 (theirs)", {"hidden": [64], "max_path_steps": 100}),
                 ("[64], x1.1, until none left", {"hidden": [64], "path_multiplier": 1.1}),
                 ("[64], x1.05, at most 200", {"hidden": [64], "path_multiplier": 1.05, "max_path_steps": 200}),
                 ("[256]*3, dropout 0.3, x1.02, at most 100", {"max_path_steps": 100})],
}


def planted():
    """(train, vali, signal): the test's planted problem; signal = 0-based feature indices."""
    from ltrfs.datasets import synthetic

    full, truth = synthetic.make(n_queries=240, seed=0)
    train, vali = full.subset_queries(np.arange(160)), full.subset_queries(np.arange(160, 240))
    return train, vali, {f - 1 for f in truth["informative"] + truth["redundant"]}


def run(method: str, params: dict, train, vali, signal: set) -> dict:
    """Fit ``method`` with ``params`` as the workflow does; P@8, P@16, seconds and the path."""
    from ltrfs.pipeline.select import fit_selector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = fit_selector({"algorithm": method, "params": params}, train, vali, seed=1, convention="letor4")
    p8, p16 = (len(signal & set(sel.ranking_[:k].tolist())) / k for k in (8, 16))
    return {"p8": p8, "p16": p16, "seconds": sel.seconds_, "steps": sel.chosen_.get("path_steps"),
            "left": sel.chosen_.get("features_in_at_end")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SETTINGS))
    args = parser.parse_args(argv)
    from ltrfs.neural import extra_installed

    if not extra_installed():
        print("bench_neural_variants: the neural extra is not installed (pip install -r envs/neural.lock); nothing to measure")
        return 0
    train, vali, signal = planted()
    print(f"planted problem: {train.X.shape[1]} features, {len(signal)} signal; chance P@8 = P@16 = "
          f"{len(signal) / train.X.shape[1]:.2f}")
    print(f"{'method':<9} {'setting':<42} {'P@8':>5} {'P@16':>5} {'seconds':>8} {'lambdas':>7} {'left':>4}")
    for method, settings in SETTINGS.items():
        if args.only and method != args.only:
            continue
        for label, params in settings:
            r = run(method, params, train, vali, signal)
            steps = "" if r["steps"] is None else r["steps"]
            left = "" if r["left"] is None else r["left"]
            print(f"{method:<9} {label:<42} {r['p8']:>5.3f} {r['p16']:>5.3f} {r['seconds']:>8.1f} {steps:>7} {left:>4}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

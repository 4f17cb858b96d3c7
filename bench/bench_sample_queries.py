"""Benchmark: what fitting a selector on a sample of the training queries costs and moves.

For the methods that fit on a sample of whole queries at full size (``sample_queries`` of
``config/leaderboard_full.yaml``), on a prepared fold (``train.npz``, ``vali.npz``; e.g. the full
``MSLR-WEB30K-standin`` Fold 1 of ``config/full_fold.yaml``) cut to a seeded share of its
training and vali queries (``--share``, default 0.1: "10% of the data"), each method is fitted
twice as the workflow's select job fits it (``ltrfs.pipeline.select``: the config's parameters,
the job's seed and the dataset's convention):

- on every query of the share (the reference: no sample);
- on the share of those queries that ``sample_queries`` keeps at full size, of both splits (a
  method that samples 2,000 of a full fold's 18,919 training queries keeps 10.6% of them, so 200
  of the share's 1,892), so that the sample is the same fraction of the data as at full size.

Printed per method: CPU-seconds of both fits and their ratio (the reference is the fit without a
sample, measured in the same run), the full-size CPU-seconds the sampled fit implies (its time at
the share x full queries / share queries: linear, a rough guide for choosing sizes; the
workflow's full-size select job is the measurement), the
Spearman correlation of the two feature rankings and the overlap of their top 10 (features in
both top tens, of 10). The scorers a method reads are computed on the data it is fitted on.

Run: ``python bench/bench_sample_queries.py path/to/fold1/data --configfile config/config.yaml
config/leaderboard.yaml config/leaderboard_full.yaml [--share 0.1] [--methods lambdamart_rfe ...]``
"""
from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import yaml
from scipy.stats import spearmanr
from snakemake.utils import update_config

from ltrfs import io, scoring
from ltrfs.pipeline.select import fit_selector, sample_queries, sample_share
from ltrfs.selection import SELECTORS


def merged_config(paths) -> dict:
    """The configs merged as Snakemake merges ``--configfile`` (its own ``update_config``: later
    files win, mappings merged)."""
    config: dict = {}
    for path in paths:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    return config


def fit(method: dict, train, vali, convention: str, seed: int):
    """(fitted selector, CPU-seconds): the method and the scorers it reads, on ``train``."""
    start = time.process_time()
    requires = SELECTORS[method["algorithm"]].requires
    scores = {s: scoring.compute(s, train, convention, vali) for s in requires}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        selector = fit_selector(method, train, vali, seed=seed, convention=convention, precomputed=scores)
    return selector, time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="a prepared fold's data folder (train.npz, vali.npz)")
    parser.add_argument("--configfile", nargs="+", required=True)
    parser.add_argument("--share", type=float, default=0.1)
    parser.add_argument("--convention", default="mslr")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", nargs="*", help="default: every method with sample_queries")
    args = parser.parse_args(argv)
    config = merged_config(args.configfile)
    methods = args.methods or [m for m, c in config["methods"].items() if c.get("sample_queries")]
    full, full_vali = io.load_npz(args.data / "train.npz"), io.load_npz(args.data / "vali.npz")
    train, vali = sample_queries(full, args.share, seed=0), sample_queries(full_vali, args.share, seed=0)
    print(f"{train.n_queries:,} of {full.n_queries:,} training queries ({train.n_rows:,} rows), "
          f"{vali.n_queries:,} of {full_vali.n_queries:,} vali queries; one thread\n"
          f"{'method':18s} {'sample':>7s} {'CPU-s all':>9s} {'CPU-s sample':>12s} {'ratio':>6s} "
          f"{'full-size CPU-s':>15s} {'spearman':>8s} {'top10':>5s}")
    for name in methods:
        method = dict(config["methods"][name])
        share = sample_share(method.pop("sample_queries", None), full.n_queries) or 1.0
        part_train, part_vali = sample_queries(train, share, args.seed), sample_queries(vali, share, args.seed)
        whole, t_whole = fit(method, train, vali, args.convention, args.seed)
        part, t_part = fit(method, part_train, part_vali, args.convention, args.seed)
        a, b = np.asarray(whole.ranking_), np.asarray(part.ranking_)
        rho = spearmanr(np.argsort(a), np.argsort(b)).statistic  # over every feature's position
        top = len(set(a[:10].tolist()) & set(b[:10].tolist()))
        print(f"{name:18s} {part_train.n_queries:7,d} {t_whole:9.1f} {t_part:12.1f} {t_part / t_whole:6.2f} "
              f"{t_part * full.n_queries / train.n_queries:15,.0f} {rho:8.3f} {top:5d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

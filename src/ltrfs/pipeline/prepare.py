"""Stage prepare (``workflow/rules/prepare.smk``): fetch or generate a dataset
(``resources/{dataset}/``, rule ``download``: ``ltrfs.datasets.download.fetch``) and cache each
fold's splits as ``.npz`` (``results/{dataset}/fold{k}/data/{split}.npz``, rule ``prepare``)."""
from __future__ import annotations

import logging
from pathlib import Path

from ltrfs import io
from ltrfs.datasets.folds import load_fold

__all__ = ["prepare"]

log = logging.getLogger("ltrfs")


def prepare(entry: dict, root, fold: int, seed: int, outputs: dict) -> None:
    """Read one fold of a fetched dataset and cache its splits.

    Parameters
    ----------
    entry : dict
        The dataset's registry entry.
    root : path-like
        The fetched dataset's folder (``resources/{dataset}``).
    fold : int
    seed : int
        The seed of the query-level folds of datasets without official folds.
    outputs : dict
        Split name -> ``.npz`` path.
    """
    splits = load_fold(entry, Path(root), fold, seed=seed)
    for split, path in outputs.items():
        data = splits[split]
        log.info("%s: %d queries, %d rows, %d features", split, data.n_queries, data.n_rows, data.n_features)
        io.save_npz(data, path)

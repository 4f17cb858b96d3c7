"""Stage prepare (``workflow/rules/prepare.smk``): fetch or generate a dataset
(``resources/{dataset}/``, rule ``download``: ``ltrfs.datasets.download.fetch``) and cache each
fold's splits as ``.npz`` (``results/{dataset}/fold{k}/data/{split}.npz``, rule ``prepare``)."""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from ltrfs import io
from ltrfs.datasets import synthetic
from ltrfs.datasets.folds import load_fold
from ltrfs.pipeline.run import Run

__all__ = ["prepare", "PreparePlanning"]

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


class PreparePlanning(Run):
    """The inputs and sizes of the download and prepare jobs (parameters as ``ltrfs.pipeline.run.Run``)."""

    def fetch_entry(self, wildcards) -> dict:
        """The registry fields that decide a dataset's files (not its description), so that
        editing the description does not fetch the data again."""
        entry = self.registry[wildcards.dataset]
        return {key: value for key, value in entry.items() if key not in ("description", "homepage")}

    def fold_text_mb(self, wildcards) -> float:
        """MB of text of one fold of the dataset, from its download manifest (the files' total
        divided by the number of Fold folders, or all of it for one split); 0 before the download."""
        path = Path(self.resources) / wildcards.dataset / "manifest.json"
        if not path.exists():
            return 0.0
        files = json.loads(path.read_text()).get("files", {})
        folds = {part for name in files for part in Path(name).parts if re.fullmatch(r"Fold\d+", part)}
        return sum(f.get("size", 0) for f in files.values()) / 1e6 / max(1, len(folds))

    def generated_text_mb(self, wildcards) -> float:
        """MB of text a synthetic entry's download job generates (its memory grows with it); 0
        for data that is fetched."""
        entry = self.registry[wildcards.dataset]
        if entry["layout"] != "synthetic":
            return 0.0
        return synthetic.text_mb(**(entry.get("generator") or {}))

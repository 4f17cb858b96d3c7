"""Planning of stage prepare (``workflow/rules/prepare.smk``): what the download and prepare
jobs are given and how large they are."""
from __future__ import annotations

import json
import re
from pathlib import Path

from ltrfs.datasets import synthetic

__all__ = ["PreparePlanning"]


class PreparePlanning:
    """The inputs and sizes of the download and prepare jobs of a run (``run``: ``ltrfs.pipeline.run.Run``)."""

    def __init__(self, run):
        self.run = run

    def fetch_entry(self, wildcards) -> dict:
        """The registry fields that decide a dataset's files (not its description, nor the sizes
        that only size cluster requests), so that editing them does not fetch the data again."""
        entry = self.run.registry[wildcards.dataset]
        return {key: value for key, value in entry.items()
                if key not in ("description", "homepage", "documents", "queries")}

    def fold_text_mb(self, wildcards) -> float:
        """MB of text of one fold of the dataset, from its download manifest (the files' total
        divided by the number of Fold folders, or all of it for one split); 0 before the download."""
        path = Path(self.run.resources) / wildcards.dataset / "manifest.json"
        if not path.exists():
            return 0.0
        files = json.loads(path.read_text()).get("files", {})
        folds = {part for name in files for part in Path(name).parts if re.fullmatch(r"Fold\d+", part)}
        return sum(f.get("size", 0) for f in files.values()) / 1e6 / max(1, len(folds))

    def generated_text_mb(self, wildcards) -> float:
        """MB of text a synthetic entry's download job generates (its memory grows with it); 0
        for data that is fetched."""
        entry = self.run.registry[wildcards.dataset]
        if entry["layout"] != "synthetic":
            return 0.0
        return synthetic.text_mb(**(entry.get("generator") or {}))

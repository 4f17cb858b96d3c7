"""Fits shared by the train jobs of a fold: a ranker fitted on the same features of the same data
with the same settings is read from the job that fitted it first, not fitted again.

Several selectors often choose the same features at a small k (the filter methods of one
statistic, a method and its variants), and each method's train job would fit the ranker on
them again. A fit is named by a digest of everything that decides it (``SharedFits.key``): the
train and vali arrays' bytes, the ranker's configuration (algorithm, params, grid), the vali
metric, convention and ties, the threads, and the features in their order; and the job's
seed when the ranker draws random numbers (``Ranker.uses_seed``; a job's seed includes its
method, so such a fit is never shared). What a job reads is therefore what it would have
fitted itself, and a run's tables do not depend on which job fitted first.

The fits live in ``{results}/{dataset}/fold{fold}/fits/`` (the model, ``ltrfs.formats``, and
its vali trials), written atomically; a file that cannot be read is fitted again. The train
jobs record a shared fit in their info JSON (``"shared": true`` for that k).
"""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import numpy as np

from ltrfs.atomic_files import write_json
from ltrfs.formats import load_models, save_models
from ltrfs.ranking_data import DataError, RankingData

__all__ = ["SharedFits", "data_digest"]

log = logging.getLogger("ltrfs")


def data_digest(*splits: RankingData) -> str:
    """A digest of the splits' features, labels and query layout (blake2b, 32 hex digits)."""
    h = hashlib.blake2b(digest_size=16)
    for data in splits:
        for array in (data.X, data.y, data.query_ptr):
            array = np.ascontiguousarray(array)
            h.update(f"{array.dtype.str}{array.shape}".encode())
            h.update(memoryview(array).cast("B"))
    return h.hexdigest()


class SharedFits:
    """The shared fits of one fold's data.

    Parameters
    ----------
    folder : str or os.PathLike
        The fold's ``fits/`` folder.
    data : str
        ``data_digest`` of the train and vali splits the fits are made on.
    """

    def __init__(self, folder, data: str):
        self.folder = Path(folder)
        self.data = data

    def key(self, ranker: dict, features, *, metric: str, convention: str, ties: str, threads: int,
            seed: int | None) -> str:
        """The name of a fit: a digest of what decides it (module docstring).

        Parameters
        ----------
        ranker : dict
            The ranker's configuration (``{"algorithm", "params", "grid"}``).
        features : ndarray of int
            The 0-based features the ranker is fitted on, in their order.
        metric, convention, ties : str
            The vali choice's.
        threads : int
        seed : int or None
            The job's seed when the ranker uses it, else None.

        Returns
        -------
        str
        """
        what = {"data": self.data, "ranker": ranker, "features": [int(f) for f in features], "metric": metric,
                "convention": convention, "ties": ties, "threads": int(threads), "seed": seed}
        text = json.dumps(what, sort_keys=True, default=str)
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def get(self, key: str):
        """(estimator, point, trials) of the fit ``key``, or None when there is none (or it
        cannot be read: then it is fitted again)."""
        model, record = self.folder / f"{key}.model", self.folder / f"{key}.json"
        if not (model.is_file() and record.is_file()):
            return None
        try:
            estimator = load_models(model)[0]["estimator"]
            saved = json.loads(record.read_text())
            return estimator, saved["point"], saved["trials"]
        except (DataError, OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("shared fit %s cannot be read (%s): fitted again", model, str(exc)[:200])
            return None

    def put(self, key: str, model: dict, point: dict, trials: list) -> None:
        """Keep a fit: ``model`` the record ``ltrfs.formats.save_models`` takes for one k."""
        self.folder.mkdir(parents=True, exist_ok=True)
        save_models(self.folder / f"{key}.model", {0: model})
        write_json(self.folder / f"{key}.json", {"point": point, "trials": trials})

"""FS-ED (Gupta & Rosso, COLING 2012): features ranked by ``psi(f) = s(f) + d(f)``.

``s(f)`` is the single-feature importance on the training queries (NDCG@10 of ranking every
query by f alone, descending) and ``d(f)`` the expected divergence of f over the relevance
classes (``ltrfs.scoring.divergence``: class KDEs learnt on train, compared at the validation
rows' feature values). The top k by psi are the k-subset; the order is prefix-consistent.
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.params import Boolean, Convention, Integer, Options
from ltrfs.scoring import divergence
from ltrfs.selection.base import Selector, single_feature_scores

SCALES = ("none", "minmax")


def _minmax(v: np.ndarray) -> np.ndarray:
    """(v - min) / (max - min); a constant vector becomes zeros."""
    lo, hi = float(v.min()), float(v.max())
    return (v - lo) / (hi - lo) if hi > lo else np.zeros_like(v)


class FSED(Selector):
    """FS-ED: rank features by ``psi = s + d`` (ties: lower feature index first).

    Parameters
    ----------
    metric : str, default "ndcg@10"
        single-feature importance metric of s (a key of ``scoring.SINGLE_FEATURE_METRICS``).
    points : {"vali", "grid"}, default "vali"
        where the class densities are compared (the validation rows' values; docs/methods.md,
        section 'FS-ED').
    scale : {"none", "minmax"}, default "none"
        "none" adds s and d as they are (the paper); "minmax" maps each to [0, 1] first.
    convention : str, default "letor4"
        metric convention of s (``ltrfs.metrics.CONVENTIONS``).
    ties : str, default "expected"
        how s ranks documents with equal values: in expectation over their orders, or
        "file_order" (the data file's order; gives constant features the file's credit).
    approx : bool or "auto", default "auto"
        divergence evaluation when it is not precomputed (``divergence.expected_divergence``).
    n_jobs : int, default 1
        threads for the divergence when it is not precomputed.

    Attributes: ``ranking_`` (d,), ``scores_`` = psi (d,), ``s_`` (d,), ``d_`` (d,) unscaled.
    Precomputed inputs: ``precomputed["single_feature"]`` (used when its convention and ties match)
    and ``precomputed["divergence"]`` (used when its ``points`` match; an unmerged chunk with
    NaN is an error); otherwise both are computed here.
    """

    name = "fs_ed"
    requires = ("single_feature", "divergence")
    parameters = {
        "metric": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "points": [Options(*divergence.POINTS)],
        "scale": [Options(*SCALES)],
        "convention": [Convention()],
        "approx": [Boolean(), Options("auto")],
        "n_jobs": [Integer(1)],
        "ties": [Options(*metrics.TIES)],
    }

    def __init__(self, metric: str = "ndcg@10", points: str = "vali", scale: str = "none",
                 convention: str = "letor4", approx="auto", n_jobs: int = 1, ties: str = "expected"):
        self.metric = metric
        self.points = points
        self.scale = scale
        self.convention = convention
        self.approx = approx
        self.n_jobs = n_jobs
        self.ties = ties

    def _importance(self, X, y, query_ptr, precomputed) -> np.ndarray:
        table = single_feature_scores(X, y, query_ptr, precomputed, self.convention, self.ties)
        s, _ = scoring.importance(table, self.metric, "descending")
        if s.shape != (X.shape[1],):
            raise ValueError(f"precomputed single_feature table has {s.shape[0]} features; X has {X.shape[1]}")
        return s

    def _divergence(self, X, y, X_val, precomputed) -> np.ndarray:
        d = X.shape[1]
        cached = precomputed.get("divergence")
        if cached is not None and str(cached.get("points", "vali")) == self.points:
            div = np.asarray(cached["divergence"], dtype=np.float64)
            if div.shape != (d,):
                raise ValueError(f"precomputed divergence has shape {div.shape}; expected ({d},) for X")
            if not np.all(np.isfinite(div)):
                f = int(np.flatnonzero(~np.isfinite(div))[0])
                raise ValueError(f"precomputed divergence has no value for feature {f + 1} "
                                 "(an unmerged chunk? use divergence.merge_chunks)")
            return div
        if X_val is None and self.points == "vali":
            raise ValueError("fs_ed needs the validation split (X_val) to compute the divergence "
                             "with points='vali', or precomputed['divergence']")
        if X_val is not None:
            X_val = np.asarray(X_val)
            if X_val.ndim != 2 or X_val.shape[1] != d:
                raise ValueError(f"X_val must be (m_val, {d}) like X; got shape {X_val.shape}")
        return divergence.expected_divergence(X, y, X_val, points=self.points, approx=self.approx,
                                              n_threads=int(self.n_jobs))

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        s = self._importance(X, y, query_ptr, precomputed)
        d = self._divergence(X, y, X_val, precomputed)
        self.s_ = s
        self.d_ = d
        psi = s + d if self.scale == "none" else _minmax(s) + _minmax(d)
        self.scores_ = psi
        self.ranking_ = np.argsort(-psi, kind="stable").astype(np.int64)


# ----------------------------------------------------------------------------- report data

#: columns of a densities file (``class_densities_table``)
DENSITY_HEAD = ["role", "feature", "psi", "label", "x", "density"]


def informative_features(selection: dict, X) -> list[int]:
    """The selection's ranking (1-based ids, in order) without the features that carry nothing
    to draw: constant within every training query (``constant_features``) or 0 on every
    training row of ``X`` (m, d)."""
    skip = set(selection.get("constant_features") or [])
    zero = set((np.flatnonzero(~np.any(np.asarray(X) != 0, axis=0)) + 1).tolist())
    return [f for f in selection["ranking"] if f not in skip and f not in zero]


def class_densities_table(selection: dict, train, *, n_points: int = 200) -> str:
    """FS-ED's class densities of the top and the last feature by psi (Gupta & Rosso 2012, Fig. 3).

    Parameters
    ----------
    selection : dict
        An ``fs_ed`` selection record (its ranking and psi scores).
    train : RankingData
        The training split the selection was made on.
    n_points : int, default 200
        Points over the feature's training range widened by 5%.

    Returns
    -------
    str
        A TSV, columns ``DENSITY_HEAD``, one row per (role "top" or "last", label, point): the
        per-relevance-class KDE densities (``ltrfs.scoring.divergence.class_densities``, Silverman
        bandwidths on the training rows). Features constant within every training query or 0 on
        every training row are skipped (they have no density to compare).
    """
    kept = informative_features(selection, train.X)
    if not kept:
        raise ValueError("every feature is constant or zero on the training rows")
    lines = ["\t".join(DENSITY_HEAD)]
    for role, feature in (("top", kept[0]), ("last", kept[-1])):
        x = train.X[:, feature - 1].astype(np.float64)
        low, high = float(x.min()), float(x.max())
        pad = 0.05 * (high - low) if high > low else 0.5
        points = np.linspace(low - pad, high + pad, n_points)
        psi = selection["scores"][feature - 1]
        for label, density in sorted(divergence.class_densities(x, train.y, points).items()):
            lines += ["\t".join([role, str(feature), f"{psi:.9g}", str(label), f"{p:.9g}", f"{v:.9g}"])
                      for p, v in zip(points, density)]
    return "\n".join(lines) + "\n"

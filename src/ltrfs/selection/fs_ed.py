"""FS-ED (Gupta & Rosso, COLING 2012): features ranked by ``psi(f) = s(f) + d(f)``.

``s(f)`` is the single-feature importance on the training queries (NDCG@10 of ranking every
query by f alone, descending) and ``d(f)`` the expected divergence of f over the relevance
classes (``ltrfs.scoring.divergence``: class KDEs learnt on train, compared at the validation
rows' feature values). The top k by psi are the k-subset; the order is prefix-consistent.
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.checks import NeedsValidation
from ltrfs.docstrings import fill_doc
from ltrfs.params import Boolean, ConventionLike, Integer, Options
from ltrfs.scoring import divergence
from ltrfs.selection.base import Selector, single_feature_scores

SCALES = ("none", "minmax")


def _minmax(v: np.ndarray) -> np.ndarray:
    """(v - min) / (max - min); a constant vector becomes zeros."""
    lo, hi = float(v.min()), float(v.max())
    return (v - lo) / (hi - lo) if hi > lo else np.zeros_like(v)


@fill_doc
class FSED(Selector):
    """FS-ED: features ranked by ``psi(f) = s(f) + d(f)``, importance plus expected divergence.

    ``s(f)`` is the single-feature importance on the training queries (``metric`` of ranking
    every query by f alone, descending) and ``d(f)`` the expected divergence of f over the
    relevance classes (``ltrfs.scoring.divergence``: class densities estimated on train, compared
    at the validation rows' feature values). The k features of highest psi are the k-subset (ties:
    lower feature index first), so the subsets are prefixes of ``ranking_``.

    Parameters
    ----------
    metric : str, default "ndcg@10"
        Single-feature importance metric of s (a key of ``ltrfs.scoring.SINGLE_FEATURE_METRICS``).
    points : {"vali", "grid"}, default "vali"
        Where the class densities are compared: at the validation rows' values, or on a grid
        (docs/methods.md, section 'FS-ED').
    scale : {"none", "minmax"}, default "none"
        "none" adds s and d as they are (the paper); "minmax" maps each to [0, 1] first.
    convention : str, default "letor4"
        Metric convention of s (``ltrfs.metrics.CONVENTIONS``).
    approx : bool or "auto", default "auto"
        Divergence evaluation when it is not precomputed (``divergence.expected_divergence``).
    n_jobs : int >= 1, default 1
        Threads of the divergence when it is not precomputed.
    ties : {"expected", "file_order"}, default "expected"
        How s ranks documents with equal values: in expectation over their orders, or in file
        order (which gives constant features the file's credit).

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by psi, descending.
    scores_ : float64 (d,)
        psi (after ``scale``).
    s_ : float64 (d,)
        The importance s, unscaled.
    d_ : float64 (d,)
        The expected divergence d, unscaled.
    %(selector_plain_attributes)s

    Notes
    -----
    ``precomputed["single_feature"]`` is used when its convention and tie rule match, and
    ``precomputed["divergence"]`` when its ``points`` match (an unmerged chunk with NaN is an
    error); otherwise both are computed here, and ``points="vali"`` then needs ``X_val``.

    References
    ----------
    Gupta and Rosso. Expected divergence based feature selection for learning to rank. COLING
    2012, section 2: psi is eq. (1), d(f) eq. (2), the divergence of two class densities eq. (3)
    (Jensen-Shannon through the KL divergence to their average) and the kernel density estimate
    eq. (4). See docs/methods.md, section 'FS-ED'.

    Examples
    --------
    >>> from ltrfs.selection.fs_ed import FSED
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = FSED().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "fs_ed"
    requires = ("single_feature", "divergence")
    parameters = {
        "metric": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "points": [Options(*divergence.POINTS)],
        "scale": [Options(*SCALES)],
        "convention": [ConventionLike()],
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

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        if self.points != "vali":
            return None
        return "fs_ed compares the class densities at the validation rows when points='vali'", {"points": "grid"}

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
            raise NeedsValidation("fs_ed: points='vali' compares the class densities at the validation rows: "
                                  "pass X_val to fit, or set points='grid'")
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
    """The selection's ranking without the features that carry nothing to draw.

    Left out: features constant within every training query (``constant_features``) or 0 on
    every training row of ``X``.

    Parameters
    ----------
    selection : dict
        The FS-ED selection record.
    X : array-like of shape (m, d)
        The training features.

    Returns
    -------
    list of int
        1-based feature ids, in ranking order.
    """
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

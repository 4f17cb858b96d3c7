"""Per-feature scores shared by several selectors (docs/methods.md, section 'Per-feature
scores').

A *scorer* is a named function ``(train, vali, convention) -> dict of arrays`` registered in
``SCORERS``; the workflow's ``score`` stage caches each one per fold as
``scores/{scorer}.npz`` and selectors name the scorers they read in ``requires``. The
single-feature importance table lives here; the other scores have a module each in this
package.
"""
from __future__ import annotations

import numpy as np

from ltrfs.context import takes_parameter
from ltrfs.ranking_data import RankingData
from ltrfs.metrics import check_ties
from ltrfs.scoring import discrete, divergence, kendall, pairwise, pearson, spearman
from ltrfs.scoring.single_feature import METRIC_NAMES, single_feature_table  # compiled kernel

#: metric names of the single-feature table, in the order of ``metrics.evaluate``
SINGLE_FEATURE_METRICS = METRIC_NAMES


def importance(table: dict[str, np.ndarray], metric: str = "ndcg@10",
               orientation: str = "descending") -> tuple[np.ndarray, np.ndarray]:
    """Importance and sign of every feature from a single-feature table.

    Parameters
    ----------
    table : dict of str to float64 (d,)
        ``single_feature_table``'s output.
    metric : str, default "ndcg@10"
        One of ``SINGLE_FEATURE_METRICS`` (any case).
    orientation : {"descending", "best"}, default "descending"
        "descending" (the papers' reading): the metric of ranking by the feature as it is, sign
        +1. "best": the better of descending and ascending, sign -1 where ascending wins (the
        feature should be negated).

    Returns
    -------
    (float64 (d,), float64 (d,))
        (importance, sign).
    """
    metric = metric.lower()
    if metric not in SINGLE_FEATURE_METRICS:
        raise ValueError(f"unknown importance metric {metric!r}; valid: {', '.join(SINGLE_FEATURE_METRICS)}")
    desc = np.asarray(table[metric], dtype=np.float64)
    if orientation == "descending":
        return desc, np.ones_like(desc)
    if orientation == "best":
        asc = np.asarray(table[metric + ":asc"], dtype=np.float64)
        sign = np.where(asc > desc, -1.0, 1.0)
        return np.maximum(desc, asc), sign
    raise ValueError(f"unknown orientation {orientation!r}; valid: descending, best")


def _single_feature(train: RankingData, vali: RankingData | None, convention: str, n_threads: int = 1,
                    ties: str = "expected") -> dict:
    return single_feature_table(train.X, train.y, train.query_ptr, convention=convention, n_threads=n_threads,
                                ties=ties)


#: scorer name -> function (train, vali, convention, n_threads=1) -> dict of arrays
SCORERS = {"single_feature": _single_feature, "divergence": divergence.scorer, "kendall": kendall.scorer,
           "pearson": pearson.scorer, "pairwise": pairwise.scorer, "discrete": discrete.scorer,
           "spearman": spearman.scorer}

#: scorers that can be computed in slices of the features by separate jobs and merged:
#: name -> (function (train, vali, convention, chunk, n_chunks, n_threads=1), merge(list))
CHUNKED = {"divergence": (divergence.scorer_chunk, divergence.merge_chunks),
           "kendall": (kendall.scorer_chunk, kendall.merge_chunks)}


def uses_threads(scorer: str) -> bool:
    """Whether a scorer runs on several threads (its function takes ``n_threads``).

    Parameters
    ----------
    scorer : str
        A key of ``SCORERS``.

    Returns
    -------
    bool
    """
    return takes_parameter(SCORERS[scorer], "n_threads")


def _call(function, *args, n_threads: int = 1):
    if takes_parameter(function, "n_threads"):
        return function(*args, n_threads=n_threads)
    return function(*args)


def compute(scorer: str, train: RankingData, convention: str, vali: RankingData | None = None, *,
            n_threads: int = 1, chunk: tuple[int, int] | None = None,
            ties: str = "expected") -> dict[str, np.ndarray]:
    """Run a scorer on a fold's training (and validation) split, or on a slice of its features.

    Parameters
    ----------
    scorer : str
        A key of ``SCORERS``.
    train : RankingData
    convention : str
        Metric convention; the result records it under ``"convention"``.
    vali : RankingData or None
    n_threads : int, default 1
    chunk : (int, int) or None
        ``(i, n)``: slice i of n of the features (only the scorers of ``CHUNKED``).
    ties : {"expected", "file_order"}, default "expected"
        Reaches the single-feature table, which then records it as a 0-d string array under
        ``"ties"``; other scorers ignore it.

    Returns
    -------
    dict of str to ndarray
    """
    if scorer not in SCORERS:
        raise ValueError(f"unknown scorer {scorer!r}; valid: {', '.join(SCORERS)}")
    check_ties(ties)
    if chunk is None and scorer == "single_feature":
        table = SCORERS[scorer](train, vali, convention, n_threads=n_threads, ties=ties)
        table["ties"] = np.array(ties)
    elif chunk is None:
        table = _call(SCORERS[scorer], train, vali, convention, n_threads=n_threads)
    elif scorer in CHUNKED:
        table = _call(CHUNKED[scorer][0], train, vali, convention, chunk[0], chunk[1], n_threads=n_threads)
    else:
        raise ValueError(f"scorer {scorer!r} cannot be split into chunks; these can: {', '.join(CHUNKED)}")
    table["convention"] = np.array(convention)
    return table


def merge(scorer: str, tables: list[dict]) -> dict[str, np.ndarray]:
    """Merge the chunks of a chunked scorer.

    Parameters
    ----------
    scorer : str
        A key of ``CHUNKED``.
    tables : list of dict
        ``compute(..., chunk=...)`` outputs covering every feature exactly once, in one metric
        convention.

    Returns
    -------
    dict of str to ndarray
    """
    conventions = {str(t["convention"]) for t in tables}
    if len(conventions) != 1:
        raise ValueError(f"chunks of {scorer!r} disagree on the metric convention: {sorted(conventions)}")
    table = CHUNKED[scorer][1]([{k: v for k, v in t.items() if k != "convention"} for t in tables])
    table["convention"] = np.array(conventions.pop())
    return table

"""Our own comparisons of per-query results (docs/statistics.md).

- **Units.** Within a dataset the units are its test queries, every fold's test set pooled (a
  query is in one fold's test set); two rankings are compared on the same queries, paired.
- **Differences** (``paired_difference``): the mean per-query difference a - b with its Student-t
  confidence interval and the two-sided paired t-test's p (``scipy.stats.ttest_rel``).
- **"As good as"** (``paired_difference``'s ``p_noninferior``): a one-sided paired t-test of
  H0: mean(a - b) <= -margin against H1: mean(a - b) > -margin (Wellek, *Testing Statistical
  Hypotheses of Equivalence and Noninferiority*, 2nd ed., 2010, ch. 5). A small p shows that a
  loses less than ``margin``; a large two-sided p alone shows nothing of the kind.
- **Families** (``holm``): the p-values of one table's or one board's tests of one kind are
  corrected together by Holm's step-down method (``statsmodels.stats.multitest``), which controls
  the family-wise error rate under any dependence between the tests.
- **Many systems over the same units** (``pairwise``): every pair's paired difference, Holm over
  the pairs.
- **Across a few datasets** (``bayesian_signed_rank``): the Bayesian signed-rank test with a region
  of practical equivalence (Benavoli, Mangili, Corani, Zaffalon & Ruggeri, ICML 2014; Benavoli,
  Corani, Demsar & Zaffalon, J. Mach. Learn. Res. 18(77), 2017), which says how probable "a is
  practically as good as b" is where a p-value over four datasets can only say "cannot tell".

The papers' own marks keep the papers' test (``paired_ttest``, uncorrected): the pages that
reproduce them say so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

__all__ = ["Difference", "paired_difference", "paired_ttest", "holm", "pairwise", "bayesian_signed_rank"]


@dataclass(frozen=True)
class Difference:
    """A paired comparison of a against b on the same units (``paired_difference``)."""

    #: mean of the per-unit differences a - b
    mean: float
    #: the confidence interval of ``mean`` (Student t, n - 1 degrees of freedom)
    low: float
    high: float
    #: two-sided paired t-test of mean(a - b) = 0
    p: float
    #: one-sided paired t-test of H0: mean(a - b) <= -margin (small: a is non-inferior)
    p_noninferior: float
    #: number of paired units
    n: int


def paired_difference(a, b, *, margin: float = 0.0, confidence: float = 0.95) -> Difference:
    """Mean difference a - b with its confidence interval, the two-sided p and the
    non-inferiority p at ``margin``.

    Parameters
    ----------
    a, b : array-like of float, shape (n,)
        Per-unit values (e.g. per-query NDCG@10) of two rankings of the same units, n >= 2.
    margin : float >= 0, default 0.0
        The loss of a against b that still counts as "as good as" (metric units, e.g. 0.01).
    confidence : float, default 0.95
        Coverage of the two-sided interval.

    Returns
    -------
    Difference
        With a constant difference c (no variance, to 1e-12): the interval [c, c], p 1 for c = 0
        and 0 otherwise, ``p_noninferior`` 0 when c > -margin and 1 otherwise.

    Examples
    --------
    >>> d = paired_difference([0.5, 0.6, 0.7, 0.8], [0.45, 0.62, 0.66, 0.79], margin=0.05)
    >>> round(d.mean, 4), round(d.low, 4), round(d.high, 4), round(d.p, 3), round(d.p_noninferior, 4)
    (0.02, -0.0303, 0.0703, 0.295, 0.0107)
    """
    from scipy import stats  # heavy (scipy.stats): imported on use

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or a.size < 2:
        raise ValueError(f"paired_difference needs two 1-D arrays of equal length >= 2; got {a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("paired_difference: the values must be finite")
    if margin < 0:
        raise ValueError(f"paired_difference: margin must be >= 0; got {margin}")
    d = a - b
    mean = float(d.mean())
    if np.ptp(d) <= 1e-12:  # no variance (to rounding): the t statistics are undefined, the answer is not
        return Difference(mean, mean, mean, 1.0 if mean == 0 else 0.0, 0.0 if mean > -margin else 1.0, d.size)
    two_sided = stats.ttest_rel(a, b)
    interval = two_sided.confidence_interval(confidence)
    one_sided = stats.ttest_1samp(d + margin, 0.0, alternative="greater")
    return Difference(mean, float(interval.low), float(interval.high), float(two_sided.pvalue),
                      float(one_sided.pvalue), d.size)


def paired_ttest(a, b) -> tuple[float, float]:
    """Two-sided paired t-test of per-query values a against b.

    ``t = mean(d) / (std(d, ddof=1) / sqrt(n))`` with ``d = a - b``; p from Student's t with
    n - 1 degrees of freedom (as ``scipy.stats.ttest_rel``).

    Parameters
    ----------
    a, b : array-like of float, shape (n,)
        Per-query values of two rankings of the same queries.

    Returns
    -------
    (float, float)
        (t, p). Identical vectors give (0.0, 1.0); a constant non-zero difference (+-inf, 0.0).

    Examples
    --------
    >>> t, p = paired_ttest([0.5, 0.6, 0.7], [0.4, 0.6, 0.5])
    >>> round(t, 3), round(p, 3)
    (1.732, 0.225)
    """
    from scipy import stats  # heavy (scipy.stats, ~1.4 s): imported on use

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"paired_ttest needs two 1-D arrays of equal length; got {a.shape} and {b.shape}")
    if a.size < 2:
        raise ValueError(f"paired_ttest needs at least 2 paired values; got {a.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("paired_ttest: values must be finite (found NaN or inf)")
    d = a - b
    if np.all(d == d[0]):
        if d[0] == 0:
            return 0.0, 1.0
        return math.copysign(math.inf, d[0]), 0.0
    res = stats.ttest_rel(a, b)
    return float(res.statistic), float(res.pvalue)


def holm(p) -> np.ndarray:
    """Holm-corrected p-values of one family; NaN entries (no test) stay NaN and do not count.

    Parameters
    ----------
    p : array-like of float, shape (m,)

    Returns
    -------
    ndarray of float64, shape (m,)
        Each p multiplied by its step-down factor, made monotone, at most 1.

    Examples
    --------
    >>> holm([0.01, 0.04, np.nan, 0.03]).round(3)
    array([0.03, 0.06,  nan, 0.06])
    """
    from statsmodels.stats.multitest import multipletests  # heavy: imported on use

    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        out[tested] = multipletests(p[tested], method="holm")[1]
    return out


def pairwise(values: pd.DataFrame, *, margin: float = 0.0, confidence: float = 0.95) -> pd.DataFrame:
    """Every pair of systems (columns) compared on the same units (rows), Holm over the pairs.

    Parameters
    ----------
    values : pandas.DataFrame
        Units x systems (e.g. pooled test queries x selectors), no missing value.
    margin, confidence : float
        As ``paired_difference``.

    Returns
    -------
    pandas.DataFrame
        One row per pair (a, b) in column order: ``mean`` (a - b), ``low``, ``high``, ``p``,
        ``p_holm`` (Holm over the m (m - 1) / 2 pairs) and ``n``.

    Examples
    --------
    >>> values = pd.DataFrame({"x": [0.1, 0.5, 0.9, 0.4], "y": [0.1, 0.5, 0.9, 0.4], "z": [0.3, 0.8, 1.0, 0.7]})
    >>> pairwise(values)[["a", "b", "mean", "p_holm"]].round(3).to_numpy().tolist()
    [['x', 'y', 0.0, 1.0], ['x', 'z', -0.225, 0.055], ['y', 'z', -0.225, 0.055]]
    """
    if values.isna().any(axis=None):
        raise ValueError("pairwise: every system needs a value on every unit")
    rows = []
    for a, b in combinations(values.columns, 2):
        d = paired_difference(values[a].to_numpy(), values[b].to_numpy(), margin=margin, confidence=confidence)
        rows.append({"a": a, "b": b, "mean": d.mean, "low": d.low, "high": d.high, "p": d.p, "n": d.n})
    out = pd.DataFrame(rows, columns=["a", "b", "mean", "low", "high", "p", "n"])
    out.insert(6, "p_holm", holm(out.p.to_numpy()))
    return out


def bayesian_signed_rank(diff, *, rope: float, prior: float = 0.5, samples: int = 50_000, seed: int = 0):
    """The Bayesian signed-rank test of a - b over a few independent units (datasets).

    The differences' distribution gets a Dirichlet-process posterior with a pseudo-unit at 0 of
    weight ``prior``: each posterior sample is a weight vector w ~ Dirichlet(prior, 1, ..., 1)
    over z = (0, d_1, ..., d_n), and its three probabilities are the w-weighted shares of the
    pairs (i, j), i = j included, whose mean (z_i + z_j) / 2 is below -rope (b better), within
    [-rope, rope] (practically equivalent) or above rope (a better), a half for a pair on a
    boundary. The result is, as in Benavoli et al. (2017), the share of posterior samples in
    which each region is the most probable.

    Parameters
    ----------
    diff : array-like of float, shape (n,)
        a - b per unit (n >= 1), finite.
    rope : float >= 0
        Half-width of the region of practical equivalence, in the metric's units.
    prior : float > 0, default 0.5
        Weight of the pseudo-unit at 0 (the prior's strength).
    samples : int, default 50000
        Posterior samples.
    seed : int, default 0
        Seed of the samples (the result is deterministic).

    Returns
    -------
    tuple of float
        (p_b_better, p_equivalent, p_a_better), summing to 1.

    Examples
    --------
    Four datasets where a is never more than 0.002 from b, with a rope of 0.01:

    >>> [round(p, 2) for p in bayesian_signed_rank([0.002, -0.001, 0.0, 0.001], rope=0.01)]
    [0.0, 1.0, 0.0]

    Four datasets where a loses 0.03-0.05 each time, and four that disagree:

    >>> [round(p, 3) for p in bayesian_signed_rank([-0.03, -0.05, -0.04, -0.03], rope=0.01)]
    [0.998, 0.002, 0.0]
    >>> [round(p, 2) for p in bayesian_signed_rank([0.02, -0.01, 0.005, 0.0], rope=0.01)]
    [0.0, 0.9, 0.1]
    """
    d = np.asarray(diff, dtype=np.float64)
    if d.ndim != 1 or d.size < 1 or not np.isfinite(d).all():
        raise ValueError(f"bayesian_signed_rank needs a 1-D array of finite differences; got shape {d.shape}")
    if rope < 0 or prior <= 0 or samples < 1:
        raise ValueError(f"bayesian_signed_rank: rope >= 0, prior > 0 and samples >= 1; got {rope}, {prior}, {samples}")
    z = np.concatenate([[0.0], d])
    sums = z[:, None] + z[None, :]
    step = lambda x: (x > 0).astype(np.float64) + 0.5 * (x == 0)  # noqa: E731
    above, below = step(sums - 2 * rope), step(-sums - 2 * rope)
    rng = np.random.default_rng(seed)
    counts = np.zeros(3)
    for start in range(0, samples, 10_000):  # in chunks: bounded memory for many units
        w = rng.dirichlet(np.r_[prior, np.ones(d.size)], size=min(10_000, samples - start))
        right = np.einsum("si,ij,sj->s", w, above, w)
        left = np.einsum("si,ij,sj->s", w, below, w)
        theta = np.column_stack([left, 1.0 - left - right, right])
        counts += np.bincount(theta.argmax(axis=1), minlength=3)
    return tuple(float(c) for c in counts / samples)

"""Information gain and chi-square of discretised features against the labels (GAS's IG and
CHI baselines; docs/methods.md, section 'Information gain and chi-square'). The relevance
labels are the classes; queries are ignored.

Discretisation (equal frequency, over all training rows): with m rows and B bins, the cuts are
the sorted values at positions ceil(k m / B) - 1, k = 1..B-1 (the lower k/B quantiles), with
duplicates removed. Bin b holds the values in (c_{b-1}, c_b]: a value equal to a cut goes to
the lower bin. A feature with many equal values therefore has fewer effective bins (a feature
that is 0 on 80% of the rows puts every 0 in bin 0 and spreads the rest over at most 3 bins);
a constant feature has one bin, IG 0 and chi-square 0.

With N[b, l] the number of rows of bin b and label l, N_b and N_l the margins, N the rows::

    IG  = H(Y) - H(Y | B) = -sum_l p_l log2 p_l + sum_b (N_b / N) sum_l (N_bl / N_b) log2 (N_bl / N_b)
    CHI = sum_{b, l} (N_bl - E_bl)^2 / E_bl,   E_bl = N_b N_l / N    (empty bins skipped)
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.ranking_data import RankingData
from ltrfs.params import Integer, check_value
from ltrfs.scoring.kendall import check_finite

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
    "discrete_parameters": """
Parameters
----------
X : ndarray, shape (m, d)
y : ndarray of int, shape (m,)
bins : int >= 2, default ``BINS``
""",
    "discrete_sections": """
%(discrete_parameters)s

Returns
-------
float64 (d,)
""",
}

#: default number of equal-frequency bins (the paper's baselines use 10)
BINS = 10


def _check_bins(bins) -> int:
    return int(check_value("bins", bins, [Integer(2)]))


def _check_Xy(X, y):
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be (m, d) and y (m,); got {X.shape} and {y.shape}")
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    check_finite(X)
    return X, y


def discretize(column: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Equal-frequency bin index of every value of one feature (module docstring).

    Parameters
    ----------
    column : ndarray, shape (m,)
    bins : int >= 2, default ``BINS``

    Returns
    -------
    int64 (m,)
    """
    bins = _check_bins(bins)
    column = np.asarray(column)
    m = column.shape[0]
    positions = np.unique(np.ceil(np.arange(1, bins) * m / bins).astype(np.int64) - 1)
    positions = positions[(positions >= 0) & (positions < m)]
    cuts = np.unique(np.partition(column, positions)[positions])
    return np.searchsorted(cuts, column, side="left").astype(np.int64)


@fill_doc(**_DOC)
def contingency_tables(X: np.ndarray, y: np.ndarray, bins: int = BINS):
    """The bin x label contingency table of every feature.

    %(discrete_parameters)s

    Yields
    ------
    (int, int64 (bins, L))
        Feature index and its table; L = number of distinct labels.
    """
    bins = _check_bins(bins)
    X, y = _check_Xy(X, y)
    _, levels = np.unique(y, return_inverse=True)
    levels = levels.reshape(-1)
    n_levels = int(levels.max()) + 1
    for f in range(X.shape[1]):
        b = discretize(X[:, f], bins)
        table = np.bincount(b * n_levels + levels, minlength=bins * n_levels)
        yield f, table.reshape(bins, n_levels).astype(np.int64)


def _entropy_bits(counts: np.ndarray, axis=-1) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=axis, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=axis)


def information_gain_table(table: np.ndarray) -> float:
    """Information gain in bits of one contingency table.

    Parameters
    ----------
    table : ndarray, shape (bins, L)

    Returns
    -------
    float
        ``H(Y) - H(Y | bin)``.
    """
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    h_y = float(_entropy_bits(table.sum(axis=0)))
    h_y_given_b = float((table.sum(axis=1) / n) @ _entropy_bits(table, axis=1))
    return max(0.0, h_y - h_y_given_b)


def chi_square_table(table: np.ndarray) -> float:
    """Pearson's chi-square statistic of one contingency table.

    Parameters
    ----------
    table : ndarray, shape (bins, L)
        A bin x label table (``contingency_tables``).

    Returns
    -------
    float
        ``sum (observed - expected)^2 / expected`` over the cells with expected > 0.
    """
    table = np.asarray(table, dtype=np.float64)
    n = table.sum()
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    cells = expected > 0
    return float((((table - expected) ** 2)[cells] / expected[cells]).sum())


@fill_doc(**_DOC)
def information_gain(X: np.ndarray, y: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Information gain ``H(Y) - H(Y | bin)`` in bits of every feature against the labels.

    %(discrete_sections)s

    References
    ----------
    Geng et al., SIGIR 2007, section 3.4 (IG, a baseline of GAS).
    """
    return discrete_scores(X, y, bins)[0]


@fill_doc(**_DOC)
def chi_square(X: np.ndarray, y: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Chi-square statistic of the bin x label table of every feature.

    %(discrete_sections)s

    References
    ----------
    Geng et al., SIGIR 2007, section 3.4 (CHI, a baseline of GAS).
    """
    return discrete_scores(X, y, bins)[1]


@fill_doc(**_DOC)
def discrete_scores(X: np.ndarray, y: np.ndarray, bins: int = BINS) -> tuple[np.ndarray, np.ndarray]:
    """Information gain and chi-square of every feature from one discretisation.

    %(discrete_parameters)s

    Returns
    -------
    (float64 (d,), float64 (d,))
        (IG, CHI), both from the same tables.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(8.0)
    >>> ig, chi = discrete_scores(np.c_[x, x % 2], (x >= 4).astype(int), bins=2)
    >>> ig.round(3), chi.round(3)        # the first feature splits the labels exactly
    (array([1., 0.]), array([8., 0.]))
    """
    X = np.asarray(X)
    d = X.shape[1] if X.ndim == 2 else 0
    ig = np.zeros(d)
    chi = np.zeros(d)
    for f, table in contingency_tables(X, y, bins):
        ig[f] = information_gain_table(table)
        chi[f] = chi_square_table(table)
    return ig, chi


@fill_doc
def scorer(train: RankingData, vali: RankingData | None, convention: str, bins: int = BINS) -> dict:
    """``SCORERS["discrete"]``: information gain and chi-square on the training split.

    Parameters
    ----------
    %(scorer_parameters)s
    bins : int >= 2, default ``BINS``

    Returns
    -------
    dict
        ``{"ig": (d,), "chi": (d,), "bins": ()}``.
    """
    ig, chi = discrete_scores(train.X, train.y, bins)
    return {"ig": ig, "chi": chi, "bins": np.array(bins)}

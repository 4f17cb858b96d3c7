"""What a ranking metric is: its name (``ndcg@10``, ``map``, ...) and its convention.

The vocabulary that both the hyperparameter declarations (``ltrfs.params``: ``Metric``,
``Convention``) and the metric computations (``ltrfs.metrics``, which re-exports every name
here) read; it depends on nothing else of the package. Also the one line that says how a
convention scores short queries (``short_query_note``). The conventions themselves are
described in ``ltrfs.metrics``.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Convention", "CONVENTIONS", "get_convention", "parse_metric", "short_query_note"]

_DISCOUNTS = ("letor", "log2")
_GAINS = ("exp2", "linear")
_SHORT_NDCG = ("zero", "truncate")
_SHORT_PRECISION = ("pad", "zero", "fetched")


@dataclass(frozen=True)
class Convention:
    """How a metric is computed (frozen; the built-in ones are in ``CONVENTIONS``).

    Parameters
    ----------
    name : str
        Label of the convention (free text for custom ones).
    discount : {"letor", "log2"}, default "letor"
        "letor": D(i) = 1 for ranks 1-2, 1/log2(i) after; "log2": D(i) = 1/log2(i + 1).
    gain : {"exp2", "linear"}, default "exp2"
        "exp2": G(r) = 2^r - 1 (all built-in conventions); "linear": G(r) = r.
    relevant_min : int, default 1
        Smallest label counted as relevant by P@k and MAP.
    short_ndcg : {"zero", "truncate"}, default "zero"
        NDCG@k for a query with fewer than k documents: 0, or computed on its n documents.
    short_precision : {"pad", "zero", "fetched"}, default "pad"
        P@k with fewer than k documents: missing ranks irrelevant (divide by k), 0, or the
        share of relevant documents among the n there are (divide by n; evaluation only).
    ideal_zero : {0.0, 1.0}, default 0.0
        NDCG value of a query whose ideal DCG is 0 (no document with positive gain).

    Raises
    ------
    ValueError
        For a field outside its allowed values.
    """

    name: str
    discount: str = "letor"
    gain: str = "exp2"
    relevant_min: int = 1
    short_ndcg: str = "zero"
    short_precision: str = "pad"
    ideal_zero: float = 0.0

    def __post_init__(self):
        for field, allowed in (("discount", _DISCOUNTS), ("gain", _GAINS),
                               ("short_ndcg", _SHORT_NDCG), ("short_precision", _SHORT_PRECISION)):
            if getattr(self, field) not in allowed:
                raise ValueError(f"Convention.{field} must be one of {', '.join(allowed)}; "
                                 f"got {getattr(self, field)!r}")
        if not float(self.ideal_zero) in (0.0, 1.0):
            raise ValueError(f"Convention.ideal_zero must be 0 or 1; got {self.ideal_zero!r}")
        if int(self.relevant_min) != self.relevant_min or self.relevant_min < 1:
            raise ValueError(f"Convention.relevant_min must be an integer >= 1; got {self.relevant_min!r}")


CONVENTIONS: dict[str, Convention] = {
    # LETOR 3.0 Eval-Score-3.0.pl: P@k and NDCG@k of a query shorter than k are 0.
    "letor3": Convention("letor3", "letor", "exp2", 1, "zero", "zero", 0.0),
    # LETOR 4.0 Eval-Score-4.0.pl: holes below the last document count as irrelevant for P@k.
    "letor4": Convention("letor4", "letor", "exp2", 1, "zero", "pad", 0.0),
    # MSLR eval-score-mslr.pl: as 4.0 with labels 0..4 and relevance from label 2.
    "mslr": Convention("mslr", "letor", "exp2", 2, "zero", "pad", 0.0),
    # trec/xgboost style: 1/log2(i + 1), NDCG@k on the n documents when n < k.
    "standard": Convention("standard", "log2", "exp2", 1, "truncate", "pad", 0.0),
    # Lei & Han 2017's own R evaluation of its classifiers (report section 3): P@k the share of
    # labels 2-4 among the top min(k, n) by predicted score, NDCG with the printed 1/log2(i + 1).
    "lei2017": Convention("lei2017", "log2", "exp2", 2, "truncate", "fetched", 0.0),
    # Lyu et al. 2024's code (its metrics): standard, with a query without a relevant document
    # scoring 1 (as LightGBM does).
    "lyu2024": Convention("lyu2024", "log2", "exp2", 1, "truncate", "pad", 1.0),
}


def get_convention(name, **overrides) -> Convention:
    """The built-in convention ``name``, with fields replaced.

    Parameters
    ----------
    name : str or Convention
        letor3, letor4, mslr, standard, lei2017 or lyu2024 (any letter case), or a Convention.
    **overrides
        Fields of :class:`Convention` to replace, e.g. ``get_convention("standard", ideal_zero=1)``.

    Returns
    -------
    Convention

    Raises
    ------
    ValueError
        For an unknown name or field.
    """
    if isinstance(name, Convention):
        base = name
    else:
        key = str(name).strip().lower()
        if key not in CONVENTIONS:
            raise ValueError(f"unknown metric convention {name!r}; valid: {', '.join(CONVENTIONS)}")
        base = CONVENTIONS[key]
    if not overrides:
        return base
    fields = {f.name for f in dataclasses.fields(Convention)}
    bad = sorted(set(overrides) - fields)
    if bad:
        raise ValueError(f"unknown Convention field(s) {', '.join(bad)}; valid: {', '.join(sorted(fields))}")
    return dataclasses.replace(base, **overrides)


_METRIC_FORMS = "ndcg@K, p@K (or precision@K), map, meanndcg (K an integer >= 1; case-insensitive)"
_METRIC_RE = re.compile(r"^(ndcg|p|precision)@(\d+)$")


def parse_metric(metric: str) -> tuple[str, int | None]:
    """The kind and cut-off of a metric name.

    Parameters
    ----------
    metric : str
        ``ndcg@K``, ``p@K`` (or ``precision@K``), ``map`` or ``meanndcg``; case and spaces
        are ignored.

    Returns
    -------
    kind : {"ndcg", "p", "map", "meanndcg"}
    k : int or None
        K for ndcg and p, else None.

    Raises
    ------
    ValueError
        For a name of none of these forms.
    """
    text = str(metric).strip().lower().replace(" ", "")
    if text in ("map", "ap"):
        return "map", None
    if text in ("meanndcg", "mean_ndcg", "mean-ndcg"):
        return "meanndcg", None
    match = _METRIC_RE.match(text)
    if match and int(match.group(2)) >= 1:
        kind = "ndcg" if match.group(1) == "ndcg" else "p"
        return kind, int(match.group(2))
    raise ValueError(f"unknown metric {metric!r}; valid forms: {_METRIC_FORMS}")


def short_query_note(query_ptr, convention, k: int = 10, where: str = "") -> str | None:
    """The one line for a convention that scores NDCG@k of the short queries 0, or None.

    The LETOR and MSLR conventions (``short_ndcg="zero"``) give NDCG@k = 0 to a query with fewer
    than k documents: right for the LETOR datasets and the papers, a surprise on other data
    (on MQ2008, whose median query has 8 documents, most test queries).

    Parameters
    ----------
    query_ptr : ndarray of int64, shape (q + 1,)
        The query layout.
    convention : str or Convention
    k : int, default 10
        The cutoff.
    where : str, default ""
        Names the data in the line (a file, "the test queries").

    Returns
    -------
    str or None
        ``"9 of 12 queries of test.txt have fewer than 10 documents: letor4 scores their NDCG@10
        0 (the LETOR scripts' rule); --convention standard computes it on their documents"``;
        None when no query is short or the convention computes short queries.

    Examples
    --------
    >>> short_query_note(np.array([0, 5, 20]), "letor4")
    "1 of 2 queries have fewer than 10 documents: letor4 scores their NDCG@10 0 (the LETOR and MSLR scripts' rule); the convention standard computes it on their documents"
    >>> short_query_note(np.array([0, 5, 20]), "standard") is None
    True
    """
    conv = get_convention(convention)
    n_short = int(np.sum(np.diff(np.asarray(query_ptr)) < k))
    if conv.short_ndcg != "zero" or n_short == 0:
        return None
    n = len(query_ptr) - 1
    place = f" of {where}" if where else ""
    return (f"{n_short} of {n} queries{place} have fewer than {k} "
            f"documents: {conv.name} scores their NDCG@{k} 0 (the LETOR and MSLR scripts' rule); the convention "
            "standard computes it on their documents")

"""Hyperparameters declared once: what each parameter accepts, checked in one place.

Every selector and ranker lists its constructor's parameters in a class attribute, after
scikit-learn's ``_parameter_constraints``::

    parameters = {
        "C": [Real(0, None, closed="neither")],
        "max_iter": [Integer(1)],
        "solver": [Options("lbfgs", "gd")],
        "random_state": [Integer(0), None],
    }

A value is valid when one constraint of its list accepts it (``None`` in the list accepts
None). ``Estimator.validate_params`` checks the declaration, so the Python API (``fit``), the
command line (``--set``) and the workflow's config (checked before any job runs) give the same
one-line error, e.g. ``lambdamart: max_leaves must be an integer >= 2; got 1``. Rules between
parameters (``t_vali <= ...``, a backend that needs a library) stay in the estimator's own
``validate_params``, after ``super().validate_params()``. ``check_value`` applies one
constraint list to a function argument (``n_threads`` of the scorers, ``max_k`` of metrics).
"""
from __future__ import annotations

import inspect
import math
import numbers
import re

import numpy as np

from ltrfs import metric_spec

__all__ = ["Constraint", "Integer", "Real", "Options", "Boolean", "Metric", "ConventionLike", "ListOf", "Mapping",
           "Text", "accepts", "describe", "check_value", "check_params", "parameter_help"]

#: said after an n_jobs / n_threads error: the package never takes every core on its own
_THREADS_HINT = " (ltrfs never uses all cores implicitly: give a thread count)"


class Constraint:
    """One kind of accepted value: ``accepts(value)`` and a description for messages (``str``)."""

    def accepts(self, value) -> bool:  # pragma: no cover
        """Whether ``value`` is of this kind.

        Parameters
        ----------
        value : object

        Returns
        -------
        bool
        """
        raise NotImplementedError

    def __str__(self) -> str:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self}>"


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


class Real(Constraint):
    """A finite number (int or float, not a bool) in an interval.

    Parameters
    ----------
    low, high : float, optional
        The bounds; None: unbounded on that side.
    closed : {"both", "left", "right", "neither"}, default "both"
        Which ends belong to the interval.
    """

    noun = "a finite number"

    def __init__(self, low: float | None = None, high: float | None = None, closed: str = "both"):
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both, left, right or neither; got {closed!r}")
        self.low, self.high, self.closed = low, high, closed

    def _in_interval(self, value) -> bool:
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        return ((self.low is None or value > self.low or (low_in and value == self.low))
                and (self.high is None or value < self.high or (high_in and value == self.high)))

    def accepts(self, value) -> bool:
        return (isinstance(value, numbers.Real) and not _is_bool(value) and math.isfinite(value)
                and self._in_interval(value))

    def _between(self) -> str:
        """Both bounds given: "a number in (0, 1]"."""
        low, high = "[" if self.closed in ("both", "left") else "(", "]" if self.closed in ("both", "right") else ")"
        return f"a number in {low}{self.low}, {self.high}{high}"

    def __str__(self) -> str:
        if self.low is not None and self.high is not None:
            return self._between()
        if self.low is not None:
            return f"{self.noun} {'>=' if self.closed in ('both', 'left') else '>'} {self.low}"
        if self.high is not None:
            return f"{self.noun} {'<=' if self.closed in ('both', 'right') else '<'} {self.high}"
        return self.noun


class Integer(Real):
    """An integer (not a bool) in ``low..high``.

    Parameters
    ----------
    low, high : int, optional
        The bounds (inclusive); None: unbounded on that side.
    """

    noun = "an integer"

    def __init__(self, low: int | None = None, high: int | None = None):
        super().__init__(low, high, "both")

    def accepts(self, value) -> bool:
        return isinstance(value, numbers.Integral) and not _is_bool(value) and self._in_interval(value)

    def _between(self) -> str:
        return f"an integer in {self.low}..{self.high}"


class Options(Constraint):
    """One of the given values.

    Parameters
    ----------
    *values
        The accepted values (compared with ``==``; a bool is never accepted).
    ignore_case : bool, default False
        Compare strings in lower case (give the values in lower case).
    """

    def __init__(self, *values, ignore_case: bool = False):
        self.values, self.ignore_case = tuple(values), ignore_case

    def accepts(self, value) -> bool:
        if self.ignore_case and isinstance(value, str):
            value = value.lower()
        return not _is_bool(value) and any(_equal(value, v) for v in self.values)

    def __str__(self) -> str:
        values = ", ".join(str(v) for v in self.values) + (" (any case)" if self.ignore_case else "")
        return values if len(self.values) == 1 else f"one of {values}"


class Boolean(Constraint):
    """True or False (NumPy's bool too)."""

    def accepts(self, value) -> bool:
        return _is_bool(value)

    def __str__(self) -> str:
        return "true or false"


class Text(Constraint):
    """A non-empty string."""

    def accepts(self, value) -> bool:
        return isinstance(value, str) and bool(value)

    def __str__(self) -> str:
        return "a non-empty text"


class Metric(Constraint):
    """A ranking metric name that ``ltrfs.metrics.parse_metric`` reads (ndcg@10, map, ...)."""

    def accepts(self, value) -> bool:
        if not isinstance(value, str):
            return False
        try:
            metric_spec.parse_metric(value)
        except ValueError:
            return False
        return True

    def __str__(self) -> str:
        return "a metric (ndcg@K, p@K, map or meanndcg)"


class ConventionLike(Constraint):
    """A metric convention: a built-in one's name in any case (letor3, letor4, mslr, standard, lyu2024) or a
    ``ltrfs.metrics.Convention``; what ``metrics.get_convention`` reads.
    """

    def accepts(self, value) -> bool:
        return isinstance(value, metric_spec.Convention) or (
            isinstance(value, str) and value.strip().lower() in metric_spec.CONVENTIONS)

    def __str__(self) -> str:
        return "a metric convention (letor3, letor4, mslr, standard or lyu2024)"


class ListOf(Constraint):
    """A list, tuple or 1-d array (not a set: its order is undefined) of accepted items.

    Parameters
    ----------
    item : Constraint
        What each item must be.
    min_len : int, default 1
        The fewest items.
    """

    def __init__(self, item: Constraint, min_len: int = 1):
        self.item, self.min_len = item, min_len

    def accepts(self, value) -> bool:
        if not (isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)):
            return False
        return len(value) >= self.min_len and all(self.item.accepts(v) for v in value)

    def __str__(self) -> str:
        size = "a non-empty list" if self.min_len == 1 else ("a list" if self.min_len == 0 else
                                                             f"a list of at least {self.min_len}")
        return f"{size} of {_plural(str(self.item))}"


class Mapping(Constraint):
    """A mapping with text keys (extra parameters handed on to a library)."""

    def accepts(self, value) -> bool:
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)

    def __str__(self) -> str:
        return "a mapping of names to values"


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # an array compared with a string
        return False


def _plural(description: str) -> str:
    """'a finite number >= 0' -> 'finite numbers >= 0' (for list descriptions)."""
    for article in ("an ", "a "):
        if description.startswith(article):
            return re.sub(r"\b(integer|number|metric|text|mapping)\b", r"\1s", description[len(article):], count=1)
    return description


def accepts(allowed, value) -> bool:
    """Whether one entry of a declaration accepts ``value``.

    Parameters
    ----------
    allowed : list
        Constraints and/or None (None accepts None).
    value : object

    Returns
    -------
    bool
    """
    return any(value is None if c is None else c.accepts(value) for c in allowed)


def describe(allowed) -> str:
    """The allowed values of a declaration, for messages and docs.

    Parameters
    ----------
    allowed : list
        Constraints and/or None.

    Returns
    -------
    str
        E.g. ``'an integer >= 1 or None'``.
    """
    return " or ".join("None" if c is None else str(c) for c in allowed)


def check_value(name: str, value, allowed, owner: str | None = None):
    """Check one value against a declaration.

    Parameters
    ----------
    name : str
        The parameter's name.
    value : object
        Its value.
    allowed : list
        Constraints and/or None.
    owner : str, optional
        The estimator or function, named first in the message.

    Returns
    -------
    object
        ``value``, when ``allowed`` accepts it.

    Raises
    ------
    ValueError
        ``"<owner>: <name> must be <description>; got <value>"`` (one line).
    """
    if not accepts(allowed, value):
        hint = _THREADS_HINT if name in ("n_jobs", "n_threads") else ""
        prefix = f"{owner}: " if owner else ""
        raise ValueError(f"{prefix}{name} must be {describe(allowed)}; got {value!r}{hint}")
    return value


def check_params(estimator) -> None:
    """Check every declared parameter of an estimator against its current value.

    Parameters
    ----------
    estimator : Estimator
        Its class's ``parameters`` are the declarations.

    Raises
    ------
    ValueError
        One line naming the estimator (its ``name``) and the parameter.
    """
    owner = getattr(estimator, "name", "") or type(estimator).__name__
    for name, allowed in type(estimator).parameters.items():
        check_value(name, getattr(estimator, name), allowed, owner)


def _docstring_section(doc: str, title: str) -> list[str]:
    """The lines of a numpydoc section (after its underline, up to the next section)."""
    lines = doc.splitlines()
    underlined = [i for i in range(len(lines) - 1)
                  if lines[i].strip() and not lines[i].startswith(" ") and re.fullmatch(r"-{3,}", lines[i + 1].strip())]
    for n, i in enumerate(underlined):
        if lines[i].strip() == title:
            end = underlined[n + 1] if n + 1 < len(underlined) else len(lines)
            return lines[i + 2:end]
    return []


def _first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (one before a capital letter or the end),
    without reST's double backquotes."""
    text = text.replace("``", "")
    cut = re.search(r"\.(?=\s+[A-Z])", text)
    return (text[:cut.start()] if cut else text.rstrip(".")).strip()


def parameter_help(cls) -> dict[str, str]:
    """What each parameter of an estimator class means, in a few words.

    Read from the class docstring's numpydoc ``Parameters`` section (written once, where the
    class is): the first sentence of each parameter's description. ``ltrfs params NAME`` prints it.

    Parameters
    ----------
    cls : type
        A selector or ranker class.

    Returns
    -------
    dict of str to str
        Parameter name -> its meaning; "" for a parameter documented without a description.

    Examples
    --------
    >>> from ltrfs.rankers.pointwise import LinearRegressionRanker
    >>> parameter_help(LinearRegressionRanker)["alpha"]
    'ridge weight; 0 = ordinary least squares (lstsq)'
    """
    out: dict[str, str] = {}
    names: list[str] = []
    text: list[str] = []
    for line in _docstring_section(inspect.getdoc(cls) or "", "Parameters") + ["end : (a sentinel)"]:
        if line and not line.startswith(" "):  # "name : type" starts the next parameter
            out.update({name: _first_sentence(" ".join(text)) for name in names})
            names = [n.strip().lstrip("*") for n in line.partition(" : ")[0].split(",")]
            text = []
        elif line.strip():
            text.append(line.strip())
    return out

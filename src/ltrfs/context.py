"""The parameters a job fills in from its context, in one place.

A method's or ranker's config fixes some parameters; the job supplies the rest where the class
takes them: the seed derived from the job's wildcards (``random_state``, ``stable_seed``), the job's threads
(``n_jobs``, always the job's: threads come from the command line, never from the config), the
dataset's metric convention (``convention``) and label threshold (``relevant_min``), and how
tuning ranks tied scores (``ties``). Scorers are functions; ``takes_parameter`` tells whether
one takes ``n_threads``.
"""
from __future__ import annotations

import hashlib
import inspect

__all__ = ["stable_seed", "takes_parameter", "with_context"]

#: context parameters that override the config's value (the job's resources, not science)
FORCED = frozenset({"n_jobs"})


def takes_parameter(function, name: str) -> bool:
    """Whether ``function`` (or a class's constructor) takes a parameter ``name``.

    Parameters
    ----------
    function : callable or type
        A function, or a class (its ``__init__`` is inspected).
    name : str
        The parameter's name.

    Returns
    -------
    bool

    Examples
    --------
    >>> takes_parameter(lambda x, n_threads=1: x, "n_threads")
    True
    """
    target = function.__init__ if inspect.isclass(function) else function
    return name in inspect.signature(target).parameters


def with_context(cls, params: dict | None, **context) -> dict:
    """``params`` completed with the ``context`` values the class's constructor takes.

    Parameters
    ----------
    cls : type
        A selector or ranker class.
    params : dict or None
        The configured parameters; they win over the context, except for ``FORCED`` ones.
    **context
        Candidate values by parameter name (``random_state``, ``n_jobs``, ``convention``,
        ``ties``, ``relevant_min``); None values are skipped.

    Returns
    -------
    dict
        A new dict; ``params`` is not changed.

    Examples
    --------
    >>> class Demo:
    ...     def __init__(self, C=1.0, random_state=None, n_jobs=1):
    ...         pass
    >>> with_context(Demo, {"C": 2.0, "n_jobs": 8}, random_state=7, n_jobs=2, convention="letor4")
    {'C': 2.0, 'n_jobs': 2, 'random_state': 7}
    """
    out = dict(params or {})
    for name, value in context.items():
        if value is None or not takes_parameter(cls, name):
            continue
        if name in FORCED:
            out[name] = value
        else:
            out.setdefault(name, value)
    return out


def stable_seed(*parts) -> int:
    """A 31-bit seed from any parts, equal on every machine and Python run (unlike ``hash``).

    Parameters
    ----------
    *parts
        Config seed, dataset, fold, method, ... (anything with a ``str``).

    Returns
    -------
    int
    """
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little") & 0x7FFFFFFF

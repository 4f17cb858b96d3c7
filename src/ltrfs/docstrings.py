"""Docstring text written once and shared: named fragments filled into ``__doc__`` at import.

A docstring line that holds only ``%(name)s`` is replaced by the fragment ``name``, each of its
lines indented as the placeholder was (a fragment may hold placeholders too), so that ``help()``, ``__doc__`` and the doctests see the
whole numpydoc text. Fragments are the package-wide ones of ``FRAGMENTS`` plus those a module
passes to ``fill_doc``.

Examples
--------
>>> @fill_doc(answer="x : int\\n    The answer.")
... def f(x):
...     '''Do it.
...
...     Parameters
...     ----------
...     %(answer)s
...     '''
>>> print(f.__doc__.splitlines()[4:6])
['    x : int', '        The answer.']
"""
from __future__ import annotations

import re

#: fragments every module may use
FRAGMENTS = {
    # the attributes ``Selector.fit`` sets for every selector
    "selector_fit_attributes": """\
seconds_ : float
    Wall-clock seconds of ``fit``.
constant_features_ : int64 (c,)
    Features constant within every training query (``Selector``; ``ltrfs.selection.base`` says
    where ``ranking_`` puts them).
n_features_in_ : int
    d, the number of features seen in ``fit``.""",
}

_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.M)


def fill(doc: str | None, fragments: dict[str, str]) -> str | None:
    """``doc`` with every placeholder line replaced by its fragment (None stays None).

    Parameters
    ----------
    doc : str or None
        A docstring (None under ``python -OO``).
    fragments : dict of str to str
        The fragments by name, unindented.

    Returns
    -------
    str or None

    Raises
    ------
    KeyError
        For a placeholder without a fragment.
    """
    if doc is None:
        return None

    def expand(match):
        indent, name = match.groups()
        return "\n".join(indent + line if line else line for line in fragments[name].strip("\n").splitlines())

    for _ in range(5):  # a fragment may hold placeholders of its own
        doc, n = _PLACEHOLDER.subn(expand, doc)
        if not n:
            break
    return doc


def fill_doc(obj=None, /, **fragments):
    """Decorator: fill the placeholders of a class's or function's docstring.

    Used bare (``@fill_doc``) with ``FRAGMENTS`` only, or called (``@fill_doc(name=text)``) with
    more fragments.

    Parameters
    ----------
    obj : class or function, optional
        What to decorate, when used bare.
    **fragments : str
        Fragments beside (or over) ``FRAGMENTS``.

    Returns
    -------
    The object itself (docstring filled), or a decorator.
    """
    names = {**FRAGMENTS, **fragments}

    def decorate(target):
        target.__doc__ = fill(target.__doc__, names)
        return target

    return decorate if obj is None else decorate(obj)

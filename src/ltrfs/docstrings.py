"""Docstring text written once and shared: named fragments filled into ``__doc__`` at import.

A docstring line that holds only ``%(name)s`` is replaced by the fragment ``name``, each of its
lines indented as the placeholder was (a fragment may hold placeholders too), so that ``help()``,
``__doc__`` and the doctests see the whole numpydoc text. Fragments are the package-wide ones of
``FRAGMENTS`` plus those a module passes to ``fill_doc`` (its ``_DOC``).

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
    "selector_fit_attributes": """
seconds_ : float
    Wall-clock seconds of ``fit``.
constant_features_ : int64 (c,)
    Features constant within every training query (``Selector``; ``ltrfs.selection.base`` says
    where ``ranking_`` puts them).
n_features_in_ : int
    d, the number of features seen in ``fit``.""",
    # ``fit(X, y, qid, X_val=None, y_val=None, qid_val=None)`` of rankers and selectors
    "fit_parameters": """
Parameters
----------
X : array-like, shape (m, d)
    Training features.
y : array-like of int, shape (m,)
    Relevance labels.
qid : array-like, shape (m,)
    Query id of every row (the rows of a query contiguous).
""",
    "fit_sections": """
%(fit_parameters)s
X_val, y_val, qid_val : array-like or None
    The validation split.

Returns
-------
self
""",
    "fit_sections_unused_validation": """
%(fit_parameters)s
X_val, y_val, qid_val
    Accepted and unused.

Returns
-------
self
""",
    # ``predict(X)``-like methods: one score per row
    "predict_sections": """
Parameters
----------
X : array-like, shape (m, d)

Returns
-------
float64 (m,)
""",
    # the ``(train, vali, convention)`` of a scorer in ``ltrfs.scoring.SCORERS`` that needs only train
    "scorer_parameters": """
train : RankingData
    The fold's training split.
vali : RankingData or None
    The validation split (unused here).
convention : str
    Metric convention (unused: no ranking metric is involved).
""",
    # the planning methods of the workflow stages (``ltrfs.pipeline``)
    "experiment_dataset": """
experiment, dataset : str
    The experiment and one of its datasets.
""",
    "experiment_dataset_paths": """
Parameters
----------
%(experiment_dataset)s

Returns
-------
list of str
""",
    # a selector that chooses nothing (``chosen_`` empty)
    "selector_plain_attributes": """
chosen_ : dict
    Empty.
%(selector_fit_attributes)s
""",
    # ``predict``-like methods of models that scale the features in ``fit``
    "raw_features_parameters": """
Parameters
----------
X : array-like, shape (m, d)
    Raw features (the scaling learned in ``fit`` is applied here).
""",
    # the 1-slack cutting-plane solvers (``ltrfs.rankers.ranksvm``, ``ltrfs.rankers.svmmap``)
    "cutting_plane_attributes": """
coef_ : float64 (d,)
    the weight vector; ``predict(X) = X @ coef_``
objective_ : float
    primal objective at ``coef_`` (exact, from the oracle)
n_iter_ : int
    cutting-plane iterations (oracle calls)
converged_ : bool
    stopping rule met within ``max_iter``
""",
    # the boosted trees of ``ltrfs.rankers.trees`` and ``ltrfs.rankers.lambdamart``
    "boosted_trees_parameters": """
Parameters
----------
n_estimators : int, default 1000
    boosting rounds (trees)
learning_rate : float, default 0.1
    shrinkage
max_leaves : int, default 10
    leaves per tree (leaf-wise growth, no depth limit)
""",
    # ``Selector.fit_columns(d, params)`` and its overrides (the cost model's work of a select job)
    "fit_columns_sections": """
Parameters
----------
d : int
    Number of features.
params : dict or None
    The method's parameters in the config (missing ones take their defaults).

Returns
-------
float""",
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
    """Decorator: fill the placeholders of a function's docstring, or of a class's and its methods'.

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
        if isinstance(target, type):  # and the methods and properties the class defines
            for member in vars(target).values():
                function = getattr(member, "__func__", None) or getattr(member, "fget", None) or member
                if callable(function) and getattr(function, "__doc__", None):
                    function.__doc__ = fill(function.__doc__, names)
                    if isinstance(member, property):
                        member.__doc__ = function.__doc__
        return target

    return decorate if obj is None else decorate(obj)

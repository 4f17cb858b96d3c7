"""Names the user writes (methods, rankers, parameters, config keys): the one-line message for an
unknown one, with the closest valid name, and an estimator built by name.
"""
from __future__ import annotations

from collections.abc import Mapping
import difflib
import importlib
import inspect
import re


def did_you_mean(name, valid) -> str:
    """The hint for a name that is not one of ``valid``: `` (did you mean 'x'?)``, or "".

    The closest valid name by ``difflib`` (ratio 0.6 or more), compared with ``-`` and spaces as
    ``_`` and in lower case, so ``gas-e`` and ``GAS_E`` find ``gas_e``.

    Parameters
    ----------
    name : object
        The name given.
    valid : iterable of str
        The valid names.

    Returns
    -------
    str
        The hint, with its leading space, or "" when no valid name is close.

    Examples
    --------
    >>> did_you_mean("gas-e", ["gas_e", "gas_l", "fs_ed"])
    " (did you mean 'gas_e'?)"
    >>> did_you_mean("zzz", ["gas_e"])
    ''
    """
    folded = {re.sub(r"[-\s]", "_", str(v)).lower(): str(v) for v in valid}
    key = re.sub(r"[-\s]", "_", str(name)).lower()
    close = [folded[key]] if key in folded else [folded[m] for m in difflib.get_close_matches(key, folded, n=1)]
    return f" (did you mean {close[0]!r}?)" if close and close[0] != name else ""


def unknown_name(kind: str, name, valid) -> str:
    """``unknown <kind> '<name>' (did you mean '<closest>'?); valid: <all, sorted>`` (``did_you_mean``).

    Parameters
    ----------
    kind : str
        What the name names ("method", "config ranker").
    name : object
        The name given.
    valid : iterable of str
        The valid names.

    Returns
    -------
    str
        The one-line message.

    Examples
    --------
    >>> unknown_name("method", "gas-e", ["gas_e", "gas_l", "fs_ed"])
    "unknown method 'gas-e' (did you mean 'gas_e'?); valid: fs_ed, gas_e, gas_l"
    """
    valid = sorted(map(str, valid))
    return f"unknown {kind} {name!r}{did_you_mean(name, valid)}; valid: {', '.join(valid) or '(none)'}"


def build_estimator(kind: str, registry: dict, name: str, params: dict):
    """Build an estimator by name with one-line errors.

    Parameters
    ----------
    kind : str
        "ranker" or "method", for messages.
    registry : dict
        Name -> class.
    name : str
        The estimator's name.
    params : dict
        Constructor parameters.

    Returns
    -------
    object
        ``registry[name](**params)``.

    Raises
    ------
    ValueError
        Naming an unknown name or parameter.
    """
    if name not in registry:
        raise ValueError(unknown_name(kind, name, registry))
    cls = registry[name]
    valid = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{kind} {name!r} has no parameter {unknown[0]!r}{did_you_mean(unknown[0], valid)}; "
                         f"valid: {', '.join(valid) or '(none)'}")
    return cls(**params)


class LazyRegistry(Mapping):
    """Names to classes, each class imported from its module the first time it is asked for.

    A job that fits one selector imports that selector's module only; iterating over the names
    (``in``, ``sorted``, messages) imports nothing, iterating over the classes imports them all.

    Parameters
    ----------
    entries : dict
        Name -> ``"module:Class"``, in the registry's order.

    Examples
    --------
    >>> registry = LazyRegistry({"ordered": "collections:OrderedDict"})
    >>> "ordered" in registry, list(registry), registry["ordered"].__name__
    (True, ['ordered'], 'OrderedDict')
    """

    def __init__(self, entries: dict[str, str]):
        self._paths = dict(entries)
        self._classes: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        cls = self._classes.get(name)
        if cls is None:
            module, _, attribute = self._paths[name].partition(":")
            cls = self._classes[name] = getattr(importlib.import_module(module), attribute)
        return cls

    def __contains__(self, name) -> bool:
        return name in self._paths

    def __iter__(self):
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def module_of(self, name: str) -> str:
        """The module a name's class lives in, without importing it.

        Examples
        --------
        >>> LazyRegistry({"ordered": "collections:OrderedDict"}).module_of("ordered")
        'collections'
        """
        return self._paths[name].partition(":")[0]

    def class_names(self) -> dict[str, str]:
        """Class name -> registry name, without importing anything.

        Returns
        -------
        dict
        """
        return {path.partition(":")[2]: name for name, path in self._paths.items()}

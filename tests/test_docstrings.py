"""One docstring style for the package (issue 28, item 6): numpydoc.

Every module of ``ltrfs`` is imported (``pkgutil.walk_packages``; ``ltrfs.__main__``, which runs
the command line when imported, is read with ``ast`` instead). In each, every public
module-level function and class defined there (not imported), and every public method,
property, classmethod and staticmethod such a class defines, must

- have a docstring (a method may inherit its base class's, as ``inspect.getdoc`` finds it);
- not use the retired prose headings (``Parameters (defaults):``, ``Parameters:``,
  ``Attributes:``);
- when it takes at least two parameters besides ``self``/``cls`` and its docstring is longer
  than one line, have a ``Parameters`` section (a class may have ``Attributes`` instead: a
  dataclass's fields are its parameters).

One-line docstrings stay allowed for callables whose summary says it all.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import ltrfs

#: modules that cannot be imported without side effects, checked from their source instead
SOURCE_ONLY = {"ltrfs.__main__": "runs the command line when imported"}
#: the prose headings numpydoc sections replaced
RETIRED = re.compile(r"^\s*(Parameters \(defaults\)|Parameters|Attributes)\s*:", re.M)


def module_names() -> list[str]:
    def fail(name):
        raise ImportError(f"cannot import {name} while walking ltrfs")

    names = ["ltrfs"] + [m.name for m in pkgutil.walk_packages(ltrfs.__path__, "ltrfs.", onerror=fail)]
    return sorted(names)


MODULES = module_names()


def n_parameters(function) -> int:
    """Parameters besides self/cls (``*args`` and ``**kwargs`` count as one each)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin or compiled callable without a signature
        return 0
    return len([p for p in parameters if p not in ("self", "cls")])


def has_section(doc: str, *names: str) -> bool:
    return any(re.search(rf"^\s*{name}\n\s*-{{3,}}\s*$", doc, re.M) for name in names)


def problems_of(name: str, obj, doc: str | None, is_class: bool) -> list[str]:
    if not doc or not doc.strip():
        return [f"{name}: no docstring"]
    found = []
    if RETIRED.search(doc):
        found.append(f"{name}: prose heading {RETIRED.search(doc).group(1)!r}; use a numpydoc section")
    signature_of = obj.__init__ if is_class else obj
    if is_class and not inspect.isfunction(signature_of):  # a builtin's constructor (exceptions)
        return found
    sections = ("Parameters", "Attributes") if is_class else ("Parameters",)
    if (len(inspect.cleandoc(doc).strip().splitlines()) > 1 and n_parameters(signature_of) >= 2
            and not has_section(doc, *sections)):
        found.append(f"{name}: {n_parameters(signature_of)} parameters and a multi-line docstring, "
                     f"but no {' or '.join(sections)} section")
    return found


def members(cls):
    """(name, object, docstring) of the public methods and properties ``cls`` defines."""
    for name, raw in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(raw, property):
            yield name, raw.fget, inspect.getdoc(raw)
        elif isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw):
            function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            yield name, function, inspect.getdoc(getattr(cls, name))


def module_problems(module) -> list[str]:
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            found += problems_of(name, obj, obj.__doc__, is_class=True)
            for member, function, doc in members(obj):
                found += problems_of(f"{name}.{member}", function, doc, is_class=False)
        elif inspect.isfunction(obj):
            found += problems_of(name, obj, obj.__doc__, is_class=False)
    return found


def source_problems(name: str) -> list[str]:
    """The same demand read from the source: public top-level definitions need a docstring."""
    path = Path(importlib.util.find_spec(name).origin)
    tree = ast.parse(path.read_text())
    return [f"{node.name}: no docstring" for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not node.name.startswith("_") and not ast.get_docstring(node)]


def test_the_walk_finds_the_package():
    assert len(MODULES) >= 60
    for name in ("ltrfs", "ltrfs.pipeline.train", "ltrfs.rankers.base", "ltrfs.selection.fs_bfs", "ltrfs.io.reader",
                 *SOURCE_ONLY):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_public_docstrings_are_numpydoc(name):
    if name in SOURCE_ONLY:
        problems = source_problems(name)
    else:
        problems = module_problems(importlib.import_module(name))
    assert problems == [], f"{name}:\n  " + "\n  ".join(problems)


def test_the_check_catches_each_kind_of_problem():
    def no_doc(a, b):
        pass

    def prose(a, b):
        """Do it.

        Parameters (defaults): a, b.
        """

    def no_section(a, b):
        """Do it.

        With a and b.
        """

    def one_line(a, b):
        """Do it with a and b."""

    def fine(a, b):
        """Do it.

        Parameters
        ----------
        a, b : int
        """

    verdicts = {f.__name__: problems_of(f.__name__, f, f.__doc__, is_class=False)
                for f in (no_doc, prose, no_section, one_line, fine)}
    assert verdicts["no_doc"] == ["no_doc: no docstring"]
    assert "prose heading" in verdicts["prose"][0]
    assert "no Parameters section" in verdicts["no_section"][0]
    assert verdicts["one_line"] == verdicts["fine"] == []

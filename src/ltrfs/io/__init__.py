"""Read and write LETOR / SVMlight ranking files and the ``.npz`` cache.

One concept a module:

``reader``      :func:`read_letor` / :func:`parse_letor`, the compiled (Numba) reader of LETOR text, and its rules
``writer``      :func:`write_letor`, LETOR text that reads back bit for bit
``cache``       :func:`save_npz` / :func:`load_npz`, the ``.npz`` cache, and :func:`read_any`
``duplicates``  :func:`duplicate_rows`, rows that repeat an earlier row of their query

The public names of all four are importable from ``ltrfs.io``; each module is imported when one
of its names is first asked for, so that a job which only reads ``.npz`` files does not load the
compiled text reader (Numba) or the archive readers.
"""
from __future__ import annotations

#: public name -> the module of this package that defines it
_HOMES = {"read_letor": "reader", "parse_letor": "reader", "NULL_POLICIES": "reader", "DENSE_FLOOR": "reader",
          "DENSE_PER_BYTE": "reader", "write_letor": "writer", "save_npz": "cache", "load_npz": "cache",
          "read_any": "cache", "duplicate_rows": "duplicates"}

__all__ = list(_HOMES)


def __getattr__(name: str):
    """A public name of the package, its module imported on first use (PEP 562)."""
    home = _HOMES.get(name)
    if home == "reader":
        from ltrfs.io import reader as module
    elif home == "writer":
        from ltrfs.io import writer as module
    elif home == "cache":
        from ltrfs.io import cache as module
    elif home == "duplicates":
        from ltrfs.io import duplicates as module
    else:
        raise AttributeError(f"module 'ltrfs.io' has no attribute {name!r}")
    return getattr(module, name)


def __dir__() -> list[str]:
    """The public names, as ``dir(ltrfs.io)`` lists them."""
    return sorted(set(globals()) | set(_HOMES))

"""Read and write LETOR / SVMlight ranking files and the ``.npz`` cache.

One concept a module:

``reader``      :func:`read_letor` / :func:`parse_letor`, the compiled (Numba) reader of LETOR text, and its rules
``writer``      :func:`write_letor`, LETOR text that reads back bit for bit
``cache``       :func:`save_npz` / :func:`load_npz`, the ``.npz`` cache, and :func:`read_any`
``duplicates``  :func:`duplicate_rows`, rows that repeat an earlier row of their query

The public names of all four are importable from ``ltrfs.io``.
"""
from __future__ import annotations

from ltrfs.io.cache import load_npz, read_any, save_npz
from ltrfs.io.duplicates import duplicate_rows
from ltrfs.io.reader import DENSE_FLOOR, DENSE_PER_BYTE, NULL_POLICIES, parse_letor, read_letor
from ltrfs.io.writer import write_letor

__all__ = ["read_letor", "parse_letor", "save_npz", "load_npz", "read_any", "write_letor", "duplicate_rows", "NULL_POLICIES",
           "DENSE_FLOOR", "DENSE_PER_BYTE"]

"""Numbers in JSON files: numpy values written as Python numbers, and the parse hooks that refuse
``NaN``, ``Infinity`` and overflowing numbers in files from strangers.
"""
from __future__ import annotations

import math

import numpy as np


def refuse_json_constant(name: str):
    """``json.loads``'s ``parse_constant`` for files of numbers from strangers: ``NaN``,
    ``Infinity`` and ``-Infinity`` are refused (a ValueError naming them)."""
    raise ValueError(f"{name} is not a number a model holds")


def finite_json_float(text: str) -> float:
    """``json.loads``'s ``parse_float`` that refuses a number overflowing to infinity (``1e999``)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def json_default(value):
    """``json.dumps``'s ``default``: numpy scalars as Python numbers, arrays as lists.

    Parameters
    ----------
    value : object
        What ``json`` cannot write itself.

    Returns
    -------
    int, float, bool or list
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} as JSON")

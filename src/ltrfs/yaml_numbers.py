"""YAML values with numbers read as YAML 1.2 writes them (``1e-7``, ``.5``, ``5.``), where PyYAML's
YAML 1.1 reads them as text.
"""
from __future__ import annotations

import re

import yaml


#: a decimal number as YAML 1.2 writes it: ``1e-7``, ``1E-7``, ``.5``, ``5.``, ``-.5``, ``2.5e3``
NUMBER = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")


class NumberLoader(yaml.SafeLoader):
    """PyYAML's safe loader that also reads YAML 1.2's numbers as numbers.

    PyYAML follows YAML 1.1, where a float needs a dot and a signed exponent: it reads ``1e-7``,
    ``1E-7`` and ``-.5`` as text. This loader reads every ``NUMBER`` as a float (integers stay
    integers).
    """


NumberLoader.add_implicit_resolver("tag:yaml.org,2002:float", NUMBER, list("-+0123456789."))


def yaml_value(text: str):
    """A YAML value (a scalar, list or mapping), numbers read as YAML 1.2 writes them.

    Parameters
    ----------
    text : str
        E.g. ``"1e-7"``, ``"[.5, 5., 1E-3]"``, ``"map"``.

    Returns
    -------
    object
        ``NumberLoader``'s reading.

    Examples
    --------
    >>> yaml_value("1e-7"), yaml_value("[.5, 5., 1E-3]"), yaml_value("10"), yaml_value("ndcg@10")
    (1e-07, [0.5, 5.0, 0.001], 10, 'ndcg@10')
    """
    return yaml.load(text, Loader=NumberLoader)  # noqa: S506 - a SafeLoader subclass


def with_numbers(value):
    """``value`` with every text that is a number (``NUMBER``, not a bare integer) made a float.

    What a YAML 1.1 loader left as text, e.g. the ``1e-7`` of a config file that Snakemake read
    (``ltrfs.config_check.check`` applies this to the methods' and rankers' parameters and grids).

    Parameters
    ----------
    value : object
        A loaded YAML value; lists and mappings are walked.

    Returns
    -------
    object
        A copy with the numbers read.

    Examples
    --------
    >>> with_numbers({"tol": "1e-7", "C": ["1E-3", ".5", 2], "metric": "map", "id": "7"})
    {'tol': 1e-07, 'C': [0.001, 0.5, 2], 'metric': 'map', 'id': '7'}
    """
    if isinstance(value, dict):
        return {key: with_numbers(v) for key, v in value.items()}
    if isinstance(value, list):
        return [with_numbers(v) for v in value]
    if isinstance(value, str) and NUMBER.match(value.strip()) and not value.strip().lstrip("+-").isdigit():
        return float(value)
    return value

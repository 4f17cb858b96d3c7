"""A paper's tables in the paper's own layout: its published values, and ours the same way.

The published values are ``config/published/{paper}.csv`` as written there (``printed`` keeps
each value's text, trailing zeros and all); ours come from an experiment's results table
(``results/{dataset}/tables/{experiment}.csv``). A row is named ``"method/ranker"`` as in the
published files and labelled as the paper labels it; a column is a metric (``P@3``) or a number
of features (Lei & Han's Table 2.1), headed as the paper heads it. A row the source lacks keeps
its place with empty cells, as the paper prints a row it lost. The paper pages show these
tables (docs/papers/lei2017.md), and a test regenerates the published ones from the files.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ltrfs.results.published import COLUMNS
from ltrfs.results.tables import chosen_rows


def printed(paper: str, root="config/published") -> pd.DataFrame:
    """A paper's published values with every column as text, ``value`` as printed.

    Parameters
    ----------
    paper : str
    root : path, default "config/published"

    Returns
    -------
    pandas.DataFrame
        The columns of ``ltrfs.results.published.COLUMNS``, all strings (empty for a blank cell).

    """
    path = Path(root) / f"{paper}.csv"
    if not path.exists():
        raise ValueError(f"no published numbers for {paper!r}: {path} is missing")
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(table.columns) != COLUMNS:
        raise ValueError(f"{path}: columns must be {', '.join(COLUMNS)}; got {', '.join(table.columns)}")
    return table


def grid(cells: dict, rows, columns, corner: str = "") -> str:
    """A Markdown table: one row per ``(key, label)`` of ``rows``, one column per ``(key, head)``.

    Parameters
    ----------
    cells : dict
        ``(row key, column key) -> text``; a missing cell is left empty.
    rows, columns : sequence of (str, str)
        Keys and the labels printed, in the paper's order.
    corner : str, default ''
        The head of the label column.

    Returns
    -------
    str
        The table, ending with a newline.

    Examples
    --------
    >>> print(grid({("a", "x"): "1"}, [("a", "A"), ("b", "B")], [("x", "@1")], "Model"), end="")
    | Model | @1 |
    |---|---|
    | A | 1 |
    | B |  |
    """
    lines = ["| " + " | ".join([corner, *(head for _, head in columns)]) + " |", "|" + "---|" * (len(columns) + 1)]
    for key, label in rows:
        lines.append("| " + " | ".join([label, *(cells.get((key, column), "") for column, _ in columns)]) + " |")
    return "\n".join(lines) + "\n"


def cutoff_columns(metric: str, ks=range(1, 11)) -> list[tuple[str, str]]:
    """The columns ``metric@k`` headed ``@k``, as Lei & Han's Tables 3.6-3.7 and A.1-A.4 head them.

    Parameters
    ----------
    metric : str
        ``"P"`` or ``"NDCG"``.
    ks : iterable of int, default 1..10

    Returns
    -------
    list of (str, str)
    """
    return [(f"{metric}@{k}", f"@{k}") for k in ks]


def published_grid(values: pd.DataFrame, table: str, rows, columns, *, by: str = "metric", k: str = "",
                   corner: str = "Model", dataset: str | None = None) -> str:
    """One published table laid out as the paper prints it.

    Parameters
    ----------
    values : pandas.DataFrame
        From ``printed``.
    table : str
        The paper's label (``"Table A.1"``).
    rows : sequence of (str, str)
        ``("method/ranker", the paper's row label)``, in the paper's order.
    columns : sequence of (str, str)
        ``(metric or k, the paper's head)``.
    by : {"metric", "k"}, default "metric"
        What a column is.
    k : str, default ''
        With ``by="metric"``, the values of this k only (empty: those the table gives no k).
    corner : str, default "Model"
    dataset : str or None
        Only this dataset's values.

    Returns
    -------
    str
    """
    part = values[values.table == table]
    if dataset is not None:
        part = part[part.dataset == dataset]
    part = part[part.k != ""] if by == "k" else part[part.k == k]
    cells = {(f"{r.method}/{r.ranker}", str(getattr(r, by))): r.value for r in part.itertuples(index=False)}
    return grid(cells, rows, columns, corner)


def ours_grid(ours: pd.DataFrame, rows, columns, *, digits: int = 3, corner: str = "Model") -> str:
    """Our results table in a paper's layout (each (method, ranker) at its chosen k).

    Parameters
    ----------
    ours : pandas.DataFrame
        A results table: columns method, ranker, k and one per metric.
    rows, columns : sequence of (str, str)
        As ``published_grid`` (columns are metrics).
    digits : int, default 3
        Decimals, as the paper prints them.
    corner : str, default "Model"

    Returns
    -------
    str
    """
    ours = chosen_rows(ours.astype({"k": str}))
    cells = {}
    for key, _ in rows:
        method, _, ranker = key.partition("/")
        mine = ours[(ours.method == method) & (ours.ranker == ranker)]
        for column, _ in columns:
            if len(mine) and column in mine.columns:
                cells[(key, column)] = f"{float(mine[column].iloc[0]):.{digits}f}"
    return grid(cells, rows, columns, corner)


def feature_lists(lists: dict, names=None, tags: dict | None = None) -> str:
    """Feature lists side by side, each as the paper prints one: an index ``X<id>`` and a name.

    Parameters
    ----------
    lists : dict
        ``label -> feature ids`` (1-based), in each list's order.
    names : sequence of str or None
        The dataset's feature names (``names[id - 1]``).
    tags : dict or None
        ``label -> {id: text}``, added after the name and a dash (e.g. a generated feature's
        planted role).

    Returns
    -------
    str
        A row per position, two columns per list (``Index (label)``, ``Feature (label)``).

    Examples
    --------
    >>> print(feature_lists({"paper": [3, 1]}, ["a", "b", "c"], {"paper": {1: "noise"}}), end="")
    | # | Index (paper) | Feature (paper) |
    |---|---|---|
    | 1 | X3 | c |
    | 2 | X1 | a — noise |
    """
    tags = tags or {}
    columns, cells = [], {}
    for label, ids in lists.items():
        columns += [((label, "index"), f"Index ({label})"), ((label, "name"), f"Feature ({label})")]
        for position, feature in enumerate(ids, 1):
            cells[(position, (label, "index"))] = f"X{feature}"
            name = names[feature - 1] if names else ""
            tag = tags.get(label, {}).get(feature)
            cells[(position, (label, "name"))] = f"{name} — {tag}" if tag else name
    rows = [(p, str(p)) for p in range(1, max((len(ids) for ids in lists.values()), default=0) + 1)]
    return grid(cells, rows, columns, "#")


def published_features(values: pd.DataFrame, table: str) -> list[int]:
    """The feature ids of a published feature list (metric ``feature``), in the paper's order.

    Parameters
    ----------
    values : pandas.DataFrame
        From ``printed``.
    table : str

    Returns
    -------
    list of int
    """
    part = values[(values.table == table) & (values.metric == "feature")]
    return [int(v) for v in part.sort_values("k", key=lambda k: k.astype(int)).value]

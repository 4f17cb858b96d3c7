"""What every figure shares: matplotlib's Agg backend, the atomic PNG/PDF save, one look per line,
the sideways shift of lines that would hide each other, and the legend beside the panels."""
from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ltrfs.atomic_files import atomic_path  # noqa: E402

#: docstring text written once for the figures' docstrings (``ltrfs.docstrings``)
FIGURE_DOC = {
    "figure_outputs": """
png : path
    The figure as PNG.
pdf : path or None
    The figure as PDF too.
csv : path or None
    The numbers drawn, as CSV beside the figure.
title : str, default ''
""",
}


def save(fig, png, pdf=None) -> None:
    """Save a figure atomically as PNG (and PDF), then close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    png : path
    pdf : path or None
    """
    for path in filter(None, (png, pdf)):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix[1:], dpi=150, bbox_inches="tight")
    plt.close(fig)


def title_above(fig, title: str) -> None:
    """``fig``'s title above everything drawn, from its left edge, wrapped to the width of the
    panels and their legend (about 11 characters an inch at matplotlib's 12 pt): a long title
    must not widen the saved image beyond them (``save`` crops to what is drawn).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure with its panels and legend drawn.
    title : str
    """
    box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    fig.suptitle(textwrap.fill(title, int(11 * box.width)), x=box.x0 / fig.get_figwidth(), ha="left", y=1.0,
                 va="bottom")


def line_styles(labels) -> dict[str, dict]:
    """One look per line that no other line of the figure shares: the ten colours of ``tab10``,
    then again with square markers and dashed lines, then triangles and dotted lines (``tab20``'s
    light and dark pairs read as one colour).

    Parameters
    ----------
    labels : sequence of str
        The lines, in legend order.

    Returns
    -------
    dict
        label -> ``{"color", "marker", "ls"}`` keyword arguments of ``Axes.plot``.

    Examples
    --------
    >>> styles = line_styles([f"m{i}" for i in range(12)])
    >>> styles["m0"]["marker"], styles["m10"]["marker"], styles["m10"]["ls"], styles["m0"]["color"] == styles["m10"]["color"]
    ('o', 's', '--', True)
    """
    palette = plt.get_cmap("tab10")
    looks = [("o", "-"), ("s", "--"), ("^", ":"), ("D", "-.")]
    return {label: {"color": palette(i % 10), "marker": looks[i // 10 % len(looks)][0],
                    "ls": looks[i // 10 % len(looks)][1]} for i, label in enumerate(labels)}


def line_step(ks, n_lines: int) -> float:
    """The sideways step between neighbouring lines' points so that ``n_lines`` lines together
    span a fifth of the smallest gap between the ``ks`` (0 for one line or one k).

    Parameters
    ----------
    ks : array-like of numbers
        The x positions of the points.
    n_lines : int
        The lines drawn side by side.

    Returns
    -------
    float
    """
    steps = np.diff(np.unique(np.asarray(ks, dtype=float)))
    return 0.2 * steps.min() / (n_lines - 1) if steps.size and n_lines > 1 else 0.0


def max_shift(dodge: float, n_lines: int) -> float:
    """The largest shift of a point from its k, for lines ``dodge`` apart."""
    return dodge * (n_lines - 1) / 2


def legend_beside(fig, axes, handles, labels, **kwargs) -> None:
    """One legend for the figure, just right of its rightmost panel (no empty band between them)."""
    right = max(ax.get_position().x1 for ax in np.ravel(axes))
    gap = 0.12 / fig.get_figwidth()  # about 0.12 inch
    fig.legend(handles, labels, fontsize=8, loc="center left", bbox_to_anchor=(right + gap, 0.5), **kwargs)

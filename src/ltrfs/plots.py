"""The figures, drawn with matplotlib's Agg backend, each saved as PNG and PDF with the data
it shows written beside it as CSV."""
from __future__ import annotations

from pathlib import Path
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ltrfs.atomic_files import atomic_path, write_text  # noqa: E402
from ltrfs.docstrings import fill_doc  # noqa: E402
from ltrfs.tables import REFERENCE_RANKER, k_label  # noqa: E402

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
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


@fill_doc(**_DOC)
def metric_vs_k(table: pd.DataFrame, metric: str, png, pdf=None, csv=None, title: str = "",
                baselines=("waf",), max_error_bars: int = 8, curves=None, comparison=None,
                alpha: float = 0.05, n_features: int | None = None, max_error_bar_ks: int = 30) -> None:
    """Test ``metric`` (mean over folds) against k, the metric-vs-k figure of every paper.

    By default one panel per ranker, one line per method, each method in the same colour in every
    panel; with ``curves`` one panel holding those lines (a paper's figure, e.g. Lai et al. Figs.
    1-3). One legend for the figure; points whose mean covers fewer folds than the others are left
    out (the table marks them). The standard deviation over folds is drawn as error bars when a
    panel has at most ``max_error_bars`` lines and the lines at most ``max_error_bar_ks`` ks (beyond
    that they hide the lines; the CSV keeps it), the lines' bars side by side, shifted a little in k (together at most a fifth of the gap
    between ks; the x label gives the shift; no shift with one fold). The
    all-features ``baselines`` are drawn as a horizontal dashed line (with a std band where the lines
    have their bars; else the band would hide them), each line in its own ``line_styles`` look, and the
    reference rows of the table (``tables.REFERENCE_RANKER``: a constant score in file order and
    in random order) as grey dotted and dash-dotted lines in every panel or, when they lie outside
    the y axis fitted to the lines, as grey triangles on its edge with their values, and the legend
    says "below the axis".

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table (``ltrfs.tables``): one row per method, ranker and k.
    metric : str
        A metric column, e.g. "NDCG@10".
    %(figure_outputs)s
    baselines : tuple of str, default ("waf",)
        Methods drawn as horizontal lines.
    max_error_bars : int, default 8
    curves : list of str or None
        "method/ranker" lines of a single panel.
    comparison : pandas.DataFrame or None
        A ``tables.compare`` result (rows ``at == "k"``): each point of a pair's side b where side a
        differs from it at p < ``alpha`` gets an open circle in side a's colour.
    alpha : float, default 0.05
    n_features : int or None, default None
        The dataset's number of features d: the k axis labels k = d "all (d)" (where a k above d
        lands too).
    max_error_bar_ks : int, default 30
        No error bars when the lines have more ks than this (e.g. every k from 1 to d); the
        panels also widen with the number of ks.
    """
    references = table[table.ranker == REFERENCE_RANKER]
    table = table[table.ranker != REFERENCE_RANKER]
    rows = table[table.k != "vali"].copy()
    rows = rows[rows.folds == rows.folds.max()]  # a k that only some folds reached is not comparable
    rows["k_num"] = rows.k.astype(int)
    rows["curve"] = rows.method + "/" + rows.ranker
    if curves:
        rows = rows[rows.curve.isin(list(curves))]
        panels = {"": rows.assign(label=rows.curve)}
        labels = [c for c in curves if c in set(rows.curve)]
    else:
        panels = {r: part.assign(label=part.method) for r, part in rows.groupby("ranker", sort=False)}
        labels = list(dict.fromkeys(rows.method))
    labels = [lab for lab in labels if lab.partition("/")[0] not in baselines]
    styles = line_styles(labels)
    colours = {m: style["color"] for m, style in styles.items()}
    significant = _significant_points(comparison, metric, alpha)
    n_ks = rows.k_num.nunique()
    width = max(4.2, 0.12 * n_ks)  # every k from 1 to d: about 1/8 inch per k
    fig, axes = plt.subplots(1, len(panels), figsize=(width * len(panels) + (1.5 if curves else 0), 3.4),
                             squeeze=False, sharey=True)
    handles, marks = {}, {}
    one_fold = len(rows) > 0 and int(rows.folds.max()) == 1  # no std over folds: no bars, no band
    bars = (max((part.label.nunique() for part in panels.values()), default=0) <= max_error_bars
            and n_ks <= max_error_bar_ks and not one_fold)
    dodge = _line_step(rows.k_num, len(labels)) if bars else 0.0  # none with one fold: no bars to separate
    for ax, (name, panel) in zip(axes[0], panels.items()):
        for label, group in panel.groupby("label", sort=False):
            group = group.sort_values("k_num")
            if group.method.iloc[0] in baselines:
                mean, std = group[metric].iloc[0], group[metric + "_std"].iloc[0]
                handles[f"{label} (band: ± std over folds)" if bars else label] = ax.axhline(mean, ls="--", lw=1,
                                                                                            color="k")
                if bars:  # as the lines' own bars: without them the band would only hide them
                    ax.axhspan(mean - std, mean + std, color="k", alpha=0.07)
                continue
            if bars:  # side by side: each line's bars a little to the left or right of the k
                shift = dodge * (labels.index(label) - (len(labels) - 1) / 2) if label in labels else 0.0
                handles[label] = ax.errorbar(group.k_num + shift, group[metric], yerr=group[metric + "_std"], ms=3,
                                             capsize=2, lw=1.2, elinewidth=0.7, label=label, **styles[label])
                for part in (*handles[label][1], *handles[label][2]):  # lighter bars: the means stay readable
                    part.set_alpha(0.45)
            else:
                handles[label] = ax.plot(group.k_num, group[metric], ms=3, lw=1.2, label=label, **styles[label])[0]
            curve = group.curve.iloc[0]
            for other in sorted({a for (a, b) in significant if b == curve}):
                ks = significant[(other, curve)]
                hit = group[group.k.isin(ks)]
                if len(hit):
                    method, _, ranker = other.partition("/")
                    same_ranker = not curves and ranker == name
                    shown = f"{method} (same ranker, " if same_ranker else f"{other} ("
                    edge = colours.get(method if same_ranker else other, "0.2")  # the other side's colour
                    marks[f"circled: differs from {shown}same k; paired t-test p < {alpha:g}, uncorrected)"] = ax.plot(
                        hit.k_num + (shift if bars else 0.0), hit[metric], ls="none", marker="o", ms=9, mfc="none", mec=edge, mew=1.1)[0]
        handles.update(marks)
        if name:
            ax.set_title(name)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"test {metric}, one fold" if one_fold else f"test {metric}, mean over folds\n"
                          + ("(bars: ± std over folds)" if bars else "(± std over folds: in the CSV)"))
    if len(rows):  # fit the lines (with their bars), not the reference rows far below (shared y axis)
        spread = rows[metric + "_std"].fillna(0.0) if bars else 0.0
        _fit_y(axes[0][0], rows[metric] - spread, rows[metric] + spread)
    handles.update(_draw_references(axes[0], references, metric))
    xlabel = DODGE_NOTE.format(shift=_max_shift(dodge, len(labels))) if dodge else "number of features k"
    _k_axis(axes[0], sorted(set(rows.k_num[~rows.method.isin(list(baselines))])), xlabel, n_features)
    _legend_beside(fig, axes[0], list(handles.values()), list(handles))
    if title:
        fig.suptitle(title, y=1.03)
    save(fig, png, pdf)
    if csv:
        keep = ["method", "ranker", "k", metric, metric + "_std", "folds"]
        out = rows[keep].copy()
        if significant:
            out["significant_vs"] = [";".join(a for (a, b), ks in significant.items() if b == f"{m}/{r}" and k in ks)
                                     for m, r, k in zip(out.method, out.ranker, out.k)]
        write_text(csv, out.to_csv(index=False, float_format="%.6f"))


def _fit_y(ax, low, high) -> None:
    """The y axis from the smallest ``low`` to the largest ``high``, 15% of the range beside."""
    low, high = low.min(), high.max()
    pad = 0.15 * (high - low) or 0.01
    ax.set_ylim(low - pad, high + pad)


def _k_axis(axes, ks, xlabel: str, n_features: int | None) -> None:
    """Ticks at the ks run (a point shifted sideways still reads as its k; at most about 11
    labels; "all (d)" at k = d) and the x label, on every panel."""
    shown = ks if len(ks) <= 12 else sorted({*ks[::-(-len(ks) // 10)], ks[-1]})
    for ax in axes:
        if shown:
            ax.set_xticks(shown, [k_label(int(k), n_features) for k in shown])
        ax.set_xlabel(xlabel)


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


def _significant_points(comparison, metric: str, alpha: float) -> dict:
    """(side a, side b) -> the k (str) where a and b differ on ``metric`` at p < ``alpha``."""
    if comparison is None or len(comparison) == 0:
        return {}
    rows = comparison[(comparison["at"] == "k") & (comparison.metric == metric) & (comparison.p < alpha)]
    return {(a, b): set(part.k_b.astype(str)) for (a, b), part in rows.groupby(["a", "b"], sort=False)}


#: the x label of a metric-vs-k figure whose lines are shifted sideways (``{shift}``: the largest shift)
DODGE_NOTE = "number of features k\n(lines shifted sideways \u2264 \u00b1{shift:.2g} k)"


def _line_step(ks, n_lines: int) -> float:
    """The sideways step between neighbouring lines' points so that ``n_lines`` lines together
    span a fifth of the smallest gap between the ``ks`` (0 for one line or one k)."""
    steps = np.diff(np.unique(np.asarray(ks, dtype=float)))
    return 0.2 * steps.min() / (n_lines - 1) if steps.size and n_lines > 1 else 0.0


def _max_shift(dodge: float, n_lines: int) -> float:
    """The largest shift of a point from its k, for lines ``dodge`` apart."""
    return dodge * (n_lines - 1) / 2


def _draw_references(axes, references: pd.DataFrame, metric: str) -> dict:
    """The reference rows (a constant score in file order, in random order) in every panel.

    Within the y axis each is a grey horizontal line; beyond it (often far below the lines the
    axis fits), a grey triangle on the axis edge it lies beyond, with its value, and the legend
    says "below the axis" or "above the axis". Returns legend label -> handle.
    """
    out = {}
    low, high = axes[0].get_ylim()
    for i, ((name, ref), style) in enumerate(zip(references.groupby("method", sort=False), (":", "-."))):
        value = ref[metric].iloc[0]
        if low <= value <= high:
            for ax in axes:
                handle = ax.axhline(value, ls=style, lw=1, color="0.45")
            out[f"{name} (no model): {value:.3f}"] = handle
            continue
        below = value < low
        marker, fill = ("v" if below else "^"), ("0.45" if i == 0 else "white")
        x, y = 0.97 - 0.2 * i, (0.0 if below else 1.0)  # on the bottom (top) edge, from the right
        for ax in axes:
            ax.plot([x], [y], transform=ax.transAxes, clip_on=False, ls="none", marker=marker, ms=7, mfc=fill,
                    mec="0.45", zorder=5)
            ax.annotate(f"{value:.3f}", (x, y), xycoords="axes fraction", xytext=(-6, 5 if below else -5),
                        textcoords="offset points", ha="right", va="bottom" if below else "top", fontsize=7,
                        color="0.35")
        out[f"{name} (no model): {value:.3f}, {'below' if below else 'above'} the axis"] = Line2D(
            [], [], ls="none", marker=marker, ms=7, mfc=fill, mec="0.45")
    return out


def _legend_beside(fig, axes, handles, labels, **kwargs) -> None:
    """One legend for the figure, just right of its rightmost panel (no empty band between them)."""
    right = max(ax.get_position().x1 for ax in np.ravel(axes))
    gap = 0.12 / fig.get_figwidth()  # about 0.12 inch
    fig.legend(handles, labels, fontsize=8, loc="center left", bbox_to_anchor=(right + gap, 0.5), **kwargs)


def _feature_labels(n: int, names=None) -> list[str]:
    return [f"{i + 1}" if not names else f"{i + 1} {names[i]}" for i in range(n)]


#: the legend entry of a paper-form figure's circles (``{name}``: the side the circled point differs from)
CIRCLE_NOTE = ("circle in {name}'s colour: differs from\n{name} at that k (paired t-test, p < {alpha:g};\n"
               "uncorrected: the paper's test)")


@fill_doc(**_DOC)
def metric_panels(table: pd.DataFrame, ranker: str, metrics, png, pdf=None, csv=None, title: str = "",
                  caption: str = "", baselines=("waf",), methods=None, labels=None, comparison=None,
                  alpha: float = 0.05, n_features: int | None = None) -> None:
    """One ranker's test metrics against k, one panel per metric: a paper's figure in its own
    form (Geng et al. Figs. 2-5: one figure per ranker, a panel per measure).

    One line per method (test mean over folds; the standard deviation is in the CSV), each method
    in the same colour in every panel, the all-features ``baselines`` as a dashed horizontal line.
    A point of a ``comparison`` pair's side b gets an open circle in side a's colour where a and b
    differ at that k (p < ``alpha``). One legend, in the grid's spare cell when there is one; the
    ``caption`` is written under the panels.

    Parameters
    ----------
    table : pandas.DataFrame
        The experiment's table (``ltrfs.tables``): one row per method, ranker and k.
    ranker : str
        The ranker drawn.
    metrics : sequence of str
        Metric columns, one panel each (two or three a row).
    %(figure_outputs)s
    caption : str, default ''
    baselines : tuple of str, default ("waf",)
        Methods drawn as horizontal lines.
    methods : sequence of str or None, default None
        The methods drawn, in legend order (default: every method of the table, in its order).
    labels : dict or None, default None
        Method name -> legend label (default the name).
    comparison : pandas.DataFrame or None
        A ``tables.compare`` result (rows ``at == "k"`` are used).
    alpha : float, default 0.05
    n_features : int or None, default None
        The dataset's number of features d: k = d is labelled "all (d)".
    """
    rows = _ranker_rows(table, ranker, methods)
    labels = dict(labels or {})
    order = [m for m in (methods or dict.fromkeys(rows.method)) if m in set(rows.method)]
    lines = [m for m in order if m not in baselines]
    styles = line_styles(lines)
    n_cols = 2 if len(metrics) in (2, 4) else min(3, len(metrics))  # 4: two by two, legend beside
    n_rows = -(-len(metrics) // n_cols)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(3.7 * n_cols, 3.0 * n_rows), squeeze=False)
    cells = list(axes.ravel())
    handles, out = {}, []
    n_folds = int(rows.folds.max())
    for ax, metric in zip(cells, metrics):
        significant = {(a.partition("/")[0], b.partition("/")[0]): ks
                       for (a, b), ks in _significant_points(comparison, metric, alpha).items()
                       if a.endswith(f"/{ranker}") and b.endswith(f"/{ranker}")}
        handles.update(_metric_panel(ax, rows, metric, order, styles, labels, baselines, significant, alpha))
        ax.set_ylabel(f"test {metric}" + (f", mean over {n_folds} folds" if n_folds > 1 else ", one fold"))
        _k_ticks(ax, rows, baselines, n_features)
        out.append(rows.assign(metric=metric, mean=rows[metric], std=rows.get(metric + "_std"),
                               significant_vs=[";".join(a for (a, b), ks in significant.items() if b == m and k in ks)
                                               for m, k in zip(rows.method, rows.k)]))
    fig.tight_layout()  # before the legend: _legend_beside reads the panels' final positions
    spare = cells[len(metrics):]
    for ax in spare:
        ax.axis("off")
    if spare:  # from the spare cell's left edge (a long entry may run past its right one)
        spare[0].legend(list(handles.values()), list(handles), fontsize=8, loc="center left", bbox_to_anchor=(0.0, 0.5))
    else:
        _legend_beside(fig, cells, list(handles.values()), list(handles))
    if title:
        fig.suptitle(title, y=1.0 + 0.06 / n_rows)
    if caption:  # under the panels, wrapped to the figure's width (about 16 characters an inch at 8 pt)
        fig.text(0.5, 0.0, textwrap.fill(caption, int(16 * fig.get_figwidth())), ha="center", va="top", fontsize=8)
    save(fig, png, pdf)
    if csv:
        frame = pd.concat(out)[["method", "ranker", "k", "metric", "mean", "std", "folds", "significant_vs"]]
        write_text(csv, frame.to_csv(index=False, float_format="%.6f"))


def _ranker_rows(table: pd.DataFrame, ranker: str, methods) -> pd.DataFrame:
    """The ranker's rows at a fixed k, of ``methods`` (all when None), every fold present."""
    rows = table[(table.ranker == ranker) & (table.k != "vali") & (table.ranker != REFERENCE_RANKER)]
    if methods:
        rows = rows[rows.method.isin(list(methods))]
    if rows.empty:
        rankers = sorted(set(table.ranker) - {REFERENCE_RANKER})
        raise ValueError(f"no rows of ranker {ranker!r} (and the methods asked for) in the table; "
                         f"its rankers: {', '.join(rankers)}")
    rows = rows[rows.folds == rows.folds.max()].copy()  # a k that only some folds reached is not comparable
    rows["k_num"] = rows.k.astype(int)
    return rows.sort_values(["k_num"], kind="stable")


def _metric_panel(ax, rows: pd.DataFrame, metric: str, order, styles: dict, labels: dict, baselines,
                  significant: dict, alpha: float) -> dict:
    """Draw one metric's panel of ``metric_panels``; returns legend label -> handle."""
    handles = {}
    for method in order:
        group = rows[rows.method == method]
        label = labels.get(method, method)
        if method in baselines:
            handles[f"{label} (all features)"] = ax.axhline(group[metric].iloc[0], ls="--", lw=1, color="k")
            continue
        handles[label] = ax.plot(group.k_num, group[metric], ms=3, lw=1.2, **styles[method])[0]
    for (a, b), ks in significant.items():
        hit = rows[(rows.method == b) & rows.k.isin(ks)]
        if len(hit) and a in styles:
            name = labels.get(a, a)
            handles[CIRCLE_NOTE.format(name=name, alpha=alpha)] = ax.plot(
                hit.k_num, hit[metric], ls="none", marker="o", ms=9, mfc="none", mec=styles[a]["color"], mew=1.1)[0]
    ax.set_title(metric, fontsize=10)
    ax.grid(alpha=0.3)
    return handles


def _k_ticks(ax, rows: pd.DataFrame, baselines, n_features: int | None) -> None:
    """Ticks at the selectors' ks, at most about 8 labels ("all (d)" at k = d), and the x label."""
    ks = sorted(set(rows.k_num[~rows.method.isin(list(baselines))]))
    if len(ks) > 8:
        round_ks = [k for k in ks if k == ks[0] or k % 5 == 0 or k == ks[-1]]
        ks = round_ks if len(round_ks) <= 9 else sorted({*round_ks[::-(-len(round_ks) // 8)], ks[-1]})
    if ks and k_label(ks[-1], n_features) != str(ks[-1]):  # room for "all (d)": no tick in the last eighth
        ks = [k for k in ks[:-1] if k < ks[-1] - (ks[-1] - ks[0]) / 8] + [ks[-1]]
    if ks:
        ax.set_xticks(ks, [k_label(k, n_features) for k in ks], fontsize=8)
    ax.set_xlabel("number of selected features k")


@fill_doc(**_DOC)
def feature_bars(values, label: str, png, pdf=None, csv=None, title: str = "", names=None) -> None:
    """One bar per feature id: what each feature reaches alone (GAS Fig. 6).

    Parameters
    ----------
    values : array-like, shape (d,)
        The fold mean, written to ``csv`` with the feature names when there are any.
    label : str
        The axis label.
    %(figure_outputs)s
    names : sequence of str or None
        Feature names.
    """
    values = np.asarray(values, dtype=float)
    d = len(values)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.16 * d), 3.2))
    ax.bar(np.arange(1, d + 1), values, width=0.8, color="tab:blue")
    ax.set_xlabel("feature id")
    ax.set_ylabel(label)
    ax.set_xlim(0.3, d + 0.7)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame({"feature": np.arange(1, d + 1), label: values})
        if names:
            frame["name"] = names
        write_text(csv, frame.to_csv(index=False, float_format="%.6f"))


@fill_doc(**_DOC)
def count_bars(labels, counts, limit: int, label: str, png, pdf=None, title: str = "") -> None:
    """One bar per label with its count written on it, and the largest possible count as a dashed
    line (e.g. the non-zero weights of a model per fold, out of d).

    Parameters
    ----------
    labels : sequence of str
        One bar each, in order; a bar labelled "mean" is grey.
    counts : sequence of float
    limit : int
        The largest possible count, drawn as a dashed line.
    label : str
        The axis label.
    png : path
        The figure as PNG.
    pdf : path or None
        The figure as PDF too.
    title : str, default ''
    """
    counts = np.asarray(counts, dtype=float)
    fig, ax = plt.subplots(figsize=(1.6 + 0.6 * len(counts), 3.2))
    colours = ["tab:grey" if str(name) == "mean" else "tab:blue" for name in labels]
    bars = ax.bar(np.arange(len(counts)), counts, width=0.7, color=colours)
    ax.bar_label(bars, labels=[f"{c:.3g}" for c in counts], fontsize=8, padding=2)
    ax.axhline(limit, ls="--", lw=1, color="k")
    ax.annotate(f"d = {limit}", (len(counts) - 0.5, limit), xytext=(0, 3), textcoords="offset points",
                ha="right", va="bottom", fontsize=8)
    ax.set_xticks(np.arange(len(counts)), list(labels))
    ax.set_ylabel(label)
    ax.set_ylim(0, limit * 1.15)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    save(fig, png, pdf)


@fill_doc(**_DOC)
def similarity_heatmap(matrix, png, pdf=None, csv=None, title: str = "",
                       label: str = "Kendall similarity (fraction of concordant pairs)", vmin: float = 0.0) -> None:
    """The feature-by-feature similarity matrix as a heat map (GAS Fig. 7).

    Parameters
    ----------
    matrix : array-like, shape (d, d)
    %(figure_outputs)s
    label : str, default "Kendall similarity (fraction of concordant pairs)"
        The colour bar's label.
    vmin : float, default 0.0
        Colour scale ``vmin``..1 (0..1 for the concordance, -1..1 for tau-b).
    """
    matrix = np.asarray(matrix, dtype=float)
    d = len(matrix)
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    image = ax.imshow(matrix, cmap="RdBu_r" if vmin < 0 else "viridis", vmin=vmin, vmax=1,
                      extent=(0.5, d + 0.5, d + 0.5, 0.5))
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xlabel("feature id")
    ax.set_ylabel("feature id")
    if title:
        ax.set_title(title)
    save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame(matrix, columns=[str(i) for i in range(1, d + 1)])
        frame.insert(0, "feature", np.arange(1, d + 1))
        write_text(csv, frame.to_csv(index=False, float_format="%.6f"))


@fill_doc(**_DOC)
def density_curves(panels: list[dict], png, pdf=None, csv=None, title: str = "") -> None:
    """FS-ED Fig. 3: per relevance class, the density of a feature; a panel per ``panels`` entry.

    Parameters
    ----------
    panels : list of dict
        ``{"feature": id, "caption": str, "points": (p,), "densities": {label: (p,)}}``.
    %(figure_outputs)s
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 3.2), squeeze=False)
    rows = []
    for ax, panel in zip(axes[0], panels):
        for label, density in sorted(panel["densities"].items()):
            ax.plot(panel["points"], density, lw=1.4, label=f"label {label}")
            rows += [{"feature": panel["feature"], "label": label, "x": x, "density": v}
                     for x, v in zip(panel["points"], density)]
        ax.set_title(panel["caption"], fontsize=10)
        ax.set_xlabel(f"value of feature {panel['feature']}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("density")
    if title:
        fig.suptitle(title, y=1.03)
    save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))


@fill_doc(**_DOC)
def elimination_curve(curves: dict, png, pdf=None, csv=None, title: str = "") -> None:
    """Lei & Han Table 2.1 as a figure: cross-validated error against the number of features kept.

    The forest drops the least important 30% per step; one line per fold.

    Parameters
    ----------
    curves : dict
        Fold -> list of (number of features, CV error).
    %(figure_outputs)s
    """
    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    rows = []
    for fold, curve in sorted(curves.items()):
        sizes, errors = zip(*curve)
        ax.plot(sizes, errors, marker="o", ms=3, lw=1.2, label=f"fold {fold}")
        rows += [{"fold": fold, "n_features": n, "cv_error": e} for n, e in curve]
    ax.set_xlabel("number of features")
    ax.set_ylabel("cross-validated error")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame(rows).to_csv(index=False, float_format="%.6f"))


@fill_doc(**_DOC)
def top_scores(scores, label: str, png, pdf=None, csv=None, title: str = "", names=None, n_top: int = 20) -> None:
    """Bars of the ``n_top`` largest scores by feature, largest on top (Lei & Han Fig. 3.1).

    Parameters
    ----------
    scores : array-like, shape (d,)
    label : str
        The axis label.
    %(figure_outputs)s
    names : sequence of str or None
        Feature names, shown when there are any.
    n_top : int, default 20

    Notes
    -----
    The CSV lists every feature, in score order.
    """
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(-scores, kind="stable")
    top = order[:n_top]
    labels = _feature_labels(len(scores), names)
    fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.24 * len(top)))
    ax.barh(np.arange(len(top))[::-1], scores[top], height=0.7, color="tab:blue", label=label)
    ax.set_yticks(np.arange(len(top))[::-1], [labels[j] for j in top], fontsize=7)
    ax.set_xlabel(label)
    ax.set_ylabel("feature (id and name)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    if title:
        ax.set_title(title)
    save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame({"rank": np.arange(1, len(scores) + 1), "feature": order + 1, label: scores[order]})
        if names:
            frame["name"] = [names[j] for j in order]
        write_text(csv, frame.to_csv(index=False, float_format="%.6g"))


@fill_doc(**_DOC)
def criterion_path(path: dict, chosen_step: int, min_step: int, png, pdf=None, csv=None, title: str = "",
                   criterion: str = "BIC") -> None:
    """An information criterion along a penalty path (Lei & Han Fig. 2.1).

    The chosen model and the minimum are marked; the number of features is drawn on a second axis.

    Parameters
    ----------
    path : dict
        Lists ``step`` (1-based), ``criterion`` and ``n_features`` (nonzero coefficients).
    chosen_step, min_step : int
        The chosen model's and the minimum's steps.
    %(figure_outputs)s
    criterion : str, default "BIC"
        The axis label.
    """
    steps = np.asarray(path["step"], dtype=int)
    values = np.asarray(path["criterion"], dtype=float)
    n_features = np.asarray(path["n_features"], dtype=int)
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    ax.plot(steps, values, marker="o", ms=2.5, lw=1.2, color="tab:blue", label=criterion)
    i_min, i_chosen = int(np.flatnonzero(steps == min_step)[0]), int(np.flatnonzero(steps == chosen_step)[0])
    ax.plot([min_step], [values[i_min]], marker="v", ms=9, ls="none", color="tab:red",
            label=f"minimum: step {min_step}, {n_features[i_min]} features")
    ax.plot([chosen_step], [values[i_chosen]], marker="*", ms=12, ls="none", color="tab:green",
            label=f"chosen: step {chosen_step}, {n_features[i_chosen]} features")
    ax.set_xlabel("step of the penalty path (1 = largest penalty)")
    ax.set_ylabel(f"{criterion} (lower is better)")
    ax.grid(alpha=0.3)
    twin = ax.twinx()
    twin.step(steps, n_features, where="mid", color="0.45", ls="--", lw=1)
    twin.set_ylabel("number of nonzero coefficients", color="0.35")
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.45", ls="--", lw=1))
    labels.append("nonzero coefficients (right axis)")
    ax.legend(handles, labels, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2)
    if title:
        ax.set_title(title)
    save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame({"step": steps, "lambda": path.get("lambda", [np.nan] * len(steps)),
                                      "n_features": n_features, criterion.lower(): values,
                                      "chosen": steps == chosen_step, "minimum": steps == min_step}
                                     ).to_csv(index=False, float_format="%.6g"))


@fill_doc(**_DOC)
def curves_by_group(frame: pd.DataFrame, x: str, metrics, group: str, png, pdf=None, csv=None, title: str = "",
                    baselines: dict | None = None, xlabel: str = "", logx: bool = False, ylabel: str = "{metric}",
                    legend_title: str | None = None) -> None:
    """One panel per metric: the metric against ``x``, one line per value of ``group``.

    Parameters
    ----------
    frame : pandas.DataFrame
    x : str
        The column on the x axis.
    metrics : list of str
        One panel each.
    group : str
        The column whose values make the lines.
    %(figure_outputs)s
    baselines : dict or None
        {label: {metric: value}}, drawn as horizontal dashed lines.
    xlabel : str, default ''
    logx : bool, default False
    ylabel : str, default "{metric}"
        A template with ``{metric}``.
    legend_title : str or None
    """
    metrics = list(metrics)
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.4 * len(metrics), 3.4), squeeze=False)
    fig.subplots_adjust(wspace=0.32)
    for ax, metric in zip(axes[0], metrics):
        for label, part in frame.groupby(group, sort=False):
            part = part.sort_values(x)
            ax.plot(part[x], part[metric], lw=1.3, label=str(label))
        for (label, values), style in zip((baselines or {}).items(), ("--", ":", "-.", (0, (5, 1)))):
            if metric in values:
                ax.axhline(values[metric], ls=style, lw=1, color="k", label=label)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel.format(metric=metric))
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    _legend_beside(fig, axes[0], handles, labels, title=legend_title, title_fontsize=8)
    if title:
        fig.suptitle(title, y=1.03)
    save(fig, png, pdf)
    if csv:
        write_text(csv, frame.to_csv(index=False, float_format="%.6g"))


def grouped_bars(rows: pd.DataFrame, group: str, bar: str, value: str, png, pdf=None, *, title: str = "",
                 ylabel: str = "", marks: dict | None = None) -> None:
    """Bars of ``value`` with error bars ``value + "_std"``, grouped by ``group``.

    One bar per value of ``bar`` in the same colour in every group.

    Parameters
    ----------
    rows : pandas.DataFrame
    group, bar, value : str
        Column names.
    png : path
    pdf : path or None
    title, ylabel : str, default ''
    marks : dict or None
        {boolean column: (text above the bar, legend line)}: the text is written above the bars
        where the column is true.
    """
    groups = list(dict.fromkeys(rows[group]))
    bars = list(dict.fromkeys(rows[bar]))
    width = 0.8 / max(len(bars), 1)
    palette = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(1.2 + 1.3 * len(groups) * max(len(bars), 2) / 3, 3.4))
    handles = {}
    for j, name in enumerate(bars):
        part = rows[rows[bar] == name].set_index(group).reindex(groups)
        x = np.arange(len(groups)) + (j - (len(bars) - 1) / 2) * width
        handles[name] = ax.bar(x, part[value], width * 0.92, yerr=part[value + "_std"], capsize=2,
                               color=palette(j % 10), error_kw={"elinewidth": 0.8, "alpha": 0.6})
        for column, (text, _) in (marks or {}).items():
            flags = part[column].fillna(False).astype(bool).to_numpy()
            tops = (part[value] + part[value + "_std"]).to_numpy()
            offset = list(marks).index(column)
            for xi, top, flag in zip(x, tops, flags):
                if flag:
                    ax.annotate(text, (xi, top), xytext=(0, 2 + 9 * offset), textcoords="offset points",
                                ha="center", fontsize=9)
    for column, (text, label) in (marks or {}).items():
        handles[label] = Line2D([], [], ls="none", marker=f"${text}$", color="k")
    ax.set_xticks(np.arange(len(groups)), groups)
    ax.set_ylabel(ylabel or value)
    ax.grid(axis="y", alpha=0.3)
    top = (rows[value] + rows[value + "_std"]).max()
    ax.set_ylim(0, top * 1.15 if top == top and top > 0 else 1)
    _legend_beside(fig, [ax], list(handles.values()), list(handles))
    if title:
        ax.set_title(title, fontsize=10)
    save(fig, png, pdf)


def cd_diagrams(diagrams: list, png, *, alpha: float = 0.05) -> None:
    """Critical-difference diagrams in one PNG, one panel per (scope, metric, statistics).

    Each method at its mean rank (1 = best, on the left), a bar joining the methods whose Nemenyi
    test does not separate them at ``alpha`` (``scikit_posthocs.critical_difference_diagram``).

    Parameters
    ----------
    diagrams : list
        The diagrams of ``leaderboard.board``.
    png : path
    alpha : float, default 0.05

    References
    ----------
    Demsar. Statistical comparisons of classifiers over multiple data sets. JMLR 7, 2006.
    """
    import scikit_posthocs as sp  # heavy (statsmodels): only for a critical-difference diagram

    n = max(len(diagrams), 1)
    methods = max((len(s["ranks"]) for _, _, s in diagrams), default=4)
    fig, axes = plt.subplots(n, 1, figsize=(7.5, n * (0.9 + 0.22 * methods)), squeeze=False)
    for ax, (scope, metric, s) in zip(axes[:, 0], diagrams):
        sp.critical_difference_diagram(s["ranks"], s["nemenyi"], ax=ax, alpha=alpha,
                                       label_fmt_left="{label} ({rank:.2f})", label_fmt_right="({rank:.2f}) {label}")
        ax.set_title(f"{'all experiments' if scope == 'all' else scope}: mean rank by test {metric} over "
                     f"{s['blocks']} blocks (Friedman p = {s['p']:.2g})", fontsize=9)
    if not diagrams:
        axes[0, 0].text(0.5, 0.5, "fewer than 3 selectors in complete blocks: no diagram", ha="center", va="center")
        axes[0, 0].set_axis_off()
    fig.text(0.01, -0.02, f"Mean rank of each selector (1 = best) over the (dataset x ranker) blocks, each at its k "
             f"chosen on vali; a horizontal bar joins selectors\nthat the Nemenyi test after Friedman does not "
             f"separate at alpha = {alpha}.", fontsize=8, ha="left", va="top")
    fig.tight_layout()
    save(fig, png)


def _per_dataset_lines(frame: pd.DataFrame, lines, png, *, ylabel: str, title: str, extra_legend=(),
                       ylim=None, hline: float | None = None) -> None:
    """Curves against k: one panel per dataset, one colour per method; ``lines`` is a list of
    (column, line style, marker) drawn for each method (the first one labelled with the method);
    ``extra_legend`` (handle, label) pairs explain the styles; ``hline``: a grey dotted level.
    Each method's points are shifted a little along k (``_line_step``: together a fifth of the
    smallest step between ks; the x label gives the largest shift), so that methods with equal
    values stay visible side by side."""
    datasets = list(dict.fromkeys(frame.dataset)) or [""]
    methods = list(dict.fromkeys(frame.method))
    palette = plt.get_cmap("tab20" if len(methods) > 10 else "tab10")
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.4 * len(datasets), 3.4), squeeze=False, sharey=True)
    for ax, dataset in zip(axes[0], datasets):
        part = frame[frame.dataset == dataset]
        dodge = _line_step(part.k, len(methods))
        for i, method in enumerate(methods):
            rows = part[part.method == method].sort_values("k")
            k = rows.k.astype(float) + dodge * (i - (len(methods) - 1) / 2)
            for j, (column, style, marker) in enumerate(lines if len(rows) else []):
                ax.plot(k, rows[column], marker=marker, ms=3, lw=1.2, ls=style, color=palette(i % palette.N),
                        label=method if j == 0 else None)
        if hline is not None:
            ax.axhline(hline, color="grey", lw=0.8, ls=":")
        shift = _max_shift(dodge, len(methods))
        ax.set_xlabel(f"k (features selected; lines shifted\nsideways \u2264 \u00b1{shift:.2g} k)" if dodge else
                      "k (features selected)")
        n = int(part.folds.max()) if len(part) else 0
        ax.set_title(f"{dataset}, {n} fold{'s' * (n != 1)}", fontsize=9)
        ks = sorted(set(part.k.astype(int)))
        if 0 < len(ks) <= 12:  # ticks at the ks drawn: a point shifted sideways still reads as its k
            ax.set_xticks(ks)
        else:
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if ylim:
            ax.set_ylim(*ylim)
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles += [h for h, _ in extra_legend]
    labels += [lab for _, lab in extra_legend]
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    _legend_beside(fig, axes[0], handles, labels)
    save(fig, png)


def stability_curves(stab: pd.DataFrame, png) -> None:
    """Kuncheva's index of the selectors' top-k sets across folds against k.

    One panel per dataset, one line per method (0 = the overlap of random k-sets, 1 = the same
    set in every fold).

    Parameters
    ----------
    stab : pandas.DataFrame
        Columns dataset, method, k and kuncheva (mean over fold pairs).
    png : path

    References
    ----------
    Kuncheva. A stability index for feature selection. AIAP 2007.
    """
    chance = Line2D([], [], color="grey", lw=0.8, ls=":")
    one_fold = len(stab) > 0 and (stab.folds == 1).all()  # no pair of folds: nothing to draw
    _per_dataset_lines(stab, [("kuncheva", "-", "o")], png, hline=0.0,
                       ylabel="Kuncheva index of top-k sets\n(mean over fold pairs)",
                       title="Stability of the selection across folds" + (" (one fold: no stability)" if one_fold else ""),
                       extra_legend=[(chance, "chance (random k-sets)")])


def accuracy_vs_cost(chosen: pd.DataFrame, cost: pd.DataFrame, metric: str, png, csv=None, baselines=()) -> None:
    """Test metric at the vali-chosen k against the selection's CPU seconds, with the Pareto front.

    The metric is the mean over the rankers; CPU seconds per fold on a log scale; one marker per
    method, one panel per dataset; the Pareto front (no other method both faster and better) as a
    step line; the all-features ``baselines`` as a horizontal line.

    Parameters
    ----------
    chosen : pandas.DataFrame
        Rows at the vali-chosen k (columns dataset, method, the metric).
    cost : pandas.DataFrame
        Columns dataset, method, cpu_s.
    metric : str
    png : path
    csv : path or None
    baselines : tuple of str, default ()
    """
    levels = chosen[chosen.method.isin(list(baselines))].groupby("dataset")[metric].mean()
    points = (chosen.groupby(["dataset", "method"], sort=False)[metric].mean().reset_index()
              .merge(cost, on=["dataset", "method"], how="inner"))
    unmeasured = points[points.cpu_s < 0.01]  # too short for Snakemake's benchmark (0 s): drawn at 0.01 s
    points["cpu_s"] = points.cpu_s.clip(lower=0.01)
    datasets = list(dict.fromkeys(points.dataset)) or [""]
    methods = list(dict.fromkeys(points.method))
    palette = plt.get_cmap("tab20" if len(methods) > 10 else "tab10")
    markers = "osD^v<>pP*Xh"
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.6 * len(datasets), 3.6), squeeze=False)
    points["pareto"] = False
    for ax, dataset in zip(axes[0], datasets):
        part = points[points.dataset == dataset].sort_values(["cpu_s", metric], ascending=[True, False])
        best, front = -np.inf, []
        for idx, row in part.iterrows():
            if row[metric] > best:
                best = row[metric]
                front.append(idx)
        points.loc[front, "pareto"] = True
        ax.plot(part.loc[front, "cpu_s"], part.loc[front, metric], drawstyle="steps-post", color="grey", lw=1,
                ls="--", marker="o", ms=12, mfc="none", label="Pareto front (no method faster and better)")
        for i, method in enumerate(methods):
            row = part[part.method == method]
            if len(row):
                ax.scatter(row.cpu_s, row[metric], s=36, color=palette(i % palette.N), marker=markers[i % len(markers)],
                           label=method, zorder=3)
        if dataset in levels.index:
            ax.axhline(levels[dataset], color="k", lw=1, ls=":", label="all features (mean over rankers)")
        ax.set_xscale("log")
        _plain_log_ticks(ax)
        ax.set_xlabel("selection CPU seconds per fold (log)")
        if len(datasets) > 1:  # one dataset: the figure's title names it
            ax.set_title(dataset, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"test {metric} at the vali-chosen k\n(mean over folds and rankers)")
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.suptitle("Accuracy against selection cost" + (f": {datasets[0]}" if len(datasets) == 1 else ""), fontsize=10)
    if len(unmeasured):
        fig.text(0.01, -0.02, _unmeasured_note(unmeasured), fontsize=8, ha="left", va="top")
    fig.tight_layout()
    _legend_beside(fig, axes[0], handles, labels)
    save(fig, png)
    if csv:
        write_text(csv, points.to_csv(index=False, float_format="%.6g"))


def _plain_log_ticks(ax) -> None:
    """Plain numbers (0.5, 1, 2, 10) on a log x axis instead of powers of ten; within two decades
    the 2s and 5s between the powers are labelled too (matplotlib's own labels for them overlap)."""
    low, high = ax.get_xlim()
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.xaxis.set_major_formatter(plain)
    few = high / low < 100

    def minor(v, _):
        mantissa = round(v / 10 ** np.floor(np.log10(v)), 6)
        return f"{v:g}" if few and mantissa in (2, 5) else ""

    ax.xaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(minor))


def _unmeasured_note(unmeasured: pd.DataFrame) -> str:
    """The note under the accuracy-vs-cost figure naming the points drawn at 0.01 s."""
    names = sorted(set(unmeasured.method))
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    return (f"Drawn at 0.01 s: {shown} (selection too short for Snakemake's benchmark to measure, "
            f"{unmeasured.cpu_s.max():.2g} s).")


def recovery_curves(recovery: pd.DataFrame, png) -> None:
    """How many planted features each selector finds on generated data, against k.

    Precision of each selector's top k against the features that carry signal (solid) and recall
    of its informative features (dashed), means over folds; one panel per generated dataset, one
    colour per method.

    Parameters
    ----------
    recovery : pandas.DataFrame
        Columns dataset, method, k, precision and recall.
    png : path
    """
    styles = [(Line2D([], [], color="k", marker="o", ms=3, lw=1.2), "precision: top k with signal"),
              (Line2D([], [], color="k", marker="s", ms=3, ls="--"), "recall: informative found")]
    _per_dataset_lines(recovery, [("precision", "-", "o"), ("recall", "--", "s")], png, ylabel="share (mean over folds)",
                       title="Planted features found by each selector", extra_legend=styles, ylim=(-0.03, 1.03))

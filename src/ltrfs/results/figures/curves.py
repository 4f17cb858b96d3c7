"""Metric against k: every experiment's figure (every ranker, every method) and a paper's figure
in its form (one ranker, one panel per metric), each saved as PNG and PDF with its data as CSV."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.docstrings import fill_doc
from ltrfs.results.figures import style
from ltrfs.results.figures.style import FIGURE_DOC, legend_beside, line_step, line_styles, max_shift
from ltrfs.results.tables import REFERENCE_RANKER, k_label


@fill_doc(**FIGURE_DOC)
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
        The experiment's table (``ltrfs.results.tables``): one row per method, ranker and k.
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
    colours = {m: look["color"] for m, look in styles.items()}
    significant = _significant_points(comparison, metric, alpha)
    n_ks = rows.k_num.nunique()
    width = max(4.2, 0.12 * n_ks)  # every k from 1 to d: about 1/8 inch per k
    fig, axes = plt.subplots(1, len(panels), figsize=(width * len(panels) + (1.5 if curves else 0), 3.4),
                             squeeze=False, sharey=True)
    handles, marks = {}, {}
    one_fold = len(rows) > 0 and int(rows.folds.max()) == 1  # no std over folds: no bars, no band
    bars = (max((part.label.nunique() for part in panels.values()), default=0) <= max_error_bars
            and n_ks <= max_error_bar_ks and not one_fold)
    dodge = line_step(rows.k_num, len(labels)) if bars else 0.0  # none with one fold: no bars to separate
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
    xlabel = DODGE_NOTE.format(shift=max_shift(dodge, len(labels))) if dodge else "number of features k"
    _k_axis(axes[0], sorted(set(rows.k_num[~rows.method.isin(list(baselines))])), xlabel, n_features)
    legend_beside(fig, axes[0], list(handles.values()), list(handles))
    if title:
        style.title_above(fig, title)
    style.save(fig, png, pdf)
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


def _significant_points(comparison, metric: str, alpha: float) -> dict:
    """(side a, side b) -> the k (str) where a and b differ on ``metric`` at p < ``alpha``."""
    if comparison is None or len(comparison) == 0:
        return {}
    rows = comparison[(comparison["at"] == "k") & (comparison.metric == metric) & (comparison.p < alpha)]
    return {(a, b): set(part.k_b.astype(str)) for (a, b), part in rows.groupby(["a", "b"], sort=False)}


#: the x label of a metric-vs-k figure whose lines are shifted sideways (``{shift}``: the largest shift)
DODGE_NOTE = "number of features k\n(lines shifted sideways \u2264 \u00b1{shift:.2g} k)"


def _draw_references(axes, references: pd.DataFrame, metric: str) -> dict:
    """The reference rows (a constant score in file order, in random order) in every panel.

    Within the y axis each is a grey horizontal line; beyond it (often far below the lines the
    axis fits), a grey triangle on the axis edge it lies beyond, with its value, and the legend
    says "below the axis" or "above the axis". Returns legend label -> handle.
    """
    out = {}
    low, high = axes[0].get_ylim()
    for i, ((name, ref), dash) in enumerate(zip(references.groupby("method", sort=False), (":", "-."))):
        value = ref[metric].iloc[0]
        if low <= value <= high:
            for ax in axes:
                handle = ax.axhline(value, ls=dash, lw=1, color="0.45")
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


#: the legend entry of a paper-form figure's circles (``{name}``: the side the circled point differs from)
CIRCLE_NOTE = ("circle in {name}'s colour: differs from\n{name} at that k (paired t-test, p < {alpha:g};\n"
               "uncorrected: the paper's test)")


@fill_doc(**FIGURE_DOC)
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
        The experiment's table (``ltrfs.results.tables``): one row per method, ranker and k.
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
        legend_beside(fig, cells, list(handles.values()), list(handles))
    if title:
        fig.suptitle(title, y=1.0 + 0.06 / n_rows)
    if caption:  # under the panels, wrapped to the figure's width (about 16 characters an inch at 8 pt)
        fig.text(0.5, 0.0, textwrap.fill(caption, int(16 * fig.get_figwidth())), ha="center", va="top", fontsize=8)
    style.save(fig, png, pdf)
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

"""The leaderboard's figures: critical-difference diagrams, stability and planted recovery against
k per dataset, and test accuracy against selection cost with its Pareto front."""
from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.results.figures import style
from ltrfs.results.figures.style import legend_beside, line_step, max_shift


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
        n_ranks = max(len(s["ranks"]), 2)  # every rank a method can have: ties read as ties, not as spread
        ax.set_xlim(1 - 0.03 * (n_ranks - 1), n_ranks + 0.03 * (n_ranks - 1))  # room for the end markers
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.set_title(f"{'all experiments' if scope == 'all' else scope}: mean rank by test {metric} over "
                     f"{s['blocks']} blocks (Friedman p = {s['p']:.2g})", fontsize=9)
    if not diagrams:
        axes[0, 0].text(0.5, 0.5, "fewer than 3 selectors in complete blocks: no diagram", ha="center", va="center")
        axes[0, 0].set_axis_off()
    fig.text(0.01, -0.02, f"Mean rank of each selector (1 = best) over the (dataset x ranker) blocks, each at its k "
             f"chosen on vali; a horizontal bar joins selectors\nthat the Nemenyi test after Friedman does not "
             f"separate at alpha = {alpha}.", fontsize=8, ha="left", va="top")
    fig.tight_layout()
    style.save(fig, png)


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
        dodge = line_step(part.k, len(methods))
        for i, method in enumerate(methods):
            rows = part[part.method == method].sort_values("k")
            k = rows.k.astype(float) + dodge * (i - (len(methods) - 1) / 2)
            for j, (column, dash, marker) in enumerate(lines if len(rows) else []):
                ax.plot(k, rows[column], marker=marker, ms=3, lw=1.2, ls=dash, color=palette(i % palette.N),
                        label=method if j == 0 else None)
        if hline is not None:
            ax.axhline(hline, color="grey", lw=0.8, ls=":")
        shift = max_shift(dodge, len(methods))
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
    legend_beside(fig, axes[0], handles, labels)
    style.save(fig, png)


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
    legend_beside(fig, axes[0], handles, labels)
    style.save(fig, png)
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


def recovery_curves(recovery: pd.DataFrame, png, csv=None) -> None:
    """How many planted features each selector finds on generated data, against k.

    Precision of each selector's top k against the features that carry signal (solid) and recall
    of its informative features (dashed), means over folds; one panel per generated dataset, one
    colour per method.

    Parameters
    ----------
    recovery : pandas.DataFrame
        Columns dataset, method, k, precision and recall.
    png : path
    csv : path or None, default None
        ``recovery`` as CSV beside the figure.
    """
    if csv is not None:
        write_text(csv, recovery.to_csv(index=False, float_format="%.6g"))
    styles = [(Line2D([], [], color="k", marker="o", ms=3, lw=1.2), "precision: top k with signal"),
              (Line2D([], [], color="k", marker="s", ms=3, ls="--"), "recall: informative found")]
    _per_dataset_lines(recovery, [("precision", "-", "o"), ("recall", "--", "s")], png, ylabel="share (mean over folds)",
                       title="Planted features found by each selector", extra_legend=styles, ylim=(-0.03, 1.03))

"""The leaderboard's figures: critical-difference diagrams, stability and planted recovery as grids
of methods x k per dataset, and test accuracy against selection cost with its Pareto front."""
from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.results.figures import style
from ltrfs.results.figures.style import legend_beside


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


def _per_dataset_grid(frame: pd.DataFrame, columns, png, *, title: str, value_label: str, vmin: float,
                      vmax: float, empty: str, note: str = "") -> None:
    """Values against k as grids of cells, readable with any number of methods (no legend: the rows
    are labelled, the colour bar gives the scale, each cell writes its value).

    One panel per (dataset, column): a row per method, ordered by its mean of the first column
    over the datasets (highest first; ties in the frame's order), a column per k of that dataset;
    a cell without a value stays white.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns dataset, method, k, folds and those named in ``columns``.
    columns : list of (str, str)
        (column, what it is: the panel's second title line).
    png : path
    title, value_label : str
        The figure's title and the colour bar's label.
    vmin, vmax : float
        The colour scale's ends.
    empty : str
        Written in place of the panels when ``frame`` has no row.
    note : str, default ""
        A line under the panels.
    """
    frame = frame.assign(k=frame.k.astype(int))
    datasets = list(dict.fromkeys(frame.dataset))
    first = columns[0][0]
    means = frame.groupby("method", sort=False)[first].mean()
    methods = list(means.iloc[np.argsort(-means.to_numpy(), kind="stable")].index)
    panels = [(dataset, column, what) for dataset in datasets for column, what in columns]
    ks = {dataset: sorted(set(frame[frame.dataset == dataset].k)) for dataset in datasets}
    widths = [len(ks[dataset]) for dataset, _, _ in panels] or [1]
    fig, axes = plt.subplots(1, len(widths), squeeze=False, sharey=True, gridspec_kw={"width_ratios": widths},
                             figsize=(2.0 + sum(0.42 * w + 0.5 for w in widths), 1.7 + 0.2 * max(len(methods), 3)))
    cmap = plt.get_cmap("viridis").with_extremes(bad="white")
    image = None
    for ax, (dataset, column, what) in zip(axes[0], panels):
        part = frame[frame.dataset == dataset]
        grid = part.pivot_table(index="method", columns="k", values=column, aggfunc="mean")
        values = grid.reindex(index=methods, columns=ks[dataset]).to_numpy(dtype=float)
        image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
                          interpolation="nearest")
        for (row, col), value in np.ndenumerate(values):
            if np.isfinite(value):
                light = (value - vmin) / (vmax - vmin) > 0.6  # viridis is light at its top: dark text there
                ax.text(col, row, f"{round(value, 2) + 0.0:.2f}", ha="center", va="center", fontsize=6,  # no -0.00
                        color="black" if light else "white")
        ax.set_xticks(range(len(ks[dataset])), [str(k) for k in ks[dataset]], fontsize=7)
        ax.set_yticks(range(len(methods)), methods, fontsize=7)
        n = int(part.folds.max())
        ax.set_title(f"{dataset}, {n} fold{'s' * (n != 1)}\n{what}", fontsize=8)
        ax.set_xlabel("k (features selected)", fontsize=8)
    if image is None:
        axes[0][0].text(0.5, 0.5, empty, ha="center", va="center", fontsize=9)
        axes[0][0].set_axis_off()
    else:
        fig.colorbar(image, ax=list(axes[0]), label=value_label, fraction=0.04, pad=0.02)
    fig.suptitle(title, fontsize=10)
    if note:
        fig.text(0.01, 0.0, note, fontsize=8, ha="left", va="top")
    style.save(fig, png)


def stability_curves(stab: pd.DataFrame, png) -> None:
    """Kuncheva's index of the selectors' top-k sets across folds, per k: a grid per dataset of
    more than one fold (a row per method, a cell per k; ``_per_dataset_grid``); the datasets of
    one fold named under it.

    0 is the overlap of random k-sets, 1 the same set in every fold; the colour scale runs from
    the lowest value (or 0) to 1.

    Parameters
    ----------
    stab : pandas.DataFrame
        Columns dataset, method, k, folds and kuncheva (mean over fold pairs).
    png : path

    References
    ----------
    Kuncheva. A stability index for feature selection. AIAP 2007.
    """
    several = stab[stab.folds > 1]  # one fold: no pair of folds, nothing to compare
    single = sorted(set(stab.dataset) - set(several.dataset))
    low = min(0.0, float(several.kuncheva.min())) if len(several) else 0.0
    _per_dataset_grid(several, [("kuncheva", "Kuncheva index (mean over fold pairs)")], png,
                      title="Stability of the selection across folds (0 = random k-sets, 1 = the same set in every fold)",
                      value_label="Kuncheva index of the top-k sets", vmin=low, vmax=1.0,
                      empty="every dataset has one fold: no pair of folds to compare",
                      note=f"Not drawn, one fold: {', '.join(single)}." if single and len(several) else "")


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
    legend_beside(fig, axes[0], handles, labels, ncol=2 if len(labels) > 20 else 1)  # no taller than the panels
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
    """How many planted features each selector finds on generated data, per k: for each generated
    dataset a grid of the precision of each selector's top k against the features that carry
    signal and one of the recall of its informative features, means over folds
    (``_per_dataset_grid``: a row per method, a cell per k).

    Parameters
    ----------
    recovery : pandas.DataFrame
        Columns dataset, method, k, folds, precision and recall.
    png : path
    csv : path or None, default None
        ``recovery`` as CSV beside the figure.
    """
    if csv is not None:
        write_text(csv, recovery.to_csv(index=False, float_format="%.6g"))
    _per_dataset_grid(recovery, [("precision", "precision: share of the top k with signal"),
                                 ("recall", "recall: share of the informative found")], png,
                      title="Planted features found by each selector (mean over folds)",
                      value_label="share", vmin=0.0, vmax=1.0, empty="no generated dataset: no planted features")

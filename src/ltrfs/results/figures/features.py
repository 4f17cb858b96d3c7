"""The feature reports' drawings: bars per feature, similarity heat maps, class densities,
elimination and criterion paths, curves by group; each saved as PNG and PDF with its data as CSV."""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.docstrings import fill_doc
from ltrfs.results.figures import style
from ltrfs.results.figures.style import FIGURE_DOC, legend_beside


def _feature_labels(n: int, names=None) -> list[str]:
    return [f"{i + 1}" if not names else f"{i + 1} {names[i]}" for i in range(n)]


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame({"feature": np.arange(1, d + 1), label: values})
        if names:
            frame["name"] = names
        write_text(csv, frame.to_csv(index=False, float_format="%.6f"))


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame(matrix, columns=[str(i) for i in range(1, d + 1)])
        frame.insert(0, "feature", np.arange(1, d + 1))
        write_text(csv, frame.to_csv(index=False, float_format="%.6f"))


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame(rows).to_csv(index=False, float_format="%.6f"))


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        frame = pd.DataFrame({"rank": np.arange(1, len(scores) + 1), "feature": order + 1, label: scores[order]})
        if names:
            frame["name"] = [names[j] for j in order]
        write_text(csv, frame.to_csv(index=False, float_format="%.6g"))


@fill_doc(**FIGURE_DOC)
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
    style.save(fig, png, pdf)
    if csv:
        write_text(csv, pd.DataFrame({"step": steps, "lambda": path.get("lambda", [np.nan] * len(steps)),
                                      "n_features": n_features, criterion.lower(): values,
                                      "chosen": steps == chosen_step, "minimum": steps == min_step}
                                     ).to_csv(index=False, float_format="%.6g"))


@fill_doc(**FIGURE_DOC)
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
        for (label, values), dash in zip((baselines or {}).items(), ("--", ":", "-.", (0, (5, 1)))):
            if metric in values:
                ax.axhline(values[metric], ls=dash, lw=1, color="k", label=label)
        if logx:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel or x)
        ax.set_ylabel(ylabel.format(metric=metric))
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    legend_beside(fig, axes[0], handles, labels, title=legend_title, title_fontsize=8)
    if title:
        fig.suptitle(title, y=1.03)
    style.save(fig, png, pdf)
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
    legend_beside(fig, [ax], list(handles.values()), list(handles))
    if title:
        ax.set_title(title, fontsize=10)
    style.save(fig, png, pdf)

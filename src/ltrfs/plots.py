"""The figures, drawn with matplotlib's Agg backend, each saved as PNG and PDF with the data
it shows written beside it as CSV."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ltrfs.util import atomic_path, write_text  # noqa: E402


def save(fig, png, pdf=None) -> None:
    """Save a figure atomically as PNG (and PDF), then close it."""
    for path in filter(None, (png, pdf)):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=Path(path).suffix[1:], dpi=150, bbox_inches="tight")
    plt.close(fig)


def metric_vs_k(table: pd.DataFrame, metric: str, png, pdf=None, csv=None, title: str = "",
                baselines=("waf",)) -> None:
    """One panel per ranker: test ``metric`` (mean over folds, bars = std) against k, one line per
    method; the all-features ``baselines`` are drawn as a horizontal line with a std band."""
    rows = table[table.k != "vali"].copy()
    rows["k_num"] = rows.k.astype(int)
    rankers = list(dict.fromkeys(rows.ranker))
    fig, axes = plt.subplots(1, len(rankers), figsize=(4.2 * len(rankers), 3.4), squeeze=False, sharey=True)
    for ax, ranker in zip(axes[0], rankers):
        for method, group in rows[rows.ranker == ranker].groupby("method", sort=False):
            group = group.sort_values("k_num")
            if method in baselines:
                mean, std = group[metric].iloc[0], group[metric + "_std"].iloc[0]
                ax.axhline(mean, ls="--", lw=1, color="k", label=method)
                ax.axhspan(mean - std, mean + std, color="k", alpha=0.07)
            else:
                ax.errorbar(group.k_num, group[metric], yerr=group[metric + "_std"], marker="o", ms=3,
                            capsize=2, lw=1.2, label=method)
        ax.set_title(ranker)
        ax.set_xlabel("number of features k")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"test {metric}")
    axes[0][-1].legend(fontsize=8, loc="best")
    if title:
        fig.suptitle(title, y=1.03)
    save(fig, png, pdf)
    if csv:
        keep = ["method", "ranker", "k", metric, metric + "_std", "folds"]
        write_text(csv, rows[keep].to_csv(index=False, float_format="%.6f"))

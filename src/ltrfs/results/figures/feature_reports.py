"""Per-feature figures of an experiment on a dataset, from the cached fold files:
GAS Fig. 6 (each feature's metric alone) and Fig. 7 (Kendall similarity), FS-ED Fig. 3
(densities per relevance class of the top and the last feature by psi), the random-forest
elimination curve (Lei & Han Table 2.1), the Greedy RankRLS path (Pahikkala et al. Figs. 1-4),
the FSMRank convergence (Lai et al. Fig. 5) and FSMRank's non-zero weights per fold. Values over
folds are fold means. The top-feature tables with feature names (Lei & Han Tables 3.1-3.5) are
stage tables' (``ltrfs.pipeline.tables.top_features``): they draw nothing.

These functions only read and draw: what a figure shows is computed by the stage that owns it
(scores, selection, ``ltrfs.selection.greedy_rankrls.path_metrics``, ``class_densities_table``,
``convergence_table``). ``ltrfs.results.figures.registry`` declares which files each figure reads."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.formats import read_csv, read_npz, read_selection
from ltrfs.results.figures import features as draw
from ltrfs.results.tables import REFERENCE_RANKER, chosen_rows


def _fold_mean(paths, key: str) -> np.ndarray:
    arrays = []
    for path in paths:
        arrays.append(np.asarray(read_npz(path, (key,))[key], dtype=float))
    return np.mean(arrays, axis=0)


def importance_figure(score_paths, metric: str, png, pdf, csv, *, title: str = "", names=None) -> None:
    """Bars of a single-feature metric of every feature, fold mean (GAS Fig. 6).

    Parameters
    ----------
    score_paths : list of path
        The folds' ``single_feature`` score files.
    metric : str
        A key of the single-feature table.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    names : sequence of str or None
    """
    draw.feature_bars(_fold_mean(score_paths, metric.lower()), f"{metric} of the feature alone (train)",
                       png, pdf, csv, title=title, names=names)


def kendall_figure(score_paths, png, pdf, csv, *, title: str = "") -> None:
    """Heat map of GAS's Kendall similarity (concordant-pair fraction), fold mean (GAS Fig. 7).

    Parameters
    ----------
    score_paths : list of path
        The folds' ``kendall`` score files.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    """
    draw.similarity_heatmap(_fold_mean(score_paths, "concordance"), png, pdf, csv, title=title)


def fsed_figure(densities_path, png, pdf, csv, *, title: str = "") -> None:
    """FS-ED Fig. 3: class densities of the top and the last feature by psi.

    Parameters
    ----------
    densities_path : path
        The file of the FS-ED densities stage (train rows).
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    """
    frame = read_csv(densities_path, sep="\t")
    panels = []
    for role, caption in (("top", "top feature by psi"), ("last", "last feature by psi")):
        part = frame[frame.role == role]
        if part.empty:
            raise ValueError(f"{densities_path}: no rows for the {role} feature")
        feature, psi = int(part.feature.iloc[0]), float(part.psi.iloc[0])
        densities = {int(label): group.density.to_numpy() for label, group in part.groupby("label")}
        points = part[part.label == part.label.iloc[0]].x.to_numpy()
        panels.append({"feature": feature, "caption": f"{caption}: {feature} (psi {psi:.3f})", "points": points,
                       "densities": densities})
    draw.density_curves(panels, png, pdf, csv, title=title)


def rf_curve_figure(selection_paths: dict, png, pdf, csv, *, title: str = "") -> None:
    """CV error against the number of features kept, one line per fold (Lei & Han Table 2.1).

    Parameters
    ----------
    selection_paths : dict
        Fold -> the ``rf_importance`` selection file.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    """
    curves = {}
    for fold, path in selection_paths.items():
        chosen = read_selection(path).get("chosen") or {}
        if "curve" not in chosen:
            raise ValueError(f"{path}: the selection has no elimination curve (rf_importance with curve: true)")
        curves[fold] = [tuple(point) for point in chosen["curve"]]
    draw.elimination_curve(curves, png, pdf, csv, title=title)


def score_bars_figure(selection_path, png, pdf, csv, *, label: str, title: str = "", names=None,
                      n_top: int = 20) -> None:
    """The ``n_top`` features of a selection by the method's own scores (Lei & Han Fig. 3.1).

    Parameters
    ----------
    selection_path : path
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    label : str
        The axis label.
    names : sequence of str or None
    n_top : int, default 20
    """
    record = read_selection(selection_path)
    if record.get("scores") is None:
        raise ValueError(f"{selection_path}: the method {record.get('method')!r} has no feature scores")
    draw.top_scores(record["scores"], label, png, pdf, csv, title=title, names=names, n_top=n_top)


def criterion_path_figure(selection_path, png, pdf, csv, *, title: str = "") -> None:
    """BIC (or AIC) along the ordinal model's penalty path (Lei & Han Fig. 2.1).

    The chosen and the minimal model are marked; the path is the selection's ``details.path``.

    Parameters
    ----------
    selection_path : path
        An ``ordinal_cr`` selection file.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    """
    record = read_selection(selection_path)
    path = (record.get("details") or {}).get("path")
    chosen = record.get("chosen") or {}
    if path is None or "step" not in chosen:
        raise ValueError(f"{selection_path}: the selection has no criterion path (ordinal_cr)")
    draw.criterion_path(path, int(chosen["step"]), int(chosen.get("min_step", chosen["step"])), png, pdf, csv,
                         title=title, criterion=str(chosen.get("criterion", "bic")).upper())


def greedy_path_figure(path_files: dict, png, pdf, csv, *, title: str = "", table_csv=None,
                       metric_names=("MAP", "MeanNDCG")) -> None:
    """Pahikkala et al. 2010 Figs. 1-4: test MAP and MeanNDCG along the greedy path.

    The RankRLS model after each greedy step (the path's own models) against the number of
    selected features, one line per lambda, mean over folds of the per-fold query means.

    Parameters
    ----------
    path_files : dict
        Fold -> the per-query file of the Greedy RankRLS path metrics stage.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    table_csv : path or None
        The experiment's table; its all-feature rows (method ``waf``, every ranker: the paper's
        RankRLS and RankSVM baselines) are drawn as horizontal lines.
    metric_names : tuple of str, default ("MAP", "MeanNDCG")
    """
    rows = []
    for fold, path in path_files.items():
        per_query = read_csv(path, sep="\t", dtype={"lambda": str})
        means = per_query.groupby(["lambda", "k"], sort=False)[list(metric_names)].mean().reset_index()
        means.insert(0, "fold", fold)
        rows.append(means)
    frame = pd.concat(rows, ignore_index=True)
    frame["lambda"] = [f"2^{np.log2(float(lam)):g}" for lam in frame["lambda"]]
    frame = frame.groupby(["lambda", "k"], sort=False)[list(metric_names)].mean().reset_index()
    baselines = {}
    if table_csv is not None:
        table = read_csv(table_csv, dtype={"k": str})
        for row in table[(table.method == "waf") & (table.k != "vali")].to_dict("records"):
            baselines[f"{row['ranker']}, all features (tuned on vali)"] = {m: row[m] for m in metric_names}
    draw.curves_by_group(frame, "k", metric_names, "lambda", png, pdf, csv, title=title, baselines=baselines,
                          xlabel="number of selected features k",
                          ylabel=(f"test {{metric}}, mean over {len(path_files)} folds" if len(path_files) > 1
                                  else "test {metric}, one fold"),
                          legend_title="RankRLS λ (greedy path;\nat k = d: all features)")


def chosen_k_bars(table_csv, compare_csv, png, pdf, csv, *, metric: str = "NDCG@10", title: str = "",
                  alpha: float = 0.05) -> None:
    """Gupta & Rosso 2012 Fig. 2: test metric of every method at its k chosen on vali, by ranker.

    Its single k for WAF, its full model for an own model (``tables.chosen_rows``), ± std over
    folds; ``+`` above a bar where p_vs_waf < ``alpha``, ``*`` above side a of a ``compare`` pair
    (chosen k) where p < ``alpha`` on the metric.

    Parameters
    ----------
    table_csv, compare_csv : path
        The experiment's table and comparison CSVs.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    metric : str, default "NDCG@10"
    alpha : float, default 0.05
    """
    table = read_csv(table_csv, dtype={"k": str, "k_chosen": str})
    rows = chosen_rows(table[table.ranker != REFERENCE_RANKER])
    comparison = read_csv(compare_csv)
    starred = set()
    if len(comparison):
        hit = comparison[(comparison["at"] == "chosen") & (comparison.metric == metric) & (comparison.p < alpha)]
        starred = {tuple(a.split("/", 1)) for a in hit.a}
    rows = rows.assign(plus=rows.p_vs_waf < alpha,
                       star=[(m, r) in starred for m, r in zip(rows.method, rows.ranker)],
                       k_used=[kc if k == "vali" else k for k, kc in zip(rows.k, rows.k_chosen)])
    draw.grouped_bars(rows, "ranker", "method", metric, png, pdf, title=title,
                       ylabel=(f"test {metric}, one fold" if "folds" in rows and rows.folds.max() == 1
                               else f"test {metric}, mean over folds (± std)"),
                       marks={"plus": ("+", f"p < {alpha:g} against all features (WAF), same ranker"),
                              "star": ("*", f"p < {alpha:g} against the other method of its compare pair\n"
                                            "(paired t-tests, uncorrected: the paper's test)")})
    keep = ["ranker", "method", "k", "k_used", metric, metric + "_std", "p_vs_waf", "plus", "star"]
    write_text(csv, rows[keep].to_csv(index=False, float_format="%.6f"))


def convergence_figure(trace_path, png, pdf, csv, *, title: str = "") -> None:
    """Lai et al. 2013 Fig. 5: FSMRank's objective against seconds, for two solvers.

    The accelerated proximal gradient (Algorithm 1) and the projected subgradient method on the
    same problem, one line per solver.

    Parameters
    ----------
    trace_path : path
        The file of the FSMRank convergence stage.
    png, pdf, csv : path
        The figure (PNG, PDF) and the numbers drawn (CSV).
    title : str, default ''
    """
    frame = read_csv(trace_path, sep="\t")
    draw.curves_by_group(frame, "seconds", ["objective"], "solver", png, pdf, csv,
                          title=title, xlabel="seconds", logx=True)


def nonzero_figure(selection_paths: dict, model_paths: dict, png, pdf, csv, *, title: str = "") -> None:
    """The non-zero weights of FSMRank's model at its vali-chosen lambdas, per fold and their mean.

    Parameters
    ----------
    selection_paths, model_paths : dict
        Fold -> the fold's ``select/{method}.json`` and ``select/{method}.model`` of one
        ``fsmrank`` method.
    png, pdf, csv : path
        The figure (PNG, PDF) and its numbers (CSV: ``fold``, ``lambda1``, ``lambda2``,
        ``nonzero``, ``n_features``; a last row ``mean`` over the folds).
    title : str, default ''
    """
    from ltrfs.formats import load_selector  # imported on use: only this report loads models
    from ltrfs.selection.fsmrank import nonzero_weights

    if set(selection_paths) != set(model_paths):
        raise ValueError(f"selections of folds {sorted(selection_paths)}, models of folds {sorted(model_paths)}")
    rows = []
    for fold, path in selection_paths.items():
        selection = read_selection(path)
        rows.append({"fold": str(fold), **nonzero_weights(selection, load_selector(model_paths[fold],
                                                                                   selection["method"]))})
    frame = pd.DataFrame(rows)
    if frame.n_features.nunique() != 1:
        raise ValueError(f"the folds' models have different widths: {sorted(frame.n_features.unique())}")
    mean = {"fold": "mean", "lambda1": np.nan, "lambda2": np.nan, "nonzero": frame.nonzero.mean(),
            "n_features": frame.n_features.iloc[0]}
    frame = pd.concat([frame, pd.DataFrame([mean])], ignore_index=True)
    draw.count_bars([f"fold {f}" if f != "mean" else "mean" for f in frame.fold], frame.nonzero,
                     int(mean["n_features"]), "non-zero weights", png, pdf, title=title)
    write_text(csv, frame.to_csv(index=False, float_format="%.6g"))

"""Per-feature figures and tables of an experiment on a dataset, from the cached fold files:
GAS Fig. 6 (each feature's metric alone) and Fig. 7 (Kendall similarity), FS-ED Fig. 3
(densities per relevance class of the top and the last feature by psi), the random-forest
elimination curve (Lei & Han Table 2.1) and the top-feature tables with feature names
(Lei & Han Tables 3.1-3.5). Values over folds are fold means."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ltrfs import io, metrics, plots
from ltrfs.util import write_text


def _fold_mean(paths, key: str) -> np.ndarray:
    arrays = []
    for path in paths:
        with np.load(path) as z:
            arrays.append(np.asarray(z[key], dtype=float))
    return np.mean(arrays, axis=0)


def importance_figure(score_paths, metric: str, png, pdf, csv, *, title: str = "", names=None) -> None:
    """Bars of the single-feature ``metric`` (key of the single-feature table), fold mean."""
    plots.feature_bars(_fold_mean(score_paths, metric.lower()), f"{metric} of the feature alone (train)",
                       png, pdf, csv, title=title, names=names)


def kendall_figure(score_paths, png, pdf, csv, *, title: str = "") -> None:
    """Heat map of the paper's Kendall similarity (fraction of concordant pairs), fold mean."""
    plots.similarity_heatmap(_fold_mean(score_paths, "concordance"), png, pdf, csv, title=title)


def fsed_figure(train_path, selection_path, png, pdf, csv, *, title: str = "", n_points: int = 200) -> None:
    """Densities per relevance class (train rows) of the top and the last feature by psi."""
    from ltrfs.scoring.divergence import class_densities

    train = io.load_npz(train_path)
    selection = json.loads(Path(selection_path).read_text())
    panels = []
    for caption, feature in (("top feature by psi", selection["ranking"][0]),
                             ("last feature by psi", selection["ranking"][-1])):
        x = train.X[:, feature - 1].astype(np.float64)
        low, high = float(x.min()), float(x.max())
        pad = 0.05 * (high - low) if high > low else 0.5
        points = np.linspace(low - pad, high + pad, n_points)
        psi = selection["scores"][feature - 1]
        panels.append({"feature": feature, "caption": f"{caption}: {feature} (psi {psi:.3f})", "points": points,
                       "densities": class_densities(x, train.y, points)})
    plots.class_densities(panels, png, pdf, csv, title=title)


def rf_curve_figure(selection_paths: dict, png, pdf, csv, *, title: str = "") -> None:
    """Cross-validated error against the number of features kept, one line per fold."""
    curves = {}
    for fold, path in selection_paths.items():
        chosen = json.loads(Path(path).read_text()).get("chosen") or {}
        if "curve" not in chosen:
            raise ValueError(f"{path}: the selection has no elimination curve (rf_importance with curve: true)")
        curves[fold] = [tuple(point) for point in chosen["curve"]]
    plots.elimination_curve(curves, png, pdf, csv, title=title)


def greedy_path_figure(selection_paths: dict, test_paths: dict, png, pdf, csv, *, convention: str,
                       title: str = "", table_csv=None, metric_names=("MAP", "MeanNDCG")) -> None:
    """Pahikkala et al. 2010 Figs. 1-4: test MAP and MeanNDCG of the RankRLS model after each
    greedy step (the path's own models, from the selection files), against the number of
    selected features, one line per lambda, mean over folds. With ``table_csv`` (the
    experiment's table), its all-feature rows (method algorithm ``waf``, every ranker; the
    paper's RankRLS and RankSVM baselines) are drawn as horizontal lines."""
    rows = []
    for fold, path in selection_paths.items():
        details = (json.loads(Path(path).read_text()).get("details") or {}).get("lambdas")
        if not details:
            raise ValueError(f"{path}: not a greedy_rankrls selection (no per-lambda path in 'details')")
        test = io.load_npz(test_paths[fold])
        X = test.X.astype(np.float64)
        for lam, entry in details.items():
            order = entry["order"]
            for k, coef in enumerate(entry["coef"], 1):
                qm = metrics.evaluate(test.y, X[:, order[:k]] @ np.asarray(coef), test.query_ptr, convention)
                means = metrics.mean_metrics(qm)
                rows.append({"fold": fold, "lambda": f"2^{np.log2(float(lam)):g}", "k": k,
                             **{m: means[m] for m in metric_names}})
    frame = pd.DataFrame(rows).groupby(["lambda", "k"], sort=False)[list(metric_names)].mean().reset_index()
    baselines = {}
    if table_csv is not None:
        table = pd.read_csv(table_csv, dtype={"k": str})
        for row in table[(table.method == "waf") & (table.k != "vali")].to_dict("records"):
            baselines[f"{row['ranker']}, all features"] = {m: row[m] for m in metric_names}
    plots.curves_by_group(frame, "k", metric_names, "lambda", png, pdf, csv, title=title, baselines=baselines,
                          xlabel="number of selected features")


def convergence_figure(train_path, selection_path, png, pdf, csv, *, title: str = "",
                       max_iter: int = 400) -> None:
    """Lai et al. 2013 Fig. 5: the FSMRank objective against seconds for the accelerated
    proximal gradient (Algorithm 1, run to ``max_iter`` iterations without the early stop) and
    the projected subgradient method, on one training split at the lambdas the selection chose."""
    from ltrfs.rankers.fsmrank import FSMProblem, extended_pearson, fsmrank_solve, subgradient_solve

    selection = json.loads(Path(selection_path).read_text())
    params, chosen = selection["params"], selection.get("chosen") or {}
    train = io.load_npz(train_path)
    A, s, _ = extended_pearson(train.X, train.y, params.get("similarity", "pearson"), params.get("importance", "pearson"))
    problem = FSMProblem(train.X, train.y, train.query_ptr, A, s, float(chosen["lambda1"]), float(chosen["lambda2"]))
    fsmrank_solve(problem, max_iter=1)  # load the compiled kernels before anything is timed
    frames = []
    for label, solve in (("FSMRank (accelerated proximal gradient)", fsmrank_solve),
                         ("projected subgradient", subgradient_solve)):
        trace = solve(problem, max_iter=max_iter, tol=0.0).trace()
        frames.append(pd.DataFrame({"solver": label, "iteration": np.arange(1, len(trace["objective"]) + 1),
                                    "seconds": trace["seconds"], "objective": trace["objective"]}))
    plots.curves_by_group(pd.concat(frames, ignore_index=True), "seconds", ["objective"], "solver", png, pdf, csv,
                          title=title, xlabel="seconds", logx=True)


def top_features(selection_paths: dict, out_md, out_csv, *, k: int = 10, names=None, title: str = "") -> None:
    """For each method, its top ``k`` features in the first fold given (the set a method chose
    itself, when it chose one, in the order of its ranking) with their names and scores."""
    rows, lines = [], [f"### {title}", ""] if title else []
    for method, path in selection_paths.items():
        selection = json.loads(Path(path).read_text())
        chosen = (selection.get("chosen") or {}).get("n_selected")
        n = int(chosen) if chosen else k
        ids = selection["ranking"][:n]
        scores = selection.get("scores")
        lines += [f"**{method}** ({'its own choice of ' if chosen else 'top '}{n} features)", "",
                  "| rank | feature | name | score |", "|---|---|---|---|"]
        for rank, feature in enumerate(ids, 1):
            name = names[feature - 1] if names else ""
            score = "" if scores is None else f"{scores[feature - 1]:.4g}"
            lines.append(f"| {rank} | {feature} | {name} | {score} |")
            rows.append({"method": method, "rank": rank, "feature": feature, "name": name,
                         "score": None if scores is None else scores[feature - 1]})
        lines.append("")
    write_text(out_md, "\n".join(lines))
    write_text(out_csv, pd.DataFrame(rows).to_csv(index=False))

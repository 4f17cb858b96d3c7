"""Selectors ranking with their own models (ranker ``own``) and the per-feature reports."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import planted
from ltrfs import io
from ltrfs.config import OWN
from ltrfs.formats import load_models, predict
from ltrfs.pipeline.select import select
from ltrfs.pipeline.tables import top_features
from ltrfs.pipeline.train import TrainFiles, TrainJob, train
from ltrfs.results.figures.feature_reports import criterion_path_figure, importance_figure, rf_curve_figure, score_bars_figure
from ltrfs.selection import SELECTORS, has_own_predictions, make_selector


@pytest.fixture()
def fold(planted_fold):
    return planted_fold


def own_job(seed: int) -> TrainJob:
    """A train job of ranker ``own`` (the method's model on all features; nothing tuned)."""
    return TrainJob(ranker_name="own", ranker={"algorithm": OWN}, ks=[], metric="ndcg@10", convention="letor4",
                    seed=seed)


def test_own_ranker_is_the_methods_model_fitted_by_the_selection(fold, tmp_path):
    method = {"algorithm": "ordinal_cr"}
    select("cr", method, fold["train"], fold["vali"], {}, tmp_path / "cr.json", seed=5, convention="letor4",
           out_selector=tmp_path / "cr.model")
    train(own_job(5), TrainFiles(selection=tmp_path / "cr.json", train=fold["train"], vali=fold["vali"],
                                 model=tmp_path / "m.model", info=tmp_path / "m.json", selector=tmp_path / "cr.model"))
    models = load_models(tmp_path / "m.model")
    assert list(models) == [6]  # one model on all d features
    vali = io.load_npz(fold["vali"])
    train_data = io.load_npz(fold["train"])
    oracle = make_selector("ordinal_cr", random_state=5).fit(train_data.X, train_data.y, train_data.qid)
    np.testing.assert_allclose(predict(models[6], vali), oracle.predict_scores(vali.X), rtol=1e-10)
    info = json.loads((tmp_path / "m.json").read_text())
    assert info["algorithm"] == OWN and info["k"]["6"]["chosen"]["n_selected"] == oracle.chosen_["n_selected"]
    # the selector file must be this selection's
    select("cr2", method, fold["train"], fold["vali"], {}, tmp_path / "cr2.json", seed=5, convention="letor4")
    with pytest.raises(ValueError, match=r"cr.model: holds method 'cr', the selection is 'cr2'"):
        train(own_job(5), TrainFiles(selection=tmp_path / "cr2.json", train=fold["train"], vali=fold["vali"],
                                     model=tmp_path / "m2.model", info=tmp_path / "m2.json", selector=tmp_path / "cr.model"))
    with pytest.raises(ValueError, match=r"m.json: not an ltrfs selector file"):
        train(own_job(5), TrainFiles(selection=tmp_path / "cr2.json", train=fold["train"], vali=fold["vali"],
                                     model=tmp_path / "m2.model", info=tmp_path / "m2.json", selector=tmp_path / "m.json"))


def test_own_ranker_needs_a_method_with_a_model(fold, tmp_path):
    select("w", {"algorithm": "waf"}, fold["train"], fold["vali"], {}, tmp_path / "w.json", seed=1,
           convention="letor4")
    with pytest.raises(ValueError, match=r"method 'w' \(waf\) has no predictions of its own; these have: "):
        train(own_job(1), TrainFiles(selection=tmp_path / "w.json", train=fold["train"], vali=fold["vali"],
                                     model=tmp_path / "m.model", info=tmp_path / "m.json"))
    assert not (tmp_path / "m.model").exists()


def test_methods_with_own_predictions_are_the_statistical_ones_and_the_embedded_models():
    assert {name for name in SELECTORS if has_own_predictions(name)} == {
        "l1_logistic", "svm_rfe", "ordinal_cr", "rf_importance", "gbm_importance", "greedy_rankrls", "fsmrank",
        "fsmsvm", "lambdamart_rfe", "fenchelrank", "sparse_ranksvm"}


def test_importance_figure_writes_the_fold_mean(tmp_path):
    paths = []
    for i, values in enumerate(([0.1, 0.5, 0.3], [0.3, 0.1, 0.3])):
        paths.append(tmp_path / f"f{i}.npz")
        np.savez(paths[-1], map=np.array(values))
    importance_figure(paths, "MAP", tmp_path / "a.png", None, tmp_path / "a.csv", names=["x", "y", "z"])
    frame = pd.read_csv(tmp_path / "a.csv")
    assert frame.feature.tolist() == [1, 2, 3] and frame.name.tolist() == ["x", "y", "z"]
    np.testing.assert_allclose(frame.iloc[:, 1], [0.2, 0.3, 0.3])
    assert (tmp_path / "a.png").stat().st_size > 0


def test_top_features_keep_a_methods_own_set_size(tmp_path):
    own = {"n_features": 4, "ranking": [3, 1, 2, 4], "scores": [0.5, 0.1, 0.9, 0.0], "chosen": {"n_selected": 2}}
    topk = {"n_features": 4, "ranking": [2, 4, 1, 3], "scores": None, "chosen": {}}
    (tmp_path / "own.json").write_text(json.dumps(own))
    (tmp_path / "topk.json").write_text(json.dumps(topk))
    top_features({"l1": tmp_path / "own.json", "ig": tmp_path / "topk.json"}, tmp_path / "t.md", tmp_path / "t.csv",
                 k=3, names=["a", "b", "c", "d"])
    frame = pd.read_csv(tmp_path / "t.csv")
    assert frame[frame.method == "l1"].feature.tolist() == [3, 1]
    assert frame[frame.method == "l1"].name.tolist() == ["c", "a"]
    assert frame[frame.method == "ig"].feature.tolist() == [2, 4, 1]
    md = (tmp_path / "t.md").read_text()
    assert "its own choice of 2 features" in md and "| 1 | 3 | c | 0.9 |" in md and "name: from the dataset's" in md
    top_features({"ig": tmp_path / "topk.json"}, tmp_path / "u.md", tmp_path / "u.csv", k=2)
    md = (tmp_path / "u.md").read_text()
    assert "| rank | feature | score |" in md and "| 1 | 2 |  |" in md and "lists no names" in md


def test_elimination_figure_without_a_curve_is_one_line(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"n_features": 2, "ranking": [1, 2], "chosen": {"n_rows": 5}}))
    with pytest.raises(ValueError, match="has no elimination curve"):
        rf_curve_figure({1: tmp_path / "s.json"}, tmp_path / "c.png", None, None)


def test_importance_plot_ranks_every_feature_and_draws_the_top(tmp_path):
    scores = [0.1, 0.4, 0.0, 0.3, 0.2]
    (tmp_path / "s.json").write_text(json.dumps({"method": "rf", "n_features": 5, "ranking": [2, 4, 5, 1, 3], "scores": scores}))
    score_bars_figure(tmp_path / "s.json", tmp_path / "f.png", tmp_path / "f.pdf", tmp_path / "f.csv",
                      label="importance", names=list("abcde"), n_top=3)
    frame = pd.read_csv(tmp_path / "f.csv")
    assert frame.feature.tolist() == [2, 4, 5, 1, 3] and frame.name.tolist() == list("bdeac")
    assert frame["rank"].tolist() == [1, 2, 3, 4, 5] and frame.importance.tolist() == sorted(scores, reverse=True)
    assert (tmp_path / "f.png").stat().st_size > 0 and (tmp_path / "f.pdf").stat().st_size > 0
    (tmp_path / "n.json").write_text(json.dumps({"method": "waf", "n_features": 1, "ranking": [1], "scores": None}))
    with pytest.raises(ValueError, match="the method 'waf' has no feature scores"):
        score_bars_figure(tmp_path / "n.json", tmp_path / "n.png", None, None, label="x")


def test_bic_path_marks_the_minimum_and_the_chosen_model(tmp_path):
    path = {"step": [1, 2, 3, 4], "lambda": [0.4, 0.2, 0.1, 0.05], "n_features": [0, 2, 5, 9],
            "criterion": [100.0, 80.0, 70.5, 70.0]}
    record = {"n_features": 9, "ranking": list(range(1, 10)), "details": {"path": path}, "chosen": {"step": 3, "min_step": 4, "criterion": "bic"}}
    (tmp_path / "s.json").write_text(json.dumps(record))
    criterion_path_figure(tmp_path / "s.json", tmp_path / "b.png", None, tmp_path / "b.csv", title="t")
    frame = pd.read_csv(tmp_path / "b.csv")
    assert frame.bic.tolist() == path["criterion"] and frame.n_features.tolist() == path["n_features"]
    assert frame.step[frame.chosen].tolist() == [3] and frame.step[frame.minimum].tolist() == [4]
    (tmp_path / "r.json").write_text(json.dumps({"n_features": 1, "ranking": [1], "chosen": {"step": 2}}))
    with pytest.raises(ValueError, match="has no criterion path"):
        criterion_path_figure(tmp_path / "r.json", tmp_path / "r.png", None, None)


# ----------------------------------------------------------------------------- feature-report registry

def test_feature_report_stems_parse_back_and_match_the_wildcard_pattern():
    import re

    from ltrfs.results.figures import registry

    method = r"[A-Za-z0-9][A-Za-z0-9_.+-]*"
    pattern = re.compile(registry.stem_pattern(method) + r"\Z")
    for report in registry.FEATURE_REPORTS.values():
        stem = report.stem("my_method.2" if report.per_method else None)
        assert registry.parse(stem) == (report, "my_method.2" if report.per_method else None)
        assert pattern.match(stem)
    assert not pattern.match("importance_NDCG5") and not pattern.match("densities")
    with pytest.raises(ValueError, match="no feature report is drawn as 'nonsense'"):
        registry.parse("nonsense")


def test_feature_report_inputs_come_from_the_declaration():
    from ltrfs.results.figures import registry

    kw = dict(results="R", dataset="D", experiment="E", folds=[2, 3])
    assert registry.input_paths("importance_MAP", **kw) == {
        "scores": ["R/D/fold2/scores/single_feature.npz", "R/D/fold3/scores/single_feature.npz"]}
    assert registry.input_paths("path_g", **kw) == {
        "paths": ["R/D/fold2/paths/g.tsv", "R/D/fold3/paths/g.tsv"], "table": "R/D/tables/E.csv"}
    assert registry.input_paths("convergence_f", **kw) == {"traces": "R/D/fold2/convergence/f.tsv"}
    assert registry.title("densities_x", dataset="D", folds=[2, 3]) == (
        "D fold 2: x, density of each relevance class (training rows)")


def test_every_feature_report_title_says_what_it_shows():
    """A title names more than the dataset, the fold and the method: what the figure draws."""
    from ltrfs.results.figures import registry

    bare = {name: re.sub(r"\{dataset\}|\{method\}|fold \{fold\}|[\s:,]", "", report.title)
            for name, report in registry.FEATURE_REPORTS.items()}
    assert [name for name, rest in bare.items() if not rest] == []


def test_a_new_declaration_is_a_new_target_and_names_must_parse():
    from ltrfs.results.figures import registry
    from ltrfs.selection import SELECTORS

    methods = {"imp": {"algorithm": "importance"}, "w": {"algorithm": "waf"}}
    assert registry.stems(methods, SELECTORS) == ["importance_MAP"]
    try:
        registry.declare("scores_by_method", inputs={"s": registry.FoldFile("select/{method}.json", "first")},
                          draw=lambda *a: None, when=registry.algorithms("importance"), per_method=True,
                          title="{method}", caption="", category="")
        assert registry.stems(methods, SELECTORS) == ["importance_MAP", "scores_by_method_imp"]
        with pytest.raises(ValueError, match="declared twice"):
            registry.declare("kendall", inputs={}, draw=None, when=None, per_method=False, title="", caption="",
                              category="")
        with pytest.raises(ValueError, match="would be read as feature report 'path' of a method"):
            registry.declare("path_x", inputs={}, draw=None, when=None, per_method=False, title="", caption="",
                              category="")
    finally:
        registry.FEATURE_REPORTS.pop("scores_by_method", None)
    assert registry.stems(methods, SELECTORS) == ["importance_MAP"]


# ----------------------------------------------------------------------------- report data stages

def test_path_metrics_are_the_per_query_test_metrics_of_the_path_models(fold, tmp_path):
    from ltrfs import metrics
    from ltrfs.pipeline.figures import report_data

    io.save_npz(planted(n_queries=12, d=6, informative=(1, 4), seed=3), tmp_path / "test.npz")
    method = {"algorithm": "greedy_rankrls", "params": {"k": 3, "lam_grid": [1.0, 4.0]}}
    select("g", method, fold["train"], fold["vali"], {}, tmp_path / "g.json", seed=1, convention="letor4")
    context = {"convention": "letor4", "evaluation_ties": "file_order"}
    report_data("paths", tmp_path / "g.json", tmp_path / "test.npz", tmp_path / "g.tsv", context)
    frame = pd.read_csv(tmp_path / "g.tsv", sep="\t", dtype={"lambda": str})
    assert sorted(set(frame["lambda"])) == ["1.0", "4.0"] and sorted(set(frame.k)) == [1, 2, 3]
    entry = json.loads((tmp_path / "g.json").read_text())["details"]["lambdas"]["4.0"]
    test = io.load_npz(tmp_path / "test.npz")
    scores = test.X.astype(float)[:, entry["order"][:2]] @ np.asarray(entry["coef"][1])
    part = frame[(frame["lambda"] == "4.0") & (frame.k == 2)]
    for name, column in (("map", "MAP"), ("meanndcg", "MeanNDCG")):
        np.testing.assert_allclose(part[column], metrics.metric_per_query(test.y, scores, test.query_ptr, name,
                                                                          "letor4"), atol=1e-8)
    select("w", {"algorithm": "waf"}, fold["train"], fold["vali"], {}, tmp_path / "w.json", seed=1,
           convention="letor4")
    with pytest.raises(ValueError, match="a 'waf' selection; this needs one of: greedy_rankrls"):
        report_data("paths", tmp_path / "w.json", tmp_path / "test.npz", tmp_path / "w.tsv", context)
    assert not (tmp_path / "w.tsv").exists()


def test_fsed_densities_skip_constant_and_all_zero_features(tmp_path):
    from ltrfs.ranking_data import RankingData
    from ltrfs.scoring.divergence import class_densities
    from ltrfs.selection.fs_ed import class_densities_table

    data = planted(n_queries=20, d=5, informative=(0,), seed=4)
    X = data.X.copy()
    X[:, 3] = 0.0  # zero on every row
    X[:, 4] = np.repeat(np.arange(data.n_queries), np.diff(data.query_ptr))  # constant within each query
    io.save_npz(RankingData(X, data.y, data.query_ptr, data.query_ids), tmp_path / "train.npz")
    selection = {"algorithm": "fs_ed", "ranking": [1, 3, 2, 4, 5], "scores": [0.9, 0.3, 0.5, 0.1, 0.0],
                 "constant_features": [5]}
    (tmp_path / "s.json").write_text(json.dumps(selection))
    (tmp_path / "d.tsv").write_text(class_densities_table(selection, io.load_npz(tmp_path / "train.npz"), n_points=50))
    frame = pd.read_csv(tmp_path / "d.tsv", sep="\t")
    assert frame.groupby("role", sort=False).feature.first().to_dict() == {"top": 1, "last": 2}
    last = frame[frame.role == "last"]
    expected = class_densities(X[:, 1].astype(float), data.y, last[last.label == 0].x.to_numpy())
    for label, group in last.groupby("label"):
        np.testing.assert_allclose(group.density, expected[label], rtol=1e-6, atol=1e-12)
    reports_png = tmp_path / "f.png"
    from ltrfs.results.figures.feature_reports import fsed_figure

    fsed_figure(tmp_path / "d.tsv", reports_png, None, tmp_path / "f.csv")
    assert reports_png.stat().st_size > 0 and set(pd.read_csv(tmp_path / "f.csv").feature) == {1, 2}


def test_fsmrank_convergence_traces_solve_the_selections_problem(fold, tmp_path):
    from ltrfs.pipeline.figures import report_data
    from ltrfs.rankers import fsmrank as fsm
    from ltrfs.selection.fsmrank import convergence_table
    from ltrfs.results.figures.feature_reports import convergence_figure

    method = {"algorithm": "fsmrank", "params": {"lambda1": 0.01, "lambda2": 0.001}}
    select("f", method, fold["train"], fold["vali"], {}, tmp_path / "f.json", seed=1, convention="letor4")
    (tmp_path / "c.tsv").write_text(convergence_table(json.loads((tmp_path / "f.json").read_text()),
                                                      io.load_npz(fold["train"]), max_iter=30))
    frame = pd.read_csv(tmp_path / "c.tsv", sep="\t")
    selection = json.loads((tmp_path / "f.json").read_text())
    # the accelerated proximal gradient: the selection's own iterates (times measured again)
    apg = frame[frame.solver == "FSMRank (accelerated proximal gradient)"]
    np.testing.assert_allclose(apg.objective, selection["details"]["trace"]["objective"], rtol=1e-10)
    assert apg.seconds.is_monotonic_increasing
    # the baseline: the same iterates as the solver run directly on the selection's problem
    sub = frame[frame.solver == "projected subgradient"]
    assert sub.iteration.tolist() == list(range(31))
    train = io.load_npz(fold["train"])
    X = train.X
    if selection["params"].get("scale", "none") != "none":
        lo, span = fsm.minmax_scaling(X, selection["params"]["scale"])
        X = fsm.apply_scaling(X, lo, span)
    A, s, _ = fsm.extended_pearson(train.X, train.y)
    oracle = fsm.subgradient_solve(fsm.FSMProblem(X, train.y, train.query_ptr, A, s, 0.01, 0.001), max_iter=30,
                                   tol=0.0)
    np.testing.assert_allclose(sub.objective, oracle.objectives, rtol=1e-10)
    convergence_figure(tmp_path / "c.tsv", tmp_path / "c.png", None, tmp_path / "c.csv")
    assert len(pd.read_csv(tmp_path / "c.csv")) == len(frame) and (tmp_path / "c.png").stat().st_size > 0
    # a selection whose problem cannot be reproduced is refused
    selection["chosen"]["lambda2"] = 0.5
    (tmp_path / "g.json").write_text(json.dumps(selection))
    with pytest.raises(ValueError, match="does not reproduce its trace"):
        report_data("convergence", tmp_path / "g.json", fold["train"], tmp_path / "g.tsv", {})
    assert not (tmp_path / "g.tsv").exists()


def test_fsmrank_nonzero_weights_are_the_saved_models_non_zeros(fold, tmp_path):
    """The non-zero report counts the non-zero weights of each fold's saved FSMRank model at its
    chosen lambdas (vali-chosen on a grid in fold 1, fixed in fold 2), and their mean."""
    from ltrfs.results.figures import registry
    from ltrfs.formats import load_selector
    from ltrfs.results.figures.feature_reports import nonzero_figure
    from ltrfs.selection.fsmrank import nonzero_weights

    settings = {1: {}, 2: {"lambda1": 1.0, "lambda2": 0.0}}  # the default grid; fixed lambdas
    selections, models, expected = {}, {}, {}
    for f, params in settings.items():
        selections[f], models[f] = tmp_path / f"f{f}.json", tmp_path / f"f{f}.model"
        select("f", {"algorithm": "fsmrank", "params": params}, fold["train"], fold["vali"], {}, selections[f],
               seed=1, convention="letor4", out_selector=models[f])
        record = json.loads(selections[f].read_text())
        expected[f] = int(np.count_nonzero(load_selector(models[f], "f").coef_))
        grid_row = [r for r in record["details"]["grid"]
                    if (r["lambda1"], r["lambda2"]) == (record["chosen"]["lambda1"], record["chosen"]["lambda2"])]
        assert [r["nonzero"] for r in grid_row] == [expected[f]]  # the solver's own count at that point
    assert expected == {1: 2, 2: 4}  # planted: the two informative features; lambda2 = 0 keeps more
    assert registry.input_paths("nonzero_f", results="R", dataset="D", experiment="E", folds=[1, 2]) == {
        "selections": ["R/D/fold1/select/f.json", "R/D/fold2/select/f.json"],
        "models": ["R/D/fold1/select/f.model", "R/D/fold2/select/f.model"]}
    nonzero_figure(selections, models, tmp_path / "n.png", None, tmp_path / "n.csv", title="t")
    table = pd.read_csv(tmp_path / "n.csv", dtype={"fold": str}).set_index("fold")
    assert list(table.index) == ["1", "2", "mean"] and (table.n_features == 6).all()
    assert table.nonzero.tolist() == [2, 4, 3]
    assert table.loc["1", "lambda1"] == 0.0 and table.loc["1", "lambda2"] == 0.01  # chosen on vali
    assert (table.loc["2", "lambda1"], table.loc["2", "lambda2"]) == (1.0, 0.0)
    assert (tmp_path / "n.png").stat().st_size > 0
    # another method's record, or a model of another width, is refused
    record = json.loads(selections[1].read_text())
    with pytest.raises(ValueError, match="is 'fsmsvm', not fsmrank"):
        nonzero_weights({**record, "algorithm": "fsmsvm"}, load_selector(models[1], "f"))
    with pytest.raises(ValueError, match="the model has 6 weights, the selection 7 features"):
        nonzero_weights({**record, "n_features": 7}, load_selector(models[1], "f"))
    with pytest.raises(ValueError, match=r"selections of folds \[1, 2\], models of folds \[1\]"):
        nonzero_figure(selections, {1: models[1]}, tmp_path / "n.png", None, tmp_path / "n.csv")


def test_chosen_k_bars_mark_waf_and_pair_significance(tmp_path):
    """Gupta & Rosso Fig. 2: each method at its vali-chosen k (WAF at its single k), + where
    p_vs_waf < 0.05, * on side a of a significant compare pair; reference rows left out."""
    from ltrfs.results.figures.feature_reports import chosen_k_bars

    rows = [  # method, k, k_chosen, NDCG@10, its std, p_vs_waf (ranker svm)
        ("waf", "46", "46", 0.40, 0.02, np.nan),
        ("fs_ed", "3", "3", 0.43, 0.03, 0.01), ("fs_ed", "5", "5", 0.42, 0.03, 0.2),
        ("fs_ed", "vali", "3,5", 0.44, 0.03, 0.03),
        ("fs_bfs", "3", "3", 0.41, 0.01, 0.5), ("fs_bfs", "5", "5", 0.40, 0.01, 0.6),
        ("fs_bfs", "vali", "5", 0.40, 0.01, 0.9)]
    table = pd.DataFrame(rows, columns=["method", "k", "k_chosen", "NDCG@10", "NDCG@10_std", "p_vs_waf"])
    table.insert(1, "ranker", "svm")
    table.loc[len(table)] = ["file order", "(no model)", "0", "0", 0.1, 0.0, np.nan]
    table.to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame([{"a": "fs_ed/svm", "b": "fs_bfs/svm", "at": "chosen", "metric": "NDCG@10", "p": 0.04},
                  {"a": "fs_ed/svm", "b": "fs_bfs/svm", "at": "chosen", "metric": "MAP", "p": 0.5},
                  {"a": "fs_ed/svm", "b": "fs_bfs/svm", "at": "k", "metric": "NDCG@10", "p": 0.01}]
                 ).to_csv(tmp_path / "c.csv", index=False)
    chosen_k_bars(tmp_path / "t.csv", tmp_path / "c.csv", tmp_path / "f.png", None, tmp_path / "f.csv")
    bars = pd.read_csv(tmp_path / "f.csv", dtype={"k": str, "k_used": str}).set_index("method")
    assert list(bars.index) == ["waf", "fs_ed", "fs_bfs"]  # the table's order
    assert bars.loc["fs_ed", "k_used"] == "3,5" and bars.loc["waf", "k_used"] == "46"
    assert bars.loc["fs_ed", "NDCG@10"] == 0.44 and bool(bars.loc["fs_ed", "plus"]) and bool(bars.loc["fs_ed", "star"])
    assert not bars.loc["fs_bfs", ["plus", "star"]].any() and not bars.loc["waf", ["plus", "star"]].any()
    assert (tmp_path / "f.png").stat().st_size > 0


def test_every_figure_is_declared_once_with_its_files_and_report_caption():
    """The one registry: the rule of every kind of figure, its files under results/, a caption file
    that exists; ``paths`` fills the fields it is given and leaves the rule's wildcards."""
    from ltrfs.results.figures import registry

    assert {name: f.rule for name, f in registry.FIGURES.items()} == {
        "metric_vs_k": "figure_metric_vs_k", "paper_figure": "figure_paper", "feature_report": "feature_report",
        "critical_difference": "leaderboard", "stability": "leaderboard", "accuracy_vs_cost": "leaderboard",
        "planted_recovery": "leaderboard"}
    root = Path(__file__).resolve().parents[2]
    for figure in registry.FIGURES.values():
        assert (root / f"workflow/report/{figure.caption}.rst").is_file(), figure.name
    assert [f.name for f in registry.drawn_by("leaderboard")] == [
        "critical_difference", "stability", "accuracy_vs_cost", "planted_recovery"]
    assert registry.FIGURES["accuracy_vs_cost"].paths("R", run_name="demo") == {
        "png": "R/leaderboard/demo/accuracy_vs_cost.png", "pdf": None, "csv": "R/leaderboard/demo/accuracy_vs_cost.csv"}
    assert registry.FIGURES["metric_vs_k"].paths("R") == {
        "png": "R/figures/{experiment}/{dataset}_{metric}.png", "pdf": "R/figures/{experiment}/{dataset}_{metric}.pdf",
        "csv": "R/figures/{experiment}/{dataset}_{metric}.csv"}
    cd = registry.FIGURES["critical_difference"]
    assert cd.per_scope and not registry.FIGURES["stability"].per_scope
    assert registry.output_files({"figure_stability": "s.png"}, "stability") == {"png": "s.png", "pdf": None, "csv": None}
    assert registry.output_files({"figure_critical_difference": "cd"}, "critical_difference")["png"] == "cd/{scope}.png"
    with pytest.raises(ValueError, match="figure 'stability' must be a new name"):
        registry.declare_figure("stability", rule="x", png="a.png", caption="c", category="c", labels={}, draw=None)

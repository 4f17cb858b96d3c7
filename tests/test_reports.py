"""Selectors ranking with their own models (ranker ``own``) and the per-feature reports."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import planted
from ltrfs import io
from ltrfs.experiments import OWN, has_own_predictions, load_models, predict, select, train
from ltrfs.reports import importance_figure, rf_curve_figure, top_features
from ltrfs.selection import SELECTORS, make_selector


@pytest.fixture()
def fold(tmp_path):
    paths = {}
    for split, seed in (("train", 1), ("vali", 2)):
        paths[split] = tmp_path / f"{split}.npz"
        io.save_npz(planted(n_queries=30, d=6, informative=(1, 4), seed=seed), paths[split])
    return paths


def test_own_ranker_is_the_refitted_methods_model(fold, tmp_path):
    method = {"algorithm": "ordinal_cr"}
    select("cr", method, fold["train"], fold["vali"], {}, tmp_path / "cr.json", seed=5, convention="letor4")
    train(tmp_path / "cr.json", "own", {"algorithm": OWN}, fold["train"], fold["vali"], tmp_path / "m.pkl",
          tmp_path / "m.json", ks=[], metric="ndcg@10", convention="letor4", seed=5)
    models = load_models(tmp_path / "m.pkl")
    assert list(models) == [6]  # one model on all d features
    vali = io.load_npz(fold["vali"])
    train_data = io.load_npz(fold["train"])
    oracle = make_selector("ordinal_cr", random_state=5).fit(train_data.X, train_data.y, train_data.qid)
    np.testing.assert_allclose(predict(models[6], vali), oracle.predict_scores(vali.X), rtol=1e-10)
    info = json.loads((tmp_path / "m.json").read_text())
    assert info["algorithm"] == OWN and info["k"]["6"]["chosen"]["n_selected"] == oracle.chosen_["n_selected"]


def test_own_ranker_needs_a_method_with_a_model(fold, tmp_path):
    select("w", {"algorithm": "waf"}, fold["train"], fold["vali"], {}, tmp_path / "w.json", seed=1,
           convention="letor4")
    with pytest.raises(ValueError, match=r"method 'w' \(waf\) has no predictions of its own; these have: "):
        train(tmp_path / "w.json", "own", {"algorithm": OWN}, fold["train"], fold["vali"], tmp_path / "m.pkl",
              tmp_path / "m.json", ks=[], metric="ndcg@10", convention="letor4", seed=1)
    assert not (tmp_path / "m.pkl").exists()


def test_methods_with_own_predictions_are_the_statistical_ones_and_the_embedded_models():
    assert {name for name in SELECTORS if has_own_predictions(name)} == {
        "l1_logistic", "svm_rfe", "ordinal_cr", "rf_importance", "gbm_importance", "greedy_rankrls", "fsmrank",
        "fsmsvm"}


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
    own = {"ranking": [3, 1, 2, 4], "scores": [0.5, 0.1, 0.9, 0.0], "chosen": {"n_selected": 2}}
    topk = {"ranking": [2, 4, 1, 3], "scores": None, "chosen": {}}
    (tmp_path / "own.json").write_text(json.dumps(own))
    (tmp_path / "topk.json").write_text(json.dumps(topk))
    top_features({"l1": tmp_path / "own.json", "ig": tmp_path / "topk.json"}, tmp_path / "t.md", tmp_path / "t.csv",
                 k=3, names=["a", "b", "c", "d"])
    frame = pd.read_csv(tmp_path / "t.csv")
    assert frame[frame.method == "l1"].feature.tolist() == [3, 1]
    assert frame[frame.method == "l1"].name.tolist() == ["c", "a"]
    assert frame[frame.method == "ig"].feature.tolist() == [2, 4, 1]
    assert "its own choice of 2 features" in (tmp_path / "t.md").read_text()


def test_elimination_figure_without_a_curve_is_one_line(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps({"chosen": {"n_rows": 5}}))
    with pytest.raises(ValueError, match="has no elimination curve"):
        rf_curve_figure({1: tmp_path / "s.json"}, tmp_path / "c.png", None, None)

"""Model files from strangers (issue 40): a damaged or hand-edited model is refused by
``ltrfs predict`` in one line naming the file, exit 2, in seconds, and never reaches XGBoost's or
LightGBM's native loader unchecked (which would crash, hang or read out of bounds).

Each damaged file is made here from a model trained in the test, so the tests follow any change
in the libraries' formats. ``ltrfs predict`` runs in a child process: a signal or a hang is seen
as such, not as a dead test worker."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from ltrfs.examples import example_queries
from ltrfs.formats import load_models, save_models
from ltrfs.io import write_letor
from ltrfs.rankers import make_ranker
from ltrfs.ranking_data import RankingData, query_ptr_from_qid
from ltrfs.selection import make_selector
from ltrfs.selection.base import OwnPredictions

pytest.importorskip("lightgbm")

#: the ranker of each model kind, with few trees (the loading, not the fit, is tested)
KINDS = {"xgboost": ("lambdamart", {"n_estimators": 6, "early_stopping_rounds": None}),
         "lightgbm": ("lambdamart", {"n_estimators": 6, "early_stopping_rounds": None, "backend": "lightgbm"}),
         "forest": ("random_forest", {"n_estimators": 4, "max_leaf_nodes": 8}),
         "linear": ("ranksvm", {"C": 1.0})}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """kind -> (model file, data file) of a model trained on 5-feature toy queries."""
    folder = tmp_path_factory.mktemp("hostile")
    X, y, qid = example_queries(seed=0)
    ptr, ids = query_ptr_from_qid(qid)
    write_letor(RankingData(X=X.astype(np.float32), y=y.astype(np.int32), query_ptr=ptr, query_ids=ids),
                folder / "test.txt")
    out = {}
    estimators = {kind: make_ranker(name, **params).fit(X, y, qid) for kind, (name, params) in KINDS.items()}
    estimators["own"] = OwnPredictions(make_selector("fsmrank", max_iter=50, lambda1=0.01, lambda2=0.001).fit(X, y, qid))
    for kind, estimator in estimators.items():
        path = folder / f"{kind}.model"
        save_models(path, {5: {"ranker": getattr(estimator, "name", "own"), "n_features": 5, "features": np.arange(5),
                               "projection": None, "params": {}, "estimator": estimator}})
        out[kind] = path
    return out, folder / "test.txt"


def predict_cli(model, data, timeout: float = 60):
    """(exit code, standard error) of ``ltrfs predict MODEL DATA`` in a child process."""
    run = subprocess.run([sys.executable, "-m", "ltrfs", "predict", str(model), str(data)],
                         capture_output=True, text=True, timeout=timeout)
    return run.returncode, run.stderr


def _model(doc: dict) -> dict:
    return doc["models"]["5"]["model"]


def _booster_text(doc: dict) -> str:
    return _model(doc)["attributes"]["booster_"]["model"]


def _set_booster_text(doc: dict, text: str) -> None:
    _model(doc)["attributes"]["booster_"]["model"] = text


def _xgb(edit):
    """A damage to the XGBoost JSON inside the model file: ``edit(booster_json)`` in place."""
    def damage(doc):
        booster = json.loads(_booster_text(doc))
        edit(booster)
        _set_booster_text(doc, json.dumps(booster))
    return damage


def _xgb_tree(booster, i=0) -> dict:
    return booster["learner"]["gradient_booster"]["model"]["trees"][i]


def _first_inner(tree) -> int:
    return int(np.flatnonzero(np.asarray(tree["left_children"]) >= 0)[-1])


def _lgb(edit):
    """A damage to the LightGBM text: ``edit(text) -> text``."""
    def damage(doc):
        _set_booster_text(doc, edit(_booster_text(doc)))
    return damage


def _lgb_line(key: str, change, tree: int = 0):
    """Replace the ``key=`` line of tree ``tree`` by ``change(tokens)``."""
    def edit(text):
        start = text.index(f"Tree={tree}\n")
        at = text.index(f"\n{key}=", start) + 1
        stop = text.index("\n", at)
        tokens = text[at + len(key) + 1:stop].split(" ")
        return text[:at] + f"{key}=" + " ".join(change(tokens)) + text[stop:]
    return edit


def _lgb_same_sizes(edit):
    """An edit of the LightGBM text whose tree sizes are written back to match (a careful forger)."""
    def fixed(text):
        text = edit(text)
        end = text.index("\nend of trees")
        starts = [m.start() + 1 for m in re.finditer(r"\nTree=", text[:end + 1])] + [end + 1]
        sizes = " ".join(str(b - a) for a, b in zip(starts, starts[1:]))
        return re.sub(r"tree_sizes=[^\n]*", f"tree_sizes={sizes}", text, count=1)
    return fixed


def _forest(key, change):
    def damage(doc):
        tree = _model(doc)["attributes"]["model_"]["trees"][0]
        tree[key]["data"] = change(list(tree[key]["data"]))
    return damage


def _own_child(left):
    left[0] = 0  # the root its own left child: a cycle
    return left


def _linear(value):
    def damage(doc):
        _model(doc)["attributes"]["coef_"]["data"][2] = value
    return damage


def _raw(text_edit):
    """A damage to the file's text itself."""
    return ("raw", text_edit)


def _selector_state(doc):
    X, y, qid = example_queries(seed=0)
    from ltrfs.state import estimator_state
    doc["models"]["5"]["model"] = estimator_state(make_selector("gas_e", c=0.01).fit(X, y, qid))


def _own_short_coef(doc):
    coef = _model(doc)["selector"]["attributes"]["coef_"]
    coef["data"], coef["shape"] = coef["data"][:3], [3]


# (kind, damage, what the one line must say)
CASES = {
    "xgboost split index far out of range": ("xgboost", _xgb(lambda b: _xgb_tree(b)["split_indices"].__setitem__(
        0, 10 ** 7)), "split_indices: a value outside 0..4"),
    "xgboost split index just past the last feature": ("xgboost", _xgb(lambda b: _xgb_tree(b)["split_indices"].__setitem__(
        0, 5)), "split_indices: a value outside 0..4"),
    "xgboost child far out of range": ("xgboost", _xgb(lambda b: _xgb_tree(b)["left_children"].__setitem__(
        0, 10 ** 6)), "left_children: a value outside -1.."),
    "xgboost child cycle": ("xgboost", _xgb(lambda b: _xgb_tree(b)["left_children"].__setitem__(
        _first_inner(_xgb_tree(b)), 0)), "a child id outside 1.."),
    "xgboost child cycle below the root": ("xgboost", _xgb(lambda b: _xgb_tree(b)["right_children"].__setitem__(
        _first_inner(_xgb_tree(b)), _first_inner(_xgb_tree(b)))), "a node that is the child of no node or of several"),
    "xgboost tree_info out of range": ("xgboost", _xgb(lambda b: b["learner"]["gradient_booster"]["model"][
        "tree_info"].__setitem__(0, 7)), "tree_info: a value outside 0..0"),
    "xgboost empty model string": ("xgboost", lambda doc: _set_booster_text(doc, ""), "the XGBoost model is empty"),
    "xgboost no trees": ("xgboost", _xgb(lambda b: b["learner"]["gradient_booster"]["model"].__setitem__(
        "trees", [])), "the XGBoost model has no trees"),
    "xgboost empty tree": ("xgboost", _xgb(lambda b: _xgb_tree(b)["tree_param"].__setitem__("num_nodes", "0")),
                           "tree 0: num_nodes is '0', not an integer in 1.."),
    "xgboost leaf value not finite": ("xgboost", lambda doc: _set_booster_text(doc, re.sub(
        r'"split_conditions":\[([^,\]]+)', r'"split_conditions":[1e999', _booster_text(doc), count=1)),
        "split_conditions: a number that is not finite"),
    "booster that is a number": ("xgboost", lambda doc: _model(doc)["attributes"].__setitem__("booster_", 5),
                                 "booster_ is not a xgboost booster"),
    "lightgbm left_child cycle": ("lightgbm", _lgb(_lgb_same_sizes(_lgb_line("left_child", lambda t: ["0"] + t[1:]))),
                                  "tree 0: a child id outside 1.."),
    "lightgbm edit that changes a tree's length": ("lightgbm", _lgb(_lgb_line("leaf_value", lambda t: [t[0] + "1"] + t[1:])),
                                                   "tree_sizes do not match the trees"),
    "lightgbm split feature 1e8": ("lightgbm", _lgb(_lgb_same_sizes(_lgb_line("split_feature", lambda t: ["100000000"] + t[1:]))),
                                   "split_feature: a value outside 0..4"),
    "lightgbm split feature -7": ("lightgbm", _lgb(_lgb_same_sizes(_lgb_line("split_feature", lambda t: ["-7"] + t[1:]))),
                                  "split_feature: a value outside 0..4"),
    "lightgbm truncated text": ("lightgbm", _lgb(lambda text: text[:len(text) // 2]), "no 'end of trees' line"),
    "lightgbm short leaf values": ("lightgbm", _lgb(_lgb_same_sizes(_lgb_line("leaf_value", lambda t: t[:-1]))),
                                   "values of leaf_value for"),
    "forest node its own child": ("forest", _forest("left", _own_child), "forest tree 0: a child id outside 1.."),
    "forest no trees": ("forest", lambda doc: _model(doc)["attributes"]["model_"].__setitem__("trees", []),
                        "forest: no trees"),
    "forest empty tree": ("forest", lambda doc: _model(doc)["attributes"]["model_"]["trees"][0].update(
        {key: {"type": "ndarray", "dtype": "int32" if key in ("left", "right", "feature") else "float64",
               "shape": [0, 1] if key == "value" else [0], "data": []}
         for key in ("left", "right", "feature", "threshold", "value")}), "forest tree 0: no nodes"),
    "linear NaN weight": ("linear", _raw(lambda text: re.sub(r'"coef_":\{([^}]*)"data":\[([^,\]]+)',
                                                             r'"coef_":{\1"data":[NaN', text)),
                          "NaN is not a number a model holds"),
    "linear Infinity weight": ("linear", _raw(lambda text: re.sub(r'"coef_":\{([^}]*)"data":\[([^,\]]+)',
                                                                  r'"coef_":{\1"data":[1e999', text)),
                               "1e999 is not a finite number"),
    "shape Infinity": ("linear", _raw(lambda text: re.sub(r'"coef_":\{([^}]*)"shape":\[[0-9]+\]',
                                                          r'"coef_":{\1"shape":[Infinity]', text)),
                       "Infinity is not a number a model holds"),
    "shape too large": ("linear", lambda doc: _model(doc)["attributes"]["coef_"].__setitem__("shape", [10 ** 30]),
                        "array shape .* is not a list of sizes"),
    "nested JSON arrays": ("linear", _raw(lambda text: text.replace('"params":', '"junk":' + "[" * 200_000
                                                                    + "]" * 200_000 + ',"params":', 1)),
                           "JSON nested too deeply"),
    "own model weights of the wrong length": ("own", _own_short_coef, r"model 5: X has 5 features but the model was fitted with 3"),
    "a selector's state as the model": ("linear", _selector_state, r"holds a GAS\w*, not a Ranker or OwnPredictions"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_damaged_model_is_refused_in_one_line(tmp_path, files, case):
    kind, damage, message = CASES[case]
    models, data = files
    text = models[kind].read_text()
    if isinstance(damage, tuple):  # a damage of the raw text
        text = damage[1](text)
        assert text != models[kind].read_text(), "the damage did not apply"
    else:
        doc = json.loads(text)
        damage(doc)
        text = json.dumps(doc)
    path = tmp_path / "damaged.model"
    path.write_text(text)
    code, err = predict_cli(path, data)
    assert code == 2, (case, code, err)  # not a signal (negative), not 0, not an internal error (1)
    assert err.startswith(f"ltrfs: error: {path}: damaged model file") and err.count("\n") == 1, err
    assert re.search(message, err), (message, err)


@pytest.mark.parametrize("kind", sorted(KINDS) + ["own"])
def test_undamaged_files_predict(files, kind):
    """The checks refuse nothing the project writes: every kind predicts through the CLI."""
    models, data = files
    code, err = predict_cli(models[kind], data)
    assert code == 0, err
    assert np.ptp(np.asarray(load_models(models[kind])[5]["estimator"].predict(
        example_queries(seed=0)[0].astype(np.float32)))) > 0


# ----------------------------------------------------------------------------- random mutations

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import model_fuzz  # noqa: E402


def test_random_mutations_are_refused_or_score_as_the_file_says():
    """1,200 mutations of each kind's file (4,800 in all): no signal, no hang (the child's
    timeout), no exception but the one-line DataError, and every accepted file well-formed and
    scored as a plain walk of its trees scores it."""
    n = 1200
    run = subprocess.run([sys.executable, str(HERE / "model_fuzz.py"), str(n), "20261128"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"exit {run.returncode} after case {run.stderr.strip().splitlines()[-1:]}"
    summary = json.loads(run.stdout)
    assert summary["cases"] == 4 * n and summary["refused"] + summary["accepted"] + len(summary["failures"]) == 4 * n
    assert summary["failures"] == [], json.dumps(summary["failures"][:5], indent=1)
    # both verdicts occur for every kind: the mutations make damaged files and odd but valid ones
    assert summary["refused"] > 0.5 * 4 * n
    assert min(summary["accepted_by_kind"].values()) > 0.02 * n, summary["accepted_by_kind"]


def test_the_oracle_scores_the_undamaged_models_and_finds_a_cycle():
    """The fuzzer's oracle is a real check: it gives each model's own scores, and refuses a cycle."""
    X = example_queries(seed=2)[0].astype(np.float32)
    docs = model_fuzz._models()
    with tempfile.TemporaryDirectory() as tmp:
        for kind, doc in docs.items():
            path = Path(tmp) / f"{kind}.model"
            path.write_text(json.dumps(doc))
            scores = load_models(path)[5]["estimator"].predict(X)
            np.testing.assert_allclose(model_fuzz.oracle(kind, doc, X), scores, rtol=1e-5, atol=1e-6)
    booster = json.loads(docs["xgboost"]["models"]["5"]["model"]["attributes"]["booster_"]["model"])
    tree = _xgb_tree(booster)
    tree["left_children"][_first_inner(tree)] = 0
    docs["xgboost"]["models"]["5"]["model"]["attributes"]["booster_"]["model"] = json.dumps(booster)
    with pytest.raises(model_fuzz.Malformed, match="a cycle"):
        model_fuzz.oracle("xgboost", docs["xgboost"], X)

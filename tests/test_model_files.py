"""Code-free model files (ltrfs.state, ltrfs.formats): every ranker and every selector with a model
of its own is written as JSON that runs no code when read, loaded from anyone (any key) without
--trust-model, and scores bitwise as before; damaged files give one-line errors."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ltrfs import signed
from ltrfs.cli import main
from ltrfs.examples import example_queries
from ltrfs.formats import load_models, load_selector, predict, save_models, save_selector
from ltrfs.io import write_letor
from ltrfs.ranking_data import DataError, RankingData, query_ptr_from_qid
from ltrfs.rankers import RANKERS, make_ranker
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.selection.base import OwnPredictions
from ltrfs.state import BASE64_FROM, TreeEnsemble, decode, encode

#: few iterations: the round trip, not the fit, is tested
FAST = {"lambdamart": {"n_estimators": 8}, "mart": {"n_estimators": 8}, "random_forest": {"n_estimators": 12},
        "ranknet": {"epochs": 3}, "listnet": {"max_iter": 20}, "coord_ascent": {"n_restarts": 1},
        "rankboost": {"n_rounds": 15}, "adarank_ndcg": {"n_rounds": 10}, "adarank_map": {"n_rounds": 10},
        "fsmrank": {"max_iter": 50}, "mlp": {"hidden": [8], "epochs": 3}}


@pytest.fixture(scope="module")
def split():
    """Train and vali toy queries (5 features, graded labels), and test rows in float32 as the cache holds them."""
    X, y, qid = example_queries(seed=0)
    Xv, yv, qv = example_queries(seed=1)
    Xt, _, _ = example_queries(seed=2)
    return X, y, qid, Xv, yv, qv, Xt.astype(np.float32)


def _fast(name: str) -> dict:
    return dict(FAST.get(name, {}))


def _record(estimator, d: int = 5) -> dict:
    return {"ranker": getattr(estimator, "name", "own"), "n_features": d, "features": np.arange(d),
            "projection": None, "params": {"seed": np.int64(3)}, "estimator": estimator}


def _assert_code_free(path):
    raw = path.read_bytes()
    assert b"LTRFS-SIGNED-PICKLE" not in raw
    return json.loads(raw)


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_every_ranker_round_trips_bitwise_in_json(tmp_path, split, name):
    X, y, qid, Xv, yv, qv, Xt = split
    ranker = make_ranker(name, **_fast(name)).fit(X, y, qid, Xv, yv, qv)
    path = tmp_path / "m.model"
    save_models(path, {5: _record(ranker)})
    doc = _assert_code_free(path)
    assert doc["format"] == "ltrfs-model" and doc["version"] == 2
    assert doc["models"]["5"]["features"] == [1, 2, 3, 4, 5]  # 1-based ids, as in the data files
    assert doc["models"]["5"]["model"]["name"] == name
    loaded = load_models(path)[5]
    assert type(loaded["estimator"]) is type(ranker) and loaded["estimator"] is not ranker
    for rows in (Xt, Xt.astype(np.float64), X):
        before, after = ranker.predict(rows), loaded["estimator"].predict(rows)
        assert before.dtype == after.dtype == np.float64
        assert before.tobytes() == after.tobytes(), name  # bitwise
    assert np.ptp(ranker.predict(Xt)) > 0  # a real model, not a constant


def test_lightgbm_backend_round_trips_bitwise(tmp_path, split):
    pytest.importorskip("lightgbm")
    X, y, qid, Xv, yv, qv, Xt = split
    ranker = make_ranker("lambdamart", backend="lightgbm", n_estimators=12, early_stopping_rounds=3).fit(
        X, y, qid, Xv, yv, qv)
    save_models(tmp_path / "m.model", {5: _record(ranker)})
    state = _assert_code_free(tmp_path / "m.model")["models"]["5"]["model"]["attributes"]["booster_"]
    assert state["type"] == "lightgbm" and state["model"].startswith("tree")
    loaded = load_models(tmp_path / "m.model")[5]["estimator"]
    assert loaded.booster_.current_iteration() == ranker.booster_.current_iteration()
    assert loaded.predict(Xt).tobytes() == ranker.predict(Xt).tobytes()


def test_xgboost_model_is_xgboost_json(tmp_path, split):
    X, y, qid, *_ = split
    ranker = make_ranker("mart", n_estimators=4).fit(X, y, qid)
    save_models(tmp_path / "m.model", {5: _record(ranker)})
    booster = _assert_code_free(tmp_path / "m.model")["models"]["5"]["model"]["attributes"]["booster_"]
    assert booster["type"] == "xgboost"
    assert json.loads(booster["model"])["learner"]["gradient_booster"]["model"]["gbtree_model_param"]["num_trees"] == "4"


def test_tree_ensemble_equals_scikit_learn_forest():
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 2] > 0).astype(int) + (X[:, 1] > 1)
    Xt = rng.normal(size=(500, 6)).astype(np.float32)
    Xt[:50, 0] = X[:50, 0]  # values equal to training values sit on thresholds' sides exactly
    reg = RandomForestRegressor(n_estimators=15, max_leaf_nodes=30, random_state=0).fit(X, y.astype(float))
    clf = RandomForestClassifier(n_estimators=15, random_state=0).fit(X, y)
    for forest, method in ((reg, "predict"), (clf, "predict_proba")):
        ours = decode(encode(forest))
        assert isinstance(ours, TreeEnsemble)
        assert getattr(ours, method)(Xt).tobytes() == getattr(forest, method)(Xt).tobytes()
    assert np.array_equal(decode(encode(clf)).classes_, clf.classes_)


def test_encoding_is_exact_for_every_dtype():
    values = {"f64": np.array([0.1, 1 / 3, -0.0, 5e-324, 1.7976931348623157e308]),
              "f32": np.array([0.1, 1 / 3, 3.4028235e38], dtype=np.float32),
              "i": np.arange(-3, 3, dtype=np.int32), "b": np.array([True, False]),
              "big": np.random.default_rng(0).normal(size=BASE64_FROM + 1).astype(np.float32).reshape(-1, 1),
              "scalar32": np.float32(0.1), "tuple": (1, 2.5, None), "nested": {"a": [np.int64(4)], 3: "x"}}
    back = decode(json.loads(json.dumps(encode(values))))
    for key in ("f64", "f32", "i", "b", "big"):
        assert back[key].dtype == values[key].dtype and back[key].shape == values[key].shape
        assert back[key].tobytes() == values[key].tobytes()
    assert "base64" in encode(values["big"]) and "data" in encode(values["f32"])
    assert type(back["scalar32"]) is np.float32 and back["scalar32"] == values["scalar32"]
    assert back["tuple"] == (1, 2.5, None) and back["nested"] == {"a": [4], 3: "x"}
    with pytest.raises(TypeError, match="has no code-free form"):
        encode(object())


# ----------------------------------------------------------------------------- selectors (ranker own)

def _own_selectors():
    return sorted(name for name, cls in SELECTORS.items() if hasattr(cls, "predict_scores"))


OWN_FAST = {"rf_importance": {"n_estimators": 10}, "svm_rfe": {"n_bootstrap": 2},
            "gbm_importance": {"n_estimators": 5}, "fsmrank": {"max_iter": 50}, "fsmsvm": {"max_iter": 50}}


@pytest.mark.parametrize("name", _own_selectors())
def test_own_selectors_round_trip_bitwise(tmp_path, split, name):
    X, y, qid, Xv, yv, qv, Xt = split
    params = OWN_FAST.get(name, {})
    selector = make_selector(name, **params).fit(X, y, qid, X_val=Xv, y_val=yv, qid_val=qv)
    path = tmp_path / "s.model"
    save_selector(path, "mine", selector)
    if SELECTORS[name].state_attributes is None:  # no code-free form: a signed pickle
        assert path.read_bytes().startswith(signed.MAGIC)
        return
    assert _assert_code_free(path)["selector"]["name"] == name
    loaded = load_selector(path, "mine")
    assert np.array_equal(loaded.ranking_, selector.ranking_) and loaded.chosen_ == selector.chosen_
    assert loaded.predict_scores(Xt).tobytes() == selector.predict_scores(Xt).tobytes()
    assert loaded.predict_scores(X).tobytes() == selector.predict_scores(X).tobytes()
    if hasattr(selector, "predict_scores_k"):
        assert loaded.predict_scores_k(Xt, 2).tobytes() == selector.predict_scores_k(Xt, 2).tobytes()
    # the own models of a train job, written in turn
    models = {5: _record(OwnPredictions(loaded))}
    if hasattr(selector, "predict_scores_k"):
        models[2] = _record(OwnPredictions(loaded, 2))
    save_models(tmp_path / "own.model", models)
    _assert_code_free(tmp_path / "own.model")
    again = load_models(tmp_path / "own.model")
    for k, record in models.items():
        assert again[k]["estimator"].predict(Xt).tobytes() == record["estimator"].predict(Xt).tobytes()


def test_selectors_without_own_model_are_code_free(tmp_path, split):
    X, y, qid, *_ = split
    selector = make_selector("pearson").fit(X, y, qid)
    save_selector(tmp_path / "s.model", "p", selector)
    assert set(_assert_code_free(tmp_path / "s.model")["selector"]["attributes"]) == {
        "n_features_in_", "ranking_", "chosen_"}
    assert np.array_equal(load_selector(tmp_path / "s.model", "p").ranking_, selector.ranking_)
    with pytest.raises(ValueError, match=r"s.model: holds method 'p', the selection is 'q'"):
        load_selector(tmp_path / "s.model", "q")


@pytest.mark.parametrize("ranking,message", [
    ([0, 0, 1, 2, 3], "ranking_ repeats a feature or names one outside 0..4"),
    ([0, 1, 2, 3, 9], "ranking_ repeats a feature or names one outside 0..4"),
    ([0.5, 1, 2, 3, 4], "ranking_ is not a vector of 1 to 5 feature indices"),
])
def test_hand_edited_selector_gives_one_line_error(tmp_path, split, ranking, message):
    """A selector file's ranking is checked on load (Selector.check_state), as a model's weights are."""
    X, y, qid, *_ = split
    path = tmp_path / "s.model"
    save_selector(path, "p", make_selector("pearson").fit(X, y, qid))
    doc = json.loads(path.read_text())
    stored = doc["selector"]["attributes"]["ranking_"]
    stored.update(dtype="float64" if isinstance(ranking[0], float) else "int64", data=ranking)
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError) as info:
        load_selector(path, "p")
    assert f"damaged selector file (pearson: {message})" in str(info.value) and "\n" not in str(info.value)


def test_own_model_of_gbm_importance_is_a_signed_pickle(tmp_path, split, monkeypatch):
    X, y, qid, *_ = split
    monkeypatch.setenv("LTRFS_MODEL_KEY", "aa" * 32)
    selector = make_selector("gbm_importance", n_estimators=5).fit(X, y, qid)
    save_models(tmp_path / "m.model", {5: _record(OwnPredictions(selector))})
    assert (tmp_path / "m.model").read_bytes().startswith(signed.MAGIC)
    monkeypatch.setenv("LTRFS_MODEL_KEY", "bb" * 32)
    with pytest.raises(DataError, match="not written with your ltrfs key"):
        load_models(tmp_path / "m.model")
    loaded = load_models(tmp_path / "m.model", trust=True)[5]["estimator"]
    assert loaded.predict(X).tobytes() == OwnPredictions(selector).predict(X).tobytes()


# ----------------------------------------------------------------------------- ltrfs predict, any key

def _data(X, y, qid) -> RankingData:
    ptr, ids = query_ptr_from_qid(np.asarray(qid))
    return RankingData(X=np.asarray(X, dtype=np.float32), y=np.asarray(y, dtype=np.int32), query_ptr=ptr,
                       query_ids=ids)


def _write_letor(path, X, y, qid):
    write_letor(_data(X, y, qid), path)


def test_cli_model_of_one_key_predicts_under_another_without_trust(tmp_path, split, monkeypatch, capsys):
    X, y, qid, Xv, yv, qv, Xt = split
    _write_letor(tmp_path / "train.txt", X, y, qid)
    _write_letor(tmp_path / "test.txt", Xt, yv, qv)
    scores = {}
    for ranker in ("ranksvm", "lambdamart", "rankboost"):
        monkeypatch.setenv("LTRFS_MODEL_KEY", "a1" * 32)
        model = tmp_path / f"{ranker}.model"
        extra = {"ranksvm": ["--set", "C=1"], "lambdamart": ["--set", "n_estimators=5"],
                 "rankboost": ["--set", "n_rounds=10"]}[ranker]
        assert main(["train", "--ranker", ranker, str(tmp_path / "train.txt"), "--features", "1,3,5",
                     "--out", str(model), *extra]) == 0
        capsys.readouterr()
        assert main(["predict", str(model), str(tmp_path / "test.txt")]) == 0
        scores[ranker] = capsys.readouterr().out
        _assert_code_free(model)
        monkeypatch.setenv("LTRFS_MODEL_KEY", "b2" * 32)  # a colleague: another key, no --trust-model
        assert main(["predict", str(model), str(tmp_path / "test.txt")]) == 0
        out = capsys.readouterr().out
        assert out == scores[ranker] and len(out.splitlines()) == len(Xt)
        direct = load_models(model)[3]
        data = _data(Xt, yv, qv)
        assert out == "".join(f"{s:.9g}\n" for s in predict(direct, data))


def test_cli_old_style_pickle_still_needs_the_key(tmp_path, split, monkeypatch, capsys):
    X, y, qid, *_ = split
    _write_letor(tmp_path / "d.txt", X, y, qid)
    monkeypatch.setenv("LTRFS_MODEL_KEY", "a1" * 32)
    ranker = make_ranker("ranksvm").fit(X, y, qid)
    signed.dump(tmp_path / "old.pkl", {"format": 1, "models": {5: _record(ranker)}})  # an ltrfs model before v2
    monkeypatch.setenv("LTRFS_MODEL_KEY", "b2" * 32)
    assert main(["predict", str(tmp_path / "old.pkl"), str(tmp_path / "d.txt")]) == 2
    assert "not written with your ltrfs key" in capsys.readouterr().err
    assert main(["predict", "--trust-model", str(tmp_path / "old.pkl"), str(tmp_path / "d.txt")]) == 0
    assert capsys.readouterr().out == "".join(f"{s:.9g}\n" for s in ranker.predict(X.astype(np.float32)))


# ----------------------------------------------------------------------------- damaged files

def _edit(doc: dict, how: str) -> dict:
    model = doc["models"]["5"]
    if how == "no coef":
        del model["model"]["attributes"]["coef_"]
    elif how == "short coef":
        model["model"]["attributes"]["coef_"]["data"].pop()
        model["model"]["attributes"]["coef_"]["shape"] = [4]
    elif how == "features":
        model["features"] = [1, 2, 3]
    elif how == "feature id":
        model["features"][0] = 9
    elif how == "ranker":
        model["model"]["name"] = "os.system"
    elif how == "param":
        model["model"]["params"]["items"].append(["bad", 1])
    elif how == "no models":
        del doc["models"]
    elif how == "version":
        doc["version"] = 7
    return doc


@pytest.mark.parametrize("how,message", [
    ("no coef", r"damaged model file \(model 5: ranksvm: no attribute coef_\)"),
    ("short coef", r"damaged model file \(model 5: ranksvm: 4 weights of dtype float64 for 5 features\)"),
    ("features", r"damaged model file \(model 5: the ranksvm model takes 5 features, the record gives it 3\)"),
    ("feature id", r"damaged model file \(model 5: a feature id is outside 1..5\)"),
    ("ranker", r"damaged model file \(model 5: unknown ranker 'os.system'\)"),
    ("param", r"damaged model file \(model 5: ranksvm: bad parameters \("),
    ("no models", r"damaged model file \(no models\)"),
    ("version", r"model file version 7; this ltrfs reads version 2"),
])
def test_hand_edited_model_gives_one_line_error(tmp_path, split, capsys, how, message):
    X, y, qid, *_ = split
    path = tmp_path / "m.model"
    save_models(path, {5: _record(make_ranker("ranksvm").fit(X, y, qid))})
    path.write_text(json.dumps(_edit(json.loads(path.read_text()), how)))
    with pytest.raises(DataError, match=message):
        load_models(path)
    _write_letor(tmp_path / "d.txt", X, y, qid)
    assert main(["predict", str(path), str(tmp_path / "d.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ltrfs: error: {path}: ") and err.count("\n") == 1


@pytest.mark.parametrize("ranker, param, value, message", [
    ("mlp", "activation", "sigmoid", "mlp: activation must be one of tanh, relu; got 'sigmoid'"),
    ("ranksvm", "C", -1.0, "ranksvm: C must be a finite number > 0; got -1.0"),
])
def test_a_parameter_fit_refuses_is_refused_when_the_model_loads(tmp_path, split, capsys, ranker, param, value, message):
    """A hand-edited parameter the ranker's fit would refuse is refused by ``validate_params`` as the
    state is read, in one line naming the file (an mlp with activation "sigmoid" loaded, and its
    predict failed with a bare KeyError: 'sigmoid')."""
    from ltrfs.formats import RETRAIN
    from ltrfs.state import estimator_from_state

    X, y, qid, *_ = split
    path = tmp_path / "m.model"
    save_models(path, {5: _record(make_ranker(ranker, **_fast(ranker)).fit(X, y, qid))})
    doc = json.loads(path.read_text())
    [entry] = [item for item in doc["models"]["5"]["model"]["params"]["items"] if item[0] == param]
    entry[1] = value
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        estimator_from_state(doc["models"]["5"]["model"])
    with pytest.raises(DataError) as info:
        load_models(path)
    assert str(info.value) == f"{path}: damaged model file (model 5: {message}); {RETRAIN}"
    _write_letor(tmp_path / "d.txt", X, y, qid)
    assert main(["predict", str(path), str(tmp_path / "d.txt")]) == 2
    assert capsys.readouterr().err == f"ltrfs: error: {info.value}\n"


@pytest.mark.parametrize("content,message", [
    (b'{"format": "ltrfs-model", "version": 2, "models": ', "damaged model file (not JSON"),
    (b'{"format": "something else"}', 'not an ltrfs model file (no "format": "ltrfs-model")'),
    (b"\x80\x04K\x01.", "not an ltrfs model file (neither JSON nor a signed pickle)"),
])
def test_truncated_or_foreign_files(tmp_path, content, message):
    (tmp_path / "m.model").write_bytes(content)
    with pytest.raises(DataError) as info:
        load_models(tmp_path / "m.model")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_state_of_a_class_without_code_free_form_is_refused():
    """gbm_importance writes signed pickles only; a hand-made JSON state of it is a one-line error
    (not an unfitted selector that fails later)."""
    from ltrfs.state import estimator_from_state

    state = {"kind": "selector", "name": "gbm_importance", "params": {"type": "dict", "items": []}, "attributes": {}}
    with pytest.raises(ValueError, match=r"^gbm_importance has no code-free form$"):
        estimator_from_state(state)

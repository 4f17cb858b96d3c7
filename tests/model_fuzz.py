"""Random mutations of the project's own model files against ``ltrfs.formats.load_models``.

``cases`` trains four small models (LambdaMART with XGBoost and with LightGBM, a random forest,
RankSVM's linear weights), writes their code-free files and mutates them: a JSON value (in the
file, or in the XGBoost JSON the file holds) replaced by an odd one (-1, the model's width, 2**31,
1e999, NaN, a string, a list), deleted, duplicated or swapped with a neighbour; a token or a line
of the LightGBM text replaced, deleted, repeated or cut, its tree sizes then mended half of the
time (as a careful forger would). ``run`` loads each case and, for every case the loader accepts,
scores it and compares with ``oracle``: a plain-Python walk of the model as the mutated file
states it, which refuses any index out of range, any cycle and any number that is not finite.
So a loader that accepted a malformed file, or a library that read out of bounds, shows as a
failure; a crash or a hang of the child process fails the test that runs it.

Run as a script (``python tests/model_fuzz.py N SEED``): N cases per kind; it prints the case id
to standard error before each load (the last line names a case that crashed) and a JSON summary.
tests/test_hostile_models.py runs it.
"""
from __future__ import annotations

import copy
import json
import random
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from ltrfs.examples import example_queries
from ltrfs.formats import load_models, save_models
from ltrfs.rankers import make_ranker
from ltrfs.ranking_data import DataError

KINDS = {"xgboost": ("lambdamart", {"n_estimators": 4, "early_stopping_rounds": None, "max_leaves": 4}),
         "lightgbm": ("lambdamart", {"n_estimators": 4, "early_stopping_rounds": None, "max_leaves": 4,
                                     "backend": "lightgbm"}),
         "forest": ("random_forest", {"n_estimators": 3, "max_leaf_nodes": 5}),
         "linear": ("ranksvm", {"C": 1.0})}
D = 5
ODD = [0, -1, 1, 2, 3, D - 1, D, D + 1, 2 ** 31 - 1, -2 ** 31, 10 ** 9, 1.5, -0.0, 1e308, "x", "", None, True,
       [], {}, "NaN-literal", "Inf-literal"]


class Malformed(Exception):
    """The oracle finds the model ill-formed (an index out of range, a cycle, a number not finite)."""


def _models() -> dict:
    X, y, qid = example_queries(seed=0)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, (name, params) in KINDS.items():
            path = Path(tmp) / "m.model"
            ranker = make_ranker(name, **params).fit(X, y, qid)
            save_models(path, {5: {"ranker": name, "n_features": D, "features": np.arange(D), "projection": None,
                                   "params": {}, "estimator": ranker}})
            out[kind] = json.loads(path.read_text())
    return out


def _paths(value, path=()):
    """The paths to every value below ``value``, containers and scalars alike."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))


def _mutate_json(doc, rng: random.Random):
    """One mutation of a parsed JSON document (a copy)."""
    doc = copy.deepcopy(doc)
    paths = [p for p in _paths(doc) if p]
    path = rng.choice(paths)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    how = rng.random()
    if how < 0.7:
        parent[key] = rng.choice(ODD)
    elif how < 0.8 and isinstance(parent, list):
        parent.insert(key, parent[key])
    elif how < 0.9 and isinstance(parent, list) and len(parent) > 1:
        other = rng.randrange(len(parent))
        parent[key], parent[other] = parent[other], parent[key]
    else:
        del parent[key]
    return doc


def _dump(doc) -> str:
    text = json.dumps(doc)
    return text.replace('"NaN-literal"', "NaN").replace('"Inf-literal"', "1e999")


def _mutate_lgb(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    end = lines.index("end of trees")
    i = rng.randrange(1, end + 1)
    how = rng.random()
    if how < 0.6 and "=" in lines[i]:
        key, _, value = lines[i].partition("=")
        tokens = value.split(" ")
        j = rng.randrange(len(tokens))
        tokens[j] = str(rng.choice([0, -1, 1, -2, -7, D - 1, D, 10 ** 8, "1e999", "nan", "x", "", "1.5", "-0"]))
        lines[i] = key + "=" + " ".join(tokens)
    elif how < 0.7:
        del lines[i]
    elif how < 0.8:
        lines.insert(i, lines[i])
    elif how < 0.9:
        return text[:rng.randrange(len(text))]
    else:
        lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
    text = "\n".join(lines)
    if rng.random() < 0.5 and "\nend of trees" in text:  # the careful forger mends the tree sizes
        end = text.index("\nend of trees")
        starts = [m.start() + 1 for m in re.finditer(r"\nTree=", text[:end + 1])] + [end + 1]
        sizes = " ".join(str(b - a) for a, b in zip(starts, starts[1:]))
        text = re.sub(r"tree_sizes=[^\n]*", f"tree_sizes={sizes}", text, count=1)
    return text


def cases(n: int, seed: int):
    """(case id, kind, file text): n mutated files per kind."""
    rng = random.Random(seed)
    models = _models()
    for kind, doc in models.items():
        for c in range(n):
            mutated = copy.deepcopy(doc)
            attrs = mutated["models"]["5"]["model"]["attributes"]
            for _ in range(rng.choice([1, 1, 2])):
                target = rng.random()
                if kind == "xgboost" and target < 0.8 and isinstance(attrs.get("booster_"), dict) \
                        and isinstance(attrs["booster_"].get("model"), str):
                    try:
                        inner = json.loads(attrs["booster_"]["model"])
                    except ValueError:
                        continue
                    attrs["booster_"]["model"] = _dump(_mutate_json(inner, rng))
                elif kind == "lightgbm" and target < 0.8 and isinstance(attrs.get("booster_"), dict) \
                        and isinstance(attrs["booster_"].get("model"), str) \
                        and "end of trees" in attrs["booster_"]["model"]:
                    attrs["booster_"]["model"] = _mutate_lgb(attrs["booster_"]["model"], rng)
                else:
                    mutated = _mutate_json(mutated, rng)  # odd literals stay sentinels until _dump
                    attrs = mutated["models"]["5"]["model"]["attributes"] if _has_attrs(mutated) else {}
            yield f"{kind}-{c}", kind, _dump(mutated)


def _has_attrs(doc) -> bool:
    try:
        return isinstance(doc["models"]["5"]["model"]["attributes"], dict)
    except (KeyError, TypeError):
        return False


# ----------------------------------------------------------------------------- the oracle

def _finite(values) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise Malformed("a number that is not finite")
    return arr


def _index(i, n: int) -> int:
    if type(i) is not int or not 0 <= i < n:
        raise Malformed(f"index {i!r} outside 0..{n - 1}")
    return i


def _walk(n_nodes: int, row, step) -> float:
    """Follow ``step(node, row) -> next node or ('leaf', value)`` from the root, at most n_nodes steps."""
    node = 0
    for _ in range(n_nodes + 1):
        node = step(node, row)
        if isinstance(node, tuple):
            return node[1]
    raise Malformed("a cycle")


def _oracle_xgboost(model: str, X: np.ndarray) -> np.ndarray:
    doc = json.loads(model)
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    base = float(doc["learner"]["learner_model_param"]["base_score"].strip("[]"))
    out = np.full(len(X), base)
    for tree in trees:
        left, right = tree["left_children"], tree["right_children"]
        feature, cond = tree["split_indices"], _finite(tree["split_conditions"])
        n = len(left)

        def step(node, row, left=left, right=right, feature=feature, cond=cond, n=n):
            node = _index(node, n)
            if left[node] == -1:
                return ("leaf", cond[node])
            f = _index(feature[node], D)
            return left[node] if np.float32(row[f]) < np.float32(cond[node]) else right[node]
        out += [_walk(n, row, step) for row in X]
    return out


def _oracle_lightgbm(model: str, X: np.ndarray, n_trees: int) -> np.ndarray:
    out = np.zeros(len(X))
    blocks = model[:model.index("end of trees")].split("\nTree=")[1:]
    for block in blocks[:n_trees]:
        fields = dict(line.split("=", 1) for line in block.strip("\n").split("\n")[1:] if "=" in line)
        n_leaves = int(fields["num_leaves"])
        leaf = _finite([float(t) for t in fields["leaf_value"].split(" ")])
        if n_leaves == 1:
            out += leaf[0]
            continue
        feature = [int(t) for t in fields["split_feature"].split(" ")]
        threshold = _finite([float(t) for t in fields["threshold"].split(" ")])
        left = [int(t) for t in fields["left_child"].split(" ")]
        right = [int(t) for t in fields["right_child"].split(" ")]

        def step(node, row, feature=feature, threshold=threshold, left=left, right=right, leaf=leaf):
            node = _index(node, n_leaves - 1)
            f = _index(feature[node], D)
            nxt = left[node] if row[f] <= threshold[node] else right[node]
            return ("leaf", leaf[_index(~nxt, n_leaves)]) if nxt < 0 else nxt
        out += [_walk(n_leaves, row, step) for row in X]
    return out


def _oracle_forest(state: dict, X: np.ndarray) -> np.ndarray:
    from ltrfs.state import decode

    out = np.zeros(len(X))
    for tree in state["trees"]:
        t = {key: decode(tree[key]) for key in ("left", "right", "feature", "threshold", "value")}
        n = len(t["left"])

        def step(node, row, t=t, n=n):
            node = _index(int(node), n)
            if t["left"][node] == -1:
                return ("leaf", _finite(t["value"][node])[0])
            f = _index(int(t["feature"][node]), D)
            return t["left"][node] if np.float32(row[f]) <= t["threshold"][node] else t["right"][node]
        out += [_walk(n, row, step) for row in X]
    return out / len(state["trees"])


def oracle(kind: str, doc: dict, X: np.ndarray) -> np.ndarray:
    """Scores of the mutated file's model by a plain walk; Malformed for an ill-formed model."""
    attrs = doc["models"]["5"]["model"]["attributes"]
    if kind == "xgboost":
        return _oracle_xgboost(attrs["booster_"]["model"], X)
    if kind == "lightgbm":
        return _oracle_lightgbm(attrs["booster_"]["model"], X, attrs["best_iteration_"] + 1)
    if kind == "forest":
        return _oracle_forest(attrs["model_"], X)
    coef = _finite(attrs["coef_"]["data"])
    return X.astype(np.float64) @ coef + float(attrs.get("intercept_", 0.0) or 0.0)


def run(n: int, seed: int) -> dict:
    """Load, score and check every case; the summary (counts, and the failures)."""
    X = example_queries(seed=2)[0].astype(np.float32)
    summary = {"cases": 0, "refused": 0, "accepted": 0, "accepted_by_kind": dict.fromkeys(KINDS, 0), "failures": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.model"
        for case, kind, text in cases(n, seed):
            print(case, file=sys.stderr, flush=True)
            path.write_text(text)
            summary["cases"] += 1
            try:
                model = load_models(path)[5]
            except DataError as exc:
                if str(path) not in str(exc) or "\n" in str(exc):
                    summary["failures"].append({"case": case, "problem": f"error without the file: {exc}"})
                else:
                    summary["refused"] += 1
                continue
            except Exception as exc:  # noqa: BLE001 - any other exception is a failure to report
                summary["failures"].append({"case": case, "problem": f"{type(exc).__name__}: {exc}"[:300]})
                continue
            try:
                scores = model["estimator"].predict(X)
                expected = oracle(kind, json.loads(text), X)
            except Exception as exc:  # noqa: BLE001 - Malformed or a failure of the accepted model
                summary["failures"].append({"case": case, "problem": f"accepted, then {type(exc).__name__}: {exc}"[:300]})
                continue
            if not np.allclose(scores, expected, rtol=1e-5, atol=1e-6):
                summary["failures"].append({"case": case, "problem": "accepted, scores differ from the oracle's"})
                continue
            summary["accepted"] += 1
            summary["accepted_by_kind"][kind] += 1
    return summary


if __name__ == "__main__":
    print(json.dumps(run(int(sys.argv[1]), int(sys.argv[2]))))

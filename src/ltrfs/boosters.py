"""Boosters from files, checked as data before XGBoost or LightGBM sees a byte of them.

XGBoost's and LightGBM's model loaders trust their input: a child index out of range, a cycle
among a tree's nodes or a split on a feature past the model's width makes them read out of
bounds, loop for ever or abort. So a booster read from a model file (``ltrfs.state``) is parsed
here, every part the predictions read is checked, and the library is handed a text this module
wrote from the checked parts only:

* every tree is a tree: each node but the root is the child of exactly one node, every node is
  reached from the root (no cycle), an inner node has two children, a leaf none;
* every split is on a feature in ``0..n_features - 1``, numerical (no categorical splits: the
  project trains none), with a known missing-value rule;
* every number the predictions read (thresholds, leaf values, the base score) is finite, every
  count and index an integer of the stated range, every array as long as its tree has nodes;
* one output per row (one class, one target), a plain ``gbtree`` / ``gbdt`` ensemble.

The text handed on keeps every number as the file wrote it, so the scores are bitwise those of
the booster that was saved. ``check_tree`` is the shared tree test, also used for the random
forests of ``ltrfs.state.TreeEnsemble``.
"""
from __future__ import annotations

import json
import re

import numpy as np

from ltrfs.json_numbers import refuse_json_constant

__all__ = ["check_tree", "check_booster", "xgboost_model", "lightgbm_model", "MAX_NODES"]

#: the most nodes a tree of a model file may have (a bound on memory and time before any check)
MAX_NODES = 1 << 24
#: the most features a booster may split on
MAX_FEATURES = 1 << 24
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_tree(left, right, what: str) -> None:
    """A one-line ValueError unless the child arrays make one binary tree rooted at node 0.

    Parameters
    ----------
    left, right : array-like of int, shape (n,)
        Child node ids; -1 in both at a leaf.
    what : str
        Names the tree in the error ("tree 3").

    Raises
    ------
    ValueError
        A child id out of ``1..n - 1``, an inner node with one child, a node that is the child of
        none or of several, or nodes not reached from the root (a cycle).
    """
    left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    n = len(left)
    if n == 0 or len(right) != n:
        raise ValueError(f"{what}: no nodes" if n == 0 else f"{what}: {n} left and {len(right)} right children")
    inner = left != -1
    if not np.array_equal(inner, right != -1):
        raise ValueError(f"{what}: a node with one child")
    children = np.concatenate([left[inner], right[inner]])
    if children.size and (children.min() < 1 or children.max() >= n):
        raise ValueError(f"{what}: a child id outside 1..{n - 1}")
    if children.size != n - 1 or np.bincount(children, minlength=n)[1:].min(initial=1) != 1:
        raise ValueError(f"{what}: a node that is the child of no node or of several")
    reached, frontier = 1, np.zeros(1, dtype=np.int64)
    while frontier.size:  # each node has one parent, so no node is met twice from the root
        frontier = frontier[inner[frontier]]
        frontier = np.concatenate([left[frontier], right[frontier]])
        reached += frontier.size
    if reached != n:
        raise ValueError(f"{what}: {n - reached} nodes not reached from the root (a cycle)")


def _int(value, what: str, low: int = 0, high: int | None = None) -> int:
    """``value`` (an int, or a decimal string of one, as XGBoost writes its parameters) in range."""
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,19}", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        raise ValueError(f"{what} is {str(value)[:40]!r}, not an integer in {low}..{'' if high is None else high}")
    return value


def _ints(values, n: int, what: str, low: int, high: int) -> np.ndarray:
    """A JSON list of ``n`` integers in ``low..high``, as int64."""
    if not isinstance(values, list) or len(values) != n:
        raise ValueError(f"{what}: not a list of {n} integers")
    if not all(type(v) is int for v in values):
        raise ValueError(f"{what}: not a list of integers")
    if n and (min(values) < low or max(values) > high):  # before numpy: a huge int overflows int64
        raise ValueError(f"{what}: a value outside {low}..{high}")
    return np.asarray(values, dtype=np.int64)


def _floats(values, n: int, what: str) -> None:
    """XGBoost's numbers: finite in float32, the type XGBoost reads them into."""
    if not isinstance(values, list) or len(values) != n:
        raise ValueError(f"{what}: not a list of {n} numbers")
    if not all(type(v) in (int, float) for v in values):
        raise ValueError(f"{what}: not a list of numbers")
    if n and not (np.abs(np.asarray(values, dtype=np.float64)) <= _FLOAT32_MAX).all():
        raise ValueError(f"{what}: a number that is not finite in float32")


def _dict(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    return value


# ----------------------------------------------------------------------------- XGBoost

_XGB_TREE_ARRAYS = ("base_weights", "default_left", "left_children", "loss_changes", "parents",
                    "right_children", "split_conditions", "split_indices", "split_type", "sum_hessian")
_XGB_ROOT_PARENT = 2147483647


def _xgb_tree(tree, i: int, n_features: int) -> None:
    what = f"tree {i}"
    tree = _dict(tree, what)
    param = _dict(tree.get("tree_param"), f"{what}: tree_param")
    n = _int(param.get("num_nodes"), f"{what}: num_nodes", 1, MAX_NODES)
    if _int(param.get("num_feature"), f"{what}: num_feature", 1, MAX_FEATURES) != n_features:
        raise ValueError(f"{what}: num_feature {param.get('num_feature')} differs from the model's {n_features}")
    if _int(param.get("num_deleted", 0), f"{what}: num_deleted") != 0:
        raise ValueError(f"{what}: deleted nodes")
    if _int(param.get("size_leaf_vector", 1), f"{what}: size_leaf_vector") > 1:
        raise ValueError(f"{what}: leaves of several outputs")
    if _int(tree.get("id"), f"{what}: id") != i:
        raise ValueError(f"{what}: id {tree.get('id')}")
    missing = [key for key in _XGB_TREE_ARRAYS if key not in tree]
    if missing:
        raise ValueError(f"{what}: no {', '.join(missing)}")
    left = _ints(tree["left_children"], n, f"{what}: left_children", -1, n - 1)
    right = _ints(tree["right_children"], n, f"{what}: right_children", -1, n - 1)
    check_tree(left, right, what)
    parents = _ints(tree["parents"], n, f"{what}: parents", 0, _XGB_ROOT_PARENT)
    inner = np.flatnonzero(left >= 0)
    expected = np.full(n, _XGB_ROOT_PARENT, dtype=np.int64)
    expected[left[inner]] = inner
    expected[right[inner]] = inner
    if not np.array_equal(parents, expected):
        raise ValueError(f"{what}: parents do not match the children")
    _ints(tree["split_indices"], n, f"{what}: split_indices", 0, n_features - 1)
    _ints(tree["default_left"], n, f"{what}: default_left", 0, 1)
    _ints(tree["split_type"], n, f"{what}: split_type", 0, 0)
    for key in ("base_weights", "loss_changes", "split_conditions", "sum_hessian"):
        _floats(tree[key], n, f"{what}: {key}")
    for key in ("categories", "categories_nodes", "categories_segments", "categories_sizes"):
        if tree.get(key, []) != []:
            raise ValueError(f"{what}: categorical splits ({key})")


def xgboost_model(text) -> bytearray:
    """XGBoost's JSON model (``Booster.save_raw("json")``), checked (module docstring).

    Parameters
    ----------
    text : str
        The model as a file held it.

    Returns
    -------
    bytearray
        The JSON to hand ``xgboost.Booster(model_file=...)``, written from the parsed, checked
        model (numbers as read; predictions bitwise those of the saved booster). Its width is
        checked against the ranker's by ``check_booster``.

    Raises
    ------
    ValueError
        One line: what part of the model is damaged.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the XGBoost model is empty" if isinstance(text, str) else "the XGBoost model is not a text")
    try:
        doc = json.loads(text, parse_constant=refuse_json_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the XGBoost model is not JSON ({exc.msg}, character {exc.pos})") from None
    except RecursionError:
        raise ValueError("the XGBoost model nests too deeply") from None
    doc = _dict(doc, "the XGBoost model")
    version = doc.get("version")
    if not (isinstance(version, list) and len(version) == 3 and all(type(v) is int and 0 <= v < 1000 for v in version)
            and version[0] >= 1):
        raise ValueError(f"XGBoost model version {str(version)[:40]}")
    learner = _dict(doc.get("learner"), "learner")
    param = _dict(learner.get("learner_model_param"), "learner_model_param")
    n_features = _int(param.get("num_feature"), "num_feature", 1, MAX_FEATURES)
    if _int(param.get("num_class", 0), "num_class") > 1 or _int(param.get("num_target", 1), "num_target", 1) != 1:
        raise ValueError("a model of several outputs (num_class or num_target above 1)")
    base = param.get("base_score")  # "5E-1", or "[5E-1]" since XGBoost 3
    number = base[1:-1] if isinstance(base, str) and base[:1] == "[" and base[-1:] == "]" else base
    if not isinstance(number, str) or not _NUMBER.fullmatch(number) or not abs(float(number)) <= _FLOAT32_MAX:
        raise ValueError(f"base_score {str(base)[:40]!r} is not a finite number")
    for key in ("feature_names", "feature_types"):
        names = learner.get(key, [])
        if not isinstance(names, list) or len(names) not in (0, n_features) \
                or not all(isinstance(name, str) for name in names):
            raise ValueError(f"{key}: not a list of {n_features} strings")
    attributes = _dict(learner.get("attributes", {}), "attributes")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in attributes.items()):
        raise ValueError("attributes: not a mapping of strings")
    booster = _dict(learner.get("gradient_booster"), "gradient_booster")
    if booster.get("name") != "gbtree":
        raise ValueError(f"gradient booster {str(booster.get('name'))[:40]!r}; ltrfs reads 'gbtree' models")
    model = _dict(booster.get("model"), "gradient_booster model")
    trees = model.get("trees")
    if not isinstance(trees, list) or not trees:
        raise ValueError("the XGBoost model has no trees")
    n_trees = len(trees)
    gparam = _dict(model.get("gbtree_model_param"), "gbtree_model_param")
    if _int(gparam.get("num_trees"), "num_trees") != n_trees:
        raise ValueError(f"num_trees {gparam.get('num_trees')} for {n_trees} trees")
    if _int(gparam.get("num_parallel_tree", 1), "num_parallel_tree", 1) != 1:
        raise ValueError("num_parallel_tree above 1")
    _ints(model.get("tree_info"), n_trees, "tree_info", 0, 0)
    if model.get("iteration_indptr", list(range(n_trees + 1))) != list(range(n_trees + 1)):
        raise ValueError("iteration_indptr does not give one tree per round")
    cats = model.get("cats", {})
    if not isinstance(cats, dict) or any(v != [] for v in cats.values()):
        raise ValueError("categorical features (cats)")
    for i, tree in enumerate(trees):
        _xgb_tree(tree, i, n_features)
    return bytearray(json.dumps(doc, allow_nan=False).encode("utf-8"))


# ----------------------------------------------------------------------------- LightGBM

_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_NAME = re.compile(r"[^\s=\[\]:]{1,200}")
_INFO = re.compile(r"none|\[[^\s:\[\]]{1,40}:[^\s:\[\]]{1,40}\]")
_OBJECTIVE = re.compile(r"[a-z_]{1,40}(?: [a-z_]{1,40}:[-+.0-9eE]{1,40})*")
#: the tree keys the predictions read, in the order LightGBM writes them
_LGB_TREE_KEYS = ("num_leaves", "num_cat", "split_feature", "threshold", "decision_type", "left_child",
                  "right_child", "leaf_value", "is_linear", "shrinkage")
#: the tree keys LightGBM writes that the predictions do not read (left out of the checked text)
_LGB_UNREAD = ("split_gain", "leaf_weight", "leaf_count", "internal_value", "internal_weight", "internal_count")
#: the decision types of a numerical split: default-left bit (2) and missing rule none/zero/NaN (0, 4, 8)
_DECISION_TYPES = {0, 2, 4, 6, 8, 10}


def _numbers(tokens: list[str], what: str) -> np.ndarray:
    if not all(_NUMBER.fullmatch(t) for t in tokens):
        raise ValueError(f"{what}: not a list of numbers")
    values = np.asarray([float(t) for t in tokens], dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"{what}: a number that is not finite")
    return values


def _lgb_ints(tokens: list[str], what: str, low: int, high: int) -> np.ndarray:
    if not all(re.fullmatch(r"-?[0-9]{1,10}", t) for t in tokens):
        raise ValueError(f"{what}: not a list of integers")
    values = np.asarray([int(t) for t in tokens], dtype=np.int64)
    if values.size and (values.min() < low or values.max() > high):
        raise ValueError(f"{what}: a value outside {low}..{high}")
    return values


def _lgb_tree(lines: list[str], i: int, n_features: int) -> str:
    """The checked block of tree ``i`` (its lines after ``Tree=i``), as LightGBM writes one."""
    what = f"tree {i}"
    fields = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if not sep or key in fields:
            raise ValueError(f"{what}: line {line[:40]!r}")
        fields[key] = value
    unknown = [key for key in fields if key not in _LGB_TREE_KEYS and key not in _LGB_UNREAD]
    if unknown:
        raise ValueError(f"{what}: unknown line {unknown[0][:40]!r}")
    missing = [key for key in _LGB_TREE_KEYS if key not in fields]
    if missing:
        raise ValueError(f"{what}: no {', '.join(missing)}")
    n_leaves = _int(fields["num_leaves"], f"{what}: num_leaves", 1, MAX_NODES)
    if _int(fields["num_cat"], f"{what}: num_cat") != 0:
        raise ValueError(f"{what}: categorical splits")
    if _int(fields["is_linear"], f"{what}: is_linear") != 0:
        raise ValueError(f"{what}: linear leaves")
    _numbers([fields["shrinkage"]], f"{what}: shrinkage")
    tokens = {key: fields[key].split(" ") if fields[key] else [] for key in _LGB_TREE_KEYS[2:8]}
    for key, count in (("split_feature", n_leaves - 1), ("threshold", n_leaves - 1), ("decision_type", n_leaves - 1),
                       ("left_child", n_leaves - 1), ("right_child", n_leaves - 1), ("leaf_value", n_leaves)):
        if len(tokens[key]) != count:
            raise ValueError(f"{what}: {len(tokens[key])} values of {key} for {n_leaves} leaves")
    _lgb_ints(tokens["split_feature"], f"{what}: split_feature", 0, n_features - 1)
    if not set(_lgb_ints(tokens["decision_type"], f"{what}: decision_type", 0, 255).tolist()) <= _DECISION_TYPES:
        raise ValueError(f"{what}: a decision type other than a numerical split")
    _numbers(tokens["threshold"], f"{what}: threshold")
    _numbers(tokens["leaf_value"], f"{what}: leaf_value")
    if n_leaves > 1:  # inner nodes 0..L-2 (child >= 0), leaf j as child ~j: nodes L-1+j of one tree
        inner = n_leaves - 1
        kids = [_lgb_ints(tokens[key], f"{what}: {key}", -n_leaves, inner - 1) for key in ("left_child", "right_child")]
        left, right = (np.where(k >= 0, k, inner + ~k) for k in kids)
        pad = np.full(n_leaves, -1, dtype=np.int64)
        check_tree(np.concatenate([left, pad]), np.concatenate([right, pad]), what)
    return f"Tree={i}\n" + "".join(f"{key}={fields[key]}\n" for key in _LGB_TREE_KEYS) + "\n\n"


def lightgbm_model(text) -> str:
    """LightGBM's model text (``Booster.model_to_string``), checked (module docstring).

    Parameters
    ----------
    text : str
        The model as a file held it.

    Returns
    -------
    str
        The text to hand ``lightgbm.Booster(model_str=...)``: the header keys and the tree lines
        the predictions read, as the file wrote them, and tree sizes counted here (predictions
        bitwise those of the saved booster). Its width is checked against the ranker's by
        ``check_booster``.

    Raises
    ------
    ValueError
        One line: what part of the model is damaged.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the LightGBM model is empty" if isinstance(text, str) else "the LightGBM model is not a text")
    end = text.find("\nend of trees")
    if end < 0:
        raise ValueError("the LightGBM model has no 'end of trees' line (cut short?)")
    blocks = re.split(r"\n\s*\nTree=", text[:end])
    head = [line for line in blocks[0].split("\n") if line]
    if not head or head[0] != "tree":
        raise ValueError("not a LightGBM model (no 'tree' line first)")
    header = {}
    for line in head[1:]:
        key, sep, value = line.partition("=")
        if not sep or key in header:
            raise ValueError(f"header line {line[:40]!r}")
        header[key] = value
    for key, want in (("version", "v4"), ("num_class", "1"), ("num_tree_per_iteration", "1"), ("label_index", "0")):
        if header.get(key) != want:
            raise ValueError(f"{key}={str(header.get(key))[:40]}; ltrfs reads {key}={want}")
    n_features = _int(header.get("max_feature_idx"), "max_feature_idx", 0, MAX_FEATURES - 1) + 1
    if not _OBJECTIVE.fullmatch(header.get("objective", "")):
        raise ValueError(f"objective {header.get('objective', '')[:40]!r}")
    names, infos = header.get("feature_names", "").split(" "), header.get("feature_infos", "").split(" ")
    if len(names) != n_features or not all(_NAME.fullmatch(s) for s in names):
        raise ValueError(f"feature_names: not {n_features} names")
    if len(infos) != n_features or not all(_INFO.fullmatch(s) for s in infos):
        raise ValueError(f"feature_infos: not {n_features} ranges")
    if len(blocks) < 2:
        raise ValueError("the LightGBM model has no trees")
    starts = [m.start() + 1 for m in re.finditer(r"\nTree=", text[:end + 1])] + [end + 1]
    written = header.get("tree_sizes")
    if written is not None and written.split(" ") != [str(len(text[a:b].encode("utf-8")))
                                                      for a, b in zip(starts, starts[1:])]:
        raise ValueError("tree_sizes do not match the trees (a tree edited by hand?)")
    trees = []
    for i, block in enumerate(blocks[1:]):
        lines = block.strip("\n").split("\n")
        if lines[0] != str(i):
            raise ValueError(f"tree {i} is numbered {lines[0][:20]!r}")
        trees.append(_lgb_tree(lines[1:], i, n_features))
    sizes = " ".join(str(len(tree.encode("utf-8"))) for tree in trees)
    out = ["tree"] + [f"{key}={header[key]}" for key in ("version", "num_class", "num_tree_per_iteration",
                                                        "label_index", "max_feature_idx", "objective",
                                                        "feature_names", "feature_infos")]
    return "\n".join(out) + f"\ntree_sizes={sizes}\n\n" + "".join(trees) + "end of trees\n"


def check_booster(booster, library: str, n_features, what: str) -> int:
    """A one-line ValueError unless ``booster`` is a booster of ``library`` for ``n_features``.

    Parameters
    ----------
    booster : object
        A ranker's ``booster_`` as read back from a file.
    library : {"xgboost", "lightgbm"}
    n_features : int
        The ranker's ``n_features_in_``.
    what : str
        Names the ranker in the error.

    Returns
    -------
    int
        The booster's number of trees (rounds).
    """
    kind = type(booster)
    if kind.__name__ != "Booster" or not kind.__module__.startswith(library):
        raise ValueError(f"{what}: booster_ is not a {library} booster")
    if type(n_features) is not int or n_features < 1:
        raise ValueError(f"{what}: n_features_in_ {str(n_features)[:40]} is not a positive integer")
    if library == "xgboost":
        width, n_trees = booster.num_features(), booster.num_boosted_rounds()
    else:
        width, n_trees = booster.num_feature(), booster.num_trees()
    if width != n_features:
        raise ValueError(f"{what}: the booster splits {width} features, the model takes {n_features}")
    return n_trees

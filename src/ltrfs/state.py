"""Fitted models as plain data: JSON that anyone can read without running its author's code.

A fitted ranker or selector is written as its name, its constructor parameters and the fitted
attributes its ``predict`` (a selector: ``predict_scores``) reads, declared once per family in
the class attribute ``state_attributes`` (``ltrfs.estimator.Estimator``). Reading builds a fresh
instance of the registered class of that name and sets the attributes back, so the same code
scores before and after: the scores are bitwise equal. Nothing in such a file names code to
import; the classes come from ``ltrfs.rankers.RANKERS`` and ``ltrfs.selection.SELECTORS`` only.

Values (``encode`` / ``decode``):

* JSON numbers, strings, booleans and null as they are (Python writes a float64 as the
  shortest decimal that reads back to the same bits);
* numpy arrays of numbers as ``{"type": "ndarray", "dtype", "shape", "data"}``: ``data`` a
  flat list, or, from ``BASE64_FROM`` elements on (tree arrays), the little-endian bytes in
  base64 (``"base64"``); a float32 array stays float32, a numpy scalar stays a numpy scalar;
* lists, tuples and dicts (``{"type": "dict", "items": [[key, value], ...]}``);
* a nested ranker (``{"type": "estimator", ...}``);
* an XGBoost booster as XGBoost's own JSON model (``Booster.save_raw("json")``), a LightGBM
  booster as LightGBM's model text (``model_to_string``), each kept as a string;
* a scikit-learn random forest as its trees' arrays (``TreeEnsemble``, which predicts as
  scikit-learn does, to the bit).

Anything else (a scikit-learn gradient boosting model, for one) has no code-free form:
``NoCodeFreeForm``, and ``ltrfs.formats`` writes a signed pickle instead.
"""
from __future__ import annotations

import base64

import numpy as np

from ltrfs import boosters

__all__ = ["NoCodeFreeForm", "BASE64_FROM", "encode", "decode", "estimator_state", "estimator_from_state",
           "TreeEnsemble"]

#: arrays of at least this many elements are written as base64 bytes rather than a list
BASE64_FROM = 4096
#: the most elements an array of a model file may declare (a bound on memory before reading it)
MAX_ELEMENTS = 1 << 31
#: the dtypes an array may have
_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64"}


class NoCodeFreeForm(TypeError):
    """An object that can only be stored as a pickle (``ltrfs.signed``)."""


# ----------------------------------------------------------------------------- values

def _encode_array(value: np.ndarray, scalar: bool = False) -> dict:
    if value.dtype.kind not in "biuf":
        raise NoCodeFreeForm(f"an array of dtype {value.dtype} has no code-free form")
    out = {"type": "ndarray", "dtype": value.dtype.name, "shape": list(value.shape)}
    if scalar:
        out["scalar"] = True
    if value.size >= BASE64_FROM:
        raw = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes()
        out["base64"] = base64.b64encode(raw).decode("ascii")
    else:
        out["data"] = value.ravel().tolist()
    return out


def _decode_array(value: dict) -> np.ndarray:
    if value.get("dtype") not in _DTYPES:
        raise ValueError(f"array dtype {str(value.get('dtype'))[:40]!r} is not a number type")
    dtype = np.dtype(value["dtype"])
    shape = value.get("shape")
    if (not isinstance(shape, list) or len(shape) > 32
            or not all(type(n) is int and 0 <= n <= MAX_ELEMENTS for n in shape)
            or int(np.prod(shape, dtype=object)) > MAX_ELEMENTS):
        raise ValueError(f"array shape {str(shape)[:40]} is not a list of sizes (at most {MAX_ELEMENTS} elements)")
    if "base64" in value:
        if not isinstance(value["base64"], str):
            raise ValueError("array bytes are not base64 text")
        arr = np.frombuffer(base64.b64decode(value["base64"], validate=True), dtype=dtype.newbyteorder("<"))
        arr = arr.astype(dtype)
    else:
        data = value["data"]
        if not isinstance(data, list) or not all(type(v) in (int, float, bool) for v in data):
            raise ValueError("array data is not a flat list of numbers")
        arr = np.asarray(data, dtype=dtype)
    if arr.ndim != 1 or arr.size != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"array of shape {list(shape)} holds {arr.size} values")
    if dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("an array holds a number that is not finite")
    arr = arr.reshape(shape)
    return arr[()] if value.get("scalar") else arr


def encode(value):
    """The JSON-able form of a fitted attribute (module docstring).

    Parameters
    ----------
    value : object
        A number, string, None, numpy array or scalar, list, tuple, dict, ranker, XGBoost or
        LightGBM booster, scikit-learn random forest or ``TreeEnsemble``.

    Returns
    -------
    object
        Made of JSON types only.

    Raises
    ------
    NoCodeFreeForm
        For a value (or a part of it) of any other type.
    """
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, np.generic):
        return _encode_array(np.asarray(value), scalar=True)
    if isinstance(value, (list, tuple)):
        return {"type": type(value).__name__, "items": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"type": "dict", "items": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, TreeEnsemble):
        return {"type": "estimator", **value.to_state()}
    if hasattr(value, "state_attributes"):  # a ranker or selector inside another (FSM-SVM's SVM)
        return {"type": "estimator", **estimator_state(value)}
    module, name = type(value).__module__, type(value).__name__
    if module.startswith("xgboost") and name == "Booster":
        return {"type": "xgboost", "model": bytes(value.save_raw("json")).decode("utf-8")}
    if module.startswith("lightgbm") and name == "Booster":
        return {"type": "lightgbm", "model": value.model_to_string(num_iteration=-1)}
    if module.startswith("sklearn.ensemble") and name in ("RandomForestRegressor", "RandomForestClassifier"):
        return {"type": "estimator", **TreeEnsemble.from_sklearn(value).to_state()}
    raise NoCodeFreeForm(f"a {module}.{name} has no code-free form")


def decode(value):
    """The value ``encode`` wrote.

    Parameters
    ----------
    value : object
        Parsed JSON.

    Returns
    -------
    object

    Raises
    ------
    ValueError
        For a value no ``encode`` writes (a damaged or hand-edited file).
    """
    if not isinstance(value, dict):
        if isinstance(value, list):
            raise ValueError("a bare JSON list where a tagged value was expected")
        return value
    kind = value.get("type")
    if kind == "ndarray":
        return _decode_array(value)
    if kind in ("list", "tuple"):
        items = [decode(v) for v in value["items"]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {_hashable(decode(k)): decode(v) for k, v in value["items"]}
    if kind == "estimator":
        return estimator_from_state(value)
    if kind == "xgboost":
        import xgboost as xgb  # heavy (~1.2 s): only models of XGBoost pay for it

        model = boosters.xgboost_model(value["model"])  # checked before XGBoost reads it
        return _native(lambda: xgb.Booster(model_file=model), "XGBoost")
    if kind == "lightgbm":
        from ltrfs.rankers.lambdamart import import_lightgbm

        model = boosters.lightgbm_model(value["model"])  # checked before LightGBM reads it
        return _native(lambda: import_lightgbm().Booster(model_str=model), "LightGBM")
    raise ValueError(f"unknown value type {str(kind)[:40]!r}")


def _native(load, library: str):
    """A library's loader on a checked model; whatever it still refuses, as one ValueError."""
    try:
        return load()
    except Exception as exc:  # noqa: BLE001 - XGBoostError, LightGBMError: the library's word, one line
        text = str(exc).strip().splitlines()
        raise ValueError(f"{library} refused the booster ({text[-1][:200] if text else type(exc).__name__})") from None


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


# ----------------------------------------------------------------------------- estimators

def _registries() -> dict:
    """Kind -> name -> class: the only classes a state can name."""
    from ltrfs.rankers import RANKERS  # imported on use: the registries import every method
    from ltrfs.selection import SELECTORS

    return {"ranker": RANKERS, "selector": SELECTORS}


def estimator_state(estimator) -> dict:
    """The code-free state of a registered ranker or selector.

    Parameters
    ----------
    estimator : Ranker or Selector
        Fitted.

    Returns
    -------
    dict
        ``{"kind": "ranker"|"selector", "name", "params", "attributes"}``.

    Raises
    ------
    NoCodeFreeForm
        When its class declares no ``state_attributes`` or is not registered, or an attribute
        has no code-free form.
    """
    from ltrfs.selection.base import OwnPredictions  # imported on use: the selectors sit below this module

    if isinstance(estimator, OwnPredictions):  # ranker own: the selector's state, and k
        return {"kind": "own", "k": estimator.k, "selector": estimator_state(estimator.selector)}
    cls = type(estimator)
    names = getattr(cls, "state_attributes", None)
    kind = next((k for k, table in _registries().items() if table.get(getattr(cls, "name", None)) is cls), None)
    if names is None or kind is None:
        raise NoCodeFreeForm(f"{cls.__name__} has no code-free form")
    optional = set(getattr(cls, "optional_state_attributes", ()))
    missing = [a for a in names if a not in optional and not hasattr(estimator, a)]
    if missing:
        raise ValueError(f"{cls.__name__} is not fitted (no {', '.join(missing)})")
    return {"kind": kind, "name": cls.name, "params": encode(estimator.get_params()),
            "attributes": {a: encode(getattr(estimator, a)) for a in names if hasattr(estimator, a)}}


def estimator_from_state(state: dict, expected: type | tuple | None = None):
    """The estimator of ``estimator_state`` (or ``TreeEnsemble.to_state``), scoring bitwise as
    the one written.

    Parameters
    ----------
    state : dict
        As written.
    expected : type, tuple of types or None, default None
        The class (or a base, or one of several) the estimator must be; a ValueError otherwise.

    Returns
    -------
    object
        The fitted ranker, selector, ``OwnPredictions`` or ``TreeEnsemble``.

    Raises
    ------
    ValueError
        One line: an unknown class, a parameter it does not take or a value it refuses
        (``validate_params``), a missing attribute.
    """
    if not isinstance(state, dict):
        raise ValueError("an estimator's state is not a JSON object")
    estimator = _from_state(state)
    if expected is not None and not isinstance(estimator, expected):
        wanted = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
        raise ValueError(f"the state holds a {type(estimator).__name__}, not a {wanted}")
    return estimator


def _own_from_state(state: dict):
    """The ``OwnPredictions`` (ranker own) of ``estimator_state``: the selector, and k checked."""
    from ltrfs.selection.base import OwnPredictions, Selector  # imported on use, as above

    selector = estimator_from_state(state["selector"], Selector)
    k = state["k"]
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(selector.ranking_)):
        raise ValueError(f"own model: k={k!r} is outside 1..{len(selector.ranking_)}")
    if not hasattr(selector, "predict_scores") or (k is not None and not hasattr(selector, "predict_scores_k")):
        raise ValueError(f"own model: method {selector.name!r} has no predictions of its own"
                         + ("" if k is None else " for k features"))
    return OwnPredictions(selector, k)


def _from_state(state: dict):
    """``estimator_from_state`` without the class check."""
    kind = state.get("kind")
    if kind == "own":
        return _own_from_state(state)
    if kind == "forest":
        return TreeEnsemble.from_state(state)
    table = _registries().get(kind)
    if table is None or state.get("name") not in table:
        raise ValueError(f"unknown {kind or 'estimator'} {state.get('name')!r}")
    cls = table[state["name"]]
    if cls.state_attributes is None:  # as estimator_state refuses to write one
        raise ValueError(f"{state['name']} has no code-free form")
    try:
        estimator = cls(**decode(state["params"]))
    except TypeError as exc:
        raise ValueError(f"{state['name']}: bad parameters ({exc})") from None
    estimator.validate_params()  # a value fit would refuse (an unknown activation) fails here, not in predict
    attributes = state["attributes"]
    optional = set(getattr(cls, "optional_state_attributes", ()))
    missing = [a for a in cls.state_attributes or () if a not in optional and a not in attributes]
    unknown = [a for a in attributes if a not in (cls.state_attributes or ())]
    if missing or unknown:
        raise ValueError(f"{state['name']}: " + "; ".join(
            ([f"no attribute {', '.join(missing)}"] if missing else []) + ([f"unknown attribute {', '.join(unknown)}"]
                                                                          if unknown else [])))
    for name, value in attributes.items():
        setattr(estimator, name, decode(value))
    estimator.check_state()
    return estimator


# ----------------------------------------------------------------------------- random forests

class TreeEnsemble:
    """A scikit-learn random forest as its trees' arrays, predicting as scikit-learn does.

    Regression: the trees' leaf values summed in tree order, then divided by the number of trees
    (``RandomForestRegressor.predict`` with one job). Classification: the same with the leaves'
    class fractions (``predict_proba``). A row goes left at a node when its value, as float32,
    is ``<=`` the node's float64 threshold.

    Parameters
    ----------
    trees : list of dict
        Per tree: ``left``, ``right`` (child node ids, -1 at a leaf), ``feature``, ``threshold``
        and ``value`` ((nodes, outputs) leaf values or class fractions).
    n_features : int
        Number of features.
    classes : ndarray or None, default None
        The classes of a classifier (None: a regressor).
    """

    def __init__(self, trees: list, n_features: int, classes=None):
        self.trees = trees
        self.n_features_in_ = int(n_features)
        self.classes_ = classes

    @classmethod
    def from_sklearn(cls, forest) -> "TreeEnsemble":
        """The arrays of a fitted ``RandomForestRegressor`` or ``RandomForestClassifier``.

        Parameters
        ----------
        forest : sklearn.ensemble.RandomForestRegressor or RandomForestClassifier
            Fitted, one output.

        Returns
        -------
        TreeEnsemble
        """
        if getattr(forest, "n_outputs_", 1) != 1:
            raise NoCodeFreeForm("a forest of several outputs has no code-free form")
        trees = []
        for est in forest.estimators_:
            t = est.tree_
            # node and feature ids as int32 (lossless below 2**31 nodes): the file is a third smaller
            trees.append({"left": np.asarray(t.children_left, dtype=np.int32),
                          "right": np.asarray(t.children_right, dtype=np.int32),
                          "feature": np.asarray(t.feature, dtype=np.int32),
                          "threshold": np.asarray(t.threshold, dtype=np.float64),
                          "value": np.asarray(t.value[:, 0, :], dtype=np.float64)})
        return cls(trees, forest.n_features_in_, getattr(forest, "classes_", None))

    def to_state(self) -> dict:
        """The JSON-able state (``encode``)."""
        return {"kind": "forest", "n_features": self.n_features_in_, "classes": encode(self.classes_),
                "trees": [{key: encode(arr) for key, arr in tree.items()} for tree in self.trees]}

    @classmethod
    def from_state(cls, state: dict) -> "TreeEnsemble":
        """The ensemble of ``to_state``, checked: a ValueError unless every tree is a tree
        (``ltrfs.boosters.check_tree``: no cycle, every child id in range), every split on a
        feature below ``n_features``, all arrays of a tree as long and every number finite."""
        d = state["n_features"]
        if type(d) is not int or not 1 <= d <= boosters.MAX_FEATURES:
            raise ValueError(f"forest: n_features {str(d)[:40]} is not a positive integer")
        if not isinstance(state["trees"], list) or not state["trees"]:
            raise ValueError("forest: no trees")
        trees = []
        for i, tree in enumerate(state["trees"]):
            t = {key: decode(tree[key]) for key in ("left", "right", "feature", "threshold", "value")}
            if not all(isinstance(a, np.ndarray) for a in t.values()) or t["value"].ndim != 2 \
                    or any(t[key].ndim != 1 for key in ("left", "right", "feature", "threshold")) \
                    or any(t[key].dtype.kind not in "iu" for key in ("left", "right", "feature")):
                raise ValueError(f"forest tree {i}: not the arrays of a tree")
            n = len(t["left"])
            if any(len(t[key]) != n for key in t) or (i and t["value"].shape[1] != trees[0]["value"].shape[1]):
                raise ValueError(f"forest tree {i}: arrays of different lengths")
            boosters.check_tree(t["left"], t["right"], f"forest tree {i}")
            inner = t["left"] >= 0
            if (t["feature"][inner] < 0).any() or (t["feature"][inner] >= d).any():
                raise ValueError(f"forest tree {i}: a split on a feature outside 0..{d - 1}")
            trees.append(t)
        classes = decode(state["classes"])
        if classes is not None and (not isinstance(classes, np.ndarray) or classes.shape != (trees[0]["value"].shape[1],)):
            raise ValueError("forest: classes do not match the leaves' class fractions")
        return cls(trees, d, classes)

    def _leaf_values(self, X: np.ndarray, tree: dict) -> np.ndarray:
        left, right, feature, threshold = tree["left"], tree["right"], tree["feature"], tree["threshold"]
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])  # the rows not at a leaf yet
        for _ in range(len(left)):  # a path is never longer than the tree has nodes
            at = node[rows]
            inner = left[at] >= 0
            rows, at = rows[inner], at[inner]
            if not len(rows):
                break
            go_left = X[rows, feature[at]] <= threshold[at]
            node[rows] = np.where(go_left, left[at], right[at])
        return tree["value"][node]

    def _summed(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float32)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has shape {X.shape}; the forest was fitted with {self.n_features_in_} features")
        out = np.zeros((X.shape[0], self.trees[0]["value"].shape[1]))
        for tree in self.trees:
            out += self._leaf_values(X, tree)
        out /= len(self.trees)
        return out

    def predict(self, X) -> np.ndarray:
        """The forest's regression (mean of the trees), float64 (m,)."""
        return self._summed(X)[:, 0]

    def predict_proba(self, X) -> np.ndarray:
        """The forest's class probabilities (mean of the trees' leaf fractions), float64 (m, K)."""
        return self._summed(X)

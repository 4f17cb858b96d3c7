"""The ranker interface shared by every learning-to-rank model, and input validation.

A ranker follows scikit-learn's estimator conventions (``get_params``, ``set_params`` and
``sklearn.base.clone`` work): the constructor takes hyperparameters only and stores each one
under its own name; ``fit(X, y, qid, X_val=None, y_val=None, qid_val=None)`` learns and
returns ``self``; ``predict(X)`` gives float64 scores (m,); learned state lives in attributes
ending with ``_``.

Class attributes:

    name          the ranker's name in configs and on the command line
    default_grid  dict[str, list]: hyperparameter grid used when the config gives none (the
                  workflow picks the grid point by a validation metric)

Inputs (validated at the edge with one-line ``ValueError`` messages):

    X    (m, d) finite numbers, one row per query-document pair
    y    (m,) integer relevance labels (integer-valued floats are accepted)
    qid  (m,) query id of every row; the rows of one query must be contiguous
"""
from __future__ import annotations

import numpy as np
from ltrfs.estimator import Estimator

from ltrfs.data import query_ptr_from_qid


class Ranker(Estimator):
    """Base class of the rankers (see the module docstring for the contract)."""

    #: name used in configs and on the command line
    name: str = ""
    #: hyperparameter grid used when the configuration gives none
    default_grid: dict = {}

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Fit on (X (m, d), y (m,), qid (m,)), with an optional validation split.

        The shared template: ``validate_params()``, input checks, BLAS threads limited to
        ``n_jobs``, then ``_fit(X float64, y int64, query_ptr, vali)`` with ``vali`` None or
        (X_val, y_val, query_ptr_val). Rankers with other needs override ``fit`` itself.
        """
        self.validate_params()
        X, y, query_ptr = check_fit_inputs(X, y, qid)
        vali = check_validation_split(X.shape[1], X_val, y_val, qid_val)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=int(getattr(self, "n_jobs", 1)), user_api="blas"):
            self._fit(X, y, query_ptr, vali)
        return self

    def _fit(self, X, y, query_ptr, vali) -> None:  # pragma: no cover
        raise NotImplementedError

    def predict(self, X) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


def check_X(X, what: str = "X", *, n_features: int | None = None, dtype=np.float64) -> np.ndarray:
    """X as a C-contiguous (m, d) array of ``dtype`` with finite values and at least one row.

    With ``n_features``, the number of columns must match (the width seen in ``fit``).
    A scipy sparse matrix is densified.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy.sparse, e.g. from load_svmlight_file
        X = X.toarray()
    try:
        X = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{what} is not a numeric array: {exc}") from None
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (rows x features); got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold numbers; got dtype {X.dtype}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what} is empty (shape {X.shape})")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{what} has {X.shape[1]} features but the model was fitted with {n_features}")
    X = np.ascontiguousarray(X, dtype=dtype)
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        row, col = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(f"{what} contains NaN or inf (first at row {row}, feature column {col}); "
                         "clean the data first")
    return X


def check_labels(y, m: int, what: str = "y") -> np.ndarray:
    """y as int64 (m,), integer-valued; a one-line ValueError otherwise."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one label per row); got shape {y.shape}")
    if len(y) != m:
        raise ValueError(f"{what} has {len(y)} labels but X has {m} rows")
    if y.dtype.kind in "biu":
        return y.astype(np.int64)
    if y.dtype.kind != "f":
        raise ValueError(f"{what} must hold integer relevance labels; got dtype {y.dtype}")
    bad = ~np.isfinite(y) | (y != np.round(y))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} must hold integer relevance labels; row {i} has {y[i].item()!r}")
    return y.astype(np.int64)


def check_qid(qid, m: int, what: str = "qid") -> np.ndarray:
    """query_ptr int64 (q + 1,) from per-row query ids; the rows of a query must be contiguous."""
    qid = np.asarray(qid)
    if qid.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one query id per row); got shape {qid.shape}")
    if len(qid) != m:
        raise ValueError(f"{what} has {len(qid)} entries but X has {m} rows")
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    ids = qid[starts]
    uniq, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        bad = uniq[counts > 1][0].item()
        rows = starts[ids == bad][:2]
        raise ValueError(f"{what}: the rows of query {bad!r} are not contiguous (runs start at rows "
                         f"{rows[0]} and {rows[1]}); sort the rows by query first")
    query_ptr, _ = query_ptr_from_qid(qid)
    return query_ptr


def check_fit_inputs(X, y, qid, *, prefix: str = "", dtype=np.float64):
    """Validate one (X, y, qid) triple -> (X, y int64, query_ptr int64).

    ``prefix`` names the split in messages (``"X_val"`` etc. when prefix is ``"_val"``).
    """
    X = check_X(X, f"X{prefix}", dtype=dtype)
    y = check_labels(y, X.shape[0], f"y{prefix}")
    query_ptr = check_qid(qid, X.shape[0], f"qid{prefix}")
    return X, y, query_ptr


def check_validation_split(n_features: int, X_val, y_val, qid_val, *, dtype=np.float64):
    """None when no validation split is given, else the validated (X_val, y_val int64,
    query_ptr_val) triple; one-line ValueErrors for a partial split or a width other than
    ``n_features``."""
    given = [v is not None for v in (X_val, y_val, qid_val)]
    if any(given) and not all(given):
        raise ValueError("give all of X_val, y_val and qid_val, or none of them")
    if not any(given):
        return None
    Xv, yv, ptr_v = check_fit_inputs(X_val, y_val, qid_val, prefix="_val", dtype=dtype)
    if Xv.shape[1] != n_features:
        raise ValueError(f"X_val has {Xv.shape[1]} features but X has {n_features}")
    return Xv, yv, ptr_v


class LinearScores:
    """Mixin for linear rankers: ``predict(X) = X @ coef_ + intercept_`` (float64 (m,); no
    intercept unless the model sets ``intercept_``), also as ``decision_function``."""

    def predict(self, X) -> np.ndarray:
        """Scores float64 (m,) = X @ coef_ (+ intercept_)."""
        self._check_fitted("coef_")
        X = check_X(X, n_features=self.n_features_in_)
        return X @ self.coef_ + getattr(self, "intercept_", 0.0)

    def decision_function(self, X) -> np.ndarray:
        return self.predict(X)


def standardise(X: np.ndarray, weights: np.ndarray | None = None):
    """(Xs, mean (d,), scale (d,)): ``Xs = (X - mean) / scale`` with the 1/n (weighted)
    variance, as glmnet; a constant column gets scale 1 (it stays 0 after centring)."""
    if weights is None:
        mean = X.mean(axis=0)
        var = ((X - mean) ** 2).mean(axis=0)
    else:
        w = np.asarray(weights, dtype=np.float64)
        total = w.sum()
        mean = w @ X / total
        var = w @ (X - mean) ** 2 / total
    scale = np.sqrt(var)
    scale = np.where(scale > 1e-12 * np.maximum(1.0, np.abs(mean)), scale, 1.0)
    return (X - mean) / scale, mean, scale


def group_ids(query_ptr: np.ndarray) -> np.ndarray:
    """int64 (m,): 0, 0, ..., 1, 1, ...: the position of each row's query (sorted, contiguous)."""
    return np.repeat(np.arange(len(query_ptr) - 1, dtype=np.int64), np.diff(query_ptr))

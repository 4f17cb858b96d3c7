"""The ranker interface shared by every learning-to-rank model (input checks: ``ltrfs.checks``).

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
from threadpoolctl import threadpool_limits

from ltrfs.checks import check_fit_inputs, check_validation_split, check_X
from ltrfs.estimator import Estimator


class Ranker(Estimator):
    """Base class of the rankers (see the module docstring for the contract)."""

    #: name used in configs and on the command line
    name: str = ""
    #: hyperparameter grid used when the configuration gives none
    default_grid: dict = {}
    #: False for rankers that ignore a validation split: ``fit`` then accepts the validation
    #: arguments without checking them and passes ``vali=None`` to ``_fit``
    uses_validation: bool = True

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None):
        """Fit the ranker on a training split, with an optional validation split.

        The shared template: ``validate_params()``, input checks, BLAS threads limited to
        ``n_jobs``, then ``_fit(X float64, y int64, query_ptr, vali)`` with ``vali`` None or
        (X_val, y_val, query_ptr_val) (always None when ``uses_validation`` is False). Rankers
        with other needs override ``fit`` itself.

        Parameters
        ----------
        X : array-like of shape (m, d)
            Feature matrix.
        y : array-like of shape (m,)
            Integer relevance labels.
        qid : array-like of shape (m,)
            Query ids; the rows of a query are contiguous.
        X_val, y_val, qid_val : array-like or None, default None
            The validation split (same layout), used for early stopping or model choice by the
            rankers that have ``uses_validation``; ignored by the others.

        Returns
        -------
        self : Ranker
            The fitted ranker.
        """
        self.validate_params()
        X, y, query_ptr = check_fit_inputs(X, y, qid)
        vali = check_validation_split(X.shape[1], X_val, y_val, qid_val) if self.uses_validation else None
        with threadpool_limits(limits=int(getattr(self, "n_jobs", 1)), user_api="blas"):
            self._fit(X, y, query_ptr, vali)
        return self

    def _fit(self, X, y, query_ptr, vali) -> None:  # pragma: no cover
        raise NotImplementedError

    def uses_seed(self) -> bool:
        """Whether the fit draws random numbers: a ranker with a ``random_state`` parameter does
        unless it says otherwise. A fit that does not is the same for every seed, and the train
        jobs of other methods may share it (``ltrfs.pipeline.shared_fits``)."""
        return "random_state" in self.get_params()

    def predict(self, X) -> np.ndarray:  # pragma: no cover
        """Scores float64 (m,) of the rows of ``X`` (higher is ranked first)."""
        raise NotImplementedError


class LinearScores:
    """Mixin for linear rankers: ``predict(X) = X @ coef_ + intercept_`` (float64 (m,); no
    intercept unless the model sets ``intercept_``), also as ``decision_function``.

    Its code-free state is the weights and intercept (``ltrfs.state``): every preprocessing a
    linear ranker learns (ListNet's standardisation, FSMRank's scaling) is folded into them."""

    state_attributes = ("n_features_in_", "coef_", "intercept_")
    optional_state_attributes = ("intercept_",)

    def check_state(self) -> None:
        """A one-line ValueError unless ``coef_`` is a float vector of ``n_features_in_`` weights."""
        coef = np.asarray(self.coef_)
        if coef.ndim != 1 or coef.dtype.kind != "f" or len(coef) != int(self.n_features_in_):
            raise ValueError(f"{self.name}: {coef.size} weights of dtype {coef.dtype} for "
                             f"{self.n_features_in_} features")

    def predict(self, X) -> np.ndarray:
        """Scores float64 (m,) = X @ coef_ (+ intercept_)."""
        self._check_fitted("coef_")
        X = check_X(X, n_features=self.n_features_in_)
        return X @ self.coef_ + getattr(self, "intercept_", 0.0)

    def decision_function(self, X) -> np.ndarray:
        """Same as :meth:`predict` (scikit-learn's name for real-valued scores)."""
        return self.predict(X)


def standardise(X: np.ndarray, weights: np.ndarray | None = None):
    """Standardise the columns of ``X`` with the 1/n (weighted) variance, as glmnet.

    A constant column gets scale 1 (it stays 0 after centring).

    Parameters
    ----------
    X : ndarray of shape (m, d)
        Feature matrix.
    weights : ndarray of shape (m,) or None, default None
        Row weights of the mean and variance; None weighs every row equally.

    Returns
    -------
    Xs : ndarray of shape (m, d)
        ``(X - mean) / scale``.
    mean : ndarray of shape (d,)
        Column means.
    scale : ndarray of shape (d,)
        Column standard deviations (1 for constant columns).
    """
    mean, scale = column_statistics(X, weights)
    return (X - mean) / scale, mean, scale


def column_statistics(X: np.ndarray, weights: np.ndarray | None = None):
    """The mean and standard deviation of every column of ``X`` (1/n, or weighted, variance), a
    scale of 1 where the deviation is below 1e-12 of max(1, |mean|) (a constant column): what
    ``standardise`` divides by, without building the standardised copy.

    Parameters
    ----------
    X : ndarray of shape (m, d)
    weights : ndarray of shape (m,) or None, default None

    Returns
    -------
    mean, scale : float64 ndarray of shape (d,)
    """
    if weights is None:
        mean = X.mean(axis=0, dtype=np.float64)
        var = ((X - mean) ** 2).mean(axis=0)
    else:
        w = np.asarray(weights, dtype=np.float64)
        total = w.sum()
        mean = w @ X / total
        var = w @ (X - mean) ** 2 / total
    scale = np.sqrt(var)
    scale = np.where(scale > 1e-12 * np.maximum(1.0, np.abs(mean)), scale, 1.0)
    return mean, scale

"""The selector interface shared by every feature-selection method.

A selector follows scikit-learn's estimator style: the constructor takes hyperparameters
only; ``fit(X, y, qid=..., X_val=..., y_val=..., qid_val=...)`` learns and sets attributes
ending in ``_``:

    ranking_  int64 (d,)    0-based feature indices, most useful first
    scores_   float64 (d,)  the method's score of every feature (by feature index), or None
    seconds_  float         wall-clock seconds spent in ``fit``
    chosen_   dict          hyperparameters the method chose itself (e.g. on vali)
    constant_features_  int64  0-based features constant within every training query

Constant features last, once for every method: a feature whose value is the same for all
documents of each training query ranks nothing (its single-feature metric is that of a
random order), so ``fit`` moves such features after all others in ``ranking_``, keeping the
method's order among each part (a projection method, FS-BFS, puts no constant feature in its
groups, so its groups keep their order); an instance with ``constant_last=False`` keeps the
method's order as it is.

``support(k)`` gives the 0-based indices of the k-feature subset, ``transform(X, k)`` the
k-feature view of X. ``needs_validation()`` says, before a fit, whether the current parameters
make the method choose something on the validation split (``ltrfs.sklearn`` asks it).
"""
from __future__ import annotations

import time

import numpy as np
from threadpoolctl import threadpool_limits

from ltrfs import scoring
from ltrfs.checks import check_magnitude, check_qid_values
from ltrfs.docstrings import fill_doc
from ltrfs.estimator import Estimator
from ltrfs.ranking_data import constant_within_queries, query_ptr_from_qid


def single_feature_scores(X, y, query_ptr, precomputed: dict, convention: str, ties: str) -> dict:
    """The single-feature table of X: the workflow's cached one when it fits, else computed here.

    Parameters
    ----------
    X : array-like, shape (m, d)
    y : array-like of int, shape (m,)
    query_ptr : array-like of int, shape (q + 1,)
    precomputed : dict
        Scorer name -> table; ``precomputed["single_feature"]`` is used when it was computed for
        d features in the same metric convention (any spelling) and tie rule (a table without a
        ``ties`` record counts as "file_order").
    convention : str
        Metric convention (``ltrfs.metrics``).
    ties : {"expected", "file_order"}
        Tie rule of the single-feature metrics.

    Returns
    -------
    dict of str to float64 (d,)
        ``ltrfs.scoring.single_feature_table``'s keys.
    """
    def name(convention) -> str:  # "LETOR4" and "letor4" are one convention
        return str(convention).strip().lower()

    table = precomputed.get("single_feature")
    if table is not None and (name(table.get("convention", convention)) != name(convention)
                              or str(table.get("ties", "file_order")) != ties
                              or any(np.ndim(v) == 1 and len(v) != np.shape(X)[1] for v in table.values())):
        table = None  # another convention or tie rule, or other data
    if table is None:
        table = scoring.single_feature_table(X, y, query_ptr, convention=convention, ties=ties)
    return table


class Selector(Estimator):
    """Base class of the feature selectors (the module docstring states the contract).

    A subclass sets ``name`` (its configuration name), ``parameters`` (the declaration of its
    constructor parameters, ``ltrfs.params``), optionally ``requires`` (scorers it reads from the
    workflow's cache), ``uses_k``, ``prefix_consistent`` and ``projects``, and implements ``_fit(X, y,
    query_ptr, X_val, y_val, qid_val, precomputed)`` setting ``ranking_`` (and ``scores_``,
    ``chosen_`` as it has them).

    Attributes
    ----------
    ranking_ : int64 (d,)
        0-based feature indices, most useful first (constant features last, module docstring).
    scores_ : float64 (d,) or None
        The method's score of every feature, by feature index.
    chosen_ : dict
        Hyperparameters the method chose itself (e.g. on vali).
    seconds_ : float
        Wall-clock seconds of ``fit``.
    constant_features_ : int64 (c,)
        Features constant within every training query.
    n_features_in_ : int
        d.

    See Also
    --------
    ltrfs.selection.SELECTORS : every registered selector by name.
    ltrfs.selection.make_selector : a selector from its name and parameters.
    """
    #: name used in configs and on the command line
    name: str = ""
    #: per-fold scorers (``ltrfs.scoring.SCORERS``) the method reads when the workflow has them
    requires: tuple[str, ...] = ()
    #: False for methods whose output does not depend on k (WAF keeps every feature)
    uses_k: bool = True
    #: True when the k-subsets are prefixes of ``ranking_`` (the greedy/top-k methods)
    prefix_consistent: bool = True
    #: True when the k-view is a projection (new features), not a subset of features (FS-BFS)
    projects: bool = False

    @classmethod
    @fill_doc
    def fit_columns(cls, d: int, params: dict) -> float:
        """Feature columns the method's fits cover on ``d`` features, summed over its fits: what a
        select job's work counts per row in the cost model (``ltrfs.pipeline.resources``).

        ``d`` unless a parameter changes how many fits the method makes and on how many columns
        (``lambdamart_rfe``'s ``step``, FS-BFS's search bounds), so that jobs run with other parameters share
        one curve.
        ``svm_rfe``'s ``step`` is not modelled: every measured ``svm_rfe`` job ran at 0.01.

        %(fit_columns_sections)s
        """
        return float(d)

    def needs_validation(self) -> tuple[str, dict] | None:
        """Why ``fit`` needs the validation split with the current parameters, or None.

        Returns
        -------
        (reason, fix) or None
            ``reason``: one clause saying what the method does on the validation split;
            ``fix``: example parameters under which it runs without one (empty when none do).
            None when ``fit`` runs without ``X_val``.

        Examples
        --------
        >>> from ltrfs.selection import make_selector
        >>> make_selector("gas_e").needs_validation()
        ('gas_e chooses c on validation data when c is None', {'c': 0.01})
        >>> make_selector("gas_e", c=0.01).needs_validation() is None
        True
        """
        return None
    #: the code-free state (``ltrfs.state``) of the fitted selector kept beside its selection:
    #: what ranker ``own`` reads (a method with a model of its own adds what ``predict_scores`` reads)
    state_attributes = ("n_features_in_", "ranking_", "chosen_")

    def check_state(self) -> None:
        """A one-line ValueError unless ``ranking_`` read back from a file is an integer vector of
        distinct features in 0..``n_features_in_`` - 1 and ``chosen_`` a mapping."""
        d = self.n_features_in_
        ranking = np.asarray(self.ranking_)
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise ValueError(f"{self.name}: n_features_in_ {d!r} is not a positive integer")
        if ranking.ndim != 1 or ranking.dtype.kind not in "iu" or not 1 <= len(ranking) <= d:
            raise ValueError(f"{self.name}: ranking_ is not a vector of 1 to {d} feature indices")
        if ranking.min() < 0 or ranking.max() >= d or len(np.unique(ranking)) != len(ranking):
            raise ValueError(f"{self.name}: ranking_ repeats a feature or names one outside 0..{d - 1}")
        if not isinstance(self.chosen_, dict):
            raise ValueError(f"{self.name}: chosen_ is not a mapping")

    def fit(self, X, y, qid, X_val=None, y_val=None, qid_val=None, precomputed=None):
        """Learn the feature order. BLAS runs on the method's ``n_jobs`` threads (one for a method
        without that parameter), as a ranker's fit does: a BLAS sum's order depends on its thread
        count, so the record must not depend on the machine's cores or on the caller's settings.

        Parameters
        ----------
        X : array-like, shape (m, d)
            Training features, one row per query-document pair.
        y : array-like of int, shape (m,)
            Relevance labels.
        qid : array-like, shape (m,)
            Query id of every row; the rows of a query are contiguous.
        X_val, y_val, qid_val : array-like or None
            The validation split, for the methods that choose hyperparameters on it.
        precomputed : dict or None
            Scorer name -> dict of arrays (the workflow's ``score`` stage), used when it fits.

        Returns
        -------
        self
        """
        self.validate_params()
        X = np.asarray(X)
        y = np.asarray(y)
        if X.ndim != 2 or len(y) != len(X):
            raise ValueError(f"X must be (m, d) with one label per row; got X {X.shape}, y {y.shape}")
        # NaN, inf or beyond float32's range: refused in one line naming the method, before any
        # work (a NaN made a neural fit diverge, correlations NaN, or a method fail deep inside);
        # float32 values that float32 arithmetic could overflow: float64
        try:
            X = check_magnitude(X)
            if X_val is not None:
                X_val = check_magnitude(np.asarray(X_val), "X_val")
        except ValueError as exc:
            raise ValueError(f"{self.name}: {exc}") from None
        query_ptr, _ = query_ptr_from_qid(check_qid_values(qid))
        start = time.perf_counter()
        self.chosen_ = {}
        self.scores_ = None
        constant = constant_within_queries(X, query_ptr)
        self.constant_features_ = np.flatnonzero(constant).astype(np.int64)  # set first: _fit may use it
        with threadpool_limits(limits=int(getattr(self, "n_jobs", 1)), user_api="blas"):
            self._fit(X, y, query_ptr, X_val, y_val, qid_val, precomputed or {})
        if constant.any() and getattr(self, "constant_last", True) and self.uses_k:
            r = np.asarray(self.ranking_, dtype=np.int64)
            self.ranking_ = np.concatenate([r[~constant[r]], r[constant[r]]])
        self.seconds_ = time.perf_counter() - start
        self.n_features_in_ = X.shape[1]
        return self

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):  # pragma: no cover
        raise NotImplementedError

    def support(self, k: int | None = None) -> np.ndarray:
        """The 0-based indices of the k selected features.

        Parameters
        ----------
        k : int or None
            Subset size, 1..d; None (or a method with ``uses_k = False``): all features, sorted.

        Returns
        -------
        int64 (k,)
            ``ranking_[:k]``.
        """
        if not self.uses_k or k is None:
            return np.sort(self.ranking_)
        if not 1 <= k <= len(self.ranking_):
            raise ValueError(f"k={k} is outside 1..{len(self.ranking_)} (the number of features)")
        return np.asarray(self.ranking_[:k], dtype=np.int64)

    def transform(self, X, k: int | None = None) -> np.ndarray:
        """The k-feature view of X.

        Parameters
        ----------
        X : array-like, shape (m, d)
        k : int or None
            As ``support``.

        Returns
        -------
        ndarray, shape (m, k)
            ``X[:, support(k)]``.
        """
        return np.asarray(X)[:, self.support(k)]


class OwnPredictions:
    """A fitted selector used as a ranker (ranker ``own``).

    ``predict(X)`` is its ``predict_scores(X)`` (P(relevant) or the expected label, as Lei & Han
    report them), or with ``k`` its ``predict_scores_k(X, k)`` (its model restricted to its top k
    features, Lai et al. Figs. 1-3).

    Parameters
    ----------
    selector : Selector
        A fitted selector with ``predict_scores`` (and ``predict_scores_k`` when ``k`` is given).
    k : int or None, default None
        Restrict the model to the selector's top k features.
    """

    def __init__(self, selector, k: int | None = None):
        self.selector = selector
        self.k = k

    @property
    def n_features_in_(self) -> int:
        """The columns ``predict`` takes: the selector's."""
        return self.selector.n_features_in_

    def predict(self, X) -> np.ndarray:
        """Scores float64 (m,) of the rows of ``X`` by the selector's own model."""
        if self.k is None:
            return self.selector.predict_scores(X)
        return self.selector.predict_scores_k(X, self.k)

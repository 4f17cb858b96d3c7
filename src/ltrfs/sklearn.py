"""A scikit-learn feature selector around any ltrfs selection method (docs/sklearn.md).

``FeatureSelector(method, k=10, params=None)`` is a scikit-learn estimator (``BaseEstimator``
and ``SelectorMixin``): ``k`` is a parameter, so ``set_params(k=...)``, ``clone`` and
``GridSearchCV`` over k work, and ``get_support``, ``transform``, ``inverse_transform`` and
``get_feature_names_out`` behave as in ``sklearn.feature_selection``. The query ids reach
``fit`` through scikit-learn's metadata routing (``set_fit_request(qid=True)``), so that one
``Pipeline`` holds the selection and a ranker such as ``xgboost.XGBRanker``.

The rows of one query are contiguous in ltrfs. ``fit`` accepts query ids in any order: when a
query's rows are not contiguous, it groups them by a stable sort (the queries in the order of
their first row, each query's rows in their given order) before the method sees them. That
changes nothing the method learns from a contiguous layout, and ``transform`` never reorders rows.

scikit-learn is imported at module level: the classes below subclass its estimators, and no
workflow job imports this module (``ltrfs.selection`` does not import scikit-learn).
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
# absolute imports: "sklearn" is scikit-learn, not this module (Python 3 has no implicit relative imports)
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ltrfs.checks import check_labels, check_qid_values, k_above_d
from ltrfs.metrics import get_convention
from ltrfs.selection import SELECTORS, Selector, make_selector

__all__ = ["FeatureSelector", "contiguous_order"]


def contiguous_order(qid) -> np.ndarray | None:
    """The stable row order that makes the rows of every query contiguous.

    Parameters
    ----------
    qid : array-like, shape (m,)
        The query id of every row.

    Returns
    -------
    ndarray of int64, shape (m,), or None
        None when every query's rows are already contiguous; else the row order that puts the
        queries in the order of their first row, each query's rows in their given order.

    Examples
    --------
    >>> contiguous_order([7, 7, 3, 3]) is None
    True
    >>> contiguous_order([7, 3, 7, 3])
    array([0, 2, 1, 3])
    """
    qid = np.asarray(qid)
    if qid.size == 0:
        return None
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    if len(starts) == len(first):  # one run per query
        return None
    return np.argsort(first[inverse.ravel()], kind="stable")


def _split(X, y, qid, what: str = ""):
    """(X, y, qid) of one split, its rows grouped by query; qid None: all rows one query."""
    y = check_labels(y, X.shape[0], f"y{what}")
    if qid is None:
        return X, y, np.zeros(X.shape[0], dtype=np.int64)
    qid = check_qid_values(qid, f"qid{what}")
    if qid.ndim != 1 or len(qid) != X.shape[0]:
        raise ValueError(f"qid{what} must hold one query id per row of X{what} ({X.shape[0]}); got shape {qid.shape}")
    order = contiguous_order(qid)
    return (X, y, qid) if order is None else (X[order], y[order], qid[order])


class FeatureSelector(SelectorMixin, BaseEstimator):
    """Any ltrfs feature-selection method as a scikit-learn selector of k features.

    Parameters
    ----------
    method : str or ltrfs.selection.Selector
        A name of ``ltrfs.selection.SELECTORS`` or a selector instance (cloned in ``fit``, never
        changed). FS-BFS (``"fs_bfs"``) builds new features, not a subset, and is refused: use
        ``ltrfs.selection`` directly.
    k : int >= 1 or "all", default 10
        How many features ``transform`` keeps. A k above the number of features keeps them all,
        with a warning (the workflow's policy); WAF (``uses_k = False``) always keeps them all.
    params : dict or None, default None
        The method's parameters (``ltrfs params NAME`` lists them), e.g. ``{"c": 0.01}`` for
        ``gas_e`` or ``{"random_state": 3}`` for a random method; applied over an instance's own.
    convention : str, default "standard"
        The metric convention of the methods that rank by a metric (GAS's NDCG@10 importance,
        FS-ED, ...) where ``params`` does not set one: ``"standard"`` computes NDCG@k of a query
        with fewer than k documents on its documents; ``"letor4"``/``"letor3"``/``"mslr"`` score it
        0, as the LETOR scripts do (docs/metrics.md). A selector instance keeps its own.

    Attributes
    ----------
    selector_ : ltrfs.selection.Selector
        The fitted ltrfs selector (``ranking_``, ``scores_``, ``chosen_``, ``seconds_``).
    ranking_ : ndarray of int64, shape (n_features_in_,)
        0-based feature indices, most useful first.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        The column names of a DataFrame given to ``fit`` (only then).

    See Also
    --------
    ltrfs.selection.make_selector : the plain ltrfs selector.
    sklearn.feature_selection.SelectKBest : scikit-learn's own top-k selector.

    Notes
    -----
    ``fit`` takes ``qid``, ``X_val``, ``y_val`` and ``qid_val`` as metadata: in a ``Pipeline``
    or ``GridSearchCV``, enable routing (``sklearn.set_config(enable_metadata_routing=True)``)
    and request them (``set_fit_request(qid=True)``). Methods that choose something on
    validation data need the ``_val`` arrays or the parameter that fixes the choice
    (docs/sklearn.md, section 'Methods that need validation data').

    Examples
    --------
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()                 # features 2 and 0 are the planted ones
    >>> sel = FeatureSelector("gas_e", k=2, params={"c": 0.01}).fit(X, y, qid=qid)
    >>> sel.get_support(indices=True), sel.ranking_[:2]
    (array([0, 2]), array([2, 0]))
    >>> sel.set_params(k=3).transform(X).shape       # k is read when transforming, as in SelectKBest
    (120, 3)
    """

    def __init__(self, method, k=10, params=None, convention="standard"):
        self.method = method
        self.k = k
        self.params = params
        self.convention = convention

    def _label(self) -> str:
        name = self.method if isinstance(self.method, str) else type(self.method).__name__
        return f"FeatureSelector({name!r})"

    def _selector(self) -> Selector:
        """A fresh ltrfs selector of ``method`` with ``params`` (one-line errors)."""
        params = {} if self.params is None else self.params
        if not isinstance(params, dict):
            raise TypeError(f"{self._label()}: params must be a dict of the method's parameters; got {params!r}")
        if isinstance(self.method, str):
            selector = make_selector(self.method, **params)
            if "convention" not in params and "convention" in selector.get_params():
                selector.set_params(convention=get_convention(self.convention).name)
        elif isinstance(self.method, Selector):
            selector = clone(self.method).set_params(**params)
        else:
            raise TypeError(f"FeatureSelector: method must be a name of ltrfs.selection.SELECTORS "
                            f"({', '.join(sorted(SELECTORS))}) or a selector instance; got {self.method!r}")
        if selector.projects:
            raise ValueError(f"{self._label()}: {selector.name} builds new features (a projection), not a subset "
                             "of the columns; use ltrfs.selection.make_selector('fs_bfs') and its transform(X, k)")
        return selector

    def _check_k(self, d: int | None = None) -> int | None:
        """k as an int (None for "all"), checked; with d: clipped to d."""
        k = self.k
        if isinstance(k, str) and k == "all":
            return None
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"{self._label()}: k must be an integer >= 1 or 'all'; got {k!r}")
        return int(k) if d is None else min(int(k), d)

    def _validation(self, selector: Selector, d: int, X_val, y_val, qid_val) -> tuple:
        """The validation split as the method takes it, or a one-line error when it needs one."""
        given = [v is not None for v in (X_val, y_val, qid_val)]
        if not any(given):
            need = selector.needs_validation()
            if need is not None:
                reason, fix = need
                raise ValueError(f"{self._label()} needs validation data: {reason}; pass X_val, y_val and qid_val "
                                 "to fit (in a Pipeline: set_fit_request(X_val=True, y_val=True, qid_val=True))"
                                 + (f", or fix it: params={fix!r}" if fix else ""))
            return None, None, None
        if not all(given):
            raise ValueError(f"{self._label()}: give all of X_val, y_val and qid_val to fit, or none of them")
        X_val = check_array(X_val, dtype=(np.float64, np.float32), input_name="X_val")
        if X_val.shape[1] != d:
            raise ValueError(f"{self._label()}: X_val has {X_val.shape[1]} features but X has {d}")
        return _split(X_val, y_val, qid_val, "_val")

    def fit(self, X, y, qid=None, X_val=None, y_val=None, qid_val=None):
        """Fit the method and keep its ranking of the features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features, one row per query-document pair (finite numbers, dense).
        y : array-like of int, shape (n_samples,)
            Relevance labels.
        qid : array-like of shape (n_samples,) or None, default None
            Query id of every row (metadata: request it with ``set_fit_request(qid=True)``).
            None treats all rows as ONE query (what ``fit(X, y)`` and scikit-learn's checks
            do): per-query methods then rank the features on that single query. Rows of a
            query need not be contiguous (module docstring).
        X_val, y_val, qid_val : array-like or None, default None
            A validation split (all three or none), for the methods that choose a
            hyperparameter on it; without one, such a method needs the parameter fixed in
            ``params`` and says so.

        Returns
        -------
        self
        """
        selector = self._selector()  # the parameters first: their errors name no data
        k = self._check_k()
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), y_numeric=True,
                             ensure_min_samples=2)  # one row ranks nothing
        X, y, qid = _split(X, y, qid)
        vali = self._validation(selector, X.shape[1], X_val, y_val, qid_val)
        if k is not None and selector.uses_k and (note := k_above_d([k], X.shape[1])):
            warnings.warn(f"{self._label()}: {note}", UserWarning, stacklevel=2)
        self.selector_ = selector.fit(X, y, qid, *vali)
        self.ranking_ = np.asarray(selector.ranking_, dtype=np.int64)
        return self

    def _get_support_mask(self) -> np.ndarray:
        """The mask of the k selected features (``k`` as set now, as SelectKBest reads it)."""
        check_is_fitted(self, "selector_")
        d = self.n_features_in_
        k = self._check_k(d)
        mask = np.zeros(d, dtype=bool)
        mask[self.selector_.support(k)] = True
        return mask

    def __sklearn_tags__(self):
        """scikit-learn's tags: a transformer that needs y, dense finite input.

        Returns
        -------
        sklearn.utils.Tags
        """
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True  # (no NaN, no sparse input: scikit-learn's defaults)
        return tags

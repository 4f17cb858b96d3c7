"""Pointwise linear rankers: least-squares regression of the label, and logistic regression of
binarised relevance (scikit-learn models; the query structure is ignored while fitting).

``linear_regression`` (least squares / ridge, with an intercept)::

    min_{w, b}  sum_i (y_i - w.x_i - b)^2 + alpha ||w||^2

``alpha = 0`` (default) is ordinary least squares (``sklearn.linear_model.LinearRegression``,
a minimum-norm lstsq solution when X is rank deficient, e.g. constant columns);
``alpha > 0`` is ``sklearn.linear_model.Ridge``. Score = w.x + b.

``logistic`` (L2-regularised logistic regression, lbfgs)::

    min_{w, b}  1/2 ||w||^2 + C sum_i log(1 + exp(-t_i (w.x_i + b))),   t_i = +1 if y_i >= relevant_min else -1

Score = the decision function w.x + b (the probability is a monotone map of it, so the ranking
is the same). A training set whose binarised labels are all of one class is refused.
"""
from __future__ import annotations

import logging
import time

import numpy as np

from ltrfs.params import Boolean, Integer, Options, Real
from ltrfs.rankers.base import LinearScores, Ranker

log = logging.getLogger(__name__)


class LinearRegressionRanker(LinearScores, Ranker):
    """Least-squares (optionally ridge) regression of the relevance label on the features.

    Parameters
    ----------
    alpha : float, default 0.0
        ridge weight; 0 = ordinary least squares (lstsq)
    fit_intercept : bool, default True
        fit a constant term (it does not change the ranking within a query)
    n_jobs : int, default 1
        BLAS threads (threadpoolctl)

    Attributes
    ----------
    coef_ : float64 (d,)
        weights
    intercept_ : float
        intercept (does not change the ranking)
    n_features_in_ : int
    seconds_ : float
        fit time

    References
    ----------
    A pointwise baseline (least squares, or ridge regression, of the label); see the module
    docstring and docs/methods.md.

    Examples
    --------
    >>> from ltrfs.rankers.pointwise import LinearRegressionRanker
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = LinearRegressionRanker().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "linear_regression"
    default_grid: dict = {}

    parameters = {"alpha": [Real(0)], "fit_intercept": [Boolean()], "n_jobs": [Integer(1)]}

    def __init__(self, alpha=0.0, fit_intercept=True, n_jobs=1):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        """Least squares of y on X; the queries and the validation split are not used (pointwise)."""
        from sklearn.linear_model import LinearRegression, Ridge  # heavy (scikit-learn, ~1-2 s): imported on use

        alpha = float(self.alpha)
        start = time.perf_counter()
        if alpha == 0.0:
            model = LinearRegression(fit_intercept=bool(self.fit_intercept))
        else:
            model = Ridge(alpha=alpha, fit_intercept=bool(self.fit_intercept))
        model.fit(X, y.astype(np.float64))
        self.coef_ = np.asarray(model.coef_, dtype=np.float64).ravel()
        self.intercept_ = float(model.intercept_)
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("linear_regression: alpha=%g, %d rows, %.4f s", alpha, X.shape[0], self.seconds_)


class LogisticRanker(LinearScores, Ranker):
    """Logistic regression (lbfgs) of ``y >= relevant_min``; score = decision function.

    Parameters
    ----------
    C : float, default 1.0
        inverse L2 regularisation strength (scikit-learn's C)
    relevant_min : int, default 1
        labels >= this are the positive class
    class_weight : None or "balanced", default None
        "balanced" weighs each class by the inverse of its frequency (scikit-learn's rule)
    max_iter : int, default 1000
        lbfgs iterations
    tol : float, default 1e-4
        lbfgs tolerance
    random_state : int, default 0
        passed to scikit-learn (lbfgs itself is deterministic)
    n_jobs : int, default 1
        BLAS threads (threadpoolctl)

    Attributes
    ----------
    coef_ : float64 (d,)
        weights
    intercept_ : float
    n_iter_ : int
        lbfgs iterations used
    n_features_in_ : int
    seconds_ : float
        fit time

    References
    ----------
    A pointwise baseline (logistic regression of binarised relevance, scikit-learn's
    ``LogisticRegression``); see the module docstring and docs/methods.md.

    Examples
    --------
    >>> from ltrfs.rankers.pointwise import LogisticRanker
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = LogisticRanker().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.9
    """

    name = "logistic"
    default_grid = {"C": [0.01, 0.1, 1.0, 10.0, 100.0]}

    parameters = {
        "C": [Real(0, None, closed="neither")],
        "relevant_min": [Integer(0)],
        "class_weight": [Options("balanced"), None],
        "max_iter": [Integer(1)],
        "tol": [Real(0, None, closed="neither")],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, C=1.0, relevant_min=1, class_weight=None, max_iter=1000, tol=1e-4,
                 random_state=0, n_jobs=1):
        self.C = C
        self.relevant_min = relevant_min
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        """Logistic regression of y >= relevant_min; the queries and the validation split are
        not used (pointwise)."""
        from sklearn.linear_model import LogisticRegression  # heavy (scikit-learn, ~1-2 s): imported on use

        t = (y >= int(self.relevant_min)).astype(np.int64)
        n_pos = int(t.sum())
        if n_pos == 0 or n_pos == len(t):
            kind = "no" if n_pos == 0 else "every"
            raise ValueError(f"logistic: {kind} training row has label >= relevant_min={self.relevant_min}; "
                             "both classes are needed")
        start = time.perf_counter()
        model = LogisticRegression(C=float(self.C), class_weight=self.class_weight, solver="lbfgs",
                                   max_iter=int(self.max_iter), tol=float(self.tol),
                                   random_state=int(self.random_state))
        model.fit(X, t)
        self.coef_ = np.asarray(model.coef_, dtype=np.float64).ravel()
        self.intercept_ = float(np.ravel(model.intercept_)[0])
        self.n_iter_ = int(np.max(model.n_iter_))
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start
        log.debug("logistic: C=%g, %d rows (%d positive), %d lbfgs iterations, %.4f s",
                  self.C, len(t), n_pos, self.n_iter_, self.seconds_)


"""L1-penalised logistic regression on binarised labels (Lei & Han 2017, section 2.2.1).

The report ran R's ``cv.glmnet`` on 10,000 sampled rows of MSLR-WEB, labels 0,1 -> 0 and
2,3,4 -> 1, and kept the 12 features with nonzero coefficients at ``lambda.1se``; it
predicted with ``lambda.min``. This selector does the same:

1. binarise ``y >= relevant_min`` (2 for 5-level MSLR data; use 1 on 3-level LETOR data
   such as MQ2008, where 1 and 2 are the relevant grades), standardise every feature
   (mean 0, 1/n variance 1, over the rows used);
2. a path of ``n_lambdas`` penalties, glmnet's: from ``lambda_max`` (the smallest penalty
   with every coefficient 0) down to ``lambda_min_ratio * lambda_max`` (1e-4 when rows
   outnumber features, else 1e-2), evenly spaced in log scale;
3. ``cv``-fold cross-validation with the folds grouped by query (scikit-learn
   ``GroupKFold``: a query never spans a training and a held-out part). The folds are fixed, not
   drawn: ``GroupKFold`` deals the queries, the largest first, each to the fold with the fewest
   rows so far, so ``random_state`` does not change them (cv.glmnet draws them at random; here
   two seeds give the same folds, and with the default ``solver="cd"`` and all rows the same
   selection). The loss is the mean
   held-out log-loss; ``rule="min"`` takes the penalty of the lowest mean loss,
   ``rule="1se"`` the largest penalty whose mean loss is within one standard error
   (std over folds / sqrt(folds)) of the lowest;
4. the path refitted on all rows gives the coefficients.

Solvers: ``"cd"`` (default) is glmnet's algorithm (``statistical.l1_path``: unpenalised
intercept, objective ``-(1/n) loglik + lambda ||beta||_1``; the same lambda path is used on
every fold, as cv.glmnet does). ``"liblinear"``/``"saga"`` wrap scikit-learn's
``LogisticRegression`` with an L1 penalty (objective ``C * sum logloss + ||beta||_1``, i.e.
``C = 1 / (n lambda)`` with the n of the full data, the same C on every fold as
``LogisticRegressionCV`` does; liblinear also penalises the intercept).

Output: ``selected_`` the unordered set of nonzero coefficients at the chosen penalty (its
size is ``chosen_["n_selected"]``); ``ranking_`` puts it first (by |coefficient|), then the
other features by the order in which they enter the path (``statistical.path_ranking``), so
every k has a subset and the subsets are prefixes. ``scores_`` = |coefficient| at the chosen
penalty (standardised scale). ``predict_scores(X)`` = P(relevant) of the model at
``predict_rule`` (default ``"min"``, as the report).
"""
from __future__ import annotations

import inspect
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, Options, Real
from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector

SOLVERS = ("cd", "liblinear", "saga")
RULES = ("min", "1se")


def l1_logistic_regression(C: float, solver: str, *, tol: float = 1e-4, max_iter: int = 1000,
                           random_state=0, warm_start: bool = False):
    """scikit-learn's ``LogisticRegression`` with a pure L1 penalty, in any supported version.

    Parameters
    ----------
    C : float
    solver : {"liblinear", "saga"}
    tol : float, default 1e-4
    max_iter : int, default 1000
    random_state : int or None, default 0
    warm_start : bool, default False

    Returns
    -------
    sklearn.linear_model.LogisticRegression
        Not fitted (``l1_ratio=1`` from scikit-learn 1.8 on, ``penalty="l1"`` before).
    """
    from sklearn.linear_model import LogisticRegression  # heavy (scikit-learn, ~1-2 s): imported on use


    kwargs = dict(C=C, solver=solver, tol=tol, max_iter=max_iter, random_state=random_state,
                  warm_start=warm_start)
    default_penalty = inspect.signature(LogisticRegression).parameters["penalty"].default
    if default_penalty == "deprecated":
        kwargs["l1_ratio"] = 1.0
    else:  # pragma: no cover - scikit-learn < 1.8
        kwargs["penalty"] = "l1"
    return LogisticRegression(**kwargs)


def _mean_log_loss(y: np.ndarray, p: np.ndarray) -> float:
    from sklearn.metrics import log_loss  # heavy (scikit-learn, ~1-2 s): imported on use

    return float(log_loss(y, p, labels=[0, 1]))


def sklearn_path(Xs, yb, Cs, solver, *, tol, max_iter, random_state):
    """Fit ``l1_logistic_regression`` along increasing ``Cs``.

    saga is warm-started from the previous C, as ``LogisticRegressionCV`` does; liblinear cannot
    warm-start.

    Parameters
    ----------
    Xs : ndarray, shape (m, d)
        Standardised features.
    yb : ndarray, shape (m,)
        0/1 labels.
    Cs : ndarray, shape (L,)
    solver, tol, max_iter, random_state
        As ``l1_logistic_regression``.

    Returns
    -------
    (float64 (L, d), float64 (L,))
        Coefficients and intercepts.
    """
    clf = l1_logistic_regression(Cs[0], solver, tol=tol, max_iter=max_iter, random_state=random_state,
                                 warm_start=solver == "saga")
    coefs, intercepts = [], []
    for C in Cs:
        clf.set_params(C=float(C))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*did not converge.*")
            warnings.filterwarnings("ignore", message=".*max_iter was reached.*")
            clf.fit(Xs, yb)
        coefs.append(clf.coef_[0].copy())
        intercepts.append(float(clf.intercept_[0]))
    return np.array(coefs), np.array(intercepts)


@fill_doc
class L1Logistic(Selector):
    """L1 logistic regression on binarised labels, the penalty chosen by query-grouped CV.

    The features with a nonzero coefficient at the chosen penalty are the selected set; the full
    order puts them first (by |coefficient|), then the others by the order in which they enter the
    path (module docstring).

    Parameters
    ----------
    rule : {"1se", "min"}, default "1se"
        The penalty that defines the selected set: the lowest mean CV loss ("min") or the largest
        penalty within one standard error of it ("1se", cv.glmnet's ``lambda.1se``).
    predict_rule : {"min", "1se"}, default "min"
        The penalty of the model of ``predict_scores`` (the report predicted with ``lambda.min``).
    relevant_min : int >= 1, default 2
        Labels ``>= relevant_min`` are relevant (2 for 5-level MSLR data; 1 on 3-level LETOR data).
    cv : int >= 2, default 10
        Cross-validation folds, grouped by query and fixed whatever the seed (scikit-learn's
        GroupKFold deals the queries, largest first, to the fold with the fewest rows).
    n_lambdas : int >= 1, default 100
        Length of the penalty path.
    lambda_min_ratio : float or None, default None
        Smallest penalty as a fraction of ``lambda_max``; None: glmnet's rule (1e-4 if rows
        outnumber features, else 1e-2).
    solver : {"cd", "liblinear", "saga"}, default "cd"
        glmnet's coordinate descent (``statistical.l1_path``) or scikit-learn's
        ``LogisticRegression``.
    tol : float or None, default None
        Tolerance; None: 1e-9 relative for "cd", 1e-4 for scikit-learn.
    max_iter : int or None, default None
        Iterations; None: 100 Newton steps per lambda for "cd", 1000 for scikit-learn.
    sample_size : int >= 2 or None, default None
        Rows drawn (seeded) to fit on; None: all rows (the report used 10,000).
    random_state : int >= 0 or None, default 0
        Seed of the row sample (``sample_size``) and of liblinear/saga, not of the CV folds.
    n_jobs : int >= 1, default 1
        Folds fitted in parallel.

    Attributes
    ----------
    ranking_ : int64 (d,)
        The selected features by |coefficient|, then the others by path entry.
    scores_ : float64 (d,)
        |coefficient| at the chosen penalty (standardised scale).
    selected_ : int64 (s,)
        Sorted indices of the nonzero coefficients at the chosen penalty.
    coef_ : float64 (d,)
        Coefficients at the chosen penalty, standardised scale.
    intercept_ : float
        Intercept at the chosen penalty.
    lambdas_, Cs_ : float64 (L,)
        The penalty path (glmnet's lambda and scikit-learn's C = 1 / (n lambda)).
    cv_mean_, cv_se_ : float64 (L,)
        Mean held-out log-loss along the path and its standard error.
    mean_, scale_ : float64 (d,)
        The standardisation.
    chosen_ : dict
        ``lambda``, ``C``, ``n_selected``, ``rule``, ``lambda_min``, ``C_min``,
        ``n_selected_min``, ``cv_logloss``, ``n_rows``.
    %(selector_fit_attributes)s

    References
    ----------
    Lei and Han. Feature selection and model comparison on Microsoft learning-to-rank data
    sets. UCSB report, 2017, section 2.2.1 (LASSO in binomial regression) and 3.2.1; Friedman,
    Hastie and Tibshirani, Regularization paths for generalized linear models via coordinate
    descent, J. Stat. Softw. 2010 (the solver). See docs/methods.md, section 'Statistical
    selectors (Lei & Han)'.

    Examples
    --------
    >>> from ltrfs.selection.l1_logistic import L1Logistic
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = L1Logistic(relevant_min=1, cv=2, n_lambdas=20).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "l1_logistic"
    #: the code-free state (``ltrfs.state``): the standardisation and the predicting weights
    state_attributes = Selector.state_attributes + ("mean_", "scale_", "_predict_coef")
    parameters = {
        "rule": [Options(*RULES)],
        "predict_rule": [Options(*RULES)],
        "relevant_min": [Integer(1)],
        "cv": [Integer(2)],
        "n_lambdas": [Integer(2)],
        "lambda_min_ratio": [Real(0, 1, closed="neither"), None],
        "solver": [Options(*SOLVERS)],
        "tol": [Real(0, None, closed="neither"), None],
        "max_iter": [Integer(1), None],
        "sample_size": [Integer(2), None],
        "random_state": [Integer(0), None],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, rule: str = "1se", predict_rule: str = "min", relevant_min: int = 2, cv: int = 10,
                 n_lambdas: int = 100, lambda_min_ratio: float | None = None, solver: str = "cd",
                 tol: float | None = None, max_iter: int | None = None, sample_size: int | None = None,
                 random_state: int = 0, n_jobs: int = 1):
        self.rule = rule
        self.predict_rule = predict_rule
        self.relevant_min = relevant_min
        self.cv = cv
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- the two solver families share the path, the folds and the choice
    def _path(self, Xs, yb, lambdas, stop_early):
        """(coef (L, d), intercept (L,), grad (d,) at the last model, lambdas (L,) fitted) for
        the full data (the cd path may stop early, as glmnet's)."""
        n = len(yb)
        if self.solver == "cd":
            res = st.l1_path(Xs, np.ones((n, 1), bool), yb[:, None].astype(np.float64), lambdas,
                             tol=self.tol or 1e-9, max_outer=self.max_iter or 100, stop_early=stop_early)
            return res["coef"], res["intercept"][:, 0], res["grad"], res["lambdas"]
        Cs = 1.0 / (n * lambdas)
        coef, intercept = sklearn_path(Xs, yb, Cs, self.solver, tol=self.tol or 1e-4,
                                       max_iter=self.max_iter or 1000, random_state=self.random_state)
        from scipy.special import expit  # heavy (scipy.special, ~0.3 s): imported on use

        p = expit(Xs @ coef[-1] + intercept[-1])
        return coef, intercept, Xs.T @ (yb - p) / n, lambdas

    def _fold_losses(self, Xs, yb, lambdas, folds):
        n = len(yb)

        def one(fold):
            train, test = fold
            if self.solver == "cd":
                res = st.l1_path(Xs[train], np.ones((len(train), 1), bool), yb[train][:, None].astype(np.float64),
                                 lambdas, tol=self.tol or 1e-9, max_outer=self.max_iter or 100)
                coef, intercept = res["coef"], res["intercept"][:, 0]
            else:
                coef, intercept = sklearn_path(Xs[train], yb[train], 1.0 / (n * lambdas), self.solver,
                                                  tol=self.tol or 1e-4, max_iter=self.max_iter or 1000,
                                                  random_state=self.random_state)
            from scipy.special import expit  # heavy (scipy.special, ~0.3 s): imported on use

            return [_mean_log_loss(yb[test], expit(Xs[test] @ coef[k] + intercept[k])) for k in range(len(lambdas))]

        if self.n_jobs > 1:
            with ThreadPoolExecutor(self.n_jobs) as pool:
                return np.array(list(pool.map(one, folds)))
        return np.array([one(f) for f in folds])

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        X, y, group = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        yb = st.binarise(y, self.relevant_min)
        Xs, self.mean_, self.scale_ = st.standardise(X)
        n, d = Xs.shape
        ratio = self.lambda_min_ratio or (1e-4 if n > d else 1e-2)
        mask = np.ones((n, 1), bool)
        lam_max = st.lambda_max(Xs, mask, yb[:, None].astype(np.float64))
        lambdas = st.lambda_path(lam_max, self.n_lambdas, ratio)
        coef_path, intercept_path, grad, lambdas = self._path(Xs, yb, lambdas, stop_early=self.solver == "cd")
        folds = st.grouped_folds(group, self.cv)
        fold_losses = self._fold_losses(Xs, yb, lambdas, folds)
        self.cv_mean_, self.cv_se_ = st.cv_summary(fold_losses)
        # an all-zero model (the most penalised end of the path) is never chosen
        best, one_se = st.one_se_index(st.without_degenerate(self.cv_mean_, coef_path, self.name), self.cv_se_)
        pick = {"min": best, "1se": one_se}
        k, k_pred = pick[self.rule], pick[self.predict_rule]
        self.lambdas_ = lambdas
        self.Cs_ = 1.0 / (n * lambdas)
        self.coef_path_ = coef_path
        self.coef_ = coef_path[k].copy()
        self.intercept_ = float(intercept_path[k])
        self._predict_coef = (coef_path[k_pred].copy(), float(intercept_path[k_pred]))
        self.selected_ = np.flatnonzero(self.coef_).astype(np.int64)
        self.scores_ = np.abs(self.coef_)
        self.ranking_ = st.path_ranking(coef_path, self.coef_, grad)
        self.chosen_ = {
            "rule": self.rule, "lambda": float(lambdas[k]), "C": float(self.Cs_[k]),
            "n_selected": int(len(self.selected_)),
            "lambda_min": float(lambdas[best]), "C_min": float(self.Cs_[best]),
            "n_selected_min": int(np.count_nonzero(coef_path[best])),
            "cv_logloss": float(self.cv_mean_[k]), "n_rows": int(n),
        }

    def predict_scores(self, X) -> np.ndarray:
        """P(relevant) of the ``predict_rule`` model.

        %(raw_features_parameters)s

        Returns
        -------
        float64 (m,)
        """
        from scipy.special import expit  # heavy (scipy.special, ~0.3 s): imported on use

        coef, intercept = self._predict_coef
        Xs = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return expit(Xs @ coef + intercept)

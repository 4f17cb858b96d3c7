"""L1-penalised continuation-ratio ordinal model (Lei & Han 2017, section 2.3.1).

The report fitted R's ``glmnetcr`` (backward formulation) on 10,000 sampled rows and chose
the penalty by BIC (26 nonzero features on MSLR-WEB). Model, for levels 0..K-1 of the sorted
distinct labels::

    logit P(y = r | y <= r, x) = alpha_r + beta . x,      r = 1, ..., K-1

(per-threshold intercepts alpha_r, one shared coefficient vector beta). Its likelihood is the
product of K-1 binary likelihoods on an expanded data set (``statistical.cr_expand``): block
r holds the rows with ``y <= r`` in their original order, target ``1[y = r]``; blocks are
stacked for r = 1..K-1 (glmnetcr's ``cr.backward`` order; a row of level 0 appears in every
block, a row of level r >= 1 in blocks r..K-1). glmnetcr fits this with glmnet, the threshold
indicator columns carrying penalty factor 0; here ``statistical.l1_path`` solves the same
problem directly (per-threshold intercepts, never penalised; glmnet's objective
``-(1/N) loglik + lambda ||beta||_1`` over the N expanded rows; features standardised over the
expanded rows, as glmnet standardises the expanded design).

Penalty path: glmnet's (``n_lambdas`` = 100 from lambda_max down to ``lambda_min_ratio``
times it, 1e-4 when rows outnumber features, else 1e-2), stopped early as glmnet does when
the deviance stops improving. Choice (glmnetcr's ``select.glmnet.cr``)::

    BIC = -2 loglik + df * log(n),   df = nonzero coefficients + (K - 1) threshold terms

``n`` is the number of original rows (``bic_n="rows"``, as glmnetcr computes it: the rows
are the independent observations) or of expanded rows (``bic_n="expanded"``);
``criterion="aic"`` uses ``2 df`` instead. The first minimum on the path wins.

Output like ``l1_logistic``: ``selected_`` the unordered nonzero set, ``ranking_`` that set
by |coefficient| then the rest by path entry (``statistical.path_ranking``), ``scores_`` =
|coefficient|. ``predict_scores(X)`` = the expected label ``sum_r r P(y = r | x)``.
"""
from __future__ import annotations

import numpy as np

from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector


def information_criterion(loglik: np.ndarray, df: np.ndarray, n: int, criterion: str = "bic") -> np.ndarray:
    """(L,) ``-2 loglik + df * log(n)`` (BIC) or ``-2 loglik + 2 df`` (AIC)."""
    penalty = np.log(n) if criterion == "bic" else 2.0
    return -2.0 * np.asarray(loglik, dtype=np.float64) + np.asarray(df, dtype=np.float64) * penalty


class OrdinalCR(Selector):
    """L1 continuation-ratio model (backward), penalty chosen by BIC on the path.

    Parameters (defaults): n_lambdas 100, lambda_min_ratio None (glmnet's rule), lambdas None
    (an explicit decreasing path instead; used as given, without early stop), criterion
    "bic" ("bic" or "aic"), bic_n "rows" ("rows" or "expanded"), tol 1e-9, max_iter 100
    (Newton steps per lambda), sample_size None (all rows; the report used 10,000),
    random_state 0 (row sample), n_jobs 1 (unused: one path).

    Learned: ranking_, scores_, selected_, coef_ (d,) standardised scale, intercept_ (K-1,),
    classes_ (K,), lambdas_, loglik_, df_, criterion_ (L,) along the path, coef_path_ (L, d),
    mean_/scale_, chosen_ {"lambda", "n_selected", "step" (1-based path index), "criterion",
    "value", "n_levels", "n_rows"}.
    """

    name = "ordinal_cr"

    def __init__(self, n_lambdas: int = 100, lambda_min_ratio: float | None = None, lambdas=None,
                 criterion: str = "bic", bic_n: str = "rows", tol: float = 1e-9, max_iter: int = 100,
                 sample_size: int | None = None, random_state: int = 0, n_jobs: int = 1):
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.lambdas = lambdas
        self.criterion = criterion
        self.bic_n = bic_n
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def validate_params(self):
        st.check_int("n_lambdas", self.n_lambdas, 2)
        st.check_choice("criterion", self.criterion, ("bic", "aic"))
        st.check_choice("bic_n", self.bic_n, ("rows", "expanded"))
        st.check_int("max_iter", self.max_iter, 1)
        st.check_int("n_jobs", self.n_jobs, 1)
        st.check_sample_size(self.sample_size)
        if self.lambda_min_ratio is not None and not 0 < self.lambda_min_ratio < 1:
            raise ValueError(f"lambda_min_ratio must be in (0, 1), got {self.lambda_min_ratio!r}")
        if not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol!r}")
        if self.lambdas is not None:
            lam = np.asarray(self.lambdas, dtype=np.float64)
            if lam.ndim != 1 or len(lam) == 0 or np.any(lam < 0) or np.any(np.diff(lam) > 0):
                raise ValueError("lambdas must be a non-empty decreasing list of non-negative values")

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.validate_params()
        X, y, _ = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        self.classes_, level = st.label_levels(y)
        K = len(self.classes_)
        if K < 2:
            raise ValueError(f"ordinal_cr needs at least 2 label levels, the data has only {self.classes_.tolist()}")
        mask, target = st.cr_masks(level, K)
        Xs, self.mean_, self.scale_ = st.standardise(X, weights=mask.sum(axis=1))
        n, d = Xs.shape
        if self.lambdas is None:
            ratio = self.lambda_min_ratio or (1e-4 if n > d else 1e-2)
            lambdas = st.lambda_path(st.lambda_max(Xs, mask, target), self.n_lambdas, ratio)
        else:
            lambdas = np.asarray(self.lambdas, dtype=np.float64)
        res = st.l1_path(Xs, mask, target, lambdas, tol=self.tol, max_outer=self.max_iter,
                         stop_early=self.lambdas is None)
        N = res["n_total"]
        self.lambdas_ = res["lambdas"]
        self.coef_path_ = res["coef"]
        self.intercept_path_ = res["intercept"]
        self.loglik_ = -N * res["loss"]
        self.df_ = np.count_nonzero(res["coef"], axis=1) + (K - 1)
        self.criterion_ = information_criterion(self.loglik_, self.df_, n if self.bic_n == "rows" else N,
                                                self.criterion)
        k = int(np.argmin(st.without_degenerate(self.criterion_, res["coef"], self.name)))  # never all zero
        self.coef_ = res["coef"][k].copy()
        self.intercept_ = res["intercept"][k].copy()
        self.selected_ = np.flatnonzero(self.coef_).astype(np.int64)
        self.scores_ = np.abs(self.coef_)
        self.ranking_ = st.path_ranking(res["coef"], self.coef_, res["grad"])
        self.chosen_ = {
            "lambda": float(self.lambdas_[k]), "n_selected": int(len(self.selected_)), "step": k + 1,
            "criterion": self.criterion, "value": float(self.criterion_[k]), "n_levels": K,
            "n_rows": int(n), "n_expanded": int(N),
        }

    def predict_proba(self, X) -> np.ndarray:
        """(m, K) class probabilities at the chosen penalty for raw features X (m, d)."""
        Xs = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return st.cr_probabilities(Xs @ self.coef_, self.intercept_)

    def predict_scores(self, X) -> np.ndarray:
        """(m,) expected label ``sum_r classes_[r] P(y = classes_[r] | x)``."""
        return st.expected_label(self.predict_proba(X), self.classes_)

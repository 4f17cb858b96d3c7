"""Linear SVM with recursive feature elimination (Lei & Han 2017, section 2.2.2).

The report trained a linear-kernel SVM classifier on the binarised labels (0,1 -> 0;
2,3,4 -> 1; cost tuned over 0.001, 0.01, 0.1, 1.5, 10, 100 on a 500-row sample: 0.001 won)
and ran caret's ``rfe`` to keep the best 10 features. Here: an SVM classifier, not the
pairwise RankSVM, to follow the report: scikit-learn's ``LinearSVC`` on standardised
features, ``1/2 ||w||^2 + C sum_i loss(y_i (w.x_i + b))`` (liblinear; the bias is
regularised too). ``loss="squared_hinge"`` (default, ``max(0, 1 - t)^2``) or ``"hinge"``
(``max(0, 1 - t)``, the report's kernlab soft-margin SVM). The default is the squared hinge
because with the hinge loss and few relevant rows the optimum is degenerate: on MQ2008 fold 1
(19% relevant rows) the hinge SVM gives |w| < 2e-4 and b = -1 for every C from 0.001 to 1 (all
rows on the irrelevant side), so |w| and the RFE order are numerical noise, while the squared
hinge gives a usable model. Recursive feature elimination follows scikit-learn's
``sklearn.feature_selection.RFE``: fit on the remaining features, drop the ``step`` features
of smallest |w_j| (``step`` an integer, or a fraction of the initial feature count, at least
1), refit, until one feature remains. ``ranking_`` is the reverse elimination order (the last
survivor first); features dropped in the same round are ordered by their |w| in that round
(scikit-learn gives them equal rank). With ``step=1`` the order equals ``RFE``'s ranking.

``C``: a number, or a list of numbers to choose from by ``cv``-fold cross-validated accuracy
on all features (folds grouped by query, as caret tuned on accuracy); the choice goes to
``chosen_["C"]``. ``predict_scores(X)`` = the decision value ``w.x + b`` of the SVM on all
features (the report ranked by class probabilities estimated for that model, a monotone
function of the decision value, so the ranking is the same).
"""
from __future__ import annotations

import numpy as np

from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector


def linear_svc(C: float, *, loss: str = "squared_hinge", tol: float = 1e-4, max_iter: int = 10000, random_state=0):
    """scikit-learn ``LinearSVC`` as used here (the dual solver for the hinge loss, which
    needs it; scikit-learn's choice, "auto", for the squared hinge)."""
    from sklearn.svm import LinearSVC

    return LinearSVC(C=C, loss=loss, dual=True if loss == "hinge" else "auto", tol=tol, max_iter=max_iter,
                     random_state=random_state)


def rfe_order(estimator, X: np.ndarray, y: np.ndarray, step=1) -> tuple[np.ndarray, list[int]]:
    """Recursive feature elimination down to one feature, as ``sklearn.feature_selection.RFE``.

    Each round clones ``estimator``, fits it on the remaining columns (kept in index order),
    and drops the ``min(step, remaining - 1)`` columns of smallest |coef_| (the order of
    ``np.argsort``, as RFE). ``step``: int >= 1, or a float in (0, 1) = that fraction of the
    initial number of features (at least 1). Returns (order, sizes): order (d,) best first
    (reverse elimination order; within a round by |coef| descending); sizes the number of
    features fitted in each round.
    """
    from sklearn.base import clone

    d = X.shape[1]
    n_step = int(max(1, step * d)) if 0 < step < 1 else int(step)
    remaining = np.arange(d)
    eliminated: list[np.ndarray] = []
    sizes: list[int] = []
    while len(remaining) > 1:
        est = clone(estimator).fit(X[:, remaining], y)
        importance = np.abs(np.asarray(est.coef_).reshape(-1, len(remaining))).sum(axis=0)
        ranks = np.argsort(importance)
        cut = min(n_step, len(remaining) - 1)
        sizes.append(len(remaining))
        eliminated.append(remaining[ranks[:cut]])  # worst first
        remaining = np.sort(remaining[ranks[cut:]])
    order = [remaining] + [e[::-1] for e in reversed(eliminated)]
    return np.concatenate(order).astype(np.int64), sizes


class SVMRFE(Selector):
    """Linear SVM classifier with recursive feature elimination on binarised labels.

    Parameters (defaults): C 0.001 (the report's tuned cost; a list -> chosen by grouped CV
    accuracy), step 1, relevant_min 2 (use 1 on 3-level LETOR data), loss "squared_hinge"
    ("squared_hinge" or "hinge"), cv 5 (folds to choose C from a list), tol 1e-4, max_iter 10000,
    sample_size None (all rows; the report used 10,000), random_state 0 (row sample and
    LinearSVC), n_jobs 1 (folds of the C choice in parallel).

    Learned: ranking_, rounds_ (number of features in each elimination round), coef_ (d,)
    and intercept_ of the all-feature SVM (standardised scale), mean_/scale_, cv_accuracy_
    (C -> accuracy, when C is a list), chosen_ {"C"}.
    """

    name = "svm_rfe"

    def __init__(self, C=0.001, step=1, relevant_min: int = 2, loss: str = "squared_hinge", cv: int = 5,
                 tol: float = 1e-4, max_iter: int = 10000, sample_size: int | None = None,
                 random_state: int = 0, n_jobs: int = 1):
        self.C = C
        self.step = step
        self.relevant_min = relevant_min
        self.loss = loss
        self.cv = cv
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _Cs(self) -> list[float]:
        return [float(c) for c in (self.C if isinstance(self.C, (list, tuple)) else [self.C])]

    def validate_params(self):
        try:
            Cs = self._Cs()
        except (TypeError, ValueError):
            raise ValueError(f"C must be a positive number or a list of them, got {self.C!r}") from None
        if not Cs or not all(c > 0 for c in Cs):
            raise ValueError(f"C must be a positive number or a list of them, got {self.C!r}")
        if isinstance(self.step, bool) or not ((isinstance(self.step, (int, np.integer)) and self.step >= 1)
                                               or (isinstance(self.step, float) and 0 < self.step < 1)):
            raise ValueError(f"step must be an integer >= 1 or a fraction in (0, 1), got {self.step!r}")
        st.check_choice("loss", self.loss, ("hinge", "squared_hinge"))
        st.check_int("relevant_min", self.relevant_min, 1)
        st.check_int("cv", self.cv, 2)
        st.check_int("max_iter", self.max_iter, 1)
        st.check_int("n_jobs", self.n_jobs, 1)
        st.check_sample_size(self.sample_size)
        if not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol!r}")

    def _svc(self, C):
        return linear_svc(C, loss=self.loss, tol=self.tol, max_iter=self.max_iter, random_state=self.random_state)

    def _choose_C(self, Xs, yb, group) -> float:
        Cs = self._Cs()
        self.cv_accuracy_ = None
        if len(Cs) == 1:
            return Cs[0]
        folds = st.grouped_folds(group, self.cv)

        def accuracy(C):
            hits = 0
            for train, test in folds:
                hits += int(np.sum(self._svc(C).fit(Xs[train], yb[train]).predict(Xs[test]) == yb[test]))
            return hits / len(yb)

        if self.n_jobs > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(self.n_jobs) as pool:
                acc = list(pool.map(accuracy, Cs))
        else:
            acc = [accuracy(C) for C in Cs]
        self.cv_accuracy_ = dict(zip(Cs, acc))
        return Cs[int(np.argmax(acc))]  # ties: the first (smallest if the list ascends)

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.validate_params()
        X, y, group = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        yb = st.binarise(y, self.relevant_min)
        Xs, self.mean_, self.scale_ = st.standardise(X)
        C = self._choose_C(Xs, yb, group)
        full = self._svc(C).fit(Xs, yb)
        self.coef_ = full.coef_[0].copy()
        self.intercept_ = float(full.intercept_[0])
        self.ranking_, self.rounds_ = rfe_order(self._svc(C), Xs, yb, self.step)
        self.chosen_ = {"C": C, "n_rows": int(len(yb))}
        if self.cv_accuracy_ is not None:
            self.chosen_["cv_accuracy"] = float(self.cv_accuracy_[C])

    def predict_scores(self, X) -> np.ndarray:
        """(m,) decision value of the all-feature SVM for raw features X (m, d)."""
        Xs = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return Xs @ self.coef_ + self.intercept_

"""Linear SVM with recursive feature elimination (Lei & Han 2017, section 2.2.2).

The report trained a linear-kernel SVM classifier on the binarised labels (0,1 -> 0;
2,3,4 -> 1; cost tuned over 0.001, 0.01, 0.1, 1.5, 10, 100 on a 500-row sample: 0.001 won),
estimated class probabilities from 50 bootstrap replicates of the training data, and ran
caret's ``rfe`` ("svmLinear", 20-fold cross-validation) to keep the best 10 features. Here: an
SVM classifier, not the pairwise RankSVM, to follow the report: scikit-learn's ``LinearSVC``
on standardised features, ``1/2 ||w||^2 + C sum_i loss(y_i (w.x_i + b))`` (liblinear; the
bias is regularised too). ``loss="squared_hinge"`` (default, ``max(0, 1 - t)^2``) or
``"hinge"`` (``max(0, 1 - t)``, the report's kernlab soft-margin SVM). The default is the
squared hinge because with the hinge loss and few relevant rows the optimum is degenerate: on
MQ2008 fold 1 (19% relevant rows) the hinge SVM gives |w| < 2e-4 and b = -1 for every C from
0.001 to 1 (all rows on the irrelevant side), and so does LIBSVM's (scikit-learn's ``SVC(kernel=
"linear")``, the bias not regularised: |w| < 0.01). That is the hinge loss, not the solver: w = 0,
b = -1 is optimal for every C whenever the relevant rows' mean is a combination of irrelevant
rows with weights in [0, 1] summing to the number of relevant rows (the dual's conditions). Then
|w| and the |w| elimination order are solver noise (on MQ2008 two liblinear seeds share 5 of
their top 10), while the squared hinge gives a usable, seed-free model. Features are
standardised once, on all the rows used (the C choice, the bootstrap replicates and the RFE
folds use that scale).

``importance="roc_auc"``: the order of caret's ``rfe(..., method = "svmLinear")``, which the
report ran. caret's ``rfe`` with ``caretFuncs`` ranks the features by ``varImp`` of the fitted
``train`` object, and ``svmLinear`` has no importance of its own, so ``varImp`` falls back to
``filterVarImp``: each feature's area under the ROC curve against the two classes (folded to
``max(AUC, 1 - AUC)``), a property of the data, not of the SVM. ``rfeControl``'s default
``rerank = FALSE`` computes it once, on all the training rows, and the subsets are the top s.
So with ``roc_auc`` the ranking is the same for either loss and any C; the SVM still gives the
probabilities and, with ``rfe_cv``, the accuracy of each top-s subset.

Recursive feature elimination follows scikit-learn's ``sklearn.feature_selection.RFE``: fit
on the remaining features, drop the ``step`` features of smallest |w_j| (``step`` an integer,
or a fraction of the initial feature count, at least 1), refit, until one feature remains.
``ranking_`` is the reverse elimination order of the run on all rows (the last survivor
first); features dropped in the same round are ordered by their |w| in that round
(scikit-learn gives them equal rank). With ``step=1`` the order equals ``RFE``'s ranking.

``C``: a number, or a list of numbers to choose from by ``cv``-fold cross-validated accuracy
(held-out rows classified right / all rows, folds grouped by query; caret tuned on accuracy)
on all features; the choice goes to ``chosen_["C"]``. ``tune_sample_size`` (default None =
all rows; the report's 500): the C choice uses that many ROWS drawn uniformly without
replacement (seeded by ``random_state``, a stream independent of ``sample_size``'s), as the
report's "random sub-sample of size 500" of its observations; the folds group them by their
query. The final SVM, the bootstrap and the RFE use all rows with the chosen C.

``rfe_cv`` (default 0 = none; the report's 20), caret's ``rfe`` with ``rfeControl(method =
"cv", number = 20)``: for each of ``rfe_cv`` folds grouped by query
(``statistical.grouped_folds``), the whole elimination is run on the fold's training part and
every round's SVM (and the last survivor's one-feature SVM) classifies the held-out part
(``roc_auc``: the fold's training part is ranked by ROC area once and an SVM on each top-s
subset classifies the held-out part, ``filter_heldout_accuracy``).
``rfe_curve_`` = {subset size: mean over folds of the held-out accuracy}, sizes as the
elimination visits them (d, d - step, ..., 1); ``rfe_best_size_`` the size of largest mean
accuracy (ties to the smaller size, caret's preference for fewer features only on exact ties).
As in caret, the resampling estimates the performance of each size; the ranking stays the
elimination order of the full training set.

``n_bootstrap`` (default 0; the report's 50): class probabilities from bootstrap replicates.
Replicate b (b = 1..B) draws n rows with replacement (seeded; rows, as caret's bootstrap
``createResample``), fits the SVM (chosen C, all features) on them, and fits Platt's sigmoid
``P_b(relevant | f) = 1 / (1 + exp(A_b f + B_b))`` to its decision values ``f`` on its
out-of-bag rows (``platt_sigmoid``: Platt's smoothed targets and the Newton method of Lin,
Lin & Weng 2007, as libsvm/kernlab). ``predict_scores(X)`` is then the mean over replicates::

    P(relevant | x) = (1/B) sum_b 1 / (1 + exp(A_b (w_b . x_s + c_b) + B_b))

(x_s the standardised row), and ``bootstrap_accuracy_`` (B,) the replicates' out-of-bag
accuracies (caret's bootstrap estimate of accuracy). Why this: the report says it "create[s]
50 bootstrap replicates of the training data to estimate class probabilities within each test
document", so the probabilities come from the replicates; out-of-bag rows are what a
replicate has not seen, so its sigmoid is calibrated on held-out decision values (kernlab
fits its sigmoid on cross-validated ones for the same reason), and averaging probabilities
is bagging. If the report's caret call was instead ``train(..., trControl =
trainControl(method = "boot", number = 50, classProbs = TRUE))``, caret used the replicates
only to estimate accuracy and predicted with kernlab's Platt sigmoid of ONE SVM fitted on all
rows: an increasing function of that SVM's decision value, which ranks exactly as
``n_bootstrap=0`` does. With ``n_bootstrap=0``, ``predict_scores(X)`` = the decision value
``w.x + b`` of the SVM on all features and all rows. The model stores coefficients, not
estimators: ``boot_coef_`` (B, d), ``boot_intercept_`` (B,), ``platt_`` (B, 2) = (A_b, B_b).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, ListOf, Options, Real
from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector


def linear_svc(C: float, *, loss: str = "squared_hinge", tol: float = 1e-4, max_iter: int = 10000, random_state=0):
    """scikit-learn's ``LinearSVC`` as used here.

    The dual solver for the hinge loss, which needs it; scikit-learn's choice ("auto") for the
    squared hinge.

    Parameters
    ----------
    C : float
    loss : {"squared_hinge", "hinge"}, default "squared_hinge"
    tol : float, default 1e-4
    max_iter : int, default 10000
    random_state : int or None, default 0

    Returns
    -------
    sklearn.svm.LinearSVC
        Not fitted.
    """
    from sklearn.svm import LinearSVC  # heavy (scikit-learn, ~1-2 s): imported on use

    return LinearSVC(C=C, loss=loss, dual=True if loss == "hinge" else "auto", tol=tol, max_iter=max_iter,
                     random_state=random_state)


def _eliminate(estimator, X: np.ndarray, y: np.ndarray, step, on_fit=None) -> tuple[np.ndarray, list[int]]:
    """The elimination of ``rfe_order``; ``on_fit(columns, fitted)`` is called after every fit
    (``columns`` the remaining column indices in index order, ``fitted`` the estimator fitted
    on ``X[:, columns]``); with ``on_fit``, the last survivor is fitted alone too."""
    from sklearn.base import clone  # heavy (scikit-learn, ~1-2 s): imported on use

    d = X.shape[1]
    n_step = int(max(1, step * d)) if 0 < step < 1 else int(step)
    remaining = np.arange(d)
    eliminated: list[np.ndarray] = []
    sizes: list[int] = []
    while len(remaining) > 1:
        est = clone(estimator).fit(X[:, remaining], y)
        if on_fit is not None:
            on_fit(remaining, est)
        importance = np.abs(np.asarray(est.coef_).reshape(-1, len(remaining))).sum(axis=0)
        ranks = np.argsort(importance)
        cut = min(n_step, len(remaining) - 1)
        sizes.append(len(remaining))
        eliminated.append(remaining[ranks[:cut]])  # worst first
        remaining = np.sort(remaining[ranks[cut:]])
    if on_fit is not None:
        on_fit(remaining, clone(estimator).fit(X[:, remaining], y))
    order = [remaining] + [e[::-1] for e in reversed(eliminated)]
    return np.concatenate(order).astype(np.int64), sizes


def rfe_order(estimator, X: np.ndarray, y: np.ndarray, step=1) -> tuple[np.ndarray, list[int]]:
    """Recursive feature elimination down to one feature, as ``sklearn.feature_selection.RFE``.

    Each round clones ``estimator``, fits it on the remaining columns (kept in index order), and
    drops the ``min(step, remaining - 1)`` columns of smallest |coef_| (in ``np.argsort`` order,
    as RFE).

    Parameters
    ----------
    estimator : scikit-learn linear classifier
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
    step : int >= 1 or float in (0, 1), default 1
        Columns dropped per round, or that fraction of the initial number (at least 1).

    Returns
    -------
    order : int64 (d,)
        Best first (reverse elimination order; within a round by |coef| descending).
    sizes : list of int
        Features fitted in each round.

    References
    ----------
    Guyon, Weston, Barnhill, Vapnik. Machine Learning 46, 2002.
    """
    return _eliminate(estimator, X, y, step)


def rfe_heldout_accuracy(estimator, X_train, y_train, X_test, y_test, step=1) -> dict[int, float]:
    """Held-out accuracy of every model of an elimination run.

    Parameters
    ----------
    estimator : scikit-learn linear classifier
    X_train, y_train : ndarray
        The run's data.
    X_test, y_test : ndarray
        The held-out rows.
    step : int or float, default 1
        As ``rfe_order``.

    Returns
    -------
    dict of int to float
        Subset size -> accuracy of every round's model and of the last survivor's, sizes
        descending.
    """
    accuracy: dict[int, float] = {}

    def record(columns, fitted):
        accuracy[len(columns)] = float(np.mean(fitted.predict(X_test[:, columns]) == y_test))

    _eliminate(estimator, X_train, y_train, step, record)
    return accuracy


def roc_auc_importance(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each column's area under the ROC curve against binary labels, folded to ``max(AUC, 1 - AUC)``.

    caret's ``filterVarImp`` for a two-class outcome (what ``varImp`` of a ``train`` object falls
    back to when the model has no importance of its own, as ``svmLinear``): the Mann-Whitney
    statistic ``AUC_j = (sum of the ranks of the relevant rows in column j - n1 (n1 + 1) / 2) /
    (n1 n0)``, equal values given their average rank (a tie counts 1/2).

    Parameters
    ----------
    X : ndarray, shape (m, d)
    y : ndarray of 0/1, shape (m,)
        Both classes present.

    Returns
    -------
    float64 (d,)
        In [0.5, 1].
    """
    from scipy.stats import rankdata  # heavy (scipy.stats, ~0.5 s): imported on use

    y = np.asarray(y)
    n1 = float(np.sum(y == 1))
    n0 = float(len(y) - n1)
    ranks = rankdata(np.asarray(X, dtype=np.float64), axis=0)  # average ranks of ties
    auc = (ranks[y == 1].sum(axis=0) - n1 * (n1 + 1.0) / 2.0) / (n1 * n0)
    return np.maximum(auc, 1.0 - auc)


def _subset_sizes(d: int, step) -> list[int]:
    """The subset sizes an elimination from ``d`` features visits, down to 1."""
    n_step = int(max(1, step * d)) if 0 < step < 1 else int(step)
    return list(range(d, 1, -n_step)) + [1]


def filter_heldout_accuracy(estimator, X_train, y_train, X_test, y_test, step=1) -> dict[int, float]:
    """Held-out accuracy of nested top-s subsets of one ROC-AUC ranking (caret's ``rfe``, ``rerank = FALSE``).

    The columns are ranked once by ``roc_auc_importance`` on the training part; for every size s
    of ``_subset_sizes`` the estimator is fitted on the s best and classifies the held-out part.

    Parameters
    ----------
    estimator : scikit-learn linear classifier
    X_train, y_train : ndarray
        The fold's training part.
    X_test, y_test : ndarray
        The held-out rows.
    step : int or float, default 1
        As ``rfe_order`` (the sizes visited).

    Returns
    -------
    dict of int to float
        Subset size -> accuracy, sizes descending.
    """
    from sklearn.base import clone  # heavy (scikit-learn, ~1-2 s): imported on use

    order = np.argsort(-roc_auc_importance(X_train, y_train), kind="stable")
    accuracy: dict[int, float] = {}
    for size in _subset_sizes(X_train.shape[1], step):
        columns = np.sort(order[:size])
        fitted = clone(estimator).fit(X_train[:, columns], y_train)
        accuracy[size] = float(np.mean(fitted.predict(X_test[:, columns]) == y_test))
    return accuracy


def platt_sigmoid(f: np.ndarray, y: np.ndarray, max_iter: int = 100, min_step: float = 1e-10,
                  sigma: float = 1e-12, eps: float = 1e-5) -> tuple[float, float]:
    """Platt's sigmoid ``P(y = 1 | f) = 1 / (1 + exp(A f + B))`` fitted to decision values.

    Minimises the cross-entropy against Platt's smoothed targets ``(N+ + 1) / (N+ + 2)`` for
    positives and ``1 / (N- + 2)`` for negatives by Newton's method with backtracking.

    Parameters
    ----------
    f : ndarray, shape (n,)
        Decision values.
    y : ndarray, shape (n,)
        0/1 labels.
    max_iter : int, default 100
    min_step : float, default 1e-10
    sigma : float, default 1e-12
        Hessian regularisation.
    eps : float, default 1e-5
        Stopping tolerance on the gradient.

    Returns
    -------
    (float, float)
        (A, B); a sample of one class gives A = 0 (a constant probability).

    References
    ----------
    Lin, Lin, Weng. A note on Platt's probabilistic outputs for support vector machines. Machine
    Learning 68, 2007 (libsvm's ``sigmoid_train``, which kernlab uses).
    """
    from scipy.special import expit  # heavy (scipy.special, ~0.3 s): imported on use

    f = np.asarray(f, dtype=np.float64)
    y = np.asarray(y)
    n_pos = float(np.sum(y == 1))
    n_neg = float(len(y) - n_pos)
    t = np.where(y == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def objective(A, B):
        z = A * f + B
        return float(np.sum(t * z + np.logaddexp(0.0, -z)))

    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    fval = objective(A, B)
    for _ in range(max_iter):
        p = expit(-(A * f + B))  # P(y = 1)
        d2 = p * (1.0 - p)
        h11 = sigma + float(np.sum(f * f * d2))
        h22 = sigma + float(np.sum(d2))
        h21 = float(np.sum(f * d2))
        d1 = t - p
        g1 = float(np.sum(f * d1))
        g2 = float(np.sum(d1))
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            new = objective(A + step * dA, B + step * dB)
            if new < fval + 1e-4 * step * gd:
                A, B, fval = A + step * dA, B + step * dB, new
                break
            step /= 2.0
        if step < min_step:  # line search failed: at the optimum within rounding
            break
    return A, B


def _check_two_classes(yb: np.ndarray, what: str) -> None:
    n_pos = int(np.sum(yb))
    if n_pos == 0 or n_pos == len(yb):
        kind = "irrelevant" if n_pos == 0 else "relevant"
        raise ValueError(f"svm_rfe: {what} has a single class ({len(yb)} rows, all {kind}); an SVM needs "
                         "relevant and irrelevant rows")


@fill_doc
class SVMRFE(Selector):
    """Linear SVM classifier on binarised labels with recursive feature elimination.

    ``ranking_`` is the reverse elimination order of the run on all rows (the last survivor
    first; module docstring); C is given or chosen by grouped cross-validated accuracy.

    Parameters
    ----------
    C : float > 0 or list of float > 0, default 0.001
        The SVM cost (the report's tuned value); a list is chosen from by ``cv``-fold accuracy.
    step : int >= 1 or float in (0, 1), default 1
        Features dropped per elimination round: a count, or a fraction of the initial count.
    relevant_min : int >= 1, default 2
        Labels ``>= relevant_min`` are relevant (use 1 on 3-level LETOR data).
    loss : {"squared_hinge", "hinge"}, default "squared_hinge"
        ``max(0, 1 - t)^2`` or the report's ``max(0, 1 - t)`` (module docstring on why the squared
        hinge is the default).
    importance : {"weights", "roc_auc"}, default "weights"
        The order: recursive elimination by |w| (Guyon et al.), or caret's ``rfe`` with
        ``method = "svmLinear"`` as the report ran it: the features by their ROC area
        (``roc_auc_importance``) on all rows, once (module docstring).
    cv : int >= 2, default 5
        Folds to choose C from a list, grouped by query and fixed whatever the seed (as
        l1_logistic's: ``statistical.grouped_folds``).
    tune_sample_size : int or None, default None
        Rows drawn for the C choice; None: all (the report used 500).
    n_bootstrap : int >= 0, default 0
        Bootstrap replicates for class probabilities; 0 ranks by the decision value (the report
        used 50).
    rfe_cv : int, 0 or >= 2, default 0
        Folds of the resampled elimination curve, grouped by query and fixed whatever the seed;
        0: none (the report used 20).
    tol : float > 0, default 1e-4
        liblinear's tolerance.
    max_iter : int >= 1, default 10000
        liblinear's iterations.
    sample_size : int >= 2 or None, default None
        Rows drawn (seeded) to fit on; None: all rows (the report used 10,000).
    random_state : int >= 0 or None, default 0
        Seed of the row samples, the bootstrap and LinearSVC.
    n_jobs : int >= 1, default 1
        Threads over C candidates, bootstrap replicates and RFE folds.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Reverse elimination order (``roc_auc``: descending ROC area, ties in column order).
    scores_ : None
    rounds_ : list of int
        Number of features in each elimination round (``roc_auc``: the nested subset sizes above
        1 that the curve fits).
    coef_ : float64 (d,)
        Weights of the all-feature SVM (standardised scale).
    intercept_ : float
        Its bias.
    mean_, scale_ : float64 (d,)
        The standardisation.
    cv_accuracy_ : dict
        C -> accuracy (when C is a list).
    tune_rows_ : int64 array or None
        Rows used to choose C (into the rows used), or None.
    boot_coef_, boot_intercept_, platt_, bootstrap_accuracy_
        With ``n_bootstrap``: (B, d), (B,), (B, 2) and (B,) per replicate.
    rfe_curve_ : dict
        With ``rfe_cv``: subset size -> mean held-out accuracy.
    rfe_best_size_ : int
        With ``rfe_cv``: the size of best accuracy (ties: smaller).
    chosen_ : dict
        ``C``, ``n_rows``; ``cv_accuracy`` and ``n_tune_rows`` (C from a list);
        ``bootstrap_accuracy``; ``rfe_best_size``, ``rfe_accuracy``, ``rfe_curve``.
    %(selector_fit_attributes)s

    References
    ----------
    Lei and Han. Feature selection and model comparison on Microsoft learning-to-rank data
    sets. UCSB report, 2017, section 2.2.2 (support vector machine on binary classification) and
    3.2.2; Guyon, Weston, Barnhill, Vapnik. Gene selection for cancer classification using
    support vector machines. Machine Learning 2002 (SVM-RFE). See docs/methods.md, section
    'Statistical selectors (Lei & Han)'.

    Examples
    --------
    >>> from ltrfs.selection.svm_rfe import SVMRFE
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = SVMRFE(relevant_min=1).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "svm_rfe"
    #: the code-free state (``ltrfs.state``): the standardisation, the SVM and, with bootstraps,
    #: their SVMs and Platt scalings
    state_attributes = Selector.state_attributes + ("mean_", "scale_", "coef_", "intercept_", "platt_",
                                                    "boot_coef_", "boot_intercept_")
    optional_state_attributes = ("platt_", "boot_coef_", "boot_intercept_")
    parameters = {
        "C": [Real(0, None, closed="neither"), ListOf(Real(0, None, closed="neither"))],
        "step": [Integer(1), Real(0, 1, closed="neither")],  # a count, or a fraction of the features
        "relevant_min": [Integer(1)],
        "loss": [Options("squared_hinge", "hinge")],
        "importance": [Options("weights", "roc_auc")],
        "cv": [Integer(2)],
        "tune_sample_size": [Integer(2), None],
        "n_bootstrap": [Integer(0)],
        "rfe_cv": [Options(0), Integer(2)],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Integer(1)],
        "sample_size": [Integer(2), None],
        "random_state": [Integer(0), None],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, C=0.001, step=1, relevant_min: int = 2, loss: str = "squared_hinge",
                 importance: str = "weights", cv: int = 5, tune_sample_size: int | None = None,
                 n_bootstrap: int = 0, rfe_cv: int = 0, tol: float = 1e-4, max_iter: int = 10000,
                 sample_size: int | None = None, random_state: int = 0, n_jobs: int = 1):
        self.C = C
        self.step = step
        self.relevant_min = relevant_min
        self.loss = loss
        self.importance = importance
        self.cv = cv
        self.tune_sample_size = tune_sample_size
        self.n_bootstrap = n_bootstrap
        self.rfe_cv = rfe_cv
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _Cs(self) -> list[float]:
        return [float(c) for c in (self.C if np.ndim(self.C) else [self.C])]

    def _svc(self, C):
        return linear_svc(C, loss=self.loss, tol=self.tol, max_iter=self.max_iter, random_state=self.random_state)

    def _seed(self, *stream):
        """Seed of an independent random stream (None when random_state is None)."""
        return None if self.random_state is None else [int(self.random_state), *stream]

    def _map(self, fn, items) -> list:
        """[fn(item)] in order, on ``n_jobs`` threads when n_jobs > 1 (liblinear releases the GIL)."""
        items = list(items)
        if self.n_jobs > 1 and len(items) > 1:
            with ThreadPoolExecutor(min(self.n_jobs, len(items))) as pool:
                return list(pool.map(fn, items))
        return [fn(item) for item in items]

    def _choose_C(self, Xs, yb, group) -> float:
        Cs = self._Cs()
        self.cv_accuracy_ = None
        self.tune_rows_ = None
        if len(Cs) == 1:
            return Cs[0]
        rows = st.subsample_rows(len(yb), self.tune_sample_size, self._seed(1))
        if rows is not None:
            self.tune_rows_ = rows.astype(np.int64)
            Xs, yb, group = Xs[rows], yb[rows], group[rows]
            _check_two_classes(yb, f"the {len(rows)}-row sample for choosing C (tune_sample_size)")
        folds = st.grouped_folds(group, self.cv)
        for i, (train, _) in enumerate(folds, start=1):
            _check_two_classes(yb[train], f"the training part of C-choice fold {i} of {self.cv}")

        def accuracy(C):
            hits = 0
            for train, test in folds:
                hits += int(np.sum(self._svc(C).fit(Xs[train], yb[train]).predict(Xs[test]) == yb[test]))
            return hits / len(yb)

        acc = self._map(accuracy, Cs)
        self.cv_accuracy_ = dict(zip(Cs, acc))
        return Cs[int(np.argmax(acc))]  # ties: the first (smallest if the list ascends)

    def _bootstrap(self, Xs, yb, C) -> None:
        """Fit the replicates (module doc): boot_coef_, boot_intercept_, platt_, bootstrap_accuracy_."""
        n = len(yb)
        B = self.n_bootstrap

        def replicate(b):
            rng = np.random.default_rng(self._seed(2, b))
            rows = rng.integers(0, n, size=n)
            oob = np.ones(n, dtype=bool)
            oob[rows] = False
            _check_two_classes(yb[rows], f"bootstrap replicate {b + 1} of {B}")
            if not oob.any():
                raise ValueError(f"svm_rfe: bootstrap replicate {b + 1} of {B} has no out-of-bag row "
                                 f"({n} rows); use more rows")
            svc = self._svc(C).fit(Xs[rows], yb[rows])
            w, c = svc.coef_[0].copy(), float(svc.intercept_[0])
            f = Xs[oob] @ w + c
            A, Bp = platt_sigmoid(f, yb[oob])
            return w, c, (A, Bp), float(np.mean((f > 0).astype(np.int64) == yb[oob]))

        out = self._map(replicate, range(B))
        self.boot_coef_ = np.array([o[0] for o in out], dtype=np.float64).reshape(B, Xs.shape[1])
        self.boot_intercept_ = np.array([o[1] for o in out], dtype=np.float64)
        self.platt_ = np.array([o[2] for o in out], dtype=np.float64).reshape(B, 2)
        self.bootstrap_accuracy_ = np.array([o[3] for o in out], dtype=np.float64)

    def _rfe_curve(self, Xs, yb, group, C) -> None:
        """Resampled elimination (module doc): rfe_curve_, rfe_best_size_."""
        n_queries = len(np.unique(group))
        if n_queries < self.rfe_cv:
            raise ValueError(f"svm_rfe: rfe_cv={self.rfe_cv} folds need at least {self.rfe_cv} queries, "
                             f"the data has {n_queries}")
        folds = st.grouped_folds(group, self.rfe_cv)
        for i, (train, _) in enumerate(folds, start=1):
            _check_two_classes(yb[train], f"the training part of RFE fold {i} of {self.rfe_cv} (rfe_cv)")
        heldout = filter_heldout_accuracy if self.importance == "roc_auc" else rfe_heldout_accuracy
        per_fold = self._map(lambda fold: heldout(self._svc(C), Xs[fold[0]], yb[fold[0]], Xs[fold[1]],
                                                  yb[fold[1]], self.step), folds)
        sizes = list(per_fold[0])
        self.rfe_curve_ = {int(s): float(np.mean([acc[s] for acc in per_fold])) for s in sizes}
        best = max(self.rfe_curve_.values())
        self.rfe_best_size_ = min(s for s, a in self.rfe_curve_.items() if a == best)

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        X, y, group = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        yb = st.binarise(y, self.relevant_min)
        Xs, self.mean_, self.scale_ = st.standardise(X)
        C = self._choose_C(Xs, yb, group)
        full = self._svc(C).fit(Xs, yb)
        self.coef_ = full.coef_[0].copy()
        self.intercept_ = float(full.intercept_[0])
        if self.importance == "roc_auc":  # caret's rank for a model without importance: ROC area, once
            self.ranking_ = np.argsort(-roc_auc_importance(Xs, yb), kind="stable").astype(np.int64)
            self.rounds_ = _subset_sizes(Xs.shape[1], self.step)[:-1]
        else:
            self.ranking_, self.rounds_ = rfe_order(self._svc(C), Xs, yb, self.step)
        self.chosen_ = {"C": C, "n_rows": int(len(yb))}
        if self.cv_accuracy_ is not None:
            self.chosen_["cv_accuracy"] = float(self.cv_accuracy_[C])
            self.chosen_["n_tune_rows"] = len(yb) if self.tune_rows_ is None else len(self.tune_rows_)
        for name in ("boot_coef_", "boot_intercept_", "platt_", "bootstrap_accuracy_", "rfe_curve_",
                     "rfe_best_size_"):
            if hasattr(self, name):  # a refit without them must not keep an earlier fit's
                delattr(self, name)
        if self.n_bootstrap:
            self._bootstrap(Xs, yb, C)
            self.chosen_["bootstrap_accuracy"] = float(self.bootstrap_accuracy_.mean())
        if self.rfe_cv:
            self._rfe_curve(Xs, yb, group, C)
            self.chosen_.update({"rfe_best_size": int(self.rfe_best_size_),
                                 "rfe_accuracy": self.rfe_curve_[self.rfe_best_size_],
                                 "rfe_curve": [[s, a] for s, a in self.rfe_curve_.items()]})

    def decision_function(self, X) -> np.ndarray:
        """Decision value ``w.x + b`` of the all-feature SVM.

        %(raw_features_parameters)s

        Returns
        -------
        float64 (m,)
        """
        Xs = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return Xs @ self.coef_ + self.intercept_

    def predict_proba_relevant(self, X, block_rows: int = 65536) -> np.ndarray:
        """Bootstrap estimate of P(relevant | x) (module docstring); needs ``n_bootstrap >= 1``.

        %(raw_features_parameters)s
        block_rows : int, default 65536
            Rows per block (memory O(block_rows * B)).

        Returns
        -------
        float64 (m,)
        """
        if not hasattr(self, "platt_"):
            raise ValueError("svm_rfe: P(relevant) needs a model fitted with n_bootstrap >= 1")
        from scipy.special import expit  # heavy (scipy.special, ~0.3 s): imported on use

        X = np.asarray(X, dtype=np.float64)
        out = np.empty(len(X))
        A, B = self.platt_[:, 0], self.platt_[:, 1]
        for lo in range(0, len(X), block_rows):
            Xs = (X[lo:lo + block_rows] - self.mean_) / self.scale_
            F = Xs @ self.boot_coef_.T + self.boot_intercept_  # (rows, B)
            out[lo:lo + block_rows] = expit(-(F * A + B)).mean(axis=1)
        return out

    def predict_scores(self, X) -> np.ndarray:
        """Ranking scores: bootstrap P(relevant | x) with ``n_bootstrap >= 1``, else the decision value.

        %(raw_features_parameters)s

        Returns
        -------
        float64 (m,)
        """
        if hasattr(self, "platt_"):
            return self.predict_proba_relevant(X)
        return self.decision_function(X)

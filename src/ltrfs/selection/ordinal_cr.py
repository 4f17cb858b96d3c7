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
the deviance stops improving. Criterion along the path (glmnetcr's ``select.glmnet.cr``)::

    BIC = -2 loglik + df * log(n),   df = nonzero coefficients + (K - 1) threshold terms

``n`` is the number of original rows (``bic_n="rows"``, as glmnetcr computes it: the rows
are the independent observations) or of expanded rows (``bic_n="expanded"``);
``criterion="aic"`` uses ``2 df`` instead.

Choice on the path (``choose_on_path``). The report did not take the BIC minimum: "Figure
2.1 can be used to identify a more parsimonious model having a BIC close to the minimum BIC;
finally we chose the model when step = 32" (26 nonzero features, 10,000 rows). Default
``choice="parsimonious"``: among the models whose criterion is at most
``minimum + tolerance * scale``, the one with the fewest nonzero coefficients, on ties the
most penalised (earliest on the path). ``choice="min"`` takes the first minimum (glmnetcr's
``select.glmnet.cr``). Models with all coefficients zero are never chosen (nor count as the
minimum). ``tolerance_unit`` says what ``scale`` is:

* ``"range"`` (default): the height of the report's Fig. 2.1, the criterion's span along the
  path, ``max - min`` over every step (step 1, lambda_max, is the intercept-only model, so
  this is the drop from the null model to the best one). The report judged "close" by eye on
  that figure, whose y-axis spans exactly this range, so a fraction of it is the form of
  tolerance that matches what the report did; it is also free of the data's size and label
  entropy (a fraction of the BIC value is not: the null deviance enters it);
* ``"relative"``: ``|minimum|`` (``tolerance=0.001`` = within 0.1% of the minimal BIC);
* ``"absolute"``: criterion units (``tolerance=2`` = Kass & Raftery's "not worth more than a
  bare mention" difference of BIC; at 10,000 rows one feature costs log(10^4) = 9.2 units).

Default ``tolerance=0.01`` (1% of the range): the report's text gives the chosen step and
size but not the values of Fig. 2.1 (a figure; its numbers are not in the text), so the
tolerance that reproduces step 32 cannot be read off. On R's default 7-inch device the
plotting region is about 5 inches high and a plotted point about 0.1 inch (2% of it), so
points within 1% of the range sit within half a point of the minimum's height: level to the
eye, the literal reading of "a BIC close to the minimum" read from the figure. It gives up
1% of the BIC improvement over the null model. At the report's sample size it moves a few features
(MQ2008 Fold 1 train, 9,630 rows: BIC range 1,277; minimum at step 42 with 16 features,
chosen step 34 with 14; OHSUMED Fold 1, 9,219 rows: range 908, minimum at step 78, chosen
step 74, 33 features both); 0.1% of the BIC value (``"relative"``, ``0.001``) moves less
(steps 37 and 71: 15 and 33 features), 2 BIC units (``"absolute"``) almost nothing (steps 42
and 77). ``tolerance=0`` equals ``choice="min"``.

Output like ``l1_logistic``: ``selected_`` the unordered nonzero set, ``ranking_`` that set
by |coefficient| then the rest by path entry (``statistical.path_ranking``), ``scores_`` =
|coefficient|. ``predict_scores(X)`` = the expected label ``sum_r r P(y = r | x)``.
``details_["path"]`` (step, lambda, criterion, n_features per step) goes to the selection
file for the figure of the criterion path (Fig. 2.1).
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, ListOf, Options, Real
from ltrfs.ranking_data import label_levels
from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector


def information_criterion(loglik: np.ndarray, df: np.ndarray, n: int, criterion: str = "bic") -> np.ndarray:
    """BIC ``-2 loglik + df log(n)`` or AIC ``-2 loglik + 2 df`` along a path.

    Parameters
    ----------
    loglik, df : ndarray, shape (L,)
    n : int
    criterion : {"bic", "aic"}, default "bic"

    Returns
    -------
    float64 (L,)
    """
    penalty = np.log(n) if criterion == "bic" else 2.0
    return -2.0 * np.asarray(loglik, dtype=np.float64) + np.asarray(df, dtype=np.float64) * penalty


CHOICES = ("parsimonious", "min")
TOLERANCE_UNITS = ("range", "relative", "absolute")


def choose_on_path(values, n_nonzero, choice: str = "parsimonious", tolerance: float = 0.01,
                   tolerance_unit: str = "range", what: str = "ordinal_cr") -> tuple[int, int, float]:
    """The chosen model on a path ordered from the most to the least penalised.

    Models with ``n_nonzero == 0`` are never chosen and do not count as the minimum
    (``statistical.without_degenerate``). The minimum is the first index of the smallest value.
    "min" chooses it (bound = the minimum); "parsimonious" chooses, among the models with
    ``value <= minimum + tolerance * scale`` (the bound), the one of fewest nonzero coefficients,
    ties to the earliest.

    Parameters
    ----------
    values : array-like, shape (L,)
        The criterion (lower is better).
    n_nonzero : array-like of int, shape (L,)
        Nonzero coefficients of each model.
    choice : {"parsimonious", "min"}, default "parsimonious"
    tolerance : float >= 0, default 0.01
    tolerance_unit : {"range", "relative", "absolute"}, default "range"
        ``scale``: ``max - min`` of the finite values of the whole path (degenerate models
        included: they are drawn in the figure), ``|min|``, or 1.
    what : str, default "ordinal_cr"
        Named in the error.

    Returns
    -------
    (int, int, float)
        (chosen index, index of the minimum, bound).

    Raises
    ------
    DegenerateGridError
        When every model of the path is degenerate.

    References
    ----------
    Lei and Han, UCSB report 2017, section 3.2.3 and Fig. 2.1.

    Examples
    --------
    >>> choose_on_path([10.0, 5.0, 4.0, 3.9, 3.95], [0, 1, 2, 3, 4], tolerance=0.05)
    (2, 3, 4.205)
    """
    values = np.asarray(values, dtype=np.float64)
    n_nonzero = np.asarray(n_nonzero)
    usable = st.without_degenerate(values, n_nonzero, what)
    k_min = int(np.argmin(usable))
    best = float(usable[k_min])
    if choice == "min":
        return k_min, k_min, best
    finite = values[np.isfinite(values)]
    scale = {"range": float(finite.max() - finite.min()) if len(finite) else 0.0,
             "relative": abs(best), "absolute": 1.0}[tolerance_unit]
    bound = best + float(tolerance) * scale
    candidates = np.flatnonzero(usable <= bound)  # includes k_min
    fewest = n_nonzero[candidates].min()
    return int(candidates[n_nonzero[candidates] == fewest][0]), k_min, bound


@fill_doc
class OrdinalCR(Selector):
    """L1-penalised continuation-ratio ordinal model, the penalty chosen on the path by BIC.

    The features with a nonzero coefficient at the chosen penalty come first (by |coefficient|),
    then the others by path entry (``statistical.path_ranking``; module docstring).

    Parameters
    ----------
    n_lambdas : int >= 1, default 100
        Length of the penalty path.
    lambda_min_ratio : float or None, default None
        Smallest penalty as a fraction of ``lambda_max``; None: glmnet's rule.
    lambdas : list of float >= 0 or None, default None
        An explicit decreasing path instead (used as given, without early stop).
    criterion : {"bic", "aic"}, default "bic"
        The criterion along the path.
    bic_n : {"rows", "expanded"}, default "rows"
        The n of ``log(n)`` in BIC: original rows (glmnetcr) or expanded rows.
    choice : {"parsimonious", "min"}, default "parsimonious"
        The sparsest model within the tolerance of the minimum (as the report), or the minimum.
    tolerance : float >= 0, default 0.01
        How far above the minimum "parsimonious" may go (0 gives the minimum).
    tolerance_unit : {"range", "relative", "absolute"}, default "range"
        Unit of ``tolerance``: fraction of the criterion's span along the path, fraction of
        |minimum|, or criterion units.
    tol : float > 0, default 1e-9
        Convergence tolerance of the solver (``statistical.l1_path``).
    max_iter : int >= 1, default 100
        Newton steps per lambda.
    sample_size : int >= 2 or None, default None
        Rows drawn (seeded) to fit on; None: all rows (the report used 10,000).
    random_state : int >= 0 or None, default 0
        Seed of the row sample.
    n_jobs : int >= 1, default 1
        Unused (one path); accepted for a uniform interface.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Selected features by |coefficient|, then the others by path entry.
    scores_ : float64 (d,)
        |coefficient| at the chosen penalty.
    selected_ : int64 (s,)
        Sorted indices of the nonzero coefficients.
    coef_ : float64 (d,)
        Shared coefficients, standardised scale.
    intercept_ : float64 (K-1,)
        Per-threshold intercepts.
    classes_ : (K,)
        The sorted distinct labels.
    lambdas_, loglik_, df_, criterion_ : float64 (L,)
        Along the path.
    coef_path_ : float64 (L, d)
        Coefficients along the path.
    mean_, scale_ : float64 (d,)
        The standardisation.
    details_ : dict
        ``path``: ``step``, ``lambda``, ``criterion``, ``n_features`` per step.
    chosen_ : dict
        ``lambda``, ``n_selected``, ``step`` (1-based), ``criterion``, ``value``, ``choice``,
        ``tolerance``, ``tolerance_unit``, ``bound``; ``min_step``, ``min_lambda``,
        ``min_n_selected``, ``min_value`` of the minimum; ``n_levels``, ``n_rows``, ``n_expanded``.
    %(selector_fit_attributes)s

    References
    ----------
    Lei and Han. Feature selection and model comparison on Microsoft learning-to-rank data
    sets. UCSB report, 2017, section 2.3.1 (continuation ratio model), section 3.2.3 and Fig.
    2.1 (the parsimonious choice); Archer and Williams, L1 penalized continuation ratio models
    for ordinal response prediction using high-dimensional datasets, Stat. Med. 2012 (glmnetcr).
    See docs/methods.md, section 'Statistical selectors (Lei & Han)'.

    Examples
    --------
    >>> from ltrfs.selection.ordinal_cr import OrdinalCR
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = OrdinalCR().fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.chosen_["n_selected"]           # nonzero coefficients of the chosen model
    3
    """

    name = "ordinal_cr"
    #: the code-free state (``ltrfs.state``): the standardisation, weights, cut points and classes
    state_attributes = Selector.state_attributes + ("mean_", "scale_", "coef_", "intercept_", "classes_")
    parameters = {
        "n_lambdas": [Integer(2)],
        "lambda_min_ratio": [Real(0, 1, closed="neither"), None],
        "lambdas": [ListOf(Real(0)), None],  # decreasing: validate_params
        "criterion": [Options("bic", "aic")],
        "bic_n": [Options("rows", "expanded")],
        "choice": [Options(*CHOICES)],
        "tolerance": [Real(0)],
        "tolerance_unit": [Options(*TOLERANCE_UNITS)],
        "tol": [Real(0, None, closed="neither")],
        "max_iter": [Integer(1)],
        "sample_size": [Integer(2), None],
        "random_state": [Integer(0), None],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, n_lambdas: int = 100, lambda_min_ratio: float | None = None, lambdas=None,
                 criterion: str = "bic", bic_n: str = "rows", choice: str = "parsimonious",
                 tolerance: float = 0.01, tolerance_unit: str = "range", tol: float = 1e-9, max_iter: int = 100,
                 sample_size: int | None = None, random_state: int = 0, n_jobs: int = 1):
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.lambdas = lambdas
        self.criterion = criterion
        self.bic_n = bic_n
        self.choice = choice
        self.tolerance = tolerance
        self.tolerance_unit = tolerance_unit
        self.tol = tol
        self.max_iter = max_iter
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def validate_params(self):
        """Check the declared parameters, and that an explicit ``lambdas`` path decreases."""
        super().validate_params()
        if self.lambdas is not None and np.any(np.diff(np.asarray(self.lambdas, dtype=np.float64)) > 0):
            raise ValueError(f"{self.name}: lambdas must be decreasing; got {self.lambdas!r}")

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        X, y, _ = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        self.classes_, level = label_levels(y)
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
        n_nonzero = np.count_nonzero(res["coef"], axis=1)
        k, k_min, bound = choose_on_path(self.criterion_, n_nonzero, self.choice, self.tolerance,
                                         self.tolerance_unit, self.name)  # never all zero
        self.coef_ = res["coef"][k].copy()
        self.intercept_ = res["intercept"][k].copy()
        self.selected_ = np.flatnonzero(self.coef_).astype(np.int64)
        self.scores_ = np.abs(self.coef_)
        self.ranking_ = st.path_ranking(res["coef"], self.coef_, res["grad"])
        self.chosen_ = {
            "lambda": float(self.lambdas_[k]), "n_selected": int(len(self.selected_)), "step": k + 1,
            "criterion": self.criterion, "value": float(self.criterion_[k]),
            "choice": self.choice, "tolerance": float(self.tolerance), "tolerance_unit": self.tolerance_unit,
            "bound": float(bound), "min_step": k_min + 1, "min_lambda": float(self.lambdas_[k_min]),
            "min_n_selected": int(n_nonzero[k_min]), "min_value": float(self.criterion_[k_min]),
            "n_levels": K, "n_rows": int(n), "n_expanded": int(N),
        }
        self.details_ = {"path": {"step": list(range(1, len(self.lambdas_) + 1)),
                                  "lambda": [float(v) for v in self.lambdas_],
                                  "criterion": [float(v) for v in self.criterion_],
                                  "n_features": [int(v) for v in n_nonzero]}}

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities at the chosen penalty.

        %(raw_features_parameters)s

        Returns
        -------
        float64 (m, K)
        """
        Xs = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return st.cr_probabilities(Xs @ self.coef_, self.intercept_)

    def predict_scores(self, X) -> np.ndarray:
        """The expected label ``sum_r classes_[r] P(y = classes_[r] | x)``.

        %(raw_features_parameters)s

        Returns
        -------
        float64 (m,)
        """
        return st.expected_label(self.predict_proba(X), self.classes_)

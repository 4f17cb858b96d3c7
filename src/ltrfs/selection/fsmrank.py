"""FSMRank and FSMSVM as feature selectors (Lai et al. 2013; docs/methods.md, section 'FSMRank').

The problem, its solvers and the FSMRank ranker are in ``ltrfs.rankers.fsmrank`` (see its
docstring for the objective and Algorithm 1).

- ``FSMRankSelector`` (selector ``fsmrank``): lambdas given, or chosen on vali over the grid by
  ``vali_metric`` of ``X_val @ w_hat``; ``ranking_`` = features by ``max(w_i, w_{d+i})``
  descending, the larger of the two non-negative weights of feature i on ``[X, -X]``
  (``ltrfs.rankers.fsmrank.feature_order``; ties, in particular the zero weights: larger Pearson
  importance first when ``importance="pearson"``, then lower index); ``scores_ = max(w_i,
  w_{d+i})``; ``predict_scores(X) = X @ coef_ + intercept_`` (``w_hat = w[:d] - w[d:]`` on the
  raw features); ``predict_scores_k(X, k)`` keeps the top k weights (the paper's k-feature
  FSMRank model) and zeroes the others.
- ``FSMSVM`` (selector ``fsmsvm``): the paper's two-stage baseline: FSMRank's ranking, then
  RankSVM-Primal on the top t features with t chosen on vali.
"""
from __future__ import annotations

import copy
import logging
import numbers

import numpy as np

from ltrfs import metrics
from ltrfs.checks import check_validation_split, check_X
from ltrfs.docstrings import fill_doc
from ltrfs.params import ConventionLike, Integer, ListOf, Metric, Options, Real
from ltrfs.rankers.data_matrix import as_data_matrix, blas_threads, scores_of
from ltrfs.rankers.fsmrank import (LAMBDA1_GRID, LAMBDA2_GRID, PROBLEM_PARAMETERS, FSMProblem, SolveResult,
                                   feature_order, fsmrank_solve, raw_model, scaled_inputs, subgradient_solve)
from ltrfs.rankers.ranksvm_primal import RankSVMPrimal
from ltrfs.ranking_data import group_ids
from ltrfs.scoring.pearson import pearson_scores
from ltrfs.selection.base import Selector
from ltrfs.tuning import ValiChoice

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
    "fsmrank_sections": """
Parameters
----------
%(fsmrank_parameters)s

Attributes
----------
%(fsmrank_attributes)s

References
----------
%(fsmrank_paper)s
See docs/methods.md, section 'FSMRank'.
""",
    "fsmrank_parameters": """
lambda1 : float >= 0 or None, default None
    Weight of the similarity penalty ``lambda1/2 w'Aw``; None chooses it on vali from
    ``lambda1_grid``.
lambda2 : float >= 0 or None, default None
    Weight of the importance-weighted L1 term ``lambda2 sum_i w_i / s_i``; None chooses it
    on vali from ``lambda2_grid`` (when only one of the two is None, only that one is
    searched).
lambda1_grid : list of float >= 0, default ``ltrfs.rankers.fsmrank.LAMBDA1_GRID``
    Candidates of lambda1.
lambda2_grid : list of float >= 0, default ``ltrfs.rankers.fsmrank.LAMBDA2_GRID``
    Candidates of lambda2.
similarity : {"pearson", "identity"}, default "pearson"
    The feature similarity matrix: the paper's Pearson correlation, or the identity (an
    ablation).
importance : {"pearson", "ones"}, default "pearson"
    The feature importance vector: the paper's |Pearson correlation| with the label, or all
    ones (an ablation).
max_iter : int >= 1, default 400
    Iterations of the accelerated proximal gradient (Algorithm 1).
tol : float >= 0, default 1e-4
    Convergence tolerance of the solver.
vali_metric : str, default "map"
    Vali metric of ``X_val @ w_hat`` choosing the lambdas (ties: the earlier grid point,
    lambda1 outer).
convention : str, default "letor4"
    Metric convention of the vali metric.
n_jobs : int >= 1, default 1
    BLAS threads.
ties : {"expected", "file_order"}, default "expected"
    How the vali metric ranks tied scores; a model with constant scores in every vali query is
    never chosen (``ltrfs.tuning``).
scale : {"minmax", "none"}, default "minmax"
    Scale every feature to [0, 1] on the training rows first (the paper's setting; a no-op on
    LETOR's QueryLevelNorm files), or not.
""",
    "fsmrank_attributes": """
ranking_ : int64 (d,)
    Features by ``max(w_i, w_{d+i})`` descending, from the 2d non-negative weights of
    [X, -X] (``ltrfs.rankers.fsmrank.feature_order``); ties (the zero weights among
    them): larger Pearson importance first when ``importance="pearson"``, then lower index.
scores_ : float64 (d,)
    ``max(w_i, w_{d+i})``.
w_ : float64 (2d,)
    The solution on the scaled features [X, -X].
coef_ : float64 (d,)
    The model on the raw features: ``w_hat / span`` with ``w_hat_i = w_i - w_{d+i}`` and
    ``span`` the training range of each feature (1 with ``scale="none"``).
intercept_ : float
    ``-lo @ coef_`` (lo the training minimum of each feature), so that scores are
    ``X @ coef_ + intercept_``.
objective_, n_iter_, converged_
    Objective value, iterations and convergence flag of the final solve.
pearson_min_eigenvalue_ : float or None
    Smallest eigenvalue of the Pearson similarity (None for other similarities).
chosen_ : dict
    ``lambda1``, ``lambda2``, and when chosen on vali ``vali_metric``, ``vali`` and the vali
    value of every grid point (``vali_scores``).
details_ : dict
    ``trace`` (the convergence trace of the final solve) and ``grid`` (one row per grid point).
seconds_, constant_features_, n_features_in_
    As ``Selector``.
""",
    "fsmrank_paper": """
Lai, Pan, Tang, Yu. FSMRank: feature selection algorithm for learning to rank. IEEE TNNLS
2013: the objective eq. (1) and its non-negative form on [X, -X] eq. (2) (section III),
importance and similarity (section III-B), the accelerated gradient solver (Algorithm 1).
""",
}


log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- selectors


@fill_doc(**_DOC)
class _FSMRankBase(Selector):
    """FSMRank as a feature selector: the shared fit of ``FSMRankSelector`` and ``FSMSVM``.

    Each grid point is solved from w = 0 (the paper's start), so the result does not depend on the
    grid order; deterministic. Precomputed ``pearson`` scores (``{"importance": (d,),
    "similarity": (d, d)}`` of the training split) are used when given.

    %(fsmrank_sections)s
    """

    name = "fsmrank"
    requires = ("pearson",)
    parameters = {
        "lambda1": [Real(0), None],
        "lambda2": [Real(0), None],
        "lambda1_grid": [ListOf(Real(0))],
        "lambda2_grid": [ListOf(Real(0))],
        "vali_metric": [Metric()],
        "convention": [ConventionLike()],
        "ties": [Options(*metrics.TIES)],
        **PROBLEM_PARAMETERS,
    }

    def __init__(self, lambda1=None, lambda2=None, lambda1_grid=LAMBDA1_GRID, lambda2_grid=LAMBDA2_GRID,
                 similarity="pearson", importance="pearson", max_iter=400, tol=1e-4, vali_metric="map",
                 convention="letor4", n_jobs=1, ties="expected", scale="minmax"):
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.lambda1_grid = lambda1_grid
        self.lambda2_grid = lambda2_grid
        self.similarity = similarity
        self.importance = importance
        self.max_iter = max_iter
        self.tol = tol
        self.vali_metric = vali_metric
        self.convention = convention
        self.n_jobs = n_jobs
        self.ties = ties
        self.scale = scale

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        n1 = 1 if self.lambda1 is not None else len(self.lambda1_grid)
        n2 = 1 if self.lambda2 is not None else len(self.lambda2_grid)
        if n1 * n2 == 1:
            return None
        def fixed(value, grid):  # the given value, or the middle of its grid as an example
            return value if value is not None else float(grid[len(grid) // 2])

        fix = {"lambda1": fixed(self.lambda1, self.lambda1_grid), "lambda2": fixed(self.lambda2, self.lambda2_grid)}
        return f"{self.name} chooses lambda1 and lambda2 on validation data when either is None", fix

    # ------------------------------------------------------------------ helpers
    def _pearson(self, X, y, precomputed):
        d = X.shape[1]
        cached = precomputed.get("pearson")
        if cached is not None and np.shape(cached.get("importance")) == (d,) \
                and np.shape(cached.get("similarity")) == (d, d):
            return np.asarray(cached["importance"], np.float64), np.asarray(cached["similarity"], np.float64)
        return pearson_scores(X, y)

    def _vali(self, X_val, y_val, qid_val, d):
        if X_val is None or y_val is None or qid_val is None:
            raise ValueError(f"{self.name}: choosing on validation data needs X_val, y_val and qid_val; "
                             "pass them to fit, or fix the hyperparameters")
        dtype = np.float32 if np.asarray(X_val).dtype == np.float32 else np.float64  # as as_data_matrix
        return check_validation_split(d, X_val, y_val, qid_val, dtype=dtype)

    def _vali_choice(self, vali, what: str) -> ValiChoice:
        return ValiChoice(what, vali[1], vali[2], self.vali_metric, self.convention, self.ties)

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self._solve(X, y, query_ptr, (X_val, y_val, qid_val), precomputed)

    def _solve(self, X, y, query_ptr, vali_args, precomputed, need_vali: bool = False):
        """Fit the FSMRank model (lambdas given or chosen on vali); returns the checked
        validation split when one was needed (a grid, or ``need_vali``), else None."""
        self.validate_params()
        X = as_data_matrix(X)
        d = X.shape[1]
        with blas_threads(self.n_jobs):
            q, P = self._pearson(X, y, precomputed)
            X, A, s, lo, span = scaled_inputs(X, y, self.similarity, self.importance, self.scale, pearson=(q, P))
            grid1 = [self.lambda1] if self.lambda1 is not None else list(self.lambda1_grid)
            grid2 = [self.lambda2] if self.lambda2 is not None else list(self.lambda2_grid)
            points = [(float(a), float(b)) for a in grid1 for b in grid2]
            choose = len(points) > 1
            vali = self._vali(*vali_args, d) if choose or need_vali else None
            choice = self._vali_choice(vali, f"{self.name} (lambda1 x lambda2 grid)") if choose else None
            table = []
            for l1, l2 in points:
                problem = FSMProblem(X, y, query_ptr, A, s, l1, l2)
                res = fsmrank_solve(problem, max_iter=int(self.max_iter), tol=float(self.tol))
                value = None
                if choose:
                    value = choice.offer({"lambda1": l1, "lambda2": l2},
                                         scores_of(vali[0], raw_model(res.w_hat, lo, span)[0]), res)
                table.append({"lambda1": l1, "lambda2": l2, "vali": value,
                              "degenerate": bool(choose and choice.trials[-1]["degenerate"]), "n_iter": res.n_iter,
                              "objective": res.objective, "nonzero": int(np.count_nonzero(res.w_hat)),
                              "seconds": round(float(res.seconds[-1]), 4)})
                log.info("  fsmrank lambda1=%g lambda2=%g: vali %s = %s, %d iterations, %d non-zero weights%s",
                         l1, l2, self.vali_metric, "-" if value is None else f"{value:.4f}", res.n_iter,
                         table[-1]["nonzero"], " (degenerate, not eligible)" if table[-1]["degenerate"] else "")
            if choose:
                point, res, value = choice.best
                l1, l2 = point["lambda1"], point["lambda2"]
            else:
                (l1, l2), value = points[0], None
        self.chosen_ = {"lambda1": l1, "lambda2": l2}
        if choose:
            self.chosen_.update({"vali_metric": self.vali_metric, "vali": value,
                                 "vali_scores": {f"{r['lambda1']:g},{r['lambda2']:g}": r["vali"] for r in table}})
        self._set_model(res, q, d, lo, span)
        self.pearson_min_eigenvalue_ = float(np.linalg.eigvalsh(P).min()) if self.similarity == "pearson" else None
        self.details_ = {"trace": res.trace(), "grid": table}
        return vali

    def _set_model(self, res: SolveResult, q, d, lo, span):
        self.w_ = res.w
        self.scale_lo_, self.scale_span_ = lo, span
        self.coef_, self.intercept_ = raw_model(res.w_hat, lo, span)
        self.objective_ = res.objective
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.ranking_, self.scores_ = feature_order(res.w, q if self.importance == "pearson" else None)

    def predict_scores(self, X) -> np.ndarray:
        """The FSMRank model on all d features: ``X @ coef_ + intercept_``.

        %(predict_sections)s
        """
        self._check_fitted("coef_")
        return scores_of(as_data_matrix(X, n_features=len(self.coef_)), self.coef_) + self.intercept_

@fill_doc(**_DOC)
class FSMRankSelector(_FSMRankBase):
    """FSMRank (selector ``fsmrank``): the FSMRank model and its feature order.

    The lambdas are given, or chosen on vali over the grid by ``vali_metric`` of ``X_val @
    w_hat``. Beside the feature order it offers ``predict_scores(X)`` (the model on all d
    features) and ``predict_scores_k(X, k)`` (the paper's k-feature FSMRank model: all but the top
    k weights set to 0).

    %(fsmrank_sections)s

    Examples
    --------
    >>> from ltrfs.selection.fsmrank import FSMRankSelector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = FSMRankSelector().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.predict_scores_k(X, 2).shape
    (120,)
    """

    name = "fsmrank"
    #: the code-free state (``ltrfs.state``): the FSMRank model and the scaling offsets of its k-feature cut
    state_attributes = Selector.state_attributes + ("coef_", "intercept_", "scale_lo_")

    def predict_scores_k(self, X, k: int) -> np.ndarray:
        """The paper's k-feature FSMRank model: all weights but the top k (``ranking_[:k]``) zeroed.

        Parameters
        ----------
        X : array-like, shape (m, d)
        k : int
            1..d.

        Returns
        -------
        float64 (m,)
        """
        self._check_fitted("coef_")
        d = len(self.coef_)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 1 <= k <= d:
            raise ValueError(f"k must be an integer in 1..{d}; got {k!r}")
        w = np.zeros(d)
        top = self.ranking_[:k]
        w[top] = self.coef_[top]
        return scores_of(as_data_matrix(X, n_features=d), w) - self.scale_lo_ @ w


@fill_doc(**_DOC)
class FSMSVM(_FSMRankBase):
    """FSMSVM: the FSMRank paper's two-stage baseline, FSMRank's order then RankSVM-Primal on t.

    Stage 1 is ``FSMRankSelector`` (same parameters, lambdas given or chosen on vali as there):
    features sorted by FSMRank's weights. Stage 2 trains RankSVM-Primal (``ltrfs.rankers.
    RankSVMPrimal``, squared pairwise hinge) on the top t features of the training split, tuned as
    the GAS-E + RankSVM-Primal baseline is: for every t, C is chosen on vali from ``C_grid``, then t
    ("determined by cross-validation") from ``t_grid``, both by ``vali_metric`` of the
    RankSVM-Primal scores (Remark 1: MAP), ties to the smaller C and t. As a selector its output
    is FSMRank's ranking (so the workflow's k = t curve is top-k by FSMRank weight, then its own
    ranker); ``predict_scores(X)`` is the RankSVM-Primal of the chosen t (the paper's FSMSVM
    model). Validation data are required (t is always chosen); ``predict_scores_k`` is not offered
    (the k-feature FSMSVM model is the workflow's RankSVM-Primal on ``support(k)``).

    Parameters
    ----------
    %(fsmrank_parameters)s
    t_grid : list of int >= 1 or None, default None
        Candidates of t; None: every t in 1..d.
    C : float > 0 or None, default None
        Fixes RankSVM-Primal's C; None chooses it on vali for every t from ``C_grid``.
    C_grid : list of float > 0 or None, default None
        Candidates of C; None: RankSVM-Primal's default grid (1e-5 * 2^i, i = 0..19).

    Attributes
    ----------
    %(fsmrank_attributes)s
    svm_ : RankSVMPrimal
        The RankSVM-Primal of the chosen t.
    svm_features_ : int64 (t,)
        Its features (sorted).

    The ``chosen_`` dict also holds ``t``, ``t_vali``, the vali value of every t
    (``t_vali_scores``), the C of the chosen t (``svm_C``) and of every t (``svm_C_by_t``).

    References
    ----------
    %(fsmrank_paper)s
    See docs/methods.md, section 'FSMRank'. FSMSVM is the baseline of section IV-D1.

    Examples
    --------
    >>> from ltrfs.selection.fsmrank import FSMSVM
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = FSMSVM().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.chosen_["t"]                    # features of the RankSVM-Primal, chosen on vali
    4
    """

    name = "fsmsvm"
    #: the code-free state (``ltrfs.state``): the RankSVM-Primal on its features
    state_attributes = Selector.state_attributes + ("coef_", "svm_", "svm_features_")
    requires = ("pearson",)
    parameters = {**_FSMRankBase.parameters,
                  "t_grid": [ListOf(Integer(1)), None],
                  "C": [Real(0, None, closed="neither"), None],
                  "C_grid": [ListOf(Real(0, None, closed="neither")), None]}

    def __init__(self, lambda1=None, lambda2=None, lambda1_grid=LAMBDA1_GRID, lambda2_grid=LAMBDA2_GRID,
                 similarity="pearson", importance="pearson", max_iter=400, tol=1e-4, vali_metric="map",
                 convention="letor4", t_grid=None, C=None, C_grid=None, n_jobs=1, ties="expected",
                 scale="minmax"):
        super().__init__(lambda1=lambda1, lambda2=lambda2, lambda1_grid=lambda1_grid, lambda2_grid=lambda2_grid,
                         similarity=similarity, importance=importance, max_iter=max_iter, tol=tol,
                         vali_metric=vali_metric, convention=convention, n_jobs=n_jobs, ties=ties,
                         scale=scale)
        self.t_grid = t_grid
        self.C = C
        self.C_grid = C_grid

    def _c_grid(self) -> list[float]:
        if self.C is not None:
            return [float(self.C)]
        return [float(c) for c in (self.C_grid if self.C_grid is not None else RankSVMPrimal.default_grid["C"])]

    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        return "fsmsvm chooses its number of features t (and RankSVM's C) on validation data, always", {}

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = np.asarray(X).shape[1]
        vali = self._solve(X, y, query_ptr, (X_val, y_val, qid_val), precomputed, need_vali=True)
        ts = sorted({int(t) for t in (self.t_grid if self.t_grid is not None else range(1, d + 1)) if t <= d})
        if not ts:
            raise ValueError(f"{self.name}: every t of t_grid exceeds the {d} features")
        qid = group_ids(query_ptr)
        X_val_m = vali[0]
        choice = self._vali_choice(vali, f"{self.name} (t grid)")
        values, cs = {}, {}
        for t in ts:
            cols = np.sort(self.ranking_[:t])
            Xt, Xv = np.asarray(X)[:, cols], X_val_m[:, cols]
            c_choice = self._vali_choice(vali, f"{self.name} (C grid at t = {t})")
            model = RankSVMPrimal(n_jobs=int(self.n_jobs), warm_start=True)  # refitted in place along C
            for C in self._c_grid():
                model.set_params(C=C).fit(Xt, y, qid)
                c_choice.offer(C, model.predict(Xv), model, keep=copy.deepcopy)
            cs[str(t)], best, _ = c_choice.best
            values[str(t)] = choice.offer(t, best.predict(Xv), (cols, best))
        t, (cols, model), value = choice.best
        self.chosen_.update({"t": int(t), "t_vali": value, "t_vali_scores": values, "svm_C": cs[str(t)],
                             "svm_C_by_t": cs})
        self.svm_features_ = cols
        self.svm_ = model

    def predict_scores(self, X) -> np.ndarray:
        """The RankSVM-Primal of the chosen t on its t features (the paper's FSMSVM model).

        %(predict_sections)s
        """
        self._check_fitted("svm_")
        X = check_X(X, n_features=len(self.coef_))
        return self.svm_.predict(X[:, self.svm_features_])


# ----------------------------------------------------------------------------- report data

#: columns of a convergence file (``convergence_table``)
CONVERGENCE_HEAD = ["solver", "iteration", "seconds", "objective"]
SUBGRADIENT = "projected subgradient"
APG = "FSMRank (accelerated proximal gradient)"


def convergence_table(selection: dict, train, *, max_iter: int | None = None) -> str:
    """FSMRank's objective against time, and a projected subgradient baseline's (Lai et al.
    2013, Fig. 5).

    Parameters
    ----------
    selection : dict
        An ``fsmrank`` or ``fsmsvm`` selection record with its convergence trace
        (``details.trace``) and chosen lambdas.
    train : RankingData
        The training split the selection was made on.
    max_iter : int, optional
        Iterations of the subgradient method, run without early stop; default the selection's
        ``max_iter``.

    Returns
    -------
    str
        A TSV, columns ``CONVERGENCE_HEAD``; iteration 0 is the start w = 0. Both solvers
        (``fsmrank_solve`` with the selection's stopping rule, ``subgradient_solve``) work on the
        problem the selection solved (same split, similarity, importance, feature scaling and
        chosen lambdas) and are timed after the compiled kernels are loaded. The accelerated
        run repeats the selection's final solve: its objectives must equal the selection's own
        trace, which checks that the baseline solves the same problem; its times are measured
        here because the fit's first solve also pays for loading the compiled kernels.
    """
    params, chosen = selection["params"], selection.get("chosen") or {}
    recorded = (selection.get("details") or {}).get("trace")
    if not recorded:
        raise ValueError("the selection has no convergence trace ('details.trace')")
    # the selection's own inputs (selections written before the [0, 1] scaling have no "scale")
    X, A, s, _, _ = scaled_inputs(train.X, train.y, params.get("similarity", "pearson"),
                                  params.get("importance", "pearson"), params.get("scale", "none"))
    problem = FSMProblem(X, train.y, train.query_ptr, A, s, float(chosen["lambda1"]), float(chosen["lambda2"]))
    fsmrank_solve(problem, max_iter=1)  # load the compiled kernels before anything is timed
    subgradient_solve(problem, max_iter=1)
    apg = fsmrank_solve(problem, max_iter=int(params.get("max_iter", 400)), tol=float(params.get("tol", 1e-4))).trace()
    if len(apg["objective"]) != len(recorded["objective"]) or not np.allclose(
            apg["objective"], recorded["objective"], rtol=1e-9, atol=1e-12):
        raise ValueError("re-solving the selection's problem does not reproduce its trace "
                         "(the FSMRank problem changed since the selection was made?)")
    iterations = int(max_iter if max_iter is not None else params.get("max_iter", 400))
    sub = subgradient_solve(problem, max_iter=iterations, tol=0.0).trace()
    lines = ["\t".join(CONVERGENCE_HEAD)]
    for solver, trace in ((APG, apg), (SUBGRADIENT, sub)):
        lines += ["\t".join([solver, str(i), f"{t:.6f}", f"{F:.12g}"])
                  for i, (t, F) in enumerate(zip(trace["seconds"], trace["objective"]))]
        log.info("%s: %d iterations, F %.6g -> %.6g, %.4f s", solver, trace["n_iter"], trace["objective"][0],
                 trace["objective"][-1], trace["seconds"][-1])
    return "\n".join(lines) + "\n"


def nonzero_weights(selection: dict, selector) -> dict:
    """The weights an FSMRank model keeps at its chosen lambdas (for comparing subset sizes).

    Parameters
    ----------
    selection : dict
        An ``fsmrank`` selection record (``select/{method}.json``).
    selector : FSMRankSelector
        The fitted model of that record (``select/{method}.model``).

    Returns
    -------
    dict
        ``lambda1`` and ``lambda2`` (the chosen point), ``nonzero`` (the number of non-zero
        entries of ``coef_``, the model on the raw features: the features it uses) and
        ``n_features`` (d).

    Raises
    ------
    ValueError
        When the record is not FSMRank's or the model does not belong to it (another width).
    """
    if selection.get("algorithm") != "fsmrank":
        raise ValueError(f"method {selection.get('method')!r} is {selection.get('algorithm')!r}, not fsmrank: "
                         "it has no FSMRank weights to count")
    coef = np.asarray(getattr(selector, "coef_", ()), dtype=np.float64)
    if coef.size != selection["n_features"]:
        raise ValueError(f"the model has {coef.size} weights, the selection {selection['n_features']} features")
    chosen = selection.get("chosen") or {}
    return {"lambda1": chosen.get("lambda1"), "lambda2": chosen.get("lambda2"),
            "nonzero": int(np.count_nonzero(coef)), "n_features": int(coef.size)}

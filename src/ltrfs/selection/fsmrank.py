"""FSMRank and FSMSVM as feature selectors (Lai et al. 2013; docs/methods.md, section 'FSMRank').

The problem, its solvers and the FSMRank ranker are in ``ltrfs.rankers.fsmrank`` (see its
docstring for the objective and Algorithm 1).

- ``FSMRankSelector`` (selector ``fsmrank``): lambdas given, or chosen on vali over the grid by
  ``vali_metric`` of ``X_val @ w_hat``; ``ranking_`` = features by |w_hat| descending (ties, in
  particular the zero weights: larger Pearson importance first, then lower index);
  ``scores_ = |w_hat|``; ``predict_scores(X) = X @ w_hat``; ``predict_scores_k(X, k)`` keeps the
  top k weights (the paper's k-feature FSMRank model) and zeroes the others.
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
from ltrfs.params import Convention, Integer, ListOf, Metric, Options, Real
from ltrfs.rankers.fsmrank import (LAMBDA1_GRID, LAMBDA2_GRID, PROBLEM_PARAMETERS, FSMProblem, SolveResult,
                                   _as_data_matrix, _blas_limit, _matvec_any, feature_order, fsmrank_solve,
                                   raw_model, scaled_inputs, subgradient_solve)
from ltrfs.rankers.ranksvm_primal import RankSVMPrimal
from ltrfs.ranking_data import group_ids
from ltrfs.scoring.pearson import pearson_scores
from ltrfs.selection.base import Selector
from ltrfs.tuning import ValiChoice

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- selectors


class _FSMRankBase(Selector):
    """FSMRank as a feature selector (module docstring); ``FSMRankSelector`` adds the k-feature
    model, ``FSMSVM`` the second stage.

    Parameters (defaults): ``lambda1=None``, ``lambda2=None`` (None: chosen on vali from
    ``lambda1_grid`` x ``lambda2_grid``, defaults ``LAMBDA1_GRID`` x ``LAMBDA2_GRID``; if only
    one is None only that one is searched); ``similarity="pearson"``, ``importance="pearson"``
    (ablations "identity", "ones"); ``max_iter=400``, ``tol=1e-4``; ``vali_metric="map"`` and
    ``convention="letor4"``, ``ties="expected"`` (the criterion on vali: the metric of ranking
    vali by X_val @ w_hat, tied scores in expectation over their orders, a degenerate model with
    constant scores in every vali query never chosen (``ltrfs.tuning``);
    ties go to the earlier grid point, lambda1 outer); ``scale="minmax"`` (features scaled to
    [0, 1] on the training rows, the paper's setting; "none"); ``n_jobs=1`` (BLAS threads).

    Precomputed ``pearson`` scores (``{"importance": (d,), "similarity": (d, d)}`` of the
    training split) are used when given. Each grid point is solved from w = 0 (the paper's
    start), so the result does not depend on the grid order. Deterministic (no randomness).

    Learned: ``ranking_`` (d,) by the 2d weights (``ltrfs.rankers.fsmrank.feature_order``;
    ties: larger Pearson importance, then lower index), ``scores_`` = max(w_i, w_{d+i}) (d,),
    ``coef_`` (d,) and ``intercept_`` (the model on raw features), ``w_`` (2d, scaled features),
    ``chosen_`` (lambda1, lambda2, vali metric and the vali value of every grid point),
    ``details_`` (the convergence trace of the final solve, the grid table),
    ``objective_``, ``n_iter_``, ``converged_``, ``pearson_min_eigenvalue_``.
    """

    name = "fsmrank"
    requires = ("pearson",)
    parameters = {
        "lambda1": [Real(0), None],
        "lambda2": [Real(0), None],
        "lambda1_grid": [ListOf(Real(0))],
        "lambda2_grid": [ListOf(Real(0))],
        "vali_metric": [Metric()],
        "convention": [Convention()],
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
        dtype = np.float32 if np.asarray(X_val).dtype == np.float32 else np.float64  # as _as_data_matrix
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
        X = _as_data_matrix(X)
        d = X.shape[1]
        with _blas_limit(self.n_jobs):
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
                                         _matvec_any(vali[0], raw_model(res.w_hat, lo, span)[0]), res)
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
        """float64 (m,) = X @ coef_ + intercept_ (the FSMRank model on all d features)."""
        self._check_fitted("coef_")
        return _matvec_any(_as_data_matrix(X, n_features=len(self.coef_)), self.coef_) + self.intercept_

class FSMRankSelector(_FSMRankBase):
    """Selector ``fsmrank``: the FSMRank model and its feature order (parameters and learned
    attributes as ``_FSMRankBase``), plus ``predict_scores_k``."""

    name = "fsmrank"

    def predict_scores_k(self, X, k: int) -> np.ndarray:
        """float64 (m,) = X @ w_k, w_k = w_hat with all but the top k weights (``ranking_[:k]``)
        set to 0: the paper's k-feature FSMRank model."""
        self._check_fitted("coef_")
        d = len(self.coef_)
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 1 <= k <= d:
            raise ValueError(f"k must be an integer in 1..{d}; got {k!r}")
        w = np.zeros(d)
        top = self.ranking_[:k]
        w[top] = self.coef_[top]
        return _matvec_any(_as_data_matrix(X, n_features=d), w) - self.scale_lo_ @ w


class FSMSVM(_FSMRankBase):
    """FSMSVM (Lai et al. section IV-D1): the paper's two-stage baseline built on FSMRank.

    Stage 1 is ``FSMRankSelector`` (same parameters, lambdas given or chosen on vali as
    there): features sorted by FSMRank's weights. Stage 2 trains RankSVM-Primal
    (``ltrfs.rankers.RankSVMPrimal``, squared pairwise hinge) on the top t features of the
    training split, tuned as the GAS-E + RankSVM-Primal baseline is: for every t, C is chosen on
    vali from ``C_grid`` (default RankSVM-Primal's grid, 1e-5 * 2^i, i = 0..19; ``C`` fixes it),
    then t ("determined by cross-validation") from ``t_grid`` (default None: every t in 1..d),
    both by ``vali_metric`` of the RankSVM-Primal scores (Remark 1: MAP), ties to the smaller C
    and t. As a selector its output is FSMRank's ranking
    (so the workflow's k = t curve is top-k by FSMRank weight, then its own ranker); ``chosen_``
    adds ``t``, its ``svm_C`` and the vali value of every t, and ``predict_scores(X)`` is the
    RankSVM-Primal of the chosen t (the paper's FSMSVM model). ``vali_data`` is required (t is always chosen).
    ``predict_scores_k`` is not offered (the k-feature FSMSVM model is the workflow's
    RankSVM-Primal on ``support(k)``).
    """

    name = "fsmsvm"
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
        """float64 (m,): the RankSVM-Primal of the chosen t on its t features."""
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

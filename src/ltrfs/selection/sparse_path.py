"""The shared fit of the path selectors ``fenchelrank`` and ``sparse_ranksvm``
(``ltrfs.selection.fenchelrank``, ``ltrfs.selection.sparse_ranksvm``; the problems, solvers and
paths are in ``ltrfs.rankers.sparse_pairwise``).

A fit solves the method's path on the (min-max scaled) training split, orders the features by
where they enter it (``entry_order``: entry point, then |w| at the densest point, then index;
features that never enter last, by index), scores every path point's model on vali by
``vali_metric`` and keeps the best (ties: the sparser point; the all-zero model is degenerate
and never chosen, ``ltrfs.tuning``) as the method's own model (ranker ``own``):
``predict_scores(X) = X @ coef_ + intercept_``.
"""
from __future__ import annotations

import logging
import warnings

import numpy as np

from ltrfs import metrics
from ltrfs.checks import check_validation_split
from ltrfs.estimator import ConvergenceWarning
from ltrfs.params import ConventionLike, Integer, Metric, Options, Real
from ltrfs.rankers.data_matrix import as_data_matrix, blas_threads, scores_of
from ltrfs.rankers.fsmrank import raw_model
from ltrfs.rankers.sparse_pairwise import MIN_RATIO, N_POINTS, SOLVER_PARAMETERS, entry_order, scaled_loss
from ltrfs.selection.base import Selector
from ltrfs.tuning import ValiChoice

log = logging.getLogger(__name__)

#: the parameters of every path selector
PATH_PARAMETERS = {
    "n_points": [Integer(2)],
    "min_ratio": [Real(0, 1, closed="neither")],
    "vali_metric": [Metric()],
    "convention": [ConventionLike()],
    "ties": [Options(*metrics.TIES)],
    **SOLVER_PARAMETERS,
}


class SparsePathSelector(Selector):
    """Base of the path selectors: a subclass sets ``name``, ``path_key`` (the path's parameter,
    "lambda" or "radius") and implements ``_path(loss) -> (values, points, info)``.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by entry into the path (module docstring).
    scores_ : float64 (d,)
        The number of path points from a feature's entry to the end (0: never enters).
    entry_ : int64 (d,)
        Each feature's entry point (``n_points``: never).
    path_ : float64 (n_points,)
        The path's values (lambdas or radii), sparsest first.
    coef_, intercept_
        The chosen point's model on the raw features.
    w_ : float64 (d,)
        The chosen point's weights on the scaled features.
    chosen_ : dict
        ``point`` (its index), the path value (``lambda`` or ``radius``), ``nonzero``,
        ``vali_metric``, ``vali`` and the vali value of every point (``vali_scores``).
    details_ : dict
        ``path``: one row per point (value, non-zero weights, vali, iterations, objective,
        ``converged``, ``optimality`` (the measure tol bounds), seconds) and the method's path
        facts (``lambda_max`` or ``radius_max``).
    seconds_, constant_features_, n_features_in_
        As ``Selector``.
    """

    path_key = ""
    optimality_name = "optimality measure"
    #: the code-free state (``ltrfs.state``): the chosen point's model
    state_attributes = Selector.state_attributes + ("coef_", "intercept_")

    def needs_validation(self) -> tuple[str, dict] | None:
        return f"{self.name} chooses the point of its path (its own model) on validation data, always", {}

    def _solver(self) -> dict:
        return {"max_iter": int(self.max_iter), "tol": float(self.tol)}

    def _path(self, loss):  # pragma: no cover
        raise NotImplementedError

    def _warn(self, message: str) -> None:
        warnings.warn(f"{self.name}: {message}", ConvergenceWarning, stacklevel=4)

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        if X_val is None or y_val is None or qid_val is None:
            raise ValueError(f"{self.name}: choosing the path point needs X_val, y_val and qid_val; pass them to fit")
        X = as_data_matrix(X)
        d = X.shape[1]
        Xv, yv, qv = check_validation_split(d, X_val, y_val, qid_val, dtype=X.dtype)
        with blas_threads(self.n_jobs):
            loss, lo, span = scaled_loss(X, y, query_ptr, self.scale)
            values, points, info = self._path(loss)
            choice = ValiChoice(f"{self.name} ({self.path_key} path)", yv, qv, self.vali_metric, self.convention,
                                self.ties)
            table = []
            for k, (value, res) in enumerate(zip(values, points)):
                coef, intercept = raw_model(res.w, lo, span)
                vali = choice.offer(k, scores_of(Xv, coef) + intercept, (coef, intercept, res))
                table.append({self.path_key: float(value), "nonzero": int(np.count_nonzero(res.w)), "vali": vali,
                              "degenerate": bool(choice.trials[-1]["degenerate"]), "n_iter": res.n_iter,
                              "objective": res.objective, "converged": bool(res.converged),
                              "optimality": float(res.optimality),
                              "seconds": round(float(res.extra.get("seconds", 0.0)), 4)})
                log.info("  %s %s=%.4g: %d non-zero weights, vali %s = %.4f, %d iterations, %s %.2g%s", self.name,
                         self.path_key, value, table[-1]["nonzero"], self.vali_metric, vali, res.n_iter,
                         self.optimality_name, res.optimality, "" if res.converged else " (NOT converged: above tol)")
            k, (coef, intercept, res), value = choice.best
        stopped = [(v, p.optimality) for v, p in zip(values, points) if not p.converged]
        if stopped:
            worst = max(m for _, m in stopped)
            extra = f", n_reweight={self.n_reweight}" if hasattr(self, "n_reweight") else ""
            self._warn(f"{len(stopped)} of {len(points)} path points stopped before tol={self.tol:g} "
                       f"(max_iter={self.max_iter}{extra}; largest {self.optimality_name} {worst:.3g}; "
                       f"{self.path_key} {', '.join(f'{v:.4g}' for v, _ in stopped)}); increase max_iter")
        W = np.array([p.w for p in points])
        self.ranking_, self.entry_ = entry_order(W)
        self.scores_ = (len(points) - self.entry_).astype(np.float64)
        self.path_ = np.asarray(values, dtype=np.float64)
        self.w_, self.coef_, self.intercept_ = res.w, coef, intercept
        self.scale_lo_, self.scale_span_ = lo, span
        self.chosen_ = {"point": int(k), self.path_key: float(values[k]), "nonzero": int(np.count_nonzero(res.w)),
                        "vali_metric": self.vali_metric, "vali": value,
                        "vali_scores": {f"{v:.6g}": row["vali"] for v, row in zip(values, table)}}
        self.details_ = {"path": table, **info}

    def predict_scores(self, X) -> np.ndarray:
        """The chosen point's model on all d features: ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : array-like, shape (m, d)

        Returns
        -------
        float64 (m,)
        """
        self._check_fitted("coef_")
        return scores_of(as_data_matrix(X, n_features=len(self.coef_)), self.coef_) + self.intercept_


__all__ = ["MIN_RATIO", "N_POINTS", "PATH_PARAMETERS", "SparsePathSelector"]

"""Sparse RankSVM as a ranker (Laporte, Flamary, Canu, Dejean, Mothe, "Nonconvex regularizations
for feature selection in ranking with sparse SVM", IEEE TNNLS 2014, arXiv 1507.00500;
docs/methods.md, section 'Sparse RankSVM').

The problem: the pairwise squared hinge plus a sparsity penalty,

    min_w  f(w) + lambda sum_j g(|w_j|),   f(w) = (1/p) sum_{(i, j) in P} max(0, 1 - w.(x_i - x_j))^2,

with g the l1 norm or a concave penalty (log, MCP, lp with p < 1), each normalised to ``g'(0) =
1`` (``ltrfs.rankers.sparse_pairwise.penalty_value``). l1 is solved by accelerated proximal
gradient (soft thresholding), the concave penalties by reweighted l1 (the paper's two
algorithms; ``reweighted_l1_solve``). ``lambda = lambda_ratio * lambda_max`` with ``lambda_max =
||grad f(0)||_inf`` (the smallest lambda whose solution is w = 0), so the grid is the same on every
dataset. The selector ``sparse_ranksvm`` (the lambda path and its entry order) is in
``ltrfs.selection.sparse_ranksvm``.
"""
from __future__ import annotations

import time
import warnings

from ltrfs.docstrings import fill_doc
from ltrfs.estimator import ConvergenceWarning
from ltrfs.params import Integer, Options, Real
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.rankers.fsmrank import raw_model
from ltrfs.rankers.sparse_pairwise import (N_REWEIGHT, PENALTIES, SOLVER_PARAMETERS, SPARSE_DOC, TOL_PENALTY,
                                           lambda_max, reweighted_l1_solve, scaled_loss)

#: lambda_ratio grid of the ranker (the paper's grid is not available here)
LAMBDA_GRID = (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)

#: the penalty's parameters, shared with the selector
PENALTY_PARAMETERS = {
    "penalty": [Options(*PENALTIES)],
    "n_reweight": [Integer(1)],
    "eps": [Real(0, None, closed="neither")],
    "gamma": [Real(1, None, closed="neither")],
    "p": [Real(0, 1, closed="neither")],
}


@fill_doc(**SPARSE_DOC)
class SparseRankSVM(LinearScores, Ranker):
    """Sparse RankSVM: pairwise squared hinge plus ``lambda sum_j g(|w_j|)``, ``lambda = lambda_ratio * lambda_max``.

    Parameters
    ----------
    lambda_ratio : float in (0, 1], default 0.05
        lambda as a fraction of ``lambda_max = ||grad f(0)||_inf`` (1: every weight 0).
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
        g: l1, log ``eps log(1 + t/eps)``, MCP (concavity gamma) or lp ``(eps/p)((1 + t/eps)^p - 1)``.
    %(sparse_reweight_parameters)s
    max_iter : int >= 1, default 500
        Most iterations per round (proximal-gradient and Newton steps); a ConvergenceWarning when
        the solve ends before tol.
    tol : float >= 0, default 1e-5
        Converged when the largest violation of the optimality conditions is at most tol x
        lambda: ``|grad_j f + lambda g'(|w_j|) sign(w_j)|`` for ``w_j != 0``, ``max(|grad_j f| -
        lambda, 0)`` for ``w_j = 0`` (``sparse_pairwise.l1_kkt_violation``; for a concave penalty,
        a stationary point).
    %(sparse_scale_parameters)s

    Attributes
    ----------
    coef_ : float64 (d,)
        The model on the raw features.
    intercept_ : float
        Its offset (the same for every document).
    w_ : float64 (d,)
        The solution on the scaled features.
    lambda_, lambda_max_ : float
        The lambda used and ``lambda_max``.
    objective_ : float
        The penalised objective at the solution.
    n_iter_ : int
        Proximal-gradient iterations (all rounds).
    n_reweight_ : int
        Rounds run.
    converged_ : bool
        Whether the optimality conditions hold to tol at the solution.
    optimality_ : float
        Their largest violation over lambda.
    seconds_ : float
        Training time.

    References
    ----------
    Laporte, Flamary, Canu, Dejean, Mothe. Nonconvex regularizations for feature selection in
    ranking with sparse SVM. IEEE TNNLS 2014 (doi 10.1109/TNNLS.2013.2286696): accelerated
    proximal gradient for l1, reweighted l1 for the concave penalties. See docs/methods.md,
    section 'Sparse RankSVM'.

    Examples
    --------
    >>> from ltrfs.rankers.sparse_ranksvm import SparseRankSVM
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = SparseRankSVM(penalty="log").fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.89
    """

    name = "sparse_ranksvm"
    uses_validation = False
    default_grid = {"lambda_ratio": list(LAMBDA_GRID)}
    parameters = {"lambda_ratio": [Real(0, 1, closed="right")], **PENALTY_PARAMETERS, **SOLVER_PARAMETERS}

    def __init__(self, lambda_ratio=0.05, penalty="l1", n_reweight=N_REWEIGHT, eps=0.1, gamma=3.0, p=0.5, max_iter=500,
                 tol=TOL_PENALTY, scale="minmax", n_jobs=1):
        self.lambda_ratio = lambda_ratio
        self.penalty = penalty
        self.n_reweight = n_reweight
        self.eps = eps
        self.gamma = gamma
        self.p = p
        self.max_iter = max_iter
        self.tol = tol
        self.scale = scale
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali) -> None:
        start = time.perf_counter()
        loss, lo, span = scaled_loss(X, y, query_ptr, self.scale)
        self.lambda_max_ = lambda_max(loss)
        self.lambda_ = float(self.lambda_ratio) * self.lambda_max_
        res = reweighted_l1_solve(loss, self.lambda_, self.penalty, n_reweight=int(self.n_reweight),
                                  eps=float(self.eps), gamma=float(self.gamma), p=float(self.p),
                                  max_iter=int(self.max_iter), tol=float(self.tol))
        self.w_ = res.w
        self.coef_, self.intercept_ = raw_model(res.w, lo, span)
        self.objective_, self.n_iter_, self.converged_ = res.objective, res.n_iter, res.converged
        self.optimality_ = res.optimality
        self.n_reweight_ = res.extra["n_reweight"]
        if not res.converged:
            warnings.warn(f"SparseRankSVM did not converge (max_iter={self.max_iter}, n_reweight={self.n_reweight}; "
                          f"optimality violation {res.optimality:.3g} x lambda > tol={self.tol:g}); increase "
                          "max_iter or n_reweight", ConvergenceWarning, stacklevel=3)
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start

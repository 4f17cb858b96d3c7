"""Sparse RankSVM as a feature selector (Laporte, Flamary, Canu, Dejean, Mothe, IEEE TNNLS 2014;
docs/methods.md, section 'Sparse RankSVM').

The problem (``ltrfs.rankers.sparse_ranksvm``): the pairwise squared hinge plus ``lambda sum_j
g(|w_j|)``, g = l1, log, MCP or lp (``penalty``). The path runs over lambdas from ``lambda_max
= ||grad f(0)||_inf`` (the smallest lambda with every weight 0) down: ``lambda_k = lambda_max *
min_ratio^(k / (n_points - 1))`` (20 points, min_ratio 1e-3 by default), each point warm
started and, for the concave penalties, reweighted from the previous point's solution. Features
are ordered by entry (``ltrfs.selection.sparse_path``); the lambda chosen on vali is the
method's own model.
"""
from __future__ import annotations

from ltrfs.docstrings import fill_doc
from ltrfs.rankers.sparse_pairwise import N_REWEIGHT, SPARSE_DOC, TOL_PENALTY, lambda_max, path_grid, penalty_path
from ltrfs.rankers.sparse_ranksvm import PENALTY_PARAMETERS
from ltrfs.selection.sparse_path import MIN_RATIO, N_POINTS, PATH_PARAMETERS, SparsePathSelector


@fill_doc(**SPARSE_DOC)
class SparseRankSVMSelector(SparsePathSelector):
    """Sparse RankSVM (selector ``sparse_ranksvm``): features by entry along a lambda path.

    Parameters
    ----------
    penalty : {"l1", "log", "mcp", "lp"}, default "l1"
        The sparsity penalty g (``ltrfs.rankers.sparse_pairwise.penalty_value``).
    n_points : int >= 2, default 20
        Lambdas on the path (log-spaced, from lambda_max down).
    min_ratio : float in (0, 1), default 1e-3
        The smallest lambda as a fraction of lambda_max.
    %(sparse_reweight_parameters)s
    vali_metric : str, default "map"
        Vali metric choosing the path point (the own model; ties: the larger lambda).
    %(sparse_vali_parameters)s
    max_iter : int >= 1, default 500
        Most iterations per round (proximal-gradient and Newton steps); a ConvergenceWarning
        names the lambdas whose solve ends before tol.
    tol : float >= 0, default 1e-5
        A lambda is converged when the largest violation of the optimality conditions is at most
        tol x lambda: ``|grad_j f + lambda g'(|w_j|) sign(w_j)|`` for ``w_j != 0``, ``max(|grad_j f|
        - lambda, 0)`` for ``w_j = 0`` (for a concave penalty: a stationary point).
    %(sparse_scale_parameters)s

    Attributes
    ----------
    ranking_, scores_, entry_, path_, coef_, intercept_, w_, chosen_, details_
        As ``SparsePathSelector`` (path values: the lambdas; ``details_["lambda_max"]``).

    References
    ----------
    Laporte, Flamary, Canu, Dejean, Mothe. Nonconvex regularizations for feature selection in
    ranking with sparse SVM. IEEE TNNLS 2014 (doi 10.1109/TNNLS.2013.2286696). See
    docs/methods.md, section 'Sparse RankSVM'.

    Examples
    --------
    >>> from ltrfs.selection.sparse_ranksvm import SparseRankSVMSelector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = SparseRankSVMSelector(penalty="mcp").fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    """

    name = "sparse_ranksvm"
    path_key = "lambda"
    parameters = {**PATH_PARAMETERS, **PENALTY_PARAMETERS}

    def __init__(self, penalty="l1", n_points=N_POINTS, min_ratio=MIN_RATIO, n_reweight=N_REWEIGHT, eps=0.1, gamma=3.0,
                 p=0.5, vali_metric="map", convention="letor4", ties="expected", max_iter=500, tol=TOL_PENALTY,
                 scale="minmax", n_jobs=1):
        self.penalty = penalty
        self.n_points = n_points
        self.min_ratio = min_ratio
        self.n_reweight = n_reweight
        self.eps = eps
        self.gamma = gamma
        self.p = p
        self.vali_metric = vali_metric
        self.convention = convention
        self.ties = ties
        self.max_iter = max_iter
        self.tol = tol
        self.scale = scale
        self.n_jobs = n_jobs

    #: what ``optimality`` measures, for the ConvergenceWarning
    optimality_name = "optimality violation / lambda"

    def _path(self, loss):
        top = lambda_max(loss)
        lambdas = path_grid(top, int(self.n_points), float(self.min_ratio))
        points = penalty_path(loss, lambdas, self.penalty, n_reweight=int(self.n_reweight), eps=float(self.eps),
                              gamma=float(self.gamma), p=float(self.p), **self._solver())
        return lambdas, points, {"lambda_max": top, "penalty": self.penalty}

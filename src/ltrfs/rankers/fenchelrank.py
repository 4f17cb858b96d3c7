"""FenchelRank as a ranker (Lai, Pan, Liu, Lin, Wu, "Sparse learning-to-rank via an efficient
primal-dual algorithm", IEEE Trans. Computers 2013; docs/methods.md, section 'FenchelRank').

The problem: the pairwise squared hinge under an l1-ball constraint,

    min_w  f(w) = (1/p) sum_{(i, j) in P} max(0, 1 - w.(x_i - x_j))^2   s.t.  ||w||_1 <= r,

P the p pairs of documents of one query with y_i > y_j. The paper solves it by a primal-dual
(Fenchel duality) algorithm whose text is not available here; this module solves the same
problem by accelerated projected gradient with the exact projection onto the l1 ball and Newton
steps on the settled face (``ltrfs.rankers.sparse_pairwise.l1_ball_solve``), to a relative
Frank-Wolfe gap of tol. The radius is ``r = radius_ratio * r_max``, ``r_max`` the l1 norm of the
unconstrained minimiser, computed by Newton's method to a relative gradient of 1e-10
(``unconstrained_radius``), so the grid is the same on every dataset. The selector
``fenchelrank`` (the radius path and its entry order) is in ``ltrfs.selection.fenchelrank``.
"""
from __future__ import annotations

import time
import warnings

from ltrfs.docstrings import fill_doc
from ltrfs.estimator import ConvergenceWarning
from ltrfs.params import Real
from ltrfs.rankers.base import LinearScores, Ranker
from ltrfs.rankers.fsmrank import raw_model
from ltrfs.rankers.sparse_pairwise import (NEWTON_TOL, SOLVER_PARAMETERS, SPARSE_DOC, TOL_BALL, l1_ball_solve,
                                           project_l1_ball, scaled_loss, unconstrained_radius)

#: radius_ratio grid of the ranker (the paper gives none)
RADIUS_GRID = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


@fill_doc(**SPARSE_DOC)
class FenchelRank(LinearScores, Ranker):
    """FenchelRank: pairwise squared hinge under ``||w||_1 <= radius_ratio * r_max``.

    Parameters
    ----------
    radius_ratio : float in (0, 1], default 0.1
        The l1 radius as a fraction of ``r_max``, the l1 norm of the unconstrained minimiser on
        the training split (Newton's method to ``||grad f||_inf <= 1e-10 ||grad f(0)||_inf``; 1: the
        constraint is inactive).
    max_iter : int >= 1, default 500
        Most iterations of the constrained solve (projected-gradient and Newton steps); a
        ConvergenceWarning when it stops there before tol.
    tol : float >= 0, default 1e-6
        Converged when the Frank-Wolfe gap ``grad f(w).w + r ||grad f(w)||_inf`` (an upper bound
        of ``f(w) - min f`` over the ball) is at most ``tol f(w)``: the objective within a
        relative tol of the optimum.
    %(sparse_scale_parameters)s

    Attributes
    ----------
    coef_ : float64 (d,)
        The model on the raw features.
    intercept_ : float
        Its offset (the same for every document).
    w_ : float64 (d,)
        The solution on the scaled features (``||w_||_1 <= radius_``).
    radius_, radius_max_ : float
        The radius used and ``r_max``.
    objective_ : float
        f at the solution.
    n_iter_ : int
        Iterations of the constrained solve.
    converged_ : bool
        Whether its relative gap met tol (and the unconstrained solve its tolerance).
    optimality_ : float
        The relative Frank-Wolfe gap at the solution.
    seconds_ : float
        Training time.

    References
    ----------
    Lai, Pan, Liu, Lin, Wu. Sparse learning-to-rank via an efficient primal-dual algorithm. IEEE
    Trans. Computers 2013 (doi 10.1109/TC.2012.62): the l1-constrained pairwise squared hinge;
    solved here by projected accelerated gradient, not by the paper's primal-dual algorithm. See
    docs/methods.md, section 'FenchelRank'.

    Examples
    --------
    >>> from ltrfs.rankers.fenchelrank import FenchelRank
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = FenchelRank(radius_ratio=0.5).fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.9
    """

    name = "fenchelrank"
    uses_validation = False
    default_grid = {"radius_ratio": list(RADIUS_GRID)}
    parameters = {"radius_ratio": [Real(0, 1, closed="right")], **SOLVER_PARAMETERS}

    def __init__(self, radius_ratio=0.1, max_iter=500, tol=TOL_BALL, scale="minmax", n_jobs=1):
        self.radius_ratio = radius_ratio
        self.max_iter = max_iter
        self.tol = tol
        self.scale = scale
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali) -> None:
        start = time.perf_counter()
        loss, lo, span = scaled_loss(X, y, query_ptr, self.scale)
        self.radius_max_, free = unconstrained_radius(loss)
        self.radius_ = float(self.radius_ratio) * self.radius_max_
        # the unconstrained minimiser projected onto the ball is the start (at radius_ratio 1, the solution)
        res = l1_ball_solve(loss, self.radius_, w0=project_l1_ball(free.w, self.radius_), max_iter=int(self.max_iter),
                            tol=float(self.tol))
        self.w_ = res.w
        self.coef_, self.intercept_ = raw_model(res.w, lo, span)
        self.objective_, self.n_iter_ = res.objective, res.n_iter
        self.converged_, self.optimality_ = bool(res.converged and free.converged), res.optimality
        if not res.converged:
            warnings.warn(f"FenchelRank did not converge in max_iter={self.max_iter} iterations (relative gap "
                          f"{res.optimality:.3g} > tol={self.tol:g}); increase max_iter", ConvergenceWarning,
                          stacklevel=3)
        if not free.converged:
            warnings.warn(f"FenchelRank: the unconstrained minimiser (r_max) stopped at {free.n_iter} Newton steps "
                          f"(relative gradient {free.optimality:.3g} > {NEWTON_TOL:g})", ConvergenceWarning,
                          stacklevel=3)
        self.n_features_in_ = X.shape[1]
        self.seconds_ = time.perf_counter() - start

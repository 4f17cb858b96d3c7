"""FenchelRank as a feature selector (Lai, Pan, Liu, Lin, Wu, IEEE Trans. Computers 2013;
docs/methods.md, section 'FenchelRank').

The problem (``ltrfs.rankers.fenchelrank``): the pairwise squared hinge under ``||w||_1 <= r``.
A constraint has a radius, not a penalty, so the path runs over radii from small to large:
``r_k = r_max * min_ratio^((n_points - 1 - k) / (n_points - 1))``, k = 0..n_points-1 (20 points,
min_ratio 1e-3 by default), with ``r_max`` the l1 norm of the unconstrained minimiser, computed
by Newton's method to ``||grad f||_inf <= 1e-10 ||grad f(0)||_inf`` (beyond it the constraint is
inactive; at r = 0 every weight is 0). A feature enters at the first radius where its weight is
non-zero; features are ordered by entry (``ltrfs.selection.sparse_path``), and the radius chosen
on vali is the method's own model. Each point is solved by accelerated projected gradient with
the exact l1-ball projection and Newton steps on the settled face, warm started from the
previous radius (the last, r_max, from the unconstrained minimiser), to a relative Frank-Wolfe
gap of tol; this solves the paper's problem, not with the paper's primal-dual algorithm (whose
text is not available here).
"""
from __future__ import annotations

from ltrfs.docstrings import fill_doc
from ltrfs.rankers.sparse_pairwise import (NEWTON_TOL, SPARSE_DOC, TOL_BALL, l1_ball_path, path_grid,
                                           unconstrained_radius)
from ltrfs.selection.sparse_path import MIN_RATIO, N_POINTS, PATH_PARAMETERS, SparsePathSelector


@fill_doc(**SPARSE_DOC)
class FenchelRankSelector(SparsePathSelector):
    """FenchelRank (selector ``fenchelrank``): features by entry along a path of l1-ball radii.

    Parameters
    ----------
    n_points : int >= 2, default 20
        Radii on the path (log-spaced).
    min_ratio : float in (0, 1), default 1e-3
        The smallest radius as a fraction of ``r_max``, the l1 norm of the unconstrained
        minimiser (the radius from which the constraint is inactive).
    vali_metric : str, default "map"
        Vali metric choosing the path point (the own model; ties: the smaller radius).
    %(sparse_vali_parameters)s
    max_iter : int >= 1, default 500
        Most iterations per radius (projected-gradient and Newton steps); a ConvergenceWarning
        names the radii that stop there before tol.
    tol : float >= 0, default 1e-6
        A radius is converged when the Frank-Wolfe gap ``grad f(w).w + r ||grad f(w)||_inf`` (an
        upper bound of ``f(w) - min f`` over the ball) is at most ``tol f(w)``.
    %(sparse_scale_parameters)s

    Attributes
    ----------
    ranking_, scores_, entry_, path_, coef_, intercept_, w_, chosen_, details_
        As ``SparsePathSelector`` (path values: the radii; ``details_``: ``radius_max``, and the
        unconstrained solve's ``unconstrained_iterations`` (Newton steps) and
        ``unconstrained_converged``).

    References
    ----------
    Lai, Pan, Liu, Lin, Wu. Sparse learning-to-rank via an efficient primal-dual algorithm. IEEE
    Trans. Computers 2013 (doi 10.1109/TC.2012.62). See docs/methods.md, section 'FenchelRank'.

    Examples
    --------
    >>> from ltrfs.selection.fenchelrank import FenchelRankSelector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = FenchelRankSelector().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    """

    name = "fenchelrank"
    path_key = "radius"
    parameters = dict(PATH_PARAMETERS)

    def __init__(self, n_points=N_POINTS, min_ratio=MIN_RATIO, vali_metric="map", convention="letor4",
                 ties="expected", max_iter=500, tol=TOL_BALL, scale="minmax", n_jobs=1):
        self.n_points = n_points
        self.min_ratio = min_ratio
        self.vali_metric = vali_metric
        self.convention = convention
        self.ties = ties
        self.max_iter = max_iter
        self.tol = tol
        self.scale = scale
        self.n_jobs = n_jobs

    #: what ``optimality`` measures, for the ConvergenceWarning
    optimality_name = "relative Frank-Wolfe gap"

    def _path(self, loss):
        r_max, free = unconstrained_radius(loss)
        if not free.converged:
            self._warn(f"the unconstrained minimiser (r_max) stopped at {free.n_iter} Newton steps (relative "
                       f"gradient {free.optimality:.3g} > {NEWTON_TOL:g})")
        radii = path_grid(r_max, int(self.n_points), float(self.min_ratio), increasing=True)
        info = {"radius_max": r_max, "unconstrained_iterations": free.n_iter,
                "unconstrained_converged": bool(free.converged)}
        return radii, l1_ball_path(loss, radii, w_free=free.w, **self._solver()), info

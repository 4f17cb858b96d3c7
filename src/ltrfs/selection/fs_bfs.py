"""FS-BFS (Dang & Croft, "Feature selection for document ranking using best first search and
coordinate ascent", SIGIR 2010 workshop on feature generation and selection for IR): a partition
of the features into k disjoint subsets found by best-first search, each subset combined by
Coordinate Ascent into one new feature (the FS-ED paper's baseline; docs/methods.md, section
'FS-BFS').

Sources of the settings. The text of Dang & Croft's method and experiments could not be read
here (only its abstract: best-first search applied repeatedly partitions the features into
subsets, Coordinate Ascent merges each subset into one feature maximising a retrieval measure on
the training set). Gupta & Rosso (section 3.3) add only that the subsets do not overlap, that the
search runs over an undirected graph of the features, and that they used Dang & Croft's
parameters without naming them. So the stale count, the open list, the candidates and the bound
on a subset's size below are this project's choices (docs/papers/gupta2012.md, section 'FS-BFS
settings'); their defaults bound the work on hundreds of features. Gupta & Rosso's Table 1 gives
one constraint: FS-BFS's best k of 14 on OHSUMED (45 features) needs at least 14 subsets, so
their subsets held at most 3.2 features on average; an unbounded search builds 4-6 subsets of
1-15 features per fold on OHSUMED here (docs/papers/gupta2012.md, section 'FS-BFS group size').

The output is a linear PROJECTION d -> k, not a subset of the original features::

    new feature j  =  X[:, S_j] @ w_j                     j = 1 .. k (in the order found)
    transform(X, k) = X @ P[:, :k]          P = ``projection_`` float64 (d, k_max),
                                            P[S_j, j] = w_j, 0 elsewhere

Search of one subset (features already used by earlier subsets are gone; ``R`` = the rest):

1. ``m(f)`` = the training metric (``metric``, NDCG@10 letor4 by default) of ranking every
   training query by feature f alone, descending (docs/methods.md, section 'Single-feature importance').
   Equal values count in expectation over their orders (``ties="expected"``, default; a
   feature must not earn the file order's credit) or in row order (``ties="file_order"``); the
   same rule is Coordinate Ascent's objective.
   The candidate order of R is m descending, ties by lower feature index.
2. Root: the first feature of that order, node ``({f}, w = (1,), score m(f))``. Open list =
   [root]; best = root; stale = 0.
3. Repeat while the open list is not empty and ``stale < max_stale`` (and fewer than
   ``max_expansions`` expansions): pop the open node S of highest score (ties: the node
   generated first); its candidates are the first ``max_candidates`` features of R \\ S in the
   candidate order (all of them with ``max_candidates=None``); for each candidate c in that
   order, if the subset S + {c} was not generated before in this search, learn its weights by
   Coordinate Ascent on the columns (S in the order added, then c) with the training metric,
   giving ``(w, score)``; add the child to the open list unless it has ``max_size`` features
   (it is then final; it can still be the best). If the best child of this expansion has
   ``score > best.score + min_gain`` it becomes the best (ties: the earlier child) and stale = 0,
   else stale += 1. Then the open list is cut to its ``open_size`` best nodes (None: no cut).
4. The best node is subset j: its features leave R.

Features constant within every training query (``constant_features_``) are not in R: a subset
of them is a new feature constant within every query, which orders nothing (on OHSUMED the nine
all-zero features made subsets 13-21 of single constant features); ``Selector.fit`` puts them
last in ``ranking_``. Subsets are built until k of them exist or R is empty. Coordinate Ascent
(``ltrfs.rankers.coord_ascent.coordinate_ascent``) uses RankLib's settings (5 restarts, 25
iterations, step 0.05, scale 2, tolerance 0.001; the restart kept is the best on train) and its
weights have sum |w| = 1. Its random generator is seeded from ``random_state`` and the ordered
subset (``SeedSequence([random_state, |S|, *S])``), so every evaluation is reproducible on its
own, independent of the order of the search. ``warm_start=True`` starts the first restart of a
child from its parent's weights with 0 for the new feature (then the child's training score is
never below its parent's); the default starts from the uniform vector, as RankLib.

Bounds (parameters, all recorded in ``chosen_`` with ``ties``, and in ``details_["params"]``
with every other parameter): ``max_candidates`` (candidates per expansion), ``open_size`` (open
list), ``max_stale`` (expansions without improvement), ``max_size`` (features per subset),
``max_expansions`` (per subset).
Validation data are not used (the method optimises the training metric).
"""
from __future__ import annotations

import heapq
import logging
import numbers
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ltrfs.checks import check_labels, check_X
from ltrfs.docstrings import fill_doc
from ltrfs.metric_context import MetricContext
from ltrfs.metrics import TIES
from ltrfs.params import Boolean, ConventionLike, Integer, Metric, Options, Real
from ltrfs.progress import Progress
from ltrfs.rankers.coord_ascent import RESTART_INITS, coordinate_ascent
from ltrfs.selection.base import Selector

log = logging.getLogger(__name__)

__all__ = ["FSBFS", "SubsetSearch", "best_first_subset", "candidate_order", "subset_seed", "search_runs"]


@dataclass
class SubsetSearch:
    """Result of one best-first search (``best_first_subset``).

    Attributes
    ----------
    features : tuple of int
        0-based feature ids of the best node, in the order they were added.
    weights : float64 (len(features),)
        Their weights.
    score : float
        The best node's training metric.
    expansions : int
        Nodes expanded.
    evaluations : int
        Subsets whose weights were learnt (children evaluated).
    seconds : float
        Wall-clock time of the search.
    """

    features: tuple
    weights: np.ndarray
    score: float
    expansions: int
    evaluations: int
    seconds: float


def candidate_order(single: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """Remaining features in candidate order: single-feature metric descending, ties lower id.

    Parameters
    ----------
    single : ndarray, shape (d,)
        Single-feature metric.
    remaining : ndarray of int
        Feature ids.

    Returns
    -------
    int64 array

    Examples
    --------
    >>> import numpy as np
    >>> candidate_order(np.array([0.2, 0.5, 0.5, 0.9]), np.array([0, 1, 2]))
    array([1, 2, 0])
    """
    remaining = np.sort(np.asarray(remaining, dtype=np.int64))
    return remaining[np.argsort(-np.asarray(single, dtype=np.float64)[remaining], kind="stable")]


def search_runs(d: int, *, k: int, max_candidates: int | None, max_size: int | None, max_stale: int,
                max_expansions: int | None = None) -> int:
    """An estimate of the Coordinate Ascent runs of one fit, for the cost model of its select job.

    ``subsets x c x E``: ``c = min(max_candidates, d)`` children an expansion; ``E`` expansions a
    subset, the fewest of the nodes below ``max_size`` features (1 + c + c^2 + ...), ``max_stale + 2``
    (the search ends after ``max_stale`` expansions without a gain; measured 5.5-7 a subset on
    MQ2008 at 5-20 candidates, 3.8 at 3) and ``max_expansions``; subsets ``min(k, ceil(d / max_size))``
    (``min(k, d)`` without ``max_size``).
    Duplicate subsets are counted too, so it is an estimate, not a bound.

    Parameters
    ----------
    d : int
        Number of features.
    k, max_candidates, max_size, max_stale, max_expansions
        The search bounds, as ``FSBFS``.

    Returns
    -------
    int

    Examples
    --------
    >>> search_runs(46, k=20, max_candidates=5, max_size=3, max_stale=5)    # 16 subsets x 5 x 6
    480
    >>> search_runs(46, k=20, max_candidates=10, max_size=3, max_stale=5)   # 16 x 10 x 7
    1120
    """
    c = min(max_candidates or d, d)
    cap = min(max_stale + 2, max_expansions or max_stale + 2)
    nodes, level, size = 1, 1, 1  # the root; then c nodes of 2 features, c^2 of 3, ... below max_size
    while nodes < cap and size + 1 < (max_size or d + 1):
        level *= c
        nodes += level
        size += 1
    subsets = min(k, -(-d // max_size) if max_size else d)  # without max_size a subset may hold one feature
    return subsets * c * min(nodes, cap)


def subset_seed(random_state: int, features) -> np.random.SeedSequence:
    """Seed of the Coordinate Ascent run on an ordered subset.

    Parameters
    ----------
    random_state : int
    features : sequence of int
        The ordered subset S.

    Returns
    -------
    numpy.random.SeedSequence
        ``SeedSequence([random_state, |S|, *S])``: every evaluation is reproducible on its own.
    """
    return np.random.SeedSequence([int(random_state), len(features), *(int(f) for f in features)])


def best_first_subset(order, single, evaluate: Callable, *, max_candidates: int | None = None,
                      open_size: int | None = None, max_stale: int = 5, max_size: int | None = None,
                      max_expansions: int | None = None, min_gain: float = 0.0) -> SubsetSearch:
    """Best-first search of one subset (the module docstring, steps 2-3).

    Parameters
    ----------
    order : int64 (r,)
        The remaining features in candidate order (``candidate_order``).
    single : float64 (d,)
        Single-feature metric (the root's score).
    evaluate : callable
        ``evaluate(features: tuple, parent_weights: ndarray) -> (w (len,), score)``.
    max_candidates, open_size, max_stale, max_size, max_expansions, min_gain
        The search bounds, as ``FSBFS``.

    Returns
    -------
    SubsetSearch

    Raises
    ------
    ValueError
        When no feature is left to search.

    References
    ----------
    Dang and Croft, SIGIR 2010 workshop on feature generation and selection for IR (best-first
    search with a stale counter).
    """
    t0 = time.perf_counter()
    order = [int(f) for f in order]
    if not order:
        raise ValueError("no feature is left to search")
    root = order[0]
    counter = 0
    best = (float(single[root]), (root,), np.ones(1))
    # heap of (-score, generation number, features, weights): pops the highest score, earliest on ties
    open_heap = [(-best[0], counter, best[1], best[2])]
    seen = {frozenset(best[1])}
    stale = expansions = evaluations = 0
    while open_heap and stale < max_stale and (max_expansions is None or expansions < max_expansions):
        _, _, feats, weights = heapq.heappop(open_heap)
        expansions += 1
        members = set(feats)
        cands = [f for f in order if f not in members]
        if max_candidates is not None:
            cands = cands[:max_candidates]
        best_child = None
        for c in cands:
            child = feats + (c,)
            key = frozenset(child)
            if key in seen:
                continue
            seen.add(key)
            w, score = evaluate(child, weights)
            evaluations += 1
            counter += 1
            score = float(score)
            if max_size is None or len(child) < max_size:
                heapq.heappush(open_heap, (-score, counter, child, np.asarray(w, dtype=np.float64)))
            if best_child is None or score > best_child[0]:
                best_child = (score, child, np.asarray(w, dtype=np.float64))
        if best_child is not None and best_child[0] > best[0] + min_gain:
            best = best_child
            stale = 0
        else:
            stale += 1
        if open_size is not None and len(open_heap) > open_size:
            open_heap = heapq.nsmallest(open_size, open_heap)
            heapq.heapify(open_heap)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("FS-BFS expansion %d of %s (%d candidates): best child %s, best %.6f of %s, stale %d, "
                      "open %d, %.2f s", expansions, [f + 1 for f in feats], len(cands),
                      "none" if best_child is None else f"{best_child[0]:.6f}", best[0],
                      [f + 1 for f in best[1]], stale, len(open_heap), time.perf_counter() - t0)
    return SubsetSearch(features=best[1], weights=best[2], score=best[0], expansions=expansions,
                        evaluations=evaluations, seconds=time.perf_counter() - t0)


@fill_doc
class FSBFS(Selector):
    """FS-BFS: k disjoint feature subsets by best-first search, each combined into one new feature.

    Each subset is combined by Coordinate Ascent into one new feature (module docstring), so the
    output is a projection d -> k, not a subset: ``transform(X, k)`` is ``X @ projection_[:, :k]``
    and ``support(k)`` gives the features the first k subsets use.

    Parameters
    ----------
    k : int >= 1, default 10
        Number of subsets (new features) to build (the workflow passes its largest k).
    metric : str, default "ndcg@10"
        Training metric of the search and of Coordinate Ascent (``ndcg@K``, ``p@K``, ``map``,
        ``meanndcg``).
    convention : str, default "letor4"
        Metric convention (``ltrfs.metrics``).
    max_candidates : int >= 1 or None, default 50
        Candidates per expansion: the best remaining features by single-feature metric that are
        not in the node (None: all; on MQ2008's 46 features 50 means all).
    open_size : int >= 1 or None, default 10
        Open-list size: after each expansion only the best ``open_size`` open nodes are kept.
    max_stale : int >= 1, default 5
        Stop a subset after this many expansions without improving its best score.
    max_size : int >= 1 or None, default None
        Most features per subset (None: no limit).
    max_expansions : int >= 1 or None, default None
        Most expansions per subset (None: no limit).
    min_gain : float >= 0, default 0.0
        An expansion improves when its best child beats the best score by more than this.
    n_restarts, n_iterations, step_base, step_scale, tolerance : Coordinate Ascent settings
        Coordinate Ascent's restarts, trial steps per direction, first step, step growth and
        stopping tolerance, as ``ltrfs.rankers.coord_ascent`` (RankLib's defaults 5, 25, 0.05, 2.0,
        0.001).
    restart_init : {"random", "uniform"}, default "random"
        Start of restarts 2..R (``coordinate_ascent``).
    warm_start : bool, default False
        Start a child's first restart from its parent's weights (0 for the new feature).
    random_state : int >= 0, default 0
        Seed of every Coordinate Ascent run (combined with the subset).
    n_jobs : int >= 1, default 1
        Threads of the metric kernel.
    ties : {"expected", "file_order"}, default "expected"
        Equal scores in the training metric (single features and Coordinate Ascent): the mean over
        their orders, or row order.

    Attributes
    ----------
    projection_ : float64 (d, k_built)
        Column j holds w_j on S_j, zeros elsewhere.
    subsets_ : list of int64 arrays
        S_j, 0-based, in the order the features were added.
    weights_ : list of float64 arrays
        w_j aligned with ``subsets_`` (sum |w_j| = 1).
    subset_scores_ : float64 (k_built,)
        Training metric of every subset's combination.
    single_ : float64 (d,)
        Single-feature training metric (the candidate order).
    ranking_ : int64 (d,)
        The subsets' features (by subset, then |weight| descending, ties lower index), then the
        unused features by ``single_``.
    scores_ : None
    chosen_ : dict
        Every search bound, ``ties`` and the number of subsets built (``k_built``).
    details_ : dict (JSON-able)
        ``subsets`` (1-based ids), ``weights``, ``scores``, per-subset
        ``expansions``/``evaluations``/``seconds``, ``seconds`` (total), ``params``.
    %(selector_fit_attributes)s

    References
    ----------
    Dang and Croft. Feature selection for document ranking using best first search and
    coordinate ascent. SIGIR 2010 workshop on feature generation and selection for information
    retrieval (best-first search, subsets combined by Coordinate Ascent; its settings could not
    be read here: module docstring); the baseline of Gupta and Rosso, COLING 2012, section 3.3.
    See docs/methods.md, section 'FS-BFS'.

    Examples
    --------
    >>> from ltrfs.selection.fs_bfs import FSBFS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = FSBFS(k=2).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> len(sel.subsets_)                   # two new features
    2
    """

    name = "fs_bfs"
    #: the k-view is the first k columns of ``projection_`` (a prefix of the subsets found)
    prefix_consistent = True
    #: the k-view is k new features (weighted sums), not k of the data's features
    projects = True
    parameters = {
        "k": [Integer(1)],
        "metric": [Metric()],
        "convention": [ConventionLike()],
        "max_candidates": [Integer(1), None],
        "open_size": [Integer(1), None],
        "max_stale": [Integer(1)],
        "max_size": [Integer(1), None],
        "max_expansions": [Integer(1), None],
        "min_gain": [Real(0)],
        "n_restarts": [Integer(1)],
        "n_iterations": [Integer(1)],
        "step_base": [Real(0, None, closed="neither")],
        "step_scale": [Real(0, None, closed="neither")],
        "tolerance": [Real(0)],
        "restart_init": [Options(*RESTART_INITS)],
        "warm_start": [Boolean()],
        "random_state": [Integer(0)],
        "n_jobs": [Integer(1)],
        "ties": [Options(*TIES)],
    }

    def __init__(self, k=10, metric="ndcg@10", convention="letor4", max_candidates=50, open_size=10,
                 max_stale=5, max_size=None, max_expansions=None, min_gain=0.0, n_restarts=5, n_iterations=25,
                 step_base=0.05, step_scale=2.0, tolerance=0.001, restart_init="random", warm_start=False,
                 random_state=0, n_jobs=1, ties="expected"):
        self.k = k
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.max_candidates = max_candidates
        self.open_size = open_size
        self.max_stale = max_stale
        self.max_size = max_size
        self.max_expansions = max_expansions
        self.min_gain = min_gain
        self.n_restarts = n_restarts
        self.n_iterations = n_iterations
        self.step_base = step_base
        self.step_scale = step_scale
        self.tolerance = tolerance
        self.restart_init = restart_init
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ parameters

    def _params(self) -> dict:
        """The checked parameters as plain Python values (ints, floats, None)."""
        self.validate_params()

        def optional(value):
            return None if value is None else int(value)

        return {
            "k": int(self.k),
            "metric": str(self.metric),
            "convention": self.convention,
            "ties": self.ties,
            "max_candidates": optional(self.max_candidates),
            "open_size": optional(self.open_size),
            "max_stale": int(self.max_stale),
            "max_size": optional(self.max_size),
            "max_expansions": optional(self.max_expansions),
            "min_gain": float(self.min_gain),
            "n_restarts": int(self.n_restarts),
            "n_iterations": int(self.n_iterations),
            "step_base": float(self.step_base),
            "step_scale": float(self.step_scale),
            "tolerance": float(self.tolerance),
            "restart_init": self.restart_init,
            "warm_start": bool(self.warm_start),
            "random_state": int(self.random_state),
            "n_jobs": int(self.n_jobs),
        }

    # ------------------------------------------------------------------ fit

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        p = self._params()
        t0 = time.perf_counter()
        X = check_X(X, dtype=X.dtype if X.dtype.kind == "f" else np.float64)  # finite; no copy of float32
        y = check_labels(y, X.shape[0])
        d = X.shape[1]
        context = MetricContext(y, query_ptr, p["metric"], p["convention"], p["ties"])
        XT = np.ascontiguousarray(X.T, dtype=np.float64)  # (d, m): one contiguous row per feature
        single = np.array([context.mean(XT[f], p["n_jobs"]) for f in range(d)])
        ca_kw = {key: p[key] for key in ("n_restarts", "n_iterations", "step_base", "step_scale", "tolerance",
                                         "restart_init", "n_jobs")}

        def evaluate(features, parent_weights):
            cols = XT[list(features)].T  # (m, s) view of a C-contiguous (s, m) copy
            w_init = np.r_[parent_weights, 0.0] if p["warm_start"] else None
            return coordinate_ascent(cols, context=context, w_init=w_init,
                                     rng=np.random.default_rng(subset_seed(p["random_state"], features)), **ca_kw)

        bounds = {key: p[key] for key in ("max_candidates", "open_size", "max_stale", "max_size", "max_expansions",
                                          "min_gain")}
        remaining = np.ones(d, bool)
        remaining[self.constant_features_] = False  # a subset of constant features would order nothing
        searches: list[SubsetSearch] = []
        log.info("FS-BFS: %d subsets from %d features (%d training rows, %d queries); bounds %s", p["k"], d,
                 X.shape[0], context.n_queries, bounds)
        progress = Progress("FS-BFS", p["k"], unit="subsets", every=0.0)
        for j in range(p["k"]):
            if not remaining.any():
                log.warning("FS-BFS: every non-constant feature is used after %d subsets (k=%d asked)", j, p["k"])
                break
            order = candidate_order(single, np.flatnonzero(remaining))
            s = best_first_subset(order, single, evaluate, **bounds)
            searches.append(s)
            remaining[list(s.features)] = False
            progress.step(f"features {[f + 1 for f in s.features]}, {p['metric']} {s.score:.6f}, "
                          f"{s.expansions} expansions, {s.evaluations} CA runs, {s.seconds:.2f} s")

        kb = len(searches)
        P = np.zeros((d, kb))
        for j, s in enumerate(searches):
            P[list(s.features), j] = s.weights
        self.projection_ = P
        self.subsets_ = [np.asarray(s.features, dtype=np.int64) for s in searches]
        self.weights_ = [np.asarray(s.weights, dtype=np.float64) for s in searches]
        self.subset_scores_ = np.array([s.score for s in searches])
        self.single_ = single
        ranked = []
        for s in searches:
            feats = np.asarray(s.features, dtype=np.int64)
            by_weight = np.lexsort((feats, -np.abs(s.weights)))
            ranked.extend(int(f) for f in feats[by_weight])
        unused = np.setdiff1d(np.arange(d), ranked)  # Selector.fit moves the constant ones last
        self.ranking_ = np.asarray(ranked + [int(f) for f in candidate_order(single, unused)], dtype=np.int64)
        self.scores_ = None
        params = {key: (val if not hasattr(val, "name") else val.name) for key, val in p.items()}
        self.chosen_ = {**bounds, "ties": p["ties"], "k_built": kb,
                        "n_covered": int(sum(len(s.features) for s in searches))}
        self.details_ = {
            "subsets": [[int(f) + 1 for f in s.features] for s in searches],
            "weights": [[float(v) for v in s.weights] for s in searches],
            "scores": [float(s.score) for s in searches],
            "expansions": [int(s.expansions) for s in searches],
            "evaluations": [int(s.evaluations) for s in searches],
            "subset_seconds": [round(float(s.seconds), 6) for s in searches],
            "seconds": round(time.perf_counter() - t0, 6),
            "params": params,
        }

    #: the search bounds of the measured select jobs the cost curves are fitted on (the leaderboard's
    #: ``fs_bfs``; ``ltrfs.pipeline.resources``)
    COST_BOUNDS = {"k": 20, "max_candidates": 5, "max_size": 3, "max_stale": 5, "max_expansions": None}

    @classmethod
    def fit_columns(cls, d: int, params: dict) -> float:
        """``d`` times the Coordinate Ascent runs of a fit at ``params`` over those at the measured
        jobs' bounds (``search_runs``, ``COST_BOUNDS``): a select job's work grows with its runs.

        On MQ2008 fold 1 (k = 20, at most 3 features a subset) a fit took 9.3, 20.6, 66.7 and
        139.3 CPU-s at 3, 5, 10 and 20 candidates: 0.45, 1, 3.2 and 6.8 times the cost at 5, where
        this counts 0.4, 1, 2.3 and 4.7, under by at most 1.45x, inside the requests' margin of 1.5.

        %(fit_columns_sections)s

        Examples
        --------
        >>> FSBFS.fit_columns(46, {"k": 20, "max_candidates": 5, "max_size": 3})   # the measured jobs'
        46.0
        >>> round(FSBFS.fit_columns(46, {"k": 20, "max_candidates": 10, "max_size": 3}), 1)
        107.3
        """
        defaults = cls().get_params()
        bounds = {key: (params or {}).get(key, defaults[key]) for key in cls.COST_BOUNDS}
        return d * search_runs(d, **bounds) / search_runs(d, **cls.COST_BOUNDS)

    # ------------------------------------------------------------------ the k-view

    def _check_k(self, k):
        self._check_fitted("projection_")
        kb = self.projection_.shape[1]
        if k is None:
            return kb
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 1 <= k <= kb:
            raise ValueError(f"k={k!r} is outside 1..{kb} (the number of subsets built)")
        return int(k)

    def support(self, k: int | None = None) -> np.ndarray:
        """Ids of the original features used by the first k new features.

        Parameters
        ----------
        k : int or None
            Default: all subsets.

        Returns
        -------
        int64 array
            0-based, sorted.
        """
        k = self._check_k(k)
        return np.sort(np.concatenate(self.subsets_[:k])).astype(np.int64)

    def transform(self, X, k: int | None = None) -> np.ndarray:
        """The k new features ``X @ projection_[:, :k]``.

        Parameters
        ----------
        X : array-like, shape (m, d)
        k : int or None
            Default: all subsets.

        Returns
        -------
        float64 (m, k)
        """
        k = self._check_k(k)
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.projection_.shape[0]:
            raise ValueError(f"X must be (m, {self.projection_.shape[0]}); got shape {X.shape}")
        return X @ self.projection_[:, :k]

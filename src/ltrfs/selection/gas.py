"""GAS: greedy search of features with large importance and small mutual similarity
(Geng, Liu, Qin, Li, SIGIR 2007; SPEC section 3).

Objective over binary x with sum x = t::

    max  sum_i w_i x_i  -  c * sum_{i != j} e_ij x_i x_j

w_i = importance of feature i, e_ij = similarity (mean per-query Kendall tau-b,
``ltrfs.scoring.kendall``), c >= 0 the trade-off. Greedy (the paper's algorithm): repeat
``pick k = argmax of the current weights over the remaining features (ties: lowest index);
w_j <- w_j - 2c e_kj for every remaining j; remove k``. The pick order does not depend on t,
so one run over all d features gives every t-subset as a prefix of ``ranking_``.

Importance: an evaluation measure of ranking each training query by the feature alone (any
key of the single-feature table: ``ndcg@10`` -> GAS-E, ``map``, ...) or ``pairwise``:
1 - the fraction of mis-ordered labelled pairs (GAS-L, ``ltrfs.scoring.pairwise``).

Scales: the paper defines w as the raw measure (MAP/NDCG in [0, 1], or a score decreasing in
the pair loss) and e as the raw rank correlation, states no rescaling of either, and lets c
(tuned) absorb the difference of scales; so does ``normalize="none"`` (the default). ``"max"`` divides w by max |w| and
``"minmax"`` maps w to [0, 1], if one wants a c grid that means the same on every dataset.
The paper's similarity is the fraction of concordant pairs, about (1 + tau) / 2 without ties;
replacing it by tau-b subtracts the same c per step from every remaining weight and halves the
rest, so GAS with tau-b and c equals the paper's GAS with 2c (exactly, for tie-free data).

Features constant on every training query (features 6-10 and 43 of MQ2008) carry no ranking
information, yet their importance is that of the file order (GAS-E) or exactly 0.5 (GAS-L) and
their Kendall similarity to every feature is 0, so the greedy is never penalised for them and
would pick them as soon as the informative features have been penalised below their weight.
With ``constant_last=True`` (default; the paper's data had no such features) they are left out
of the greedy and appended to the ranking in index order.

Choosing c on vali (``c=None``): for every c of ``c_grid`` the first ``t_vali`` greedy
features are taken, a RankSVM (``ltrfs.rankers.RankSVM``, C=1, the paper's ranker) is trained
on them on the training split, and its ``vali_metric`` (NDCG@10 in ``convention``) on the
validation split judges c; the best c wins, ties going to the earlier c of the grid. Equal
feature sets are evaluated once. ``vali_model="sum"`` replaces the RankSVM by the sum of the
selected features standardised on train (no training; cheaper on very large data).
Deterministic. ``chosen_`` records c and the validation score of every grid point.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.data import query_ptr_from_qid
from ltrfs.selection.base import Selector

DEFAULT_C_GRID = (0, 0.01, 0.1, 0.5, 1, 2)
NORMALIZE = ("none", "max", "minmax")
VALI_MODELS = ("ranksvm", "sum")
ORIENTATIONS = ("descending", "best")


def gas_greedy(weights, similarity, c: float, t: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The GAS greedy: (order int64 (t,), weight of each pick when it was picked float64 (t,)).

    weights (d,) initial w; similarity (d, d) e (symmetric); c >= 0; t picks (default d).
    Each step picks the remaining feature of largest current weight (lowest index on ties),
    then subtracts 2 c e[k, j] from every remaining weight.
    """
    w = np.array(weights, dtype=np.float64)
    e = np.asarray(similarity, dtype=np.float64)
    d = w.shape[0]
    t = d if t is None else int(t)
    alive = np.ones(d, dtype=bool)
    order = np.empty(t, dtype=np.int64)
    gains = np.empty(t, dtype=np.float64)
    for step in range(t):
        k = int(np.argmax(np.where(alive, w, -np.inf)))
        order[step] = k
        gains[step] = w[k]
        alive[k] = False
        w -= 2.0 * c * e[k]
    return order, gains


def gas_objective(weights, similarity, c: float, subset) -> float:
    """sum_{i in S} w_i - c * sum_{i != j in S} e_ij for the feature set S = ``subset``."""
    s = np.asarray(subset, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64)
    e = np.asarray(similarity, dtype=np.float64)[np.ix_(s, s)]
    return float(w[s].sum() - c * (e.sum() - np.trace(e)))


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)


class GAS(Selector):
    """GAS feature selection (module docstring).

    Parameters (defaults): ``importance="ndcg@10"`` (a single-feature metric, or "pairwise"
    for GAS-L); ``c=None`` (trade-off >= 0; None chooses it on vali from ``c_grid``);
    ``c_grid=(0, 0.01, 0.1, 0.5, 1, 2)``; ``t_vali=10`` (features that judge a c on vali);
    ``convention="letor4"`` (metric convention of the importance and the vali metric);
    ``orientation="descending"`` (``"best"`` also scores each feature negated and, where that
    wins, flips the feature's sign in the similarity too); ``normalize="none"``;
    ``vali_model="ranksvm"``; ``vali_metric="ndcg@10"``; ``constant_last=True`` (features constant
    on every training query go after all others, in index order, outside the greedy);
    ``n_jobs=1`` (threads of the Kendall similarity when it is not precomputed, and of the
    RankSVM).

    Learned: ``ranking_`` (greedy order of all d features), ``scores_`` (the importance w used,
    after orientation and normalisation), ``gains_`` (the weight of each feature when it was
    picked, by pick order; the initial weight for the constant features put last), ``sign_``,
    ``constant_`` (indices put last), ``c_`` and ``chosen_``.
    """

    name = "gas"
    requires = ("single_feature", "kendall", "pairwise")

    def __init__(self, importance: str = "ndcg@10", c: float | None = None, c_grid=DEFAULT_C_GRID,
                 t_vali: int = 10, convention: str = "letor4", orientation: str = "descending",
                 normalize: str = "none", vali_model: str = "ranksvm", vali_metric: str = "ndcg@10",
                 constant_last: bool = True, n_jobs: int = 1):
        self.importance = importance
        self.c = c
        self.c_grid = c_grid
        self.t_vali = t_vali
        self.convention = convention
        self.orientation = orientation
        self.normalize = normalize
        self.vali_model = vali_model
        self.vali_metric = vali_metric
        self.constant_last = constant_last
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ parameters
    def validate_params(self):
        label = self.name
        importance = str(self.importance).lower()
        if importance != "pairwise" and importance not in scoring.SINGLE_FEATURE_METRICS:
            raise ValueError(f"{label}: unknown importance {self.importance!r}; valid: pairwise, "
                             f"{', '.join(scoring.SINGLE_FEATURE_METRICS)}")
        if self.c is not None and not (_is_number(self.c) and self.c >= 0):
            raise ValueError(f"{label}: c must be a number >= 0 or None (choose on vali); got {self.c!r}")
        grid = self.c_grid
        if isinstance(grid, (str, bytes)) or not hasattr(grid, "__len__") or len(grid) == 0 \
                or not all(_is_number(v) and v >= 0 for v in grid):
            raise ValueError(f"{label}: c_grid must be a non-empty list of numbers >= 0; got {grid!r}")
        if isinstance(self.t_vali, (bool, np.bool_)) or not isinstance(self.t_vali, numbers.Integral) or self.t_vali < 1:
            raise ValueError(f"{label}: t_vali must be an integer >= 1; got {self.t_vali!r}")
        if self.convention not in metrics.CONVENTIONS:
            raise ValueError(f"{label}: unknown convention {self.convention!r}; valid: {', '.join(metrics.CONVENTIONS)}")
        if self.orientation not in ORIENTATIONS:
            raise ValueError(f"{label}: unknown orientation {self.orientation!r}; valid: {', '.join(ORIENTATIONS)}")
        if self.normalize not in NORMALIZE:
            raise ValueError(f"{label}: unknown normalize {self.normalize!r}; valid: {', '.join(NORMALIZE)}")
        if self.vali_model not in VALI_MODELS:
            raise ValueError(f"{label}: unknown vali_model {self.vali_model!r}; valid: {', '.join(VALI_MODELS)}")
        try:
            metrics.parse_metric(self.vali_metric)
        except ValueError as exc:
            raise ValueError(f"{label}: vali_metric: {exc}") from None
        if not isinstance(self.constant_last, (bool, np.bool_)):
            raise ValueError(f"{label}: constant_last must be true or false; got {self.constant_last!r}")
        if isinstance(self.n_jobs, (bool, np.bool_)) or not isinstance(self.n_jobs, numbers.Integral) or self.n_jobs < 1:
            raise ValueError(f"{label}: n_jobs must be an integer >= 1; got {self.n_jobs!r} "
                             "(ltrfs never uses all cores implicitly: give a thread count)")

    # ------------------------------------------------------------------ scores
    def _importance(self, X, y, query_ptr, precomputed) -> tuple[np.ndarray, np.ndarray]:
        """(importance (d,), sign (d,)) before normalisation."""
        name = str(self.importance).lower()
        best = self.orientation == "best"
        d = X.shape[1]
        if name == "pairwise":
            from ltrfs.scoring.pairwise import pairwise_loss

            cached = precomputed.get("pairwise")
            if cached is not None and "loss" in cached and np.shape(cached["loss"]) == (d,):
                loss = np.asarray(cached["loss"], dtype=np.float64)
            else:
                loss = pairwise_loss(X, y, query_ptr, n_threads=self.n_jobs)
            # ranking ascending turns every strictly mis-ordered pair into a correct one
            desc, asc = 1.0 - loss, loss
        else:
            table = precomputed.get("single_feature")
            if table is not None and (str(table.get("convention", self.convention)) != self.convention
                                      or np.shape(table.get(name)) != (d,)):
                table = None  # computed in another convention or for other data
            if table is not None:
                desc = np.asarray(table[name], dtype=np.float64)
                asc = np.asarray(table[name + ":asc"], dtype=np.float64) if best else desc
            else:
                def per_feature(sign):
                    return np.array([metrics.metric_per_query(y, sign * X[:, f].astype(np.float64), query_ptr,
                                                              name, self.convention).mean() for f in range(d)])

                desc = per_feature(1.0)
                asc = per_feature(-1.0) if best else desc
        if not best:
            return desc, np.ones(d)
        sign = np.where(asc > desc, -1.0, 1.0)
        return np.maximum(desc, asc), sign

    def _similarity(self, X, query_ptr, precomputed) -> np.ndarray:
        d = X.shape[1]
        cached = precomputed.get("kendall")
        if cached is not None and np.shape(cached.get("similarity")) == (d, d):
            return np.asarray(cached["similarity"], dtype=np.float64)
        from ltrfs.scoring.kendall import kendall_similarity

        return kendall_similarity(X, query_ptr, n_threads=self.n_jobs)

    def _normalise(self, w: np.ndarray) -> np.ndarray:
        if self.normalize == "max":
            top = np.max(np.abs(w)) if len(w) else 0.0
            return w / top if top > 0 else w.copy()
        if self.normalize == "minmax":
            span = np.ptp(w) if len(w) else 0.0
            return (w - w.min()) / span if span > 0 else np.zeros_like(w)
        return w.copy()

    # ------------------------------------------------------------------ choosing c
    def _vali_score(self, features, X, y, query_ptr, X_val, y_val, ptr_val, sign) -> float:
        cols = np.asarray(sorted(features), dtype=np.int64)
        if self.vali_model == "ranksvm":
            from ltrfs.rankers.ranksvm import RankSVM

            qid = np.repeat(np.arange(len(query_ptr) - 1), np.diff(query_ptr))
            model = RankSVM(C=1.0, n_jobs=self.n_jobs).fit(X[:, cols], y, qid)
            scores = model.predict(X_val[:, cols])
        else:
            train = X[:, cols].astype(np.float64)
            mean = train.mean(axis=0)
            std = train.std(axis=0)
            std[std == 0] = 1.0
            scores = ((X_val[:, cols].astype(np.float64) - mean) / std) @ sign[cols]
        return float(metrics.metric_per_query(y_val, scores, ptr_val, self.vali_metric, self.convention).mean())

    def _choose_c(self, w, e, active, X, y, query_ptr, X_val, y_val, qid_val, sign) -> float:
        if X_val is None or y_val is None or qid_val is None:
            raise ValueError(f"{self.name}: c=None chooses c on validation data, but none was given; "
                             "pass X_val, y_val and qid_val to fit, or set c")
        X_val = np.asarray(X_val)
        y_val = np.asarray(y_val)
        if X_val.ndim != 2 or X_val.shape[1] != X.shape[1] or y_val.shape != (X_val.shape[0],):
            raise ValueError(f"{self.name}: validation data must be (m, {X.shape[1]}) with one label per row; "
                             f"got X_val {X_val.shape}, y_val {y_val.shape}")
        ptr_val, _ = query_ptr_from_qid(np.asarray(qid_val))
        t = min(int(self.t_vali), len(active))
        seen: dict[tuple, float] = {}
        table = []
        for c in self.c_grid:
            order, _ = gas_greedy(w, e, float(c), t)
            key = tuple(sorted(active[order].tolist()))
            if key not in seen:
                seen[key] = self._vali_score(key, X, y, query_ptr, X_val, y_val, ptr_val, sign)
            table.append((float(c), seen[key]))
        best_c, best_score = table[0]
        for c, score in table[1:]:
            if score > best_score:
                best_c, best_score = c, score
        self.chosen_ = {"c": best_c, "vali_metric": self.vali_metric, "vali_model": self.vali_model,
                        "t_vali": t, "vali_scores": {repr(c): score for c, score in table}}
        return best_c

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.validate_params()
        d = X.shape[1]
        raw, sign = self._importance(X, y, query_ptr, precomputed)
        w = self._normalise(raw)
        e = self._similarity(X, query_ptr, precomputed) * np.outer(sign, sign)
        if self.constant_last:
            active = np.flatnonzero(~constant_on_every_query(X, query_ptr))
        else:
            active = np.arange(d)
        idle = np.setdiff1d(np.arange(d), active)
        w_a, e_a = w[active], e[np.ix_(active, active)]
        if self.c is not None:
            c = float(self.c)
        elif len(active) == 0:
            c = float(self.c_grid[0])
            self.chosen_ = {"c": c, "note": "every feature is constant on every query; nothing to choose"}
        else:
            c = self._choose_c(w_a, e_a, active, X, y, query_ptr, X_val, y_val, qid_val, sign)
        order, gains = gas_greedy(w_a, e_a, c)
        self.c_ = c
        self.ranking_ = np.concatenate([active[order], idle]).astype(np.int64)
        self.gains_ = np.concatenate([gains, w[idle]])
        self.scores_ = w
        self.sign_ = sign
        self.constant_ = idle


def constant_on_every_query(X: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """bool (d,): features whose value never changes inside any query (they cannot rank)."""
    X = np.asarray(X)
    starts = np.asarray(query_ptr[:-1], dtype=np.int64)
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    return np.all(np.maximum.reduceat(X, starts, axis=0) == np.minimum.reduceat(X, starts, axis=0), axis=0)


class GASE(GAS):
    """GAS-E: importance = an evaluation measure of the feature alone (default NDCG@10; the
    paper also used MAP). Same parameters as ``GAS`` except that ``importance`` may not be
    "pairwise"."""

    name = "gas_e"
    requires = ("single_feature", "kendall")

    def __init__(self, importance: str = "ndcg@10", c: float | None = None, c_grid=DEFAULT_C_GRID,
                 t_vali: int = 10, convention: str = "letor4", orientation: str = "descending",
                 normalize: str = "none", vali_model: str = "ranksvm", vali_metric: str = "ndcg@10",
                 constant_last: bool = True, n_jobs: int = 1):
        super().__init__(importance=importance, c=c, c_grid=c_grid, t_vali=t_vali, convention=convention,
                         orientation=orientation, normalize=normalize, vali_model=vali_model,
                         vali_metric=vali_metric, constant_last=constant_last, n_jobs=n_jobs)

    def validate_params(self):
        if str(self.importance).lower() == "pairwise":
            raise ValueError("gas_e: importance 'pairwise' is GAS-L; use method gas_l (or gas)")
        super().validate_params()


class GASL(GAS):
    """GAS-L: importance = 1 - pairwise loss of the feature alone. Same parameters as ``GAS``
    without ``importance``."""

    name = "gas_l"
    requires = ("pairwise", "kendall")

    def __init__(self, c: float | None = None, c_grid=DEFAULT_C_GRID, t_vali: int = 10,
                 convention: str = "letor4", orientation: str = "descending", normalize: str = "none",
                 vali_model: str = "ranksvm", vali_metric: str = "ndcg@10", constant_last: bool = True,
                 n_jobs: int = 1):
        super().__init__(importance="pairwise", c=c, c_grid=c_grid, t_vali=t_vali, convention=convention,
                         orientation=orientation, normalize=normalize, vali_model=vali_model,
                         vali_metric=vali_metric, constant_last=constant_last, n_jobs=n_jobs)

"""GAS: greedy search of features with large importance and small mutual similarity
(Geng, Liu, Qin, Li, SIGIR 2007; docs/methods.md, section 'GAS').

Objective over binary x with sum x = t::

    max  sum_i w_i x_i  -  c * sum_{i != j} e_ij x_i x_j

w_i = importance of feature i, e_ij = Kendall similarity (``ltrfs.scoring.kendall``):
``similarity="concordance"`` (default, the paper's: mean over queries of the fraction of the
query's document pairs that both features order strictly the same way) or ``"tau_b"`` (mean
per-query tau-b); c >= 0 the trade-off. Greedy (the paper's algorithm): repeat
``pick k = argmax of the current weights over the remaining features (ties: lowest index);
w_j <- w_j - 2c e_kj for every remaining j; remove k``. The pick order does not depend on t,
so one run over all d features gives every t-subset as a prefix of ``ranking_``.

Importance: an evaluation measure of ranking each training query by the feature alone (any
key of the single-feature table: ``ndcg@10`` -> GAS-E, ``map``, ...; documents tied under the
feature ranked by ``ties``, default "expected") or ``pairwise`` (GAS-L, ``ltrfs.scoring.pairwise``):
1 / the fraction of mis-ordered labelled pairs, a tied pair counting 1/2
(``pairwise_importance="inverse"``, default, the paper's "inversely proportional to the loss"; a
loss of 0 gets the largest finite importance of the set), or ``"one_minus"``: 1 - the fraction.

Scales: the paper defines w as the raw measure (MAP/NDCG in [0, 1], or a score decreasing in
the pair loss) and e as the raw rank correlation, states no rescaling of either, and lets c
(tuned) absorb the difference of scales; so does ``normalize="none"`` (the default). ``"max"`` divides w by max |w| and
``"minmax"`` maps w to [0, 1], if one wants a c grid that means the same on every dataset.
The paper's similarity (the concordance) is (1 + tau) / 2 on tie-free data; there GAS with tau-b
and c equals GAS with the concordance and 2c (the constant half subtracts the same c per step
from every remaining weight). With ties (LETOR's many zeros) the two pick different features.

Features constant on every training query (features 6-10 and 43 of MQ2008) carry no ranking
information, yet their importance is not 0 (GAS-E: the metric of a random order, or of the file
order with ``ties="file_order"``; GAS-L: loss 0.5) and their similarity to every feature is 0 (both
similarities), so the greedy is never penalised for them and
would pick them as soon as the informative features have been penalised below their weight.
With ``constant_last=True`` (default; the paper's data had no such features) they are left out
of the greedy (so that the vali choice of c never spends one of its t features on them) and
appended to the ranking in index order: the selection layer's shared rule
(``ltrfs.selection.base``), applied here before c is chosen.

Choosing c on vali (``c=None``): for every c of ``c_grid`` the first ``t_vali`` greedy
features are taken, a RankSVM (``ltrfs.rankers.RankSVM``, C=1, the paper's ranker) is trained
on them on the training split, and its ``vali_metric`` (NDCG@10 in ``convention``, tied scores
ranked by ``ties``) on the validation split judges c through ``ltrfs.tuning.ValiChoice``:
the best c wins, ties going to the earlier c of the grid, and a model that gives equal scores
inside every vali query is never chosen (``DegenerateGridError`` when every c gives one).
Equal feature sets are evaluated once. ``vali_model="sum"`` replaces the RankSVM by the sum of
the selected features standardised on train (no training; cheaper on very large data).
Deterministic. ``chosen_`` records c and the validation score of every grid point.
"""
from __future__ import annotations

import numpy as np

from ltrfs import metrics, scoring
from ltrfs.checks import NeedsValidation
from ltrfs.docstrings import fill_doc
from ltrfs.params import Boolean, ConventionLike, Integer, ListOf, Metric, Options, Real
from ltrfs.rankers.ranksvm import RankSVM
from ltrfs.ranking_data import query_ptr_from_qid
from ltrfs.scoring.kendall import SCORE_KEYS, SIMILARITIES, kendall_similarities
from ltrfs.scoring.pairwise import IMPORTANCES as PAIRWISE_IMPORTANCES
from ltrfs.scoring.pairwise import pairwise_importance, pairwise_loss
from ltrfs.selection.base import Selector, single_feature_scores
from ltrfs.tuning import ValiChoice

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
    "gas_ties_and_sections": """
%(gas_ties)s

Attributes
----------
%(gas_attributes)s

%(gas_notes_references)s
""",
    "gas_notes_references": """
Notes
-----
Precomputed tables are used when they fit: a single-feature table when its recorded convention
and tie rule match (``ltrfs.selection.base.single_feature_scores``), a ``kendall`` table when
it holds the chosen similarity, a ``pairwise`` table for GAS-L.

References
----------
Geng, Liu, Qin, Li. Feature selection for ranking. SIGIR 2007: importance (section 2.2),
similarity by Kendall's tau (section 2.3), the objective ``max sum_i w_i x_i - c sum_{i != j}
e_ij x_i x_j`` (section 2.4, eq. 2) and the greedy algorithm (section 2.5, which subtracts
``2c e_kj`` from every remaining weight). See docs/methods.md, section 'GAS'.
""",
    "gas_attributes": """
ranking_ : int64 (d,)
    The greedy order of all d features (the constant ones last with ``constant_last``); every
    t-subset is a prefix.
scores_ : float64 (d,)
    The importance w used, after orientation and normalisation.
gains_ : float64 (d,)
    The current weight of each feature when it was picked, in pick order (the initial weight
    for the constant features put last).
sign_ : float64 (d,)
    +1, or -1 where ``orientation="best"`` negated the feature.
constant_ : int64 (c,)
    The features put last.
c_ : float
    The trade-off used.
chosen_ : dict
    ``c``, and when c was chosen on vali: ``vali_metric``, ``vali_model``, ``ties``,
    ``t_vali``, the vali score of every grid point (``vali_scores``) and the degenerate ones.
%(selector_fit_attributes)s
""",
    "gas_ties": """
ties : {"expected", "file_order"}, default "expected"
    How the importance metric and the vali metric rank tied documents: in expectation over
    their orders, or in file order (the official scripts' rule).
""",
    "gas_pairwise_importance": """
pairwise_importance : {"inverse", "one_minus"}, default "inverse"
    GAS-L's importance from the pairwise loss: 1 / loss (the paper's "inversely proportional")
    or 1 - loss.
""",
    "gas_parameters": """
c : float >= 0 or None, default None
    Trade-off between importance and similarity; None chooses it on vali from ``c_grid``.
c_grid : list of float >= 0, default (0, 0.01, 0.1, 0.5, 1, 2)
    The candidates of c when ``c`` is None.
t_vali : int >= 1, default 10
    Number of greedy features that judge a c on vali (at most d).
convention : str, default "letor4"
    Metric convention of the importance and of the vali metric (``ltrfs.metrics``).
orientation : {"descending", "best"}, default "descending"
    "best" also scores each feature negated and, where that wins, negates the feature in the
    similarity too.
normalize : {"none", "max", "minmax"}, default "none"
    Scale of w: as measured (the paper), divided by max |w|, or mapped to [0, 1].
vali_model : {"ranksvm", "sum"}, default "ranksvm"
    The model that judges c on vali: RankSVM with C=1 (the paper's ranker) on the first
    ``t_vali`` features, or the sum of those features standardised on train (no training).
vali_metric : str, default "ndcg@10"
    Metric of that model on vali (``ndcg@K``, ``p@K``, ``map``, ``meanndcg``).
constant_last : bool, default True
    Leave features constant on every training query out of the greedy and append them, in
    index order, to the ranking (module docstring).
n_jobs : int >= 1, default 1
    Threads of the Kendall similarity when it is not precomputed, and of the RankSVM.
similarity : {"concordance", "tau_b"}, default "concordance"
    The similarity e: the paper's fraction of a query's document pairs that both features
    order strictly the same way (mean over queries), or the mean per-query Kendall tau-b.
""",
}


DEFAULT_C_GRID = (0, 0.01, 0.1, 0.5, 1, 2)
NORMALIZE = ("none", "max", "minmax")
VALI_MODELS = ("ranksvm", "sum")
ORIENTATIONS = ("descending", "best")


def gas_greedy(weights, similarity, c: float, t: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The GAS greedy: pick the largest current weight, penalise the rest by similarity.

    Each step picks the remaining feature k of largest current weight (lowest index on ties), then
    subtracts ``2 c e[k, j]`` from every remaining weight j.

    Parameters
    ----------
    weights : array-like, shape (d,)
        Initial importances w.
    similarity : array-like, shape (d, d)
        Symmetric similarities e.
    c : float >= 0
    t : int or None
        Number of picks (default d).

    Returns
    -------
    order : int64 (t,)
    gains : float64 (t,)
        The weight of each pick when it was picked.

    References
    ----------
    Geng et al., SIGIR 2007, section 2.5 (the greedy solution of eq. 2).

    Examples
    --------
    >>> import numpy as np
    >>> e = np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.1], [0.0, 0.1, 1.0]])
    >>> order, gains = gas_greedy([1.0, 0.9, 0.5], e, c=0.5)
    >>> order, gains.round(2)       # feature 1 is too similar to feature 0
    (array([0, 2, 1]), array([ 1. ,  0.5, -0.1]))
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
    """The GAS objective ``sum_{i in S} w_i - c sum_{i != j in S} e_ij`` of a feature set S.

    Parameters
    ----------
    weights : array-like, shape (d,)
    similarity : array-like, shape (d, d)
    c : float >= 0
    subset : sequence of int
        S.

    Returns
    -------
    float

    References
    ----------
    Geng et al., SIGIR 2007, section 2.4, eq. (2).
    """
    s = np.asarray(subset, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64)
    e = np.asarray(similarity, dtype=np.float64)[np.ix_(s, s)]
    return float(w[s].sum() - c * (e.sum() - np.trace(e)))


@fill_doc(**_DOC)
class GAS(Selector):
    """GAS: greedy selection of important and mutually dissimilar features (GAS-E or GAS-L).

    The greedy picks the remaining feature of largest current weight (ties: lowest index), then
    lowers every remaining weight by ``2 c e_kj`` (module docstring). ``importance`` decides the
    variant: a metric (GAS-E) or "pairwise" (GAS-L); ``GASE`` and ``GASL`` fix it.

    Parameters
    ----------
    importance : str, default "ndcg@10"
        The importance w of a feature: a single-feature metric (a key of
        ``ltrfs.scoring.SINGLE_FEATURE_METRICS``, any case; GAS-E) or "pairwise" (GAS-L).
    %(gas_parameters)s
    %(gas_pairwise_importance)s
    %(gas_ties_and_sections)s

    Examples
    --------
    >>> from ltrfs.selection.gas import GAS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = GAS().fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.c_                              # chosen on vali from c_grid
    0.0
    """

    name = "gas"
    requires = ("single_feature", "kendall", "pairwise")

    parameters = {
        "importance": [Options("pairwise", *scoring.SINGLE_FEATURE_METRICS, ignore_case=True)],
        "c": [Real(0), None],
        "c_grid": [ListOf(Real(0))],
        "t_vali": [Integer(1)],
        "convention": [ConventionLike()],
        "orientation": [Options(*ORIENTATIONS)],
        "normalize": [Options(*NORMALIZE)],
        "vali_model": [Options(*VALI_MODELS)],
        "vali_metric": [Metric()],
        "constant_last": [Boolean()],
        "n_jobs": [Integer(1)],
        "similarity": [Options(*SIMILARITIES)],
        "pairwise_importance": [Options(*PAIRWISE_IMPORTANCES)],
        "ties": [Options(*metrics.TIES)],
    }

    def __init__(self, importance: str = "ndcg@10", c: float | None = None, c_grid=DEFAULT_C_GRID,
                 t_vali: int = 10, convention: str = "letor4", orientation: str = "descending",
                 normalize: str = "none", vali_model: str = "ranksvm", vali_metric: str = "ndcg@10",
                 constant_last: bool = True, n_jobs: int = 1, similarity: str = "concordance",
                 pairwise_importance: str = "inverse", ties: str = "expected"):
        self.importance = importance
        self.similarity = similarity
        self.pairwise_importance = pairwise_importance
        self.ties = ties
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
    # ------------------------------------------------------------------ scores
    def _importance(self, X, y, query_ptr, precomputed) -> tuple[np.ndarray, np.ndarray]:
        """(importance (d,), sign (d,)) before normalisation."""
        name = str(self.importance).lower()
        best = self.orientation == "best"
        d = X.shape[1]
        if name == "pairwise":
            cached = precomputed.get("pairwise")
            if cached is not None and "loss" in cached and np.shape(cached["loss"]) == (d,):
                loss = np.asarray(cached["loss"], dtype=np.float64)
            else:
                loss = pairwise_loss(X, y, query_ptr, n_threads=self.n_jobs)
            # ranking ascending turns every strictly mis-ordered pair into a correct one (loss
            # 1 - loss); with "best" both directions form the set whose largest finite 1/loss a
            # loss of 0 gets
            kind = self.pairwise_importance
            desc = pairwise_importance(loss, kind, among=1.0 - loss if best else None)
            asc = pairwise_importance(1.0 - loss, kind, among=loss) if best else desc
        else:
            table = single_feature_scores(X, y, query_ptr, precomputed, self.convention, self.ties)
            desc = np.asarray(table[name], dtype=np.float64)
            asc = np.asarray(table[name + ":asc"], dtype=np.float64) if best else desc
        if not best:
            return desc, np.ones(d)
        sign = np.where(asc > desc, -1.0, 1.0)
        return np.maximum(desc, asc), sign

    def _similarity(self, X, query_ptr, precomputed, sign) -> np.ndarray:
        """e (d, d) of the features multiplied by ``sign``: tau-b changes sign with one feature;
        the concordance of i with -j is the discordance of i with j."""
        d = X.shape[1]
        names = [self.similarity]
        flipped = np.outer(sign, sign) < 0
        if self.similarity == "concordance" and flipped.any():
            names.append("discordance")
        cached = precomputed.get("kendall") or {}
        if all(np.shape(cached.get(SCORE_KEYS[n])) == (d, d) for n in names):
            sims = {n: np.asarray(cached[SCORE_KEYS[n]], dtype=np.float64) for n in names}
        else:
            sims = kendall_similarities(X, query_ptr, n_threads=self.n_jobs)
        if self.similarity == "tau_b":
            return sims["tau_b"] * np.outer(sign, sign)
        return np.where(flipped, sims["discordance"], sims["concordance"]) if flipped.any() else sims["concordance"]

    def _normalise(self, w: np.ndarray) -> np.ndarray:
        if self.normalize == "max":
            top = np.max(np.abs(w)) if len(w) else 0.0
            return w / top if top > 0 else w.copy()
        if self.normalize == "minmax":
            span = np.ptp(w) if len(w) else 0.0
            return (w - w.min()) / span if span > 0 else np.zeros_like(w)
        return w.copy()

    # ------------------------------------------------------------------ choosing c
    def _vali_scores(self, features, X, y, query_ptr, X_val, sign) -> np.ndarray:
        """Scores (m_val,) of the vali model trained on ``features``."""
        cols = np.asarray(sorted(features), dtype=np.int64)
        if self.vali_model == "ranksvm":
            qid = np.repeat(np.arange(len(query_ptr) - 1), np.diff(query_ptr))
            model = RankSVM(C=1.0, n_jobs=self.n_jobs).fit(X[:, cols], y, qid)
            scores = model.predict(X_val[:, cols])
        else:
            train = X[:, cols].astype(np.float64)
            mean = train.mean(axis=0)
            std = train.std(axis=0)
            std[std == 0] = 1.0
            scores = ((X_val[:, cols].astype(np.float64) - mean) / std) @ sign[cols]
        return scores

    def _choose_c(self, w, e, active, X, y, query_ptr, X_val, y_val, qid_val, sign) -> float:
        if X_val is None or y_val is None or qid_val is None:
            raise NeedsValidation(f"{self.name}: c=None chooses c on validation data, but none was given; "
                                  "pass X_val, y_val and qid_val to fit, or set c")
        X_val = np.asarray(X_val)
        y_val = np.asarray(y_val)
        if X_val.ndim != 2 or X_val.shape[1] != X.shape[1] or y_val.shape != (X_val.shape[0],):
            raise ValueError(f"{self.name}: validation data must be (m, {X.shape[1]}) with one label per row; "
                             f"got X_val {X_val.shape}, y_val {y_val.shape}")
        ptr_val, _ = query_ptr_from_qid(np.asarray(qid_val))
        t = min(int(self.t_vali), len(active))
        choice = ValiChoice(f"{self.name} (c grid)", y_val, ptr_val, self.vali_metric, self.convention, self.ties,
                            names="c")
        seen: dict[tuple, tuple[float, bool]] = {}
        for c in self.c_grid:
            order, _ = gas_greedy(w, e, float(c), t)
            key = tuple(sorted(active[order].tolist()))
            if key not in seen:
                seen[key] = choice.score(self._vali_scores(key, X, y, query_ptr, X_val, sign))
            choice.offer_value(float(c), *seen[key])
        best_c, _, _ = choice.best
        self.chosen_ = {"c": best_c, "vali_metric": self.vali_metric, "vali_model": self.vali_model,
                        "ties": self.ties, "t_vali": t,
                        "vali_scores": {repr(r["params"]): r["vali"] for r in choice.trials},
                        "degenerate": [r["params"] for r in choice.trials if r["degenerate"]]}
        return best_c

    # ------------------------------------------------------------------ fit
    def needs_validation(self) -> tuple[str, dict] | None:  # noqa: D102 (Selector's docstring)
        return None if self.c is not None else (f"{self.name} chooses c on validation data when c is None",
                                                {"c": 0.01})

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        raw, sign = self._importance(X, y, query_ptr, precomputed)
        w = self._normalise(raw)
        e = self._similarity(X, query_ptr, precomputed, sign)
        idle = self.constant_features_ if self.constant_last else np.zeros(0, np.int64)  # Selector.fit's rule
        active = np.setdiff1d(np.arange(d), idle)
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


@fill_doc(**_DOC)
class GASE(GAS):
    """GAS-E: GAS with an evaluation measure of the feature alone as its importance.

    The importance is a single-feature metric (default NDCG@10; the paper also used MAP); the
    parameters are those of ``GAS`` without ``pairwise_importance``, and ``importance`` may not be
    "pairwise".

    Parameters
    ----------
    importance : str, default "ndcg@10"
        A single-feature metric (a key of ``ltrfs.scoring.SINGLE_FEATURE_METRICS``, any case).
    %(gas_parameters)s
    %(gas_ties_and_sections)s

    Examples
    --------
    >>> from ltrfs.selection.gas import GASE
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> sel = GASE(importance="map").fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "gas_e"
    requires = ("single_feature", "kendall")
    parameters = {**{k: v for k, v in GAS.parameters.items() if k != "pairwise_importance"},
                  "importance": [Options(*scoring.SINGLE_FEATURE_METRICS, ignore_case=True)]}

    def __init__(self, importance: str = "ndcg@10", c: float | None = None, c_grid=DEFAULT_C_GRID,
                 t_vali: int = 10, convention: str = "letor4", orientation: str = "descending",
                 normalize: str = "none", vali_model: str = "ranksvm", vali_metric: str = "ndcg@10",
                 constant_last: bool = True, n_jobs: int = 1, similarity: str = "concordance",
                 ties: str = "expected"):
        super().__init__(importance=importance, c=c, c_grid=c_grid, t_vali=t_vali, convention=convention,
                         orientation=orientation, normalize=normalize, vali_model=vali_model,
                         vali_metric=vali_metric, constant_last=constant_last, n_jobs=n_jobs,
                         similarity=similarity, ties=ties)

    def validate_params(self):
        """Refuse ``importance="pairwise"`` (that is GAS-L), then check the declared parameters."""
        if str(self.importance).lower() == "pairwise":
            raise ValueError("gas_e: importance 'pairwise' is GAS-L; use method gas_l (or gas)")
        super().validate_params()


@fill_doc(**_DOC)
class GASL(GAS):
    """GAS-L: GAS with the importance read from the feature's pairwise ranking loss.

    The loss is the fraction of mis-ordered labelled pairs of the training queries when they are
    ranked by the feature alone, a tied pair counting 1/2 (``ltrfs.scoring.pairwise``); the
    importance is 1 / loss (default) or 1 - loss. The parameters are those of ``GAS`` without
    ``importance``.

    Parameters
    ----------
    %(gas_parameters)s
    %(gas_pairwise_importance)s
    %(gas_ties_and_sections)s

    Examples
    --------
    >>> from ltrfs.selection.gas import GASL
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = GASL(c=0.1).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "gas_l"
    requires = ("pairwise", "kendall")
    parameters = {k: v for k, v in GAS.parameters.items() if k != "importance"}

    def __init__(self, c: float | None = None, c_grid=DEFAULT_C_GRID, t_vali: int = 10,
                 convention: str = "letor4", orientation: str = "descending", normalize: str = "none",
                 vali_model: str = "ranksvm", vali_metric: str = "ndcg@10", constant_last: bool = True,
                 n_jobs: int = 1, similarity: str = "concordance", pairwise_importance: str = "inverse",
                 ties: str = "expected"):
        super().__init__(importance="pairwise", c=c, c_grid=c_grid, t_vali=t_vali, convention=convention,
                         orientation=orientation, normalize=normalize, vali_model=vali_model,
                         vali_metric=vali_metric, constant_last=constant_last, n_jobs=n_jobs,
                         similarity=similarity, pairwise_importance=pairwise_importance, ties=ties)

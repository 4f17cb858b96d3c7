"""Random-forest importance and its elimination curve (Lei & Han 2017, section 2.3.2).

The report used R's ``randomForest`` as a CLASSIFIER of the relevance labels (a factor; it
predicted 5-column class-probability matrices and ranked by the expected label), 501 trees,
``mtry = floor(sqrt(d))``, other settings default (bootstrap samples of n rows, trees grown
to purity), and R's ``rfcv`` with ``step = 0.7`` for the cross-validated error while
eliminating features (Table 2.1: 136, 95, 67, 47, 33, 23, 16, 11, 8, 5).

Here: scikit-learn ``RandomForestClassifier(n_estimators=501, max_features="sqrt")`` (the
same defaults otherwise) on the labels. Importance (``importance``):

* ``"impurity"`` (default): mean decrease in Gini impurity, ``feature_importances_``
  (R's MeanDecreaseGini, normalised to sum 1);
* ``"permutation"``: out-of-bag permutation importance, R's MeanDecreaseAccuracy without
  scaling: for every tree, the accuracy on its out-of-bag rows minus the accuracy after
  permuting feature j among those rows, averaged over trees.

Elimination curve (``curve=True``), as ``rfcv``: sizes ``round(d * keep^i)`` for
i = 0 .. floor(log(d) / log(1 / keep)) - 1, duplicates removed, 1 appended (d = 136,
keep = 0.7: 136, 95, 67, 47, 33, 23, 16, 11, 8, 5, 4, 3, 2, 1). For each of ``cv`` folds
(grouped by query with ``GroupKFold``; rfcv stratified rows by class), a forest on all
features ranks the features by importance on the training part; forests on the top-n
features, for every size n, predict the held-out part (``recursive=True`` re-ranks with each
smaller forest, rfcv's option). The error of a size is the misclassification rate over all
held-out rows. ``curve_`` = [(n, error)], ``chosen_["n_features"]`` = the size of lowest
error (the larger size on ties). The ranking itself comes from the forest on all features
and all rows; ``predict_scores(X)`` = its expected label ``sum_r r P(r)``.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.params import Boolean, Integer, Options, Real
from ltrfs.progress import Progress
from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector

IMPORTANCES = ("impurity", "permutation")


def rfcv_sizes(d: int, keep: float = 0.7) -> list[int]:
    """Feature counts of the elimination curve (R's ``rfcv`` with ``scale="log"``).

    Parameters
    ----------
    d : int
    keep : float in (0, 1), default 0.7

    Returns
    -------
    list of int
        ``round(d * keep^i)`` without duplicates, then 1.

    Examples
    --------
    >>> rfcv_sizes(136)
    [136, 95, 67, 47, 33, 23, 16, 11, 8, 5, 4, 3, 2, 1]
    """
    k = int(np.floor(np.log(d) / np.log(1.0 / keep) + 1e-12)) if d > 1 else 0
    sizes = np.round(d * keep ** np.arange(k)).astype(int).tolist()  # round half to even, as R
    out: list[int] = []
    for n in sizes:
        if not out or n != out[-1]:
            out.append(n)
    if 1 not in out:
        out.append(1)
    return out


def oob_permutation_importance(forest, X: np.ndarray, y: np.ndarray, random_state=0,
                               max_block_bytes: int = 64 << 20) -> np.ndarray:
    """Out-of-bag permutation importance (R's MeanDecreaseAccuracy without scaling).

    Parameters
    ----------
    forest : sklearn.ensemble.RandomForestClassifier
        Fitted on (X, y).
    X : ndarray, shape (m, d)
    y : ndarray, shape (m,)
    random_state : int or None, default 0
    max_block_bytes : int, default 64 MiB
        Memory of one block of permuted rows.

    Returns
    -------
    float64 (d,)
        Mean over trees of (OOB accuracy - OOB accuracy with feature j permuted among the tree's
        out-of-bag rows).
    """
    X = np.asarray(X, dtype=np.float32)
    n, d = X.shape
    code = np.searchsorted(forest.classes_, y)  # trees predict class indices
    rng = np.random.default_rng(random_state)
    total = np.zeros(d)
    n_trees = 0
    for tree, inbag in zip(forest.estimators_, forest.estimators_samples_):
        oob = np.ones(n, bool)
        oob[inbag] = False
        rows = np.flatnonzero(oob)
        if len(rows) == 0:
            continue
        n_trees += 1
        Xo, yo = X[rows], code[rows]
        base = np.mean(tree.predict_proba(Xo, check_input=False).argmax(axis=1) == yo)
        per_block = max(1, int(max_block_bytes // max(1, Xo.nbytes)))
        for start in range(0, d, per_block):
            feats = np.arange(start, min(d, start + per_block))
            block = np.tile(Xo, (len(feats), 1))
            for b, j in enumerate(feats):
                block[b * len(rows):(b + 1) * len(rows), j] = Xo[rng.permutation(len(rows)), j]
            hit = tree.predict_proba(block, check_input=False).argmax(axis=1) == np.tile(yo, len(feats))
            total[feats] += base - hit.reshape(len(feats), len(rows)).mean(axis=1)
    return total / max(n_trees, 1)


@fill_doc
class RFImportance(Selector):
    """Random-forest classifier importance, with rfcv's cross-validated elimination curve.

    Parameters
    ----------
    n_estimators : int >= 1, default 501
        Trees.
    max_features : "sqrt", "log2", float in (0, 1], int >= 1 or None, default "sqrt"
        Features per split (a float is a fraction, an int a count).
    importance : {"impurity", "permutation"}, default "impurity"
        Mean decrease in Gini impurity, or the out-of-bag permutation importance (R's
        MeanDecreaseAccuracy without scaling).
    curve : bool, default True
        Compute the elimination curve.
    keep : float in (0, 1), default 0.7
        Fraction of features kept per elimination step (rfcv's ``step``).
    cv : int >= 2, default 5
        Folds of the curve, grouped by query and fixed whatever the seed (as l1_logistic's:
        ``statistical.grouped_folds``).
    recursive : bool, default False
        Re-rank with each smaller forest (rfcv's option).
    sample_size : int >= 2 or None, default None
        Rows drawn (seeded) to fit on; None: all rows (the report used 10,000).
    max_samples : float in (0, 1], int >= 1 or None, default None
        Rows drawn for each tree: None = as many as the training rows (R's default); a fraction
        or a count = R's ``sampsize``.
    min_samples_leaf : int >= 1, default 1
        R's ``nodesize`` for classification.
    random_state : int >= 0 or None, default 0
        Seed of the row sample, the forests and the permutations.
    n_jobs : int >= 1, default 1
        scikit-learn's threads.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by importance, descending.
    scores_ : float64 (d,)
        The importance.
    classes_ : (K,)
        The labels.
    forest_ : sklearn.ensemble.RandomForestClassifier
        The forest on all features and rows.
    curve_ : list of (int, float)
        (number of features, CV error) when ``curve``.
    chosen_ : dict
        ``n_rows``; with ``curve``: ``n_features`` (size of lowest error, larger on ties),
        ``cv_error`` and ``curve`` (so that the curve reaches the selection file: Table 2.1).
    %(selector_fit_attributes)s

    Notes
    -----
    On all of MSLR-WEB10K's Fold 1 (723k rows) the defaults grow trees of about 10^5 nodes: 501
    of them take hours and several GB; ``max_samples=0.1, min_samples_leaf=5``
    (config/papers/lei2017.yaml) keeps minutes and a model of a few hundred MB.

    References
    ----------
    Lei and Han. Feature selection and model comparison on Microsoft learning-to-rank data
    sets. UCSB report, 2017, section 2.3.2 (random forest), section 3.2.4 and Table 2.1;
    Breiman, Random forests, Machine Learning 2001. See docs/methods.md, section 'Statistical
    selectors (Lei & Han)'.

    Examples
    --------
    >>> from ltrfs.selection.forest import RFImportance
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = RFImportance(n_estimators=50, cv=2).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    >>> sel.chosen_["n_features"]           # the size of lowest CV error
    2
    """

    name = "rf_importance"
    #: the code-free state (``ltrfs.state``): the forest's trees as arrays (``ltrfs.state.TreeEnsemble``)
    state_attributes = Selector.state_attributes + ("forest_", "classes_")
    # an int is a count and a float a fraction (scikit-learn reads them by type); 1 is a count
    parameters = {
        "n_estimators": [Integer(1)],
        "max_features": [Options("sqrt", "log2"), Real(0, 1, closed="right"), Integer(1), None],
        "importance": [Options(*IMPORTANCES)],
        "curve": [Boolean()],
        "keep": [Real(0, 1, closed="neither")],
        "cv": [Integer(2)],
        "recursive": [Boolean()],
        "sample_size": [Integer(2), None],
        "max_samples": [Real(0, 1, closed="right"), Integer(1), None],
        "min_samples_leaf": [Integer(1)],
        "random_state": [Integer(0), None],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, n_estimators: int = 501, max_features="sqrt", importance: str = "impurity",
                 curve: bool = True, keep: float = 0.7, cv: int = 5, recursive: bool = False,
                 sample_size: int | None = None, max_samples=None, min_samples_leaf: int = 1,
                 random_state: int = 0, n_jobs: int = 1):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.importance = importance
        self.curve = curve
        self.keep = keep
        self.cv = cv
        self.recursive = recursive
        self.sample_size = sample_size
        self.max_samples = max_samples
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _forest(self, n_rows: int):
        """The forest for ``n_rows`` training rows (a ``max_samples`` count is capped at them)."""
        from sklearn.ensemble import RandomForestClassifier  # heavy (scikit-learn, ~1-2 s): imported on use

        max_samples = self.max_samples
        if isinstance(max_samples, (int, np.integer)):
            max_samples = min(int(max_samples), n_rows)
        return RandomForestClassifier(n_estimators=self.n_estimators, max_features=self.max_features,
                                      max_samples=max_samples, min_samples_leaf=self.min_samples_leaf,
                                      random_state=self.random_state, n_jobs=self.n_jobs)

    def _importance(self, forest, X, y) -> np.ndarray:
        if self.importance == "impurity":
            return np.asarray(forest.feature_importances_, dtype=np.float64)
        return oob_permutation_importance(forest, X, y, self.random_state)

    def elimination_curve(self, X, y, group) -> list[tuple[int, float]]:
        """rfcv's cross-validated elimination curve (module docstring).

        Parameters
        ----------
        X : ndarray, shape (m, d)
        y : ndarray, shape (m,)
        group : ndarray of int, shape (m,)
            Query index of every row (the folds are grouped by it).

        Returns
        -------
        list of (int, float)
            (number of features, CV misclassification rate) over ``rfcv_sizes``.
        """
        d = X.shape[1]
        sizes = rfcv_sizes(d, self.keep)
        wrong = np.zeros(len(sizes))
        progress = Progress("RF elimination curve", self.cv * len(sizes), unit="forests")
        for fold, (train, test) in enumerate(st.grouped_folds(group, self.cv), start=1):
            forest = self._forest(len(train)).fit(X[train], y[train])
            wrong[0] += np.sum(forest.predict(X[test]) != y[test])
            progress.step(f"cv fold {fold}, {d} features")
            order = np.argsort(-self._importance(forest, X[train], y[train]), kind="stable")
            for i, n in enumerate(sizes[1:], start=1):
                cols = order[:n]
                sub = self._forest(len(train)).fit(X[train][:, cols], y[train])
                wrong[i] += np.sum(sub.predict(X[test][:, cols]) != y[test])
                progress.step(f"cv fold {fold}, {n} features")
                if self.recursive:
                    order = cols[np.argsort(-self._importance(sub, X[train][:, cols], y[train]), kind="stable")]
        return [(int(n), float(w / len(y))) for n, w in zip(sizes, wrong)]

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        X, y, group = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        X = X.astype(np.float32)
        self.forest_ = self._forest(len(y)).fit(X, y)
        self.classes_ = self.forest_.classes_
        self.scores_ = self._importance(self.forest_, X, y)
        self.ranking_ = np.argsort(-self.scores_, kind="stable").astype(np.int64)
        self.chosen_ = {"n_rows": int(len(y))}
        self.curve_ = None
        if self.curve:
            self.curve_ = self.elimination_curve(X, y, group)
            errors = np.array([e for _, e in self.curve_])
            best = int(np.argmin(errors))  # sizes descend: ties keep the larger size
            self.chosen_.update({"n_features": self.curve_[best][0], "cv_error": self.curve_[best][1],
                                 "curve": [list(point) for point in self.curve_]})

    def check_state(self) -> None:
        """The selector's checks, and ``forest_`` (read back from a file) a classifier forest
        (``ltrfs.state.TreeEnsemble``) of ``n_features_in_`` features whose classes are ``classes_``."""
        super().check_state()
        forest = self.forest_
        if type(forest).__name__ != "TreeEnsemble" or forest.n_features_in_ != self.n_features_in_ \
                or forest.classes_ is None or not np.array_equal(forest.classes_, self.classes_):
            raise ValueError(f"{self.name}: forest_ is not a classifier forest of {self.n_features_in_} features "
                             "and the classes of classes_")

    def predict_scores(self, X) -> np.ndarray:
        """The expected label ``sum_r classes_[r] P(r | x)`` of the forest on all features.

        %(predict_sections)s
        """
        proba = self.forest_.predict_proba(np.asarray(X, dtype=np.float32))
        return st.expected_label(proba, self.classes_)

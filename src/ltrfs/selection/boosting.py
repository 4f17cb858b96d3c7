"""Gradient-boosting importance (Lei & Han 2017, section 2.3.3).

The report fitted R's ``gbm`` with ``distribution = "multinomial"``, ``n.trees = 1250``,
``interaction.depth = 4``, ``shrinkage = 0.001`` (tuned with caret on a 1,000-row sample) on
10,000 sampled rows, and ranked the features by gbm's relative influence (the summed squared
improvement of the splits on each feature). Here, ``backend="exact"`` (default):
scikit-learn ``GradientBoostingClassifier`` with the log-loss (multinomial deviance for more
than two labels: K trees per iteration), ``n_estimators`` 1250, ``learning_rate`` 0.001, and
gbm's other defaults: ``interaction.depth`` 4 means 4 splits per tree, grown best first, so
``max_leaf_nodes = interaction_depth + 1`` (= 5) with no depth limit; ``bag.fraction`` 0.5 ->
``subsample=0.5``; ``n.minobsinnode`` 10 -> ``min_samples_leaf=10``. Importance =
``feature_importances_`` (impurity decrease of the splits, averaged over trees and
normalised to 1: gbm's relative influence up to scale).

``backend="xgboost"`` (the workflow's default, set in config/config.yaml): the same boosting
on XGBoost's histogram trees (``tree_method="hist"``, features binned into 256 levels):
``objective`` multi:softprob (binary:logistic for two labels), ``n_estimators`` rounds of one
tree per class, ``learning_rate``, ``max_leaves = interaction_depth + 1`` grown best first
(``grow_policy="lossguide"``, no depth limit), ``subsample``, no L2 penalty on the leaves
(``reg_lambda=0``, as gbm), and ``min_child_weight`` = ``min_samples_leaf`` x a row's hessian
at the uniform start p = 1/K (XGBoost bounds a leaf's hessian sum, not its row count: about
``min_samples_leaf`` rows while the probabilities stay near the start, as they do at
shrinkage 0.001). Importance = the total gain of the splits on each feature (``total_gain``:
gbm's relative influence, summed squared improvement, up to scale), normalised to sum 1.
On MQ2008 Fold 1 (9,630 rows, 46 features, 3 labels) it takes 6.9 s against the exact
backend's 118 s, with Spearman 0.98 between the two importances and 9 of the top 10 features
shared (``bench/bench_gbm_importance.py``).

``backend="hist"``: ``HistGradientBoostingClassifier`` (features binned into 255 levels, no
row subsampling, no early stopping; same iterations, learning rate, leaves and minimum leaf
size). It has no impurity importance, so the importance is the permutation importance
(``sklearn.inspection.permutation_importance``, ``n_repeats`` shuffles, mean increase of the
log-loss) on the validation split when ``fit`` gets one, else on the training rows.

``predict_scores(X)`` = the expected label ``sum_r r P(r | x)`` (the report's score for
multiclass models).
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from ltrfs.docstrings import fill_doc
from ltrfs.params import Integer, Options, Real
from ltrfs.progress import Progress
from ltrfs.selection import statistical as st
from ltrfs.selection.base import Selector

BACKENDS = ("exact", "xgboost", "hist")


@fill_doc
class GBMImportance(Selector):
    """Multinomial gradient boosting of the labels, features ranked by importance.

    Parameters
    ----------
    n_estimators : int >= 1, default 1250
        Boosting iterations.
    learning_rate : float > 0, default 0.001
        Shrinkage.
    interaction_depth : int >= 1, default 4
        gbm's splits per tree (``max_leaf_nodes = interaction_depth + 1``).
    subsample : float in (0, 1], default 0.5
        Row fraction per iteration (gbm's ``bag.fraction``).
    min_samples_leaf : int >= 1, default 10
        gbm's ``n.minobsinnode``.
    backend : {"exact", "xgboost", "hist"}, default "exact"
        scikit-learn's ``GradientBoostingClassifier``, XGBoost's histogram trees, or
        ``HistGradientBoostingClassifier`` with permutation importance (module docstring).
    n_repeats : int >= 1, default 5
        Permutations per feature ("hist" only).
    sample_size : int >= 2 or None, default None
        Rows drawn (seeded) to fit on; None: all rows (the report used 10,000).
    random_state : int >= 0 or None, default 0
        Seed of the row sample, the boosting and the permutations.
    n_jobs : int >= 1, default 1
        Threads of the xgboost and hist backends and of the permutation importance.

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by importance, descending.
    scores_ : float64 (d,)
        The importance (normalised to sum 1 for "exact" and "xgboost").
    classes_ : (K,)
        The labels.
    model_ : object
        The fitted booster.
    chosen_ : dict
        ``backend``, ``importance`` (its kind) and ``n_rows``.
    %(selector_fit_attributes)s

    References
    ----------
    Lei and Han. Feature selection and model comparison on Microsoft learning-to-rank data
    sets. UCSB report, 2017, section 2.3.3 (generalized boosted regression modeling) and 3.2.5;
    Friedman, Greedy function approximation: a gradient boosting machine, Ann. Stat. 2001. See
    docs/methods.md, section 'Statistical selectors (Lei & Han)'.

    Examples
    --------
    >>> from ltrfs.selection.boosting import GBMImportance
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = GBMImportance(n_estimators=100, learning_rate=0.1).fit(X, y, qid)
    >>> sel.ranking_[:2]                  # the two informative features first
    array([2, 0])
    >>> sel.transform(X, k=2).shape
    (120, 2)
    """

    name = "gbm_importance"
    #: no code-free form: the model is a scikit-learn gradient boosting or an XGBoost classifier
    #: object (``model_``), kept as a signed pickle (``ltrfs.signed``)
    state_attributes = None
    parameters = {
        "n_estimators": [Integer(1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "interaction_depth": [Integer(1)],
        "subsample": [Real(0, 1, closed="right")],
        "min_samples_leaf": [Integer(1)],
        "backend": [Options(*BACKENDS)],
        "n_repeats": [Integer(1)],
        "sample_size": [Integer(2), None],
        "random_state": [Integer(0), None],
        "n_jobs": [Integer(1)],
    }

    def __init__(self, n_estimators: int = 1250, learning_rate: float = 0.001, interaction_depth: int = 4,
                 subsample: float = 0.5, min_samples_leaf: int = 10, backend: str = "exact",
                 n_repeats: int = 5, sample_size: int | None = None, random_state: int = 0, n_jobs: int = 1):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.interaction_depth = interaction_depth
        self.subsample = subsample
        self.min_samples_leaf = min_samples_leaf
        self.backend = backend
        self.n_repeats = n_repeats
        self.sample_size = sample_size
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _model(self):
        if self.backend == "exact":
            from sklearn.ensemble import GradientBoostingClassifier  # heavy (scikit-learn, ~1-2 s): imported on use

            return GradientBoostingClassifier(
                loss="log_loss", n_estimators=self.n_estimators, learning_rate=self.learning_rate,
                max_depth=None, max_leaf_nodes=self.interaction_depth + 1, subsample=self.subsample,
                min_samples_leaf=self.min_samples_leaf, random_state=self.random_state)
        if self.backend == "xgboost":
            from xgboost import XGBClassifier  # heavy (XGBoost, ~1.2 s): imported on use

            k = len(self.classes_)
            hessian = 2.0 / k * (1.0 - 1.0 / k) if k > 2 else 0.25  # XGBoost's softmax doubles p(1 - p)
            return XGBClassifier(
                n_estimators=self.n_estimators, learning_rate=self.learning_rate, tree_method="hist",
                max_depth=0, max_leaves=self.interaction_depth + 1, grow_policy="lossguide",
                subsample=self.subsample, reg_lambda=0.0,
                min_child_weight=self.min_samples_leaf * hessian,
                objective="multi:softprob" if k > 2 else "binary:logistic", random_state=self.random_state,
                n_jobs=self.n_jobs)
        from sklearn.ensemble import HistGradientBoostingClassifier  # heavy (scikit-learn, ~1-2 s): imported on use

        return HistGradientBoostingClassifier(
            loss="log_loss", max_iter=self.n_estimators, learning_rate=self.learning_rate,
            max_leaf_nodes=self.interaction_depth + 1, max_depth=None, min_samples_leaf=self.min_samples_leaf,
            early_stopping=False, random_state=self.random_state)

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        X, y, _ = st.prepare_rows(X, y, query_ptr, self.sample_size, self.random_state)
        X = X.astype(np.float32)
        if len(np.unique(y)) < 2:
            raise ValueError(f"gbm_importance needs at least 2 label levels, the data has only {np.unique(y).tolist()}")
        self.classes_, code = np.unique(y, return_inverse=True)
        with threadpool_limits(self.n_jobs):
            progress = Progress(f"gbm_importance ({self.backend})", self.n_estimators, unit="iterations")
            if self.backend == "xgboost":  # labels as class indices 0..K-1
                from xgboost.callback import TrainingCallback  # heavy (XGBoost, ~1.2 s): imported on use

                class Step(TrainingCallback):
                    def after_iteration(self, model, epoch, evals_log):
                        progress.step()
                        return False

                self.model_ = self._model().set_params(callbacks=[Step()]).fit(X, code)
                self.model_.set_params(callbacks=None)  # the fitted model pickles without it
                gain = self.model_.get_booster().get_score(importance_type="total_gain")
                scores = np.array([gain.get(f"f{j}", 0.0) for j in range(X.shape[1])], dtype=np.float64)
                self.scores_ = scores / scores.sum() if scores.sum() > 0 else scores
                where = "total_gain"
            elif self.backend == "exact":
                self.model_ = self._model().fit(X, y, monitor=lambda i, model, state: progress.step() or False)
                self.scores_ = np.asarray(self.model_.feature_importances_, dtype=np.float64)
                where = "impurity"
            else:  # hist
                from sklearn.inspection import permutation_importance  # heavy (scikit-learn, ~1-2 s): imported on use

                self.model_ = self._model().fit(X, y)
                on_vali = X_val is not None and y_val is not None
                Xp, yp = (np.asarray(X_val, np.float32), np.asarray(y_val)) if on_vali else (X, y)
                if on_vali and not set(np.unique(yp).tolist()) <= set(self.classes_.tolist()):
                    keep = np.isin(yp, self.classes_)  # labels unseen in training cannot be scored
                    Xp, yp = Xp[keep], yp[keep]
                result = permutation_importance(self.model_, Xp, yp, scoring="neg_log_loss",
                                                n_repeats=self.n_repeats, random_state=self.random_state,
                                                n_jobs=self.n_jobs)
                self.scores_ = np.asarray(result.importances_mean, dtype=np.float64)
                where = "permutation:" + ("vali" if on_vali else "train")
        self.ranking_ = np.argsort(-self.scores_, kind="stable").astype(np.int64)
        self.chosen_ = {"backend": self.backend, "importance": where, "n_rows": int(len(y))}

    def predict_scores(self, X) -> np.ndarray:
        """The expected label ``sum_r classes_[r] P(r | x)`` of the booster.

        %(predict_sections)s
        """
        proba = self.model_.predict_proba(np.asarray(X, dtype=np.float32))
        return st.expected_label(proba, self.classes_)

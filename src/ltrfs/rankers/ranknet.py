"""RankNet (Burges, Shaked, Renshaw, Lazier, Deeds, Hamilton & Hullender, ICML 2005) in NumPy.

Model: one hidden layer of ``hidden_units`` sigmoid units (RankLib's default: 10) and a linear
output unit::

    h(x) = sigmoid(W1^T z(x) + b1),   s(x) = w2 . h(x)          z(x) = (x - mean_) / scale_

Features are standardised with the training mean and standard deviation inside the model
(``z`` above; constant columns get scale 1), so ``predict`` takes raw features. An output bias
would shift all scores of a query equally and has zero gradient, so there is none.

Loss: pairwise cross entropy on the pairs of one query with different labels (y_i > y_j), with
the target probability 1 (Burges et al.'s P_ij-bar = 1)::

    C_ij = log(1 + exp(-sigma (s_i - s_j)))
    L    = (1 / P_B) sum_{q in B} sum_{y_i > y_j} C_ij + (alpha / 2) (||W1||^2 + ||w2||^2)

averaged over the P_B pairs of the mini-batch B of queries (the penalty leaves b1 out).

Gradient (the "factorised" RankNet speed-up of Burges 2010, section 2.1): with
``lambda_ij = dC_ij/ds_i = -sigma / (1 + exp(sigma (s_i - s_j)))`` and ``dC_ij/ds_j = -lambda_ij``,
every document gets ``lambda_d = sum_{j: y_d > y_j} lambda_dj - sum_{i: y_i > y_d} lambda_id``
and ``dL/dtheta = (1 / P_B) sum_d lambda_d ds_d/dtheta``: one backward pass through the network
over documents, not over pairs. The lambdas come from a compiled (Numba) kernel that loops
over the O(n^2) document pairs of each query in turn; it keeps only the per-document lambdas,
never a pair list or a (pairs x features) matrix, so memory stays O(m) besides the data.

Optimiser: mini-batches of ``batch_size`` queries (only queries with at least one pair; the
others have zero gradient), reshuffled every epoch with ``random_state``, and Adam (Kingma & Ba
2015; beta1 0.9, beta2 0.999, eps 1e-8) or plain SGD (``solver="sgd"``) with ``learning_rate``.
Initial weights are Glorot-uniform from ``random_state``; b1 starts at 0. (RankLib instead
updates after every query with plain gradient steps of 5e-5; Adam on small batches of queries
reaches a lower loss in far fewer epochs.)

Model choice: after every epoch the network is scored on the validation split with ``metric``
(default ``ndcg@10``) in ``convention`` (default ``letor4``) of ``ltrfs.metrics``; the weights of
the best epoch are kept (the first on ties) and training stops after ``patience`` epochs without
improvement. Without a validation split the weights after the last epoch are kept.

The module also holds the helpers ListNet shares (common parameters, validation tracking).
"""
from __future__ import annotations

import logging
import time

import numpy as np
from numba import njit

from ltrfs.checks import check_X
from ltrfs.docstrings import fill_doc
from ltrfs.metrics import TIES
from ltrfs.params import ConventionLike, Integer, Metric, Options, Real
from ltrfs.rankers.base import Ranker, standardise
from ltrfs.rankers.pairs import count_pairs
from ltrfs.tuning import DegenerateGridError, vali_score

log = logging.getLogger(__name__)

_SOLVERS = ("adam", "sgd")
_ADAM_BETA1, _ADAM_BETA2, _ADAM_EPS = 0.9, 0.999, 1e-8


# ----------------------------------------------------------------------------- shared helpers


#: the parameters RankNet and ListNet share (validation-based stopping, seed, threads)
COMMON_PARAMETERS = {
    "patience": [Integer(1), None],
    "metric": [Metric()],
    "convention": [ConventionLike()],
    "ties": [Options(*TIES)],
    "random_state": [Integer(0)],
    "n_jobs": [Integer(1)],
}


class ValidationTracker:
    """Scores models on a validation split and remembers the best one.

    Parameters
    ----------
    X : ndarray, shape (m, d)
        Validation features, already transformed as the model needs.
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    metric : str
        The vali metric.
    convention : str
    patience : int or None
        Updates in a row without improvement that stop training.
    ties : {"expected", "file_order"}, default "expected"
    """

    def __init__(self, X, y, query_ptr, metric, convention, patience, ties="expected"):
        self.X, self.y, self.query_ptr = X, y, query_ptr
        self.metric, self.convention, self.patience, self.ties = metric, convention, patience, ties
        self.best_score = -np.inf
        self.best_iteration = -1
        self.best_params = None
        self.history: list[float] = []
        self._since_best = 0

    def score(self, scores) -> float:
        """Mean vali metric of some scores (``ltrfs.tuning.vali_score``, tie-aware by default).

        Parameters
        ----------
        scores : ndarray, shape (m,)

        Returns
        -------
        float
            -inf for a degenerate model (constant scores within every query), which is never kept.
        """
        value, degenerate = vali_score(self.y, scores, self.query_ptr, self.metric, self.convention, self.ties)
        return -np.inf if degenerate else value

    def update(self, iteration: int, value: float, params) -> bool:
        """Record a vali value; copy the parameters when it beats the best so far (strictly).

        Parameters
        ----------
        iteration : int
        value : float
        params : ndarray or tuple of ndarray

        Returns
        -------
        bool
            True when ``patience`` updates in a row brought no improvement (stop).
        """
        self.history.append(float(value))
        if value > self.best_score:
            self.best_score = float(value)
            self.best_iteration = int(iteration)
            self.best_params = (tuple(np.array(p, copy=True) for p in params) if isinstance(params, tuple)
                                else np.array(params, copy=True))
            self._since_best = 0
            return False
        self._since_best += 1
        return self.patience is not None and self._since_best >= self.patience


def finish_validation(estimator, tracker: ValidationTracker | None, params, n_iter: int):
    """Set ``best_iteration_``, ``best_score_``, ``val_scores_``; return the parameters to keep.

    Parameters
    ----------
    estimator : Ranker
    tracker : ValidationTracker or None
    params : ndarray or tuple of ndarray
        The last parameters.
    n_iter : int
        Iterations done.

    Returns
    -------
    ndarray or tuple of ndarray
        The tracker's best, or ``params`` when there was no validation split.
    """
    if tracker is None:
        estimator.best_iteration_, estimator.best_score_, estimator.val_scores_ = n_iter, None, []
        return params
    if tracker.best_params is None:
        raise DegenerateGridError(f"{estimator.name}: every iteration gives the same score to all documents "
                                  "of every vali query (a degenerate model)")
    estimator.best_iteration_ = tracker.best_iteration
    estimator.best_score_ = tracker.best_score
    estimator.val_scores_ = tracker.history[1:]
    return tracker.best_params


# ----------------------------------------------------------------------------- pair kernel


@njit(cache=True)
def _pair_lambdas(scores, y, query_ptr, sigma, lam):  # pragma: no cover - compiled
    """Fill lam (m,) with the per-document lambdas; return (summed pair loss, number of pairs).

    For every query, an O(n^2) loop over its document pairs with y_i > y_j (nothing stored but
    lam): C_ij = log(1 + exp(-sigma (s_i - s_j))), lambda_ij = -sigma / (1 + exp(sigma (s_i - s_j))),
    lam_i += lambda_ij, lam_j -= lambda_ij.
    """
    loss = 0.0
    n_pairs = 0
    for k in range(lam.shape[0]):
        lam[k] = 0.0
    for q in range(query_ptr.shape[0] - 1):
        a = query_ptr[q]
        b = query_ptr[q + 1]
        for i in range(a, b):
            yi = y[i]
            si = scores[i]
            for j in range(a, b):
                if yi > y[j]:
                    d = sigma * (si - scores[j])
                    # log(1 + exp(-d)), stable for both signs of d
                    if d > 0.0:
                        loss += np.log1p(np.exp(-d))
                    else:
                        loss += -d + np.log1p(np.exp(d))
                    lij = -sigma / (1.0 + np.exp(d))
                    lam[i] += lij
                    lam[j] -= lij
                    n_pairs += 1
    return loss, n_pairs


def pair_loss(scores, y, query_ptr, sigma: float = 1.0):
    """RankNet's pair cross-entropy of given scores, and its gradient.

    Parameters
    ----------
    scores : ndarray, shape (m,)
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    sigma : float, default 1.0
        The sigmoid's slope.

    Returns
    -------
    (float, int, float64 (m,))
        ``sum_q sum_{y_i > y_j} C_ij``, the number of pairs, and the lambdas (the gradient of the
        summed loss with respect to the scores).

    References
    ----------
    Burges et al., ICML 2005 (the pair cross entropy).
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    query_ptr = np.ascontiguousarray(query_ptr, dtype=np.int64)
    lam = np.empty(len(scores))
    loss, n_pairs = _pair_lambdas(scores, y, query_ptr, float(sigma), lam)
    return float(loss), int(n_pairs), lam


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # = 1 / (1 + exp(-z)), without overflow


def forward(params, Z):
    """Hidden activations and scores of the network.

    Parameters
    ----------
    params : (W1 (d, H), b1 (H,), w2 (H,))
    Z : ndarray, shape (m, d)
        Standardised features.

    Returns
    -------
    (float64 (m, H), float64 (m,))
    """
    W1, b1, w2 = params
    H = _sigmoid(Z @ W1 + b1)
    return H, H @ w2


def loss_and_grad(params, Z, y, query_ptr, sigma: float = 1.0, alpha: float = 0.0):
    """Mean pair loss plus the L2 penalty on (W1, w2), and its gradient, for one batch of queries.

    Parameters
    ----------
    params : (W1 (d, H), b1 (H,), w2 (H,))
    Z : ndarray, shape (m, d)
        Standardised features.
    y : ndarray, shape (m,)
    query_ptr : ndarray of int, shape (q + 1,)
    sigma : float, default 1.0
    alpha : float, default 0.0
        L2 weight.

    Returns
    -------
    (float, (dW1, db1, dw2), int)
        Loss, gradient and number of pairs; with no pair the data term is 0.
    """
    W1, b1, w2 = params
    Hh, s = forward(params, Z)
    total, n_pairs, lam = pair_loss(s, y, query_ptr, sigma)
    norm = 1.0 / max(n_pairs, 1)
    lam *= norm
    dw2 = Hh.T @ lam
    dz = np.outer(lam, w2) * Hh * (1.0 - Hh)
    dW1 = Z.T @ dz
    db1 = dz.sum(axis=0)
    loss = total * norm
    if alpha:
        loss += 0.5 * alpha * (np.sum(W1 * W1) + w2 @ w2)
        dW1 += alpha * W1
        dw2 += alpha * w2
    return float(loss), (dW1, db1, dw2), n_pairs


# ----------------------------------------------------------------------------- estimator


@fill_doc
class RankNet(Ranker):
    """RankNet: one sigmoid hidden layer, pairwise cross entropy, factorised gradient.

    Parameters
    ----------
    hidden_units : int, default 10
        sigmoid units of the hidden layer (RankLib's default).
    sigma : float, default 1.0
        steepness of the pair probability 1 / (1 + exp(-sigma (s_i - s_j))).
    solver : {"adam", "sgd"}, default "adam"
        update rule for the mini-batch gradient.
    learning_rate : float, default 1e-3
        step size (Adam's alpha, or the SGD step).
    epochs : int, default 100
        maximum passes over the training queries (RankLib's default).
    batch_size : int, default 8
        queries per mini-batch.
    alpha : float, default 0.0
        L2 penalty ``alpha/2 (||W1||^2 + ||w2||^2)``.
    patience : int or None, default 20
        with a validation split, stop after this many epochs without improvement of the
        validation metric (None: run all epochs); the best epoch's weights are kept.
    metric : str, default "ndcg@10"
        validation metric (any ``ltrfs.metrics.metric_per_query`` name).
    convention : str, default "letor4"
        metric convention (letor3, letor4, mslr, standard).
    ties : str, default "expected"
        how the validation metric ranks tied scores (``ltrfs.metrics``): "expected" over all
        orders of the tied documents, or "file_order"; a degenerate iterate (constant scores
        within every vali query) is never kept.
    random_state : int, default 0
        seed of the initial weights and of the batch order.
    n_jobs : int, default 1
        BLAS threads (threadpoolctl) for the matrix products.

    Attributes
    ----------
    W1_ : float64 (d, H)
        input -> hidden weights (on standardised features)
    b1_ : float64 (H,)
        hidden biases
    w2_ : float64 (H,)
        hidden -> output weights
    mean_, scale_ : float64 (d,)
        the standardisation (training mean, std; 1 for constant columns)
    n_iter_ : int
        epochs run
    best_iteration_ : int
        epoch whose weights were kept (0: the initial weights)
    best_score_ : float or None
        validation metric at best_iteration_ (None without vali)
    train_loss_ : list[float]
        mean pair loss (+ penalty) over each epoch's batches
    val_scores_ : list[float]
        validation metric after every epoch
    n_pairs_ : int
        training pairs (y_i > y_j within a query)
    epoch_seconds_ : list[float]
        seconds of every epoch (including the validation scoring)
    n_features_in_ : int
    seconds_ : float
        training time

    References
    ----------
    Burges, Shaked, Renshaw, Lazier, Deeds, Hamilton, Hullender. Learning to rank using
    gradient descent. ICML 2005 (the pairwise cross-entropy of a one-hidden-layer network).

    Examples
    --------
    >>> from ltrfs.rankers.ranknet import RankNet
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> ranker = RankNet().fit(X, y, qid)
    >>> round(example_ndcg(ranker), 2)   # NDCG@10 on 10 unseen queries
    0.84
    """

    name = "ranknet"
    #: the code-free state (``ltrfs.state``): the network and the standardisation of its inputs
    state_attributes = ("n_features_in_", "W1_", "b1_", "w2_", "mean_", "scale_")
    default_grid: dict = {}

    parameters = {
        "hidden_units": [Integer(1)],
        "sigma": [Real(0, None, closed="neither")],
        "solver": [Options(*_SOLVERS)],
        "learning_rate": [Real(0, None, closed="neither")],
        "epochs": [Integer(1)],
        "batch_size": [Integer(1)],
        "alpha": [Real(0)],
        **COMMON_PARAMETERS,
    }

    def __init__(self, hidden_units=10, sigma=1.0, solver="adam", learning_rate=1e-3, epochs=100, batch_size=8,
                 alpha=0.0, patience=20, metric="ndcg@10", convention="letor4", random_state=0, n_jobs=1,
                 ties="expected"):
        self.hidden_units = hidden_units
        self.ties = ties
        self.sigma = sigma
        self.solver = solver
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.batch_size = batch_size
        self.alpha = alpha
        self.patience = patience
        self.metric = metric
        self.convention = convention
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _init_params(self, d: int, rng: np.random.Generator):
        H = int(self.hidden_units)
        lim1 = np.sqrt(6.0 / (d + H))
        lim2 = np.sqrt(6.0 / (H + 1))
        return (rng.uniform(-lim1, lim1, size=(d, H)), np.zeros(H), rng.uniform(-lim2, lim2, size=H))

    def _fit(self, X, y, query_ptr, val):
        start = time.perf_counter()
        m, d = X.shape
        Z, mean, scale = standardise(X)
        rng = np.random.default_rng(self.random_state)
        params = self._init_params(d, rng)
        sigma, alpha, lr = float(self.sigma), float(self.alpha), float(self.learning_rate)
        batch_size = int(self.batch_size)
        adam = self.solver == "adam"
        moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
        step = 0

        sizes = np.diff(query_ptr)
        pairs = count_pairs(y, query_ptr)
        useful = np.flatnonzero(pairs)
        self.n_pairs_ = int(pairs.sum())
        if len(useful) == 0:
            log.warning("RankNet: no query has two documents with different labels; the initial "
                        "weights are kept")

        tracker = None
        if val is not None:
            Xv, yv, ptr_v = val
            tracker = ValidationTracker((Xv - mean) / scale, yv, ptr_v, self.metric, self.convention,
                                        self.patience, self.ties)
            tracker.update(0, tracker.score(forward(params, tracker.X)[1]), params)

        train_loss: list[float] = []
        epoch_seconds: list[float] = []
        n_iter = 0
        for epoch in range(1, int(self.epochs) + 1 if len(useful) else 1):
            t0 = time.perf_counter()
            perm = useful[rng.permutation(len(useful))]
            psizes = sizes[perm]
            pptr = np.r_[0, np.cumsum(psizes)]
            rows = (np.arange(pptr[-1]) - np.repeat(pptr[:-1], psizes) + np.repeat(query_ptr[perm], psizes))
            loss_sum, pair_sum = 0.0, 0
            for b in range(0, len(perm), batch_size):
                e = min(b + batch_size, len(perm))
                lo, hi = pptr[b], pptr[e]
                r = rows[lo:hi]
                loss, grads, n_pairs = loss_and_grad(params, Z[r], y[r], pptr[b:e + 1] - lo, sigma, alpha)
                loss_sum += loss * n_pairs
                pair_sum += n_pairs
                step += 1
                if adam:
                    c1 = 1.0 - _ADAM_BETA1 ** step
                    c2 = 1.0 - _ADAM_BETA2 ** step
                    for p, g, (mo, ve) in zip(params, grads, moments):
                        mo *= _ADAM_BETA1
                        mo += (1.0 - _ADAM_BETA1) * g
                        ve *= _ADAM_BETA2
                        ve += (1.0 - _ADAM_BETA2) * g * g
                        p -= lr * (mo / c1) / (np.sqrt(ve / c2) + _ADAM_EPS)
                else:
                    for p, g in zip(params, grads):
                        p -= lr * g
            n_iter = epoch
            train_loss.append(loss_sum / max(pair_sum, 1))
            stop = False
            msg = ""
            if tracker is not None:
                value = tracker.score(forward(params, tracker.X)[1])
                stop = tracker.update(epoch, value, params)
                msg = f"  vali {self.metric} {value:.5f} (best {tracker.best_score:.5f} at {tracker.best_iteration})"
            epoch_seconds.append(time.perf_counter() - t0)
            log.debug("RankNet epoch %d: loss %.6g%s  %.3f s", epoch, train_loss[-1], msg, epoch_seconds[-1])
            if stop:
                break
        params = finish_validation(self, tracker, params, n_iter)
        self.W1_, self.b1_, self.w2_ = (np.array(p, copy=True) for p in params)
        self.mean_, self.scale_ = mean, scale
        self.n_iter_ = int(n_iter)
        self.train_loss_ = train_loss
        self.epoch_seconds_ = epoch_seconds
        self.n_features_in_ = d
        self.seconds_ = time.perf_counter() - start
        log.debug("RankNet done: %d epochs, best %d (vali %s), %.3f s", n_iter, self.best_iteration_,
                  self.best_score_, self.seconds_)

    def check_state(self) -> None:
        """A one-line ValueError unless the weights' shapes fit ``n_features_in_`` inputs."""
        d = int(self.n_features_in_)
        H = self.W1_.shape[1] if self.W1_.ndim == 2 else -1
        if (self.W1_.shape != (d, H) or self.b1_.shape != (H,) or self.w2_.shape != (H,)
                or self.mean_.shape != (d,) or self.scale_.shape != (d,)):
            raise ValueError(f"ranknet: weights of shapes {self.W1_.shape}, {self.b1_.shape}, {self.w2_.shape} and "
                             f"a standardisation of {self.mean_.shape}, {self.scale_.shape} for {d} features")

    def predict(self, X) -> np.ndarray:
        """Scores of the network on the standardised rows of X.

        %(predict_sections)s
        """
        self._check_fitted("W1_")
        X = check_X(X, n_features=self.n_features_in_)
        return forward((self.W1_, self.b1_, self.w2_), (X - self.mean_) / self.scale_)[1]

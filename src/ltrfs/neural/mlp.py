"""A feed-forward neural ranker (the scorer of Lyu, Roy, Oosterhuis & Anand, ECIR 2024, and of
most neural learning-to-rank work): an MLP trained with a pointwise, pairwise or listwise loss in
PyTorch (``pip install -e ".[neural]"``), early stopping on the validation metric.

Model (``ltrfs.neural.network``)::

    z = (x - mean_) / scale_                      training mean and standard deviation (scale 1
                                                  for a constant column), folded into the model
    h_1 = g(W_1' z + b_1), ..., h_L = g(W_L' h_{L-1} + b_L)     ``hidden`` units per layer, g tanh
    s(x) = w' h_L + b                                           one output unit (or g = relu)

The defaults are the ranker of Lyu et al.'s code (GarfieldLyu/NeuralFeatureSelectionLTR): four
linear layers (three hidden of 256), tanh, dropout 0.3, Adam (learning rate 1e-3, weight decay
1e-4), at most 20 epochs, early stopping on vali NDCG@10 with patience 10. Where we differ
(docs/neural.md): the inputs are standardised with the training rows' mean and standard
deviation instead of passing an input BatchNorm layer (the same affine map, computed once; its
learned scale and shift are subsumed by the first linear layer), every hidden layer has its
activation (their first one has none, so their first two layers compose linearly), and a batch is
``batch_size`` whole queries, so that the listwise and pairwise losses compare documents of one
query (theirs: 200 documents drawn across queries).

Training (``ltrfs.neural.training``): Adam on mini-batches of ``batch_size`` whole queries,
shuffled every epoch, for at most ``epochs`` passes; the loss (``ltrfs.neural.losses``):
``pointwise`` (squared error to the label), ``pairwise`` (RankNet's pair cross entropy, averaged
over the batch's pairs) or ``listwise`` (softmax cross entropy with the labels as the target
distribution, averaged over queries with a relevant document). After each epoch the network is
scored on the validation split with ``metric`` (NDCG@10, the dataset's convention); the weights
of the best epoch are kept (the first on ties) and training stops after ``patience`` epochs
without improvement. Without a validation split the last epoch's weights are kept.

Deterministic on the CPU: weights start from ``random_state`` (PyTorch's default initialisation
in a forked, seeded generator), batches are shuffled by a NumPy generator of the same seed, and
PyTorch runs its deterministic kernels on ``n_jobs`` threads. Scoring (``predict``) runs in NumPy
(float64) on the kept float32 weights: a model file scores without PyTorch, to the bit as before
saving.
"""
from __future__ import annotations

import time

import numpy as np

from ltrfs.checks import check_X
from ltrfs.docstrings import fill_doc
from ltrfs.neural.losses import RANKING_LOSSES
from ltrfs.neural.network import ACTIVATIONS, build_mlp, forward, layer_arrays, torch_session
from ltrfs.neural.selector import standardised
from ltrfs.neural.training import ranking_step, require_learnable, train_epochs, useful_queries
from ltrfs.params import Integer, ListOf, Options, Real
from ltrfs.rankers.base import Ranker
from ltrfs.rankers.ranknet import COMMON_PARAMETERS, ValidationTracker, finish_validation

__all__ = ["MLPRanker"]


@fill_doc
class MLPRanker(Ranker):
    """Feed-forward ranker: MLP, ranking loss, Adam, early stopping on vali (PyTorch).

    Parameters
    ----------
    hidden : list of int, default [256, 256, 256]
        Units of each hidden layer (three of 256: a four-layer network with the output layer).
    activation : {"tanh", "relu"}, default "tanh"
        The hidden layers' activation.
    loss : {"listwise", "pairwise", "pointwise"}, default "listwise"
        Softmax cross entropy, RankNet's pair cross entropy, or squared error
        (``ltrfs.neural.losses``).
    epochs : int, default 20
        Most passes over the training queries.
    batch_size : int, default 10
        Queries per mini-batch (about 200 documents on MQ2008).
    learning_rate : float, default 1e-3
        Adam's step.
    weight_decay : float, default 1e-4
        Adam's L2 decay.
    dropout : float in [0, 1), default 0.3
        Dropout after each hidden layer while training.
    patience : int or None, default 10
        Epochs without a better vali metric that stop training (None: run all epochs).
    metric : str, default "ndcg@10"
        Validation metric.
    convention : str, default "letor4"
        Its convention (the workflow passes the dataset's).
    ties : {"expected", "file_order"}, default "expected"
        How the vali metric orders equal scores.
    random_state : int >= 0, default 0
        Seed of the initial weights and the batch order.
    n_jobs : int >= 1, default 1
        PyTorch threads.

    Attributes
    ----------
    coefs_, intercepts_ : list of float32 ndarray
        The kept weights, (in, out) and (out,) per layer.
    mean_, scale_ : float64 (d,)
        The standardisation of the inputs.
    best_iteration_, best_score_, val_scores_ : int, float, list
        The kept epoch, its vali metric, the metric after every epoch.
    n_iter_, train_loss_, epoch_seconds_, seconds_ : int, list, list, float
        Epochs run, mean training loss and seconds per epoch, seconds of the fit.

    References
    ----------
    Lyu, Roy, Oosterhuis and Anand, Is Interpretable Machine Learning Effective at Feature
    Selection for Neural Learning-to-Rank?, ECIR 2024 (the MLP ranker); Burges et al., ICML 2005
    (RankNet's loss); Cao et al., ICML 2007 (the softmax cross entropy). docs/neural.md.

    Examples
    --------
    >>> from ltrfs.neural.mlp import MLPRanker
    >>> from ltrfs.examples import example_queries, example_ndcg
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)   # a validation split
    >>> ranker = MLPRanker(hidden=[32, 32], epochs=30, batch_size=2).fit(X, y, qid, X_val, y_val, qid_val)
    >>> example_ndcg(ranker, seed=2) > 0.8   # NDCG@10 on 10 unseen queries
    True
    """

    name = "mlp"
    #: the code-free state (``ltrfs.state``): the layers and the standardisation of the inputs
    state_attributes = ("n_features_in_", "mean_", "scale_", "coefs_", "intercepts_")
    default_grid: dict = {}
    parameters = {
        "hidden": [ListOf(Integer(1))],
        "activation": [Options(*ACTIVATIONS)],
        "loss": [Options(*RANKING_LOSSES)],
        "epochs": [Integer(1)],
        "batch_size": [Integer(1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "weight_decay": [Real(0)],
        "dropout": [Real(0, 1, closed="left")],
        **COMMON_PARAMETERS,
    }

    def __init__(self, hidden=(256, 256, 256), activation="tanh", loss="listwise", epochs=20, batch_size=10,
                 learning_rate=1e-3, weight_decay=1e-4, dropout=0.3, patience=10, metric="ndcg@10",
                 convention="letor4", ties="expected", random_state=0, n_jobs=1):
        self.hidden = hidden
        self.activation = activation
        self.loss = loss
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.dropout = dropout
        self.patience = patience
        self.metric = metric
        self.convention = convention
        self.ties = ties
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit(self, X, y, query_ptr, vali):
        start = time.perf_counter()
        require_learnable(self.name, self.loss, y, query_ptr)
        Z, mean, scale = standardised(X)
        tracker = None
        with torch_session(self.name, self.random_state, self.n_jobs) as torch:
            net = build_mlp(torch, X.shape[1], self.hidden, self.activation, self.dropout)

            def current():
                return layer_arrays(net)

            if vali is not None:
                Xv, yv, ptr_v = vali
                Zv = (Xv - mean) / scale
                tracker = ValidationTracker(Zv, yv, ptr_v, self.metric, self.convention, self.patience, self.ties)
                tracker.update(0, tracker.score(forward(*current(), Zv, self.activation)), _flat(current()))
            history = train_epochs(torch, net, Z, y, query_ptr, step=ranking_step(torch, net, self.loss),
                                   queries=useful_queries(self.loss, y, query_ptr), epochs=self.epochs,
                                   batch_size=self.batch_size, learning_rate=self.learning_rate,
                                   weight_decay=self.weight_decay, rng=np.random.default_rng(self.random_state),
                                   tracker=tracker, score_vali=lambda: forward(*current(), tracker.X, self.activation),
                                   snapshot=lambda: _flat(current()), name=self.name, what=f"{self.loss} loss")
            last = _flat(current())
        kept = finish_validation(self, tracker, last, history["epochs"])
        n = len(kept) // 2
        self.coefs_, self.intercepts_ = list(kept[:n]), list(kept[n:])
        self.mean_, self.scale_ = mean, scale
        self.n_features_in_ = X.shape[1]
        self.n_iter_ = history["epochs"]
        self.train_loss_ = history["train_loss"]
        self.epoch_seconds_ = history["epoch_seconds"]
        self.seconds_ = time.perf_counter() - start

    def check_state(self) -> None:
        """A one-line ValueError unless the layers chain from ``n_features_in_`` inputs to one output."""
        width = int(self.n_features_in_)
        shapes = [(np.shape(W), np.shape(b)) for W, b in zip(self.coefs_, self.intercepts_)]
        ok = len(self.coefs_) == len(self.intercepts_) >= 1 and np.shape(self.mean_) == np.shape(self.scale_) == (width,)
        for W, b in shapes:
            ok = ok and len(W) == 2 and W[0] == width and b == (W[1],)
            width = W[1] if len(W) == 2 else -1
        if not ok or width != 1:
            raise ValueError(f"mlp: layers of shapes {shapes} do not chain {self.n_features_in_} features to one score")

    def predict(self, X) -> np.ndarray:
        """Scores of the network on the standardised rows of X (NumPy, float64).

        %(predict_sections)s
        """
        self._check_fitted("coefs_")
        X = check_X(X, n_features=self.n_features_in_)
        return forward(self.coefs_, self.intercepts_, (X - self.mean_) / self.scale_, self.activation)


def _flat(arrays) -> tuple:
    """(coefs, intercepts) as one flat tuple of arrays (what the validation tracker copies)."""
    coefs, intercepts = arrays
    return (*coefs, *intercepts)

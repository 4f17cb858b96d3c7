"""The fit shared by the neural selectors: standardised inputs, a seeded PyTorch session, a network
trained by mini-batches of queries with early stopping on the validation metric, and the feature
order read off the trained network.

A subclass gives ``_network(torch, d)`` (a ``torch.nn.Module`` whose ``forward(z)`` returns the
scores of the rows z as the method's own ranker sees them, in evaluation mode with its hard
masks), optionally ``_step`` (default: the ranking loss on the module's scores), ``_on_epoch``
(a temperature schedule), ``_queries`` and ``uses_vali`` (False: no early stopping, every epoch
runs), and ``_order(torch, module, Z)`` returning the feature scores (float64 (d,), larger first)
by which ``ranking_`` orders the features, or (scores, tie-breaker) (ties by the tie-breaker,
larger first, then by feature index). The network of the vali-best epoch is the one ordered (the last epoch's without
a validation split). A method with more than one phase gives ``_optimiser`` (the training's
optimiser) and ``_rank(run)`` (a ``TrainingRun``: train again, then return the scores), as
LassoNet's path does.
"""
from __future__ import annotations

import logging
import math

import numpy as np

from ltrfs.checks import check_validation_split, k_above_d
from ltrfs.neural.network import ACTIVATIONS, to_numpy, to_tensor, torch_session
from ltrfs.neural.training import ranking_step, require_learnable, train_epochs, useful_queries
from ltrfs.neural.losses import RANKING_LOSSES
from ltrfs.params import Integer, ListOf, Options, Real
from ltrfs.rankers.base import column_statistics
from ltrfs.rankers.ranknet import COMMON_PARAMETERS, ValidationTracker
from ltrfs.selection.base import Selector

log = logging.getLogger("ltrfs")

__all__ = ["NeuralSelector", "TrainingRun", "NETWORK_PARAMETERS", "TRAINING_DOC", "mask_size", "standardised", "in_chunks"]

#: the Parameters entries of the shared training (``fill_doc(neural_training=TRAINING_DOC)``)
TRAINING_DOC = """loss, epochs, batch_size, learning_rate, weight_decay, patience : as ranker ``mlp``
    Default "listwise", 20, 10 queries, 1e-3, 1e-4, 10.
metric, convention, ties : as ranker ``mlp``
    The vali metric of early stopping (NDCG@10 in the dataset's convention).
random_state : int >= 0, default 0
    Seed of the weights, the method's random draws and the batch order.
n_jobs : int >= 1, default 1
    PyTorch threads."""

#: the parameters of the predictor network and its training, shared by the neural selectors
NETWORK_PARAMETERS = {
    "hidden": [ListOf(Integer(1))],
    "activation": [Options(*ACTIVATIONS)],
    "dropout": [Real(0, 1, closed="left")],
    "loss": [Options(*RANKING_LOSSES)],
    "epochs": [Integer(1)],
    "batch_size": [Integer(1)],
    "learning_rate": [Real(0, None, closed="neither")],
    "weight_decay": [Real(0)],
    **COMMON_PARAMETERS,
}


def mask_size(k, d: int, name: str | None = None) -> int:
    """Features a mask keeps: ``k`` itself (an int, at most d) or the share ``k`` of d (a float in
    (0, 1), ``int(k d)`` as Lyu et al. count a share, at least 1). A k above d keeps all d, as
    everywhere in ltrfs (``ltrfs.checks.k_above_d``). With ``name``, a mask of every feature is
    logged as a warning in one line naming the method, k and d: it selects nothing, and the
    ranking read off it says little.

    Parameters
    ----------
    k : int >= 1 or float in (0, 1)
    d : int
        Features.
    name : str or None, default None
        The method, for the warning.

    Returns
    -------
    int

    Examples
    --------
    >>> mask_size(0.2, 46), mask_size(0.1, 46), mask_size(0.3, 700), mask_size(5, 3), mask_size(0.01, 46)
    (9, 4, 210, 3, 1)
    """
    if isinstance(k, (int, np.integer)):
        size = int(min(k, d))
    else:
        size = int(max(1, min(d, math.floor(float(k) * d + 1e-9))))
    if name is not None and size >= d:
        above = k_above_d([k], d) if isinstance(k, (int, np.integer)) else None  # "k 50 exceeds the 46 features: ..."
        mask = f"{above}: a mask of every feature" if above else f"a mask of k = {k} keeps all {d} features: it"
        log.warning("%s: %s selects nothing, and the ranking read off it says little; give k below %d", name, mask, d)
    return size


def standardised(X, mean=None, scale=None):
    """``(X - mean) / scale`` as float32 (m, d), with the training mean and standard deviation
    (``ltrfs.rankers.base.column_statistics``) computed from X when not given.

    Parameters
    ----------
    X : ndarray (m, d)
    mean, scale : ndarray (d,) or None
        The training statistics; None: computed from X.

    Returns
    -------
    (float32 (m, d), float64 (d,), float64 (d,))
        Z, mean, scale.
    """
    X = np.asarray(X)
    if mean is None:
        mean, scale = column_statistics(X)
    return ((X - mean) / scale).astype(np.float32), mean, scale


def in_chunks(function, Z, chunk: int = 65536) -> np.ndarray:
    """``function(Z[a:b])`` (a tensor) over blocks of rows, concatenated as a float64 array: the
    activations of one block, not of every training row, are held at once.

    Parameters
    ----------
    function : callable tensor (n, d) -> tensor (n, ...)
    Z : tensor (m, d)
    chunk : int, default 65536

    Returns
    -------
    float64 ndarray
        The blocks' results along the first axis.
    """
    parts = [to_numpy(function(Z[a:a + chunk]).double()) for a in range(0, len(Z), chunk)]
    return np.concatenate(parts) if parts else np.zeros(0)


class NeuralSelector(Selector):
    """Base of the neural selectors (module docstring)."""

    parameters = dict(NETWORK_PARAMETERS)
    #: whether a validation split, when given, stops training early (the methods with a ranking loss)
    uses_vali = True

    def _set_network(self, values: dict, names=NETWORK_PARAMETERS) -> None:
        """Store the shared parameters ``names`` (default ``NETWORK_PARAMETERS``; a method without
        some of them gives its own) of a constructor's ``locals()``."""
        for name in names:
            setattr(self, name, values[name])

    def needs_validation(self):  # noqa: D102 (Selector's docstring)
        return None  # early stopping when a validation split is given; every epoch otherwise

    def _check_learnable(self, y, query_ptr) -> None:
        """A one-line ValueError when no training query can contribute to the training loss
        (``ltrfs.neural.training.require_learnable``: the ranking loss by default)."""
        require_learnable(self.name, self.loss, y, query_ptr)

    def _network(self, torch, d: int):  # pragma: no cover - every method gives its own
        raise NotImplementedError

    def _order(self, torch, module, Z) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _step(self, torch, module):
        """One batch: the ranking loss on the module's scores."""
        return ranking_step(torch, module, self.loss)

    def _queries(self, y, query_ptr) -> np.ndarray:
        return useful_queries(self.loss, y, query_ptr)

    def _on_epoch(self, module, epoch: int) -> None:
        """Called with the module after every epoch (a temperature schedule); nothing by default."""

    def _loss_name(self) -> str:
        return f"{self.loss} loss"

    def _block_rows(self, d: int) -> int:
        """Rows the network reads at once outside training (vali scores, ``_order``): 65,536 by
        default; a network whose activations grow faster than d a row gives fewer."""
        return 65536

    def _optimiser(self, torch, module):
        """The optimiser of the training (``train_epochs``'s ``optimiser``); None: its Adam."""
        return None

    def _rank(self, run: "TrainingRun"):
        """The feature scores, or (scores, tie-breaker), of the trained network: ``_order`` on the
        training rows without gradients (LassoNet runs its path here)."""
        with run.torch.no_grad():
            return self._order(run.torch, run.module, to_tensor(run.torch, run.Z))

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        self._check_learnable(y, query_ptr)
        Z, mean, scale = standardised(X)
        vali = check_validation_split(d, X_val, y_val, qid_val) if self.uses_vali else None
        if vali is not None:
            vali = (standardised(vali[0], mean, scale)[0], *vali[1:])
        with torch_session(self.name, self.random_state, self.n_jobs) as torch:
            module = self._network(torch, d)
            run = TrainingRun(self, torch, module, Z, y, query_ptr, vali)
            tracker = run.tracker(self.patience)
            history = run.train(self.epochs, tracker, optimiser=self._optimiser(torch, module),
                                on_epoch=lambda epoch: self._on_epoch(module, epoch))
            run.keep_best(tracker)
            self.chosen_.update({"epochs": history["epochs"], "train_loss": [float(v) for v in history["train_loss"]]})
            if tracker is not None:
                self.chosen_.update({"best_epoch": tracker.best_iteration, "vali": tracker.best_score,
                                     "vali_metric": self.metric})
            order = self._rank(run)
        scores, tie = order if isinstance(order, tuple) else (order, np.zeros(d))
        self.scores_ = np.asarray(scores, dtype=np.float64)
        self.ranking_ = np.lexsort((np.arange(d), -np.asarray(tie, dtype=np.float64), -self.scores_)).astype(np.int64)


class TrainingRun:
    """One fit's training: ``train`` runs the shared loop (``ltrfs.neural.training.train_epochs``)
    with the method's settings; ``tracker(patience)`` is a new early-stopping tracker on the vali
    metric (None without vali); ``keep_best`` loads a tracker's best weights.

    Parameters
    ----------
    owner : NeuralSelector
        The method: its ``_queries``, ``_step``, batch size, learning rate, weight decay, vali
        metric and seed.
    torch : module
    module : torch.nn.Module
        The network.
    Z : float32 ndarray (m, d)
        The standardised training rows.
    y : ndarray (m,)
    query_ptr : ndarray of int64 (q + 1,)
    vali : (float32 (m_val, d), y_val, ptr_val) or None
        The standardised vali split.

    Attributes
    ----------
    queries : int64 ndarray
        The training queries the batches are made of.
    rng : numpy Generator
        The batch order's, seeded with ``random_state``: one stream for every phase.
    step : callable
        The method's batch step.
    """

    def __init__(self, owner: NeuralSelector, torch, module, Z, y, query_ptr, vali):
        self.owner, self.torch, self.module, self.Z, self.y, self.query_ptr = owner, torch, module, Z, y, query_ptr
        self.queries = owner._queries(y, query_ptr)
        self.rng = np.random.default_rng(owner.random_state)
        self.step = owner._step(torch, module)
        self.vali = vali
        self._keys = list(module.state_dict())
        self._Zv = to_tensor(torch, vali[0]) if vali is not None else None

    def score_vali(self) -> np.ndarray:
        """The network's scores of the vali rows (float64 (m_val,))."""
        return in_chunks(lambda rows: self.module(rows).reshape(-1), self._Zv, self.owner._block_rows(self.Z.shape[1]))

    def tracker(self, patience):
        """A new ``ValidationTracker`` of the vali metric with ``patience``; None without vali."""
        if self.vali is None:
            return None
        owner = self.owner
        return ValidationTracker(None, self.vali[1], self.vali[2], owner.metric, owner.convention, patience, owner.ties)

    def snapshot(self) -> tuple:
        """A copy of the network's weights."""
        return tuple(to_numpy(v).copy() for v in self.module.state_dict().values())

    def train(self, epochs: int, tracker, *, optimiser=None, on_epoch=None, snapshot=None, name=None) -> dict:
        """``train_epochs`` on this run.

        Parameters
        ----------
        epochs : int
            Most epochs.
        tracker : ValidationTracker or None
            Early stopping on vali (``tracker``); None: every epoch runs.
        optimiser : object with ``zero_grad()`` and ``step()``, or None
            None: Adam with the method's learning rate and weight decay.
        on_epoch : callable (epoch) -> None, or None
        snapshot : callable () -> state, or None
            What is kept at the best vali epoch; None: the weights.
        name : str or None
            For the log lines; None: the method's.

        Returns
        -------
        dict
            ``train_epochs``'s history.
        """
        owner = self.owner
        return train_epochs(self.torch, self.module, self.Z, self.y, self.query_ptr, step=self.step,
                            queries=self.queries, epochs=epochs, batch_size=owner.batch_size,
                            learning_rate=owner.learning_rate, weight_decay=owner.weight_decay, rng=self.rng,
                            tracker=tracker, score_vali=self.score_vali if tracker is not None else None,
                            snapshot=snapshot or self.snapshot, on_epoch=on_epoch, name=name or owner.name,
                            what=owner._loss_name(), optimiser=optimiser)

    def keep_best(self, tracker) -> None:
        """Load the tracker's best weights into the network (nothing without one or a best)."""
        if tracker is not None and tracker.best_params is not None:
            self.module.load_state_dict({k: self.torch.from_numpy(v) for k, v in zip(self._keys, tracker.best_params)})

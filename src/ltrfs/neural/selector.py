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
a validation split).
"""
from __future__ import annotations

import logging

import numpy as np

from ltrfs.checks import check_validation_split
from ltrfs.neural.network import ACTIVATIONS, torch_session
from ltrfs.neural.training import ranking_step, train_epochs, useful_queries
from ltrfs.neural.losses import RANKING_LOSSES
from ltrfs.params import Integer, ListOf, Options, Real
from ltrfs.rankers.base import column_statistics
from ltrfs.rankers.ranknet import COMMON_PARAMETERS, ValidationTracker
from ltrfs.selection.base import Selector

log = logging.getLogger("ltrfs")

__all__ = ["NeuralSelector", "NETWORK_PARAMETERS", "TRAINING_DOC", "mask_size", "standardised", "in_chunks"]

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
    (0, 1), rounded, at least 1). With ``name``, a mask of every feature is logged as a warning:
    it selects nothing, and the ranking read off it says little.

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
    >>> mask_size(0.2, 46), mask_size(5, 3), mask_size(0.01, 46)
    (9, 3, 1)
    """
    if isinstance(k, (int, np.integer)):
        size = int(min(k, d))
    else:
        size = int(max(1, min(d, round(float(k) * d))))
    if name is not None and size >= d:
        log.warning("%s: a mask of k = %s keeps all %d features: it selects nothing, and the ranking read off it "
                    "says little; give k below d", name, k, d)
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
    parts = [function(Z[a:a + chunk]).double().numpy() for a in range(0, len(Z), chunk)]
    return np.concatenate(parts) if parts else np.zeros(0)


class NeuralSelector(Selector):
    """Base of the neural selectors (module docstring)."""

    parameters = dict(NETWORK_PARAMETERS)
    #: whether a validation split, when given, stops training early (the methods with a ranking loss)
    uses_vali = True

    def _set_network(self, values: dict) -> None:
        """Store the shared parameters (``NETWORK_PARAMETERS``) of a constructor's ``locals()``."""
        for name in NETWORK_PARAMETERS:
            setattr(self, name, values[name])

    def needs_validation(self):  # noqa: D102 (Selector's docstring)
        return None  # early stopping when a validation split is given; every epoch otherwise

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

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        d = X.shape[1]
        Z, mean, scale = standardised(X)
        vali = check_validation_split(d, X_val, y_val, qid_val) if self.uses_vali else None
        with torch_session(self.name, self.random_state, self.n_jobs) as torch:
            module = self._network(torch, d)
            keys = list(module.state_dict())
            tracker = score_vali = None
            if vali is not None:
                Xv, yv, ptr_v = vali
                Zv = torch.from_numpy(standardised(Xv, mean, scale)[0])
                tracker = ValidationTracker(None, yv, ptr_v, self.metric, self.convention, self.patience, self.ties)

                def score_vali():
                    return in_chunks(lambda rows: module(rows).reshape(-1), Zv)

            def snapshot():
                return tuple(v.detach().numpy().copy() for v in module.state_dict().values())

            history = train_epochs(torch, module, Z, y, query_ptr, step=self._step(torch, module),
                                   queries=self._queries(y, query_ptr), epochs=self.epochs, batch_size=self.batch_size,
                                   learning_rate=self.learning_rate, weight_decay=self.weight_decay,
                                   rng=np.random.default_rng(self.random_state), tracker=tracker, score_vali=score_vali,
                                   snapshot=snapshot, on_epoch=lambda epoch: self._on_epoch(module, epoch), name=self.name,
                                   what=self._loss_name())
            if tracker is not None and tracker.best_params is not None:
                module.load_state_dict({k: torch.from_numpy(v) for k, v in zip(keys, tracker.best_params)})
            with torch.no_grad():
                order = self._order(torch, module, torch.from_numpy(Z))
        scores, tie = order if isinstance(order, tuple) else (order, np.zeros(d))
        self.scores_ = np.asarray(scores, dtype=np.float64)
        self.ranking_ = np.lexsort((np.arange(d), -np.asarray(tie, dtype=np.float64), -self.scores_)).astype(np.int64)
        self.chosen_.update({"epochs": history["epochs"], "train_loss": [float(v) for v in history["train_loss"]]})
        if tracker is not None:
            self.chosen_.update({"best_epoch": tracker.best_iteration, "vali": tracker.best_score,
                                 "vali_metric": self.metric})

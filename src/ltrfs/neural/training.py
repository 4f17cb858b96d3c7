"""The training loop of the neural methods: mini-batches of whole queries, a ranking loss
(``ltrfs.neural.losses``), Adam, and early stopping on a validation metric.

Per epoch: the training queries (``queries``: for a ranking loss, those that can contribute to it,
``useful_queries``; a fit where none can, ``require_learnable``, is refused before training) are
shuffled with the fit's NumPy generator and cut into batches of ``batch_size`` queries; for each
batch ``step(rows, labels, offsets)`` computes the batch's loss and its gradients
(``ranking_step``: the module scores the rows, the ranking loss's gradient with respect to the
scores goes back through it; a method with several parts, such as INVASE, writes its own step),
and Adam takes one step on every parameter of the module. After the epoch ``on_epoch(epoch)``
runs (a temperature schedule, say), then, with a tracker, the validation metric of
``score_vali()`` is recorded and ``snapshot()`` is kept when it is the best so far
(``ltrfs.rankers.ranknet.ValidationTracker``: strictly better, so the first best epoch on ties;
``patience`` epochs without improvement stop training).
"""
from __future__ import annotations

import logging
import time

import numpy as np

from ltrfs.neural.losses import ranking_loss
from ltrfs.neural.network import to_numpy, to_tensor
from ltrfs.rankers.pairs import count_pairs

__all__ = ["useful_queries", "learnable_queries", "require_learnable", "ranking_step", "descend", "train_epochs"]

log = logging.getLogger("ltrfs")


def useful_queries(loss: str, y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """Indices of the queries that contribute to ``loss`` (int64 (q',))."""
    if loss == "pairwise":
        return np.flatnonzero(count_pairs(y, query_ptr))
    if loss == "listwise":
        return np.flatnonzero(np.add.reduceat(np.asarray(y, dtype=np.float64), query_ptr[:-1]) > 0)
    return np.arange(len(query_ptr) - 1)


def learnable_queries(loss: str, y: np.ndarray, query_ptr: np.ndarray) -> np.ndarray:
    """Indices of the queries whose gradient of ``loss`` is not always 0 (int64 (q',)).

    ``pointwise``: every query (each labelled document is a target); ``pairwise``: a query with
    two documents of different labels (``useful_queries``); ``listwise``: a query with a relevant
    document and at least two documents (a query of one document has softmax 1 = its target,
    whatever its score). A subset of ``useful_queries``, which the batches are made of.

    Parameters
    ----------
    loss : {"pointwise", "pairwise", "listwise"}
    y : ndarray (m,)
    query_ptr : ndarray of int64 (q + 1,)

    Returns
    -------
    int64 ndarray

    Examples
    --------
    >>> import numpy as np
    >>> y, ptr = np.array([1, 2, 0, 1, 1]), np.array([0, 1, 3, 5])   # labels (1), (2, 0), (1, 1)
    >>> useful_queries("listwise", y, ptr), learnable_queries("listwise", y, ptr), learnable_queries("pairwise", y, ptr)
    (array([0, 1, 2]), array([1, 2]), array([1]))
    """
    useful = useful_queries(loss, y, query_ptr)
    if loss == "listwise":
        useful = useful[np.diff(query_ptr)[useful] >= 2]
    return useful


def require_learnable(name: str, loss: str, y: np.ndarray, query_ptr: np.ndarray) -> None:
    """A one-line ValueError when no training query can contribute to ``loss`` (``learnable_queries``):
    the training would run at loss 0 and keep its initial weights.

    Parameters
    ----------
    name : str
        The method, for the message.
    loss : {"pointwise", "pairwise", "listwise"}
    y : ndarray (m,)
    query_ptr : ndarray of int64 (q + 1,)

    Raises
    ------
    ValueError
        One line naming the method, the loss and what no query has.
    """
    if len(learnable_queries(loss, y, query_ptr)):
        return
    need = {"pairwise": "two documents of different labels",
            "listwise": "two or more documents and a label above 0"}.get(loss, "a document")
    q = len(query_ptr) - 1
    queries = "1 query" if q == 1 else f"{q} queries"
    raise ValueError(f"{name}: no training query can contribute to the {loss} loss ({queries}, none with {need}): "
                     "nothing would be learnt")


def _batch_rows(queries: np.ndarray, query_ptr: np.ndarray):
    """The rows of some queries in the given order, and the offsets of those queries in them."""
    sizes = np.diff(query_ptr)[queries]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    rows = np.arange(ptr[-1]) - np.repeat(ptr[:-1], sizes) + np.repeat(query_ptr[queries], sizes)
    return rows, ptr


def ranking_step(torch, scorer, loss: str):
    """A training step: ``scorer(rows)`` scores the batch (n,) and the ranking loss ``loss``'s
    gradient with respect to the scores goes back through it.

    Parameters
    ----------
    torch : module
    scorer : callable tensor (n, d) -> tensor (n,) or (n, 1)
    loss : {"pointwise", "pairwise", "listwise"}

    Returns
    -------
    callable (rows, y, offsets) -> float
        The step; it returns the batch's mean loss.
    """
    loss_fn = ranking_loss(loss)

    def step(rows, y, ptr) -> float:
        return descend(torch, scorer(rows).reshape(-1), y, ptr, loss_fn)

    return step


def descend(torch, scores, y, ptr, loss_fn, *, weight: float = 1.0, also=()) -> float:
    """The gradient of ``weight x loss_fn`` at ``scores`` sent back through what computed them,
    with that of any further weighted loss terms of the same graph (``also``).

    Parameters
    ----------
    torch : module
    scores : tensor (n,)
        A batch's scores, attached to the graph that computed them.
    y : ndarray (n,)
    ptr : ndarray of int64 (b + 1,)
        The batch's query offsets.
    loss_fn : callable (scores, y, ptr) -> (float, float64 (n,))
        A loss of ``ltrfs.neural.losses``.
    weight : float, default 1.0
        The ranking loss's weight.
    also : sequence of (scalar tensor, float), default ()
        Further terms of the loss and their weights (IFG's reconstruction error).

    Returns
    -------
    float
        The batch's loss: ``weight x ranking loss + sum of weight x term``.
    """
    value, grad = loss_fn(to_numpy(scores).astype(np.float64), y, ptr)
    roots = [scores, *(term for term, _ in also)]
    grads = [to_tensor(torch, weight * grad).to(scores.dtype), *(torch.tensor(w, dtype=t.dtype) for t, w in also)]
    torch.autograd.backward(roots, grads)
    return weight * value + sum(w * float(term.detach()) for term, w in also)


def train_epochs(torch, module, Z, y, query_ptr, *, step, queries, epochs: int, batch_size: int,
                 learning_rate: float, rng: np.random.Generator, weight_decay: float = 0.0, tracker=None,
                 score_vali=None, snapshot=None, on_epoch=None, name: str = "mlp", what: str = "loss",
                 optimiser=None) -> dict:
    """Train ``module``'s parameters in place, ``batch_size`` queries a step.

    Parameters
    ----------
    torch : module
    module : torch.nn.Module
        Every parameter is trained (one Adam).
    Z : ndarray float32 (m, d)
        The training rows as the module takes them.
    y : ndarray (m,)
    query_ptr : ndarray of int64 (q + 1,)
    step : callable (rows tensor (n, d), y (n,), offsets (b + 1,)) -> float
        Computes one batch's loss and its gradients (``loss.backward()``), returns the loss.
    queries : ndarray of int
        The training queries the batches are made of.
    epochs, batch_size : int
        Most passes over ``queries``; queries per batch.
    learning_rate, weight_decay : float
        Adam's step and L2 decay.
    rng : numpy Generator
        Shuffles the queries.
    tracker : ValidationTracker or None
        With ``score_vali`` (() -> float64 (m_val,)) and ``snapshot`` (() -> the state to keep).
    on_epoch : callable (epoch) -> None, or None
    name, what : str
        The method and its loss, for the log lines.
    optimiser : object with ``zero_grad()`` and ``step()``, or None
        Takes the steps instead of a new Adam (``learning_rate`` and ``weight_decay`` are then
        unused): LassoNet's path, whose optimiser lives across calls and applies its proximal
        operator after each step.

    Returns
    -------
    dict
        ``epochs`` run, ``train_loss`` (mean batch loss per epoch), ``epoch_seconds``.

    Raises
    ------
    ValueError
        One line, when a batch's loss is not finite (the weights diverged).
    """
    Zt = to_tensor(torch, np.ascontiguousarray(Z, dtype=np.float32))
    y = np.asarray(y)
    if optimiser is None:
        optimiser = torch.optim.Adam(module.parameters(), lr=float(learning_rate), weight_decay=float(weight_decay))
    if not len(queries):
        log.warning("%s: no training query can contribute to the %s; the initial weights are kept", name, what)
    history = {"epochs": 0, "train_loss": [], "epoch_seconds": []}
    for epoch in range(1, int(epochs) + 1 if len(queries) else 1):
        start = time.perf_counter()
        module.train()
        order = np.asarray(queries)[rng.permutation(len(queries))]
        total, batches = 0.0, 0
        for b in range(0, len(order), int(batch_size)):
            rows, ptr = _batch_rows(order[b:b + int(batch_size)], query_ptr)
            optimiser.zero_grad()
            value = step(Zt[torch.from_numpy(rows)], y[rows], ptr)
            if not np.isfinite(value):
                raise ValueError(f"{name}: the {what} is {value} in epoch {epoch}: the training diverged "
                                 f"(a lower learning_rate may help)")
            total += value
            optimiser.step()
            batches += 1
        if on_epoch is not None:
            on_epoch(epoch)
        history["epochs"] = epoch
        history["train_loss"].append(total / max(batches, 1))
        note = ""
        stop = False
        if tracker is not None:
            module.eval()
            with torch.no_grad():
                value = tracker.score(score_vali())
                stop = tracker.update(epoch, value, snapshot())
            note = f", vali {tracker.metric} {value:.4f} (best {tracker.best_score:.4f} at epoch {tracker.best_iteration})"
        history["epoch_seconds"].append(time.perf_counter() - start)
        log.info("%s epoch %d: %s %.5g%s, %.1f s", name, epoch, what, history["train_loss"][-1], note,
                 history["epoch_seconds"][-1])
        if stop:
            break
    module.eval()
    return history

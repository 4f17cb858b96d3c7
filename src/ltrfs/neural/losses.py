"""Ranking losses of a batch of queries and their gradients with respect to the scores (NumPy).

A network scores the rows of a batch (a flat array, queries contiguous, offsets ``query_ptr``);
the loss and its gradient come from here and go back through the network as the gradient of its
output (``scores.backward(grad)`` in PyTorch). No document pair is ever stored: the pairwise
loss sums over each query's pairs in a compiled loop (``ltrfs.rankers.ranknet.pair_loss``).

=============  ===========================================================  ==================
name           loss of one batch                                             averaged over
=============  ===========================================================  ==================
``pointwise``  ``(s_i - y_i)^2``, the label as a regression target           documents
``pairwise``   RankNet: ``log(1 + exp(-(s_i - s_j)))`` for ``y_i > y_j``       pairs
``listwise``   softmax cross entropy ``-sum_i t_i log softmax(s)_i``,          queries with a
               ``t_i = y_i / sum_j y_j`` (Cao et al.'s top-one loss with the   relevant document
               labels as the target distribution; allRank's ``softmax``)
=============  ===========================================================  ==================

Each function returns ``(loss, grad)``: the batch's mean loss (float) and its gradient with
respect to the scores (float64 (m,)). A batch with nothing to average (no pair, no relevant
document) gives ``(0.0, zeros)``.
"""
from __future__ import annotations

import numpy as np

from ltrfs.ranking_data import group_ids
from ltrfs.rankers.listnet import segment_softmax
from ltrfs.rankers.ranknet import pair_loss

__all__ = ["RANKING_LOSSES", "pointwise_loss", "pairwise_loss", "listwise_loss", "ranking_loss", "query_losses"]


def pointwise_loss(scores, y, query_ptr):
    """Mean squared error between the scores and the labels: ``mean_i (s_i - y_i)^2``.

    Parameters
    ----------
    scores : ndarray (m,)
    y : ndarray (m,)
    query_ptr : ndarray of int (q + 1,)
        Unused (the loss is per document); kept for one signature.

    Returns
    -------
    (float, float64 (m,))
    """
    diff = np.asarray(scores, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    m = max(len(diff), 1)
    return float(diff @ diff) / m, 2.0 * diff / m


def pairwise_loss(scores, y, query_ptr):
    """RankNet's pair cross entropy averaged over the batch's pairs with different labels.

    Parameters
    ----------
    scores, y : ndarray (m,)
    query_ptr : ndarray of int (q + 1,)

    Returns
    -------
    (float, float64 (m,))
    """
    total, n_pairs, lam = pair_loss(scores, y, query_ptr)
    norm = 1.0 / max(n_pairs, 1)
    return total * norm, lam * norm


def listwise_loss(scores, y, query_ptr):
    """Softmax cross entropy of every query with a relevant document, averaged over those queries.

    ``L_q = -sum_i t_i log p_i`` with ``p = softmax(s)`` over the query's documents and
    ``t_i = y_i / sum_j y_j``; ``dL_q/ds_i = p_i - t_i``. Queries whose labels are all 0 have no
    target distribution and are left out of the loss and the mean.

    Parameters
    ----------
    scores, y : ndarray (m,)
    query_ptr : ndarray of int (q + 1,)

    Returns
    -------
    (float, float64 (m,))
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    query_ptr = np.asarray(query_ptr, dtype=np.int64)
    gid = group_ids(query_ptr)
    totals = np.add.reduceat(y, query_ptr[:-1]) if len(y) else np.zeros(0)
    useful = totals > 0
    n = int(useful.sum())
    if n == 0:
        return 0.0, np.zeros(len(scores))
    target = np.where(useful[gid], y / np.where(useful, totals, 1.0)[gid], 0.0)
    p, log_p = segment_softmax(scores, query_ptr, gid)
    loss = float(-(target @ log_p)) / n
    grad = np.where(useful[gid], p - target, 0.0) / n
    return loss, grad


#: loss name -> function (scores, y, query_ptr) -> (mean loss, gradient)
RANKING_LOSSES = {"pointwise": pointwise_loss, "pairwise": pairwise_loss, "listwise": listwise_loss}


def ranking_loss(name: str):
    """The loss function of a name of ``RANKING_LOSSES`` (a one-line ValueError otherwise)."""
    try:
        return RANKING_LOSSES[name]
    except KeyError:
        raise ValueError(f"unknown ranking loss {name!r}; choose one of {', '.join(RANKING_LOSSES)}") from None


def query_losses(name: str, scores, y, query_ptr) -> np.ndarray:
    """Each query's own loss ``name`` (float64 (q,)): the loss of the batch made of that query alone
    (0 for a query with nothing to average: no pair, no relevant document).

    Parameters
    ----------
    name : {"pointwise", "pairwise", "listwise"}
    scores, y : ndarray (m,)
    query_ptr : ndarray of int (q + 1,)

    Returns
    -------
    float64 ndarray (q,)

    Examples
    --------
    >>> import numpy as np
    >>> query_losses("pointwise", np.array([1.0, 0.0, 2.0]), np.array([0, 0, 0]), np.array([0, 2, 3]))
    array([0.5, 4. ])
    """
    loss_fn = ranking_loss(name)
    ptr = np.asarray(query_ptr, dtype=np.int64)
    one = np.array([0, 0], dtype=np.int64)
    out = np.zeros(len(ptr) - 1)
    for q, (a, b) in enumerate(zip(ptr[:-1], ptr[1:])):
        one[1] = b - a
        out[q] = loss_fn(scores[a:b], y[a:b], one)[0]
    return out

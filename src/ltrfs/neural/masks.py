"""Feature masks of the neural selectors (PyTorch): Gumbel-softmax top-k samples and hard top-k.

``gumbel_topk`` is L2X's sampler (Chen, Song, Wainwright and Jordan, ICML 2018), which G-L2X and
the concrete selector layers share: k independent Gumbel-softmax samples over the d features at
temperature T, ``softmax((logits + g_r) / T)`` for r = 1..k with ``g_r`` standard Gumbel noise,
and their elementwise maximum, a relaxed k-hot vector in [0, 1]^d. With ``hard``, the forward pass
uses the k largest entries of that vector as a 0/1 mask and the backward pass the relaxed one's
gradient (the straight-through estimator).
"""
from __future__ import annotations

__all__ = ["gumbel_topk", "topk_mask", "gumbel_noise", "annealed"]


def annealed(start: float, end: float, epochs_done: int, span: int) -> float:
    """The temperature after ``epochs_done`` epochs of a geometric fall from ``start`` to ``end``
    over ``span`` epochs: ``start x (end / start)^(epochs_done / span)``, at least ``end``.

    Parameters
    ----------
    start, end : float > 0
        The first and the last temperature.
    epochs_done : int >= 0
        Epochs run so far.
    span : int >= 1
        Epochs over which the temperature falls.

    Returns
    -------
    float

    Examples
    --------
    >>> round(annealed(10.0, 0.01, 1, 3), 6), annealed(10.0, 0.01, 5, 3)
    (1.0, 0.01)
    """
    start, end = float(start), float(end)
    return max(end, start * (end / start) ** (int(epochs_done) / int(span)))


def gumbel_noise(torch, shape, dtype):
    """Standard Gumbel noise ``-log(-log u)``, u uniform in (0, 1), from PyTorch's seeded generator."""
    u = torch.rand(shape, dtype=dtype).clamp(1e-20, 1.0 - 1e-7)
    return -torch.log(-torch.log(u))


def gumbel_topk(torch, logits, k: int, temperature: float, hard: bool = False):
    """A relaxed (or straight-through hard) k-hot mask sampled from ``logits`` (..., d).

    Parameters
    ----------
    torch : module
    logits : tensor (..., d)
    k : int >= 1
        Samples drawn (the features the mask keeps).
    temperature : float > 0
    hard : bool, default False
        The top k of the relaxed mask as 0/1 forward, its gradient backward (straight-through).

    Returns
    -------
    tensor (..., d)
    """
    samples = logits.unsqueeze(-2) + gumbel_noise(torch, (*logits.shape[:-1], int(k), logits.shape[-1]), logits.dtype)
    soft = torch.softmax(samples / float(temperature), dim=-1).amax(dim=-2)
    if not hard:
        return soft
    return topk_mask(torch, soft, k) + soft - soft.detach()


def topk_mask(torch, values, k: int):
    """The 0/1 mask of the k largest entries of ``values`` (..., d) along the last axis."""
    index = values.topk(int(k), dim=-1).indices
    return torch.zeros_like(values).scatter(-1, index, 1.0)

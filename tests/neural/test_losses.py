"""The ranking losses of ``ltrfs.neural.losses`` against per-query loops and finite differences."""
import math

import numpy as np
import pytest

from ltrfs.neural.losses import RANKING_LOSSES, listwise_loss, pairwise_loss, pointwise_loss, query_losses, ranking_loss

PTR = np.array([0, 3, 5, 9])        # three queries: 3, 2 and 4 documents
Y = np.array([2, 0, 1, 0, 0, 1, 0, 3, 1])


def _naive_pairwise(s, y, ptr):
    total, n = 0.0, 0
    for a, b in zip(ptr[:-1], ptr[1:]):
        for i in range(a, b):
            for j in range(a, b):
                if y[i] > y[j]:
                    total += math.log1p(math.exp(-(s[i] - s[j])))
                    n += 1
    return total / n


def _naive_listwise(s, y, ptr):
    losses = []
    for a, b in zip(ptr[:-1], ptr[1:]):
        if y[a:b].sum() == 0:
            continue
        t = y[a:b] / y[a:b].sum()
        log_p = s[a:b] - math.log(sum(math.exp(v) for v in s[a:b]))
        losses.append(-(t * log_p).sum())
    return sum(losses) / len(losses)


def test_hand_computed_values():
    s = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    # pointwise: mean of (s - y)^2 = (1 + 0 + 1 + 0 + 0 + 1 + 0 + 9 + 1) / 9
    assert pointwise_loss(s, Y, PTR)[0] == pytest.approx(13 / 9)
    # query 2 (labels 0, 0) has no pair and no relevant document: it adds nothing
    assert pairwise_loss(s, Y, PTR)[0] == pytest.approx(_naive_pairwise(s, Y, PTR))
    # query 1: t = (2/3, 0, 1/3), p = softmax(1, 0, 0)
    z = math.e + 2
    q1 = -(2 / 3 * math.log(math.e / z) + 1 / 3 * math.log(1 / z))
    q3 = -(1 / 5 * math.log(1 / 4) + 3 / 5 * math.log(1 / 4) + 1 / 5 * math.log(1 / 4))
    assert listwise_loss(s, Y, PTR)[0] == pytest.approx((q1 + q3) / 2)


@pytest.mark.parametrize("name", sorted(RANKING_LOSSES))
def test_gradient_matches_finite_differences(name):
    rng = np.random.default_rng(3)
    s = rng.standard_normal(len(Y))
    fn = ranking_loss(name)
    value, grad = fn(s, Y, PTR)
    naive = {"pairwise": _naive_pairwise, "listwise": _naive_listwise,
             "pointwise": lambda s, y, p: float(np.mean((s - y) ** 2))}[name]
    assert value == pytest.approx(naive(s, Y, PTR), rel=1e-12)
    h = 1e-6
    numeric = np.array([(fn(s + h * e, Y, PTR)[0] - fn(s - h * e, Y, PTR)[0]) / (2 * h) for e in np.eye(len(s))])
    assert np.allclose(grad, numeric, atol=1e-8)


def test_nothing_to_learn_gives_zero():
    ptr, y, s = np.array([0, 2, 3]), np.array([0, 0, 1]), np.array([0.3, -0.2, 1.0])
    for fn in (pairwise_loss, listwise_loss):
        value, grad = fn(s, y, ptr)
        assert value == 0.0 and not grad.any()


def test_unknown_loss_is_one_line():
    with pytest.raises(ValueError, match="unknown ranking loss 'lambda'; choose one of pointwise, pairwise, listwise"):
        ranking_loss("lambda")


def test_query_losses_are_each_query_alone():
    """Listwise: the batch loss is the mean of the per-query losses over the queries with a relevant
    document (query 2, labels 0 0, has none: 0); pointwise: per-query mean squared errors."""
    s = np.array([0.3, -1.0, 2.0, 0.5, 0.1, -0.2, 1.5, 0.0, 0.7])
    per = query_losses("listwise", s, Y, PTR)
    assert per[1] == 0.0
    assert per[[0, 2]].mean() == pytest.approx(listwise_loss(s, Y, PTR)[0], rel=1e-12)
    for q, (a, b) in enumerate(zip(PTR[:-1], PTR[1:])):
        assert per[q] == pytest.approx(_naive_listwise(s[a:b], Y[a:b], np.array([0, b - a])) if Y[a:b].sum() else 0.0)
    assert query_losses("pointwise", s, Y, PTR)[2] == pytest.approx(np.mean((s[5:9] - Y[5:9]) ** 2))


@pytest.mark.neural
def test_descend_sends_back_the_weighted_ranking_loss_and_the_other_terms():
    """descend(weight=a, also=[(T, b)]) gives the parameters the gradient of a x L(s) + b x T, as
    PyTorch's own autograd of that sum does, and returns its value."""
    import torch

    from ltrfs.neural.training import descend

    X = torch.from_numpy(np.linspace(-1, 1, 18).reshape(9, 2))
    w = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    value = descend(torch, X @ w, Y, PTR, pointwise_loss, weight=2.5, also=[((w ** 2).sum(), 0.5)])
    ours = w.grad.clone()
    w.grad = None
    reference = 2.5 * ((X @ w - torch.from_numpy(Y.astype(float))) ** 2).mean() + 0.5 * (w ** 2).sum()
    reference.backward()
    assert value == pytest.approx(float(reference))
    np.testing.assert_allclose(ours.numpy(), w.grad.numpy(), rtol=1e-12)

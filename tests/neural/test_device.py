"""Where the neural methods train: LTRFS_NEURAL_DEVICE (auto, cpu, cuda), the CPU's numbers
untouched by the choice, and a GPU fit repeatable where there is a GPU."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import planted
from ltrfs.neural.network import DEVICE_VARIABLE, neural_device, torch_session
from ltrfs.rankers import make_ranker
from ltrfs.selection import make_selector

pytestmark = pytest.mark.neural


@pytest.fixture
def torch():
    import torch  # the neural extra (conftest skips these tests without it, outside CI)

    return torch


def test_auto_takes_a_gpu_when_pytorch_sees_one(monkeypatch, torch):
    monkeypatch.delenv(DEVICE_VARIABLE, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert neural_device(torch) == torch.device("cpu") and neural_device(torch, "cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert neural_device(torch) == torch.device("cuda") and neural_device(torch, "cuda") == torch.device("cuda")
    monkeypatch.setenv(DEVICE_VARIABLE, "cpu")
    assert neural_device(torch) == torch.device("cpu")   # the variable overrides auto


@pytest.mark.parametrize("value, message", [("gpu", "expected auto, cpu or cuda"), ("cuda", "sees no CUDA GPU")])
def test_a_device_that_cannot_be_had_is_one_line(monkeypatch, torch, value, message):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    with pytest.raises(ValueError, match=message) as info:
        with torch_session("mlp", 0, 1):
            pass
    assert "\n" not in str(info.value) and DEVICE_VARIABLE in str(info.value)


def test_on_the_cpu_the_session_leaves_the_default_device_alone(monkeypatch, torch):
    monkeypatch.setenv(DEVICE_VARIABLE, "cpu")
    before = torch.get_default_device()
    with torch_session("mlp", 0, 1) as t:
        assert t.get_default_device() == before and t.rand(1).device.type == "cpu"
    assert torch.get_default_device() == before


def planted_split():
    train, vali = planted(n_queries=30, d=6, informative=(1, 4), seed=0), planted(n_queries=10, d=6, informative=(1, 4), seed=1)
    q = [np.repeat(np.arange(len(s.query_ptr) - 1), np.diff(s.query_ptr)) for s in (train, vali)]
    return train.X, train.y, q[0], vali.X, vali.y, q[1]


def fits(monkeypatch, value):
    monkeypatch.setenv(DEVICE_VARIABLE, value)
    X, y, q, Xv, yv, qv = planted_split()
    ranker = make_ranker("mlp", hidden=[8], epochs=3, batch_size=4).fit(X, y, q, Xv, yv, qv)
    selector = make_selector("l2x", k=2, hidden=[8], actor_hidden=[8], epochs=3, batch_size=4).fit(
        X, y, q, X_val=Xv, y_val=yv, qid_val=qv)
    return ranker.predict(Xv), selector.scores_


def test_cpu_and_auto_give_the_same_numbers_without_a_gpu(monkeypatch, torch):
    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is present: auto trains there (test_a_gpu_fit_is_repeatable)")
    a, b = fits(monkeypatch, "cpu"), fits(monkeypatch, "auto")
    assert all(x.tobytes() == z.tobytes() for x, z in zip(a, b))


def test_a_gpu_fit_is_repeatable(monkeypatch, torch):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU here: the GPU path runs where PyTorch sees one")
    a, b = fits(monkeypatch, "cuda"), fits(monkeypatch, "cuda")
    assert all(x.tobytes() == z.tobytes() for x, z in zip(a, b))

"""The neural ranker (``mlp``): losses that fall, a nonlinear relevance a linear ranker cannot
learn, determinism under a seed, PyTorch's global state left alone, one-line errors."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from ltrfs.metrics import evaluate
from ltrfs.neural.losses import listwise_loss
from ltrfs.rankers import make_ranker
from ltrfs.ranking_data import query_ptr_from_qid

pytestmark = pytest.mark.neural


def xor_queries(n_queries=60, size=20, seed=0):
    """Relevance from the sign of x0 * x1 (an XOR: no linear score ranks it) and 3 noise features."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_queries * size, 5))
    product = X[:, 0] * X[:, 1]
    y = (product > 0).astype(np.int64) + (product > 0.25)
    return X.astype(np.float32), y, np.repeat(np.arange(n_queries), size)


def ndcg10(ranker, X, y, qid, ties="file_order"):
    ptr, _ = query_ptr_from_qid(qid)
    return float(evaluate(y, ranker.predict(X), ptr, "standard", ties=ties).ndcg[:, 9].mean())


@pytest.fixture(scope="module")
def xor():
    return xor_queries(seed=0), xor_queries(n_queries=20, seed=1), xor_queries(n_queries=30, seed=2)


@pytest.mark.parametrize("loss", ["listwise", "pairwise", "pointwise"])
def test_training_loss_falls_and_beats_a_linear_ranker(xor, loss):
    (X, y, qid), (Xv, yv, qv), test = xor
    mlp = make_ranker("mlp", hidden=[32, 32], loss=loss, epochs=40, batch_size=4, patience=None).fit(X, y, qid)
    # the listwise loss cannot fall below the entropy of the label distributions (scores log y reach it)
    ptr, _ = query_ptr_from_qid(qid)
    floor = listwise_loss(np.log(np.maximum(y, 1e-300)), y, ptr)[0] if loss == "listwise" else 0.0
    first, last = mlp.train_loss_[0] - floor, mlp.train_loss_[-1] - floor
    assert len(mlp.train_loss_) == 40 and 0 < last < 0.7 * first
    linear = make_ranker("ranksvm_primal", C=1.0).fit(X, y, qid)
    assert ndcg10(mlp, *test) > ndcg10(linear, *test) + 0.1


def test_early_stopping_keeps_the_best_vali_epoch(xor):
    (X, y, qid), (Xv, yv, qv), _ = xor
    mlp = make_ranker("mlp", hidden=[32, 32], epochs=60, batch_size=4, patience=5, convention="standard").fit(
        X, y, qid, Xv, yv, qv)
    assert 0 < mlp.best_iteration_ and mlp.val_scores_[mlp.best_iteration_ - 1] == mlp.best_score_
    assert mlp.best_score_ == max(mlp.val_scores_)
    assert mlp.n_iter_ == 60 or mlp.n_iter_ - mlp.best_iteration_ == 5  # stopped after 5 epochs without gain
    # the kept weights are the best epoch's: their vali NDCG@10 (ties by expectation) is its score
    assert ndcg10(mlp, Xv, yv, qv, ties="expected") == pytest.approx(mlp.best_score_, abs=1e-12)


def test_same_seed_same_model_other_seed_other_model(xor):
    (X, y, qid), _, test = xor
    fit = lambda seed: make_ranker("mlp", hidden=[16], epochs=5, random_state=seed).fit(X, y, qid)  # noqa: E731
    a, b, c = fit(3), fit(3), fit(4)
    assert all(np.array_equal(u, v) for u, v in zip(a.coefs_ + a.intercepts_, b.coefs_ + b.intercepts_))
    assert a.predict(test[0]).tobytes() == b.predict(test[0]).tobytes()
    assert not np.array_equal(a.coefs_[0], c.coefs_[0])


def test_a_fit_leaves_torch_global_state_alone(xor):
    import torch

    (X, y, qid), _, _ = xor
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.manual_seed(11)
    expected = torch.rand(3)
    torch.manual_seed(11)
    make_ranker("mlp", hidden=[8], epochs=2, n_jobs=1).fit(X, y, qid)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads and torch.are_deterministic_algorithms_enabled() == deterministic


def test_without_torch_the_error_is_one_line(monkeypatch, xor):
    (X, y, qid), _, _ = xor
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(ValueError, match=r'^mlp needs PyTorch: pip install -r envs/neural\.lock, or pip install -e "\.\[neural\]"') as err:
        make_ranker("mlp").fit(X, y, qid)
    assert "\n" not in str(err.value)


def test_state_that_does_not_chain_is_refused(xor):
    (X, y, qid), _, _ = xor
    mlp = make_ranker("mlp", hidden=[8], epochs=1).fit(X, y, qid)
    mlp.coefs_[1] = np.zeros((7, 1), dtype=np.float32)
    with pytest.raises(ValueError, match="do not chain 5 features to one score"):
        mlp.check_state()



def test_a_diverging_fit_stops_in_one_line(xor):
    """A batch whose loss is not finite (weights gone past float32's range) stops the training
    with one line naming the method, not with NaN weights a later step trips over."""
    import torch

    from ltrfs.neural.training import train_epochs

    (X, y, qid), _, _ = xor
    ptr, _ = query_ptr_from_qid(qid)
    module = torch.nn.Linear(X.shape[1], 1)
    calls = []

    def step(rows, labels, offsets):
        calls.append(len(rows))
        return 0.5 if len(calls) < 3 else float("nan")

    with pytest.raises(ValueError, match=r"^tabnet: the listwise loss is nan in epoch 1: the training diverged") as err:
        train_epochs(torch, module, X, y, ptr, step=step, queries=np.arange(len(ptr) - 1), epochs=3, batch_size=10,
                     learning_rate=1e-3, rng=np.random.default_rng(0), name="tabnet", what="listwise loss")
    assert "\n" not in str(err.value) and len(calls) == 3


def test_an_extra_package_that_is_there_but_does_not_import_says_so(monkeypatch):
    """A package of the extra that is installed but fails to import (a broken build, a missing
    library) is named with its error, not reported as missing."""
    import importlib

    from ltrfs.neural.network import import_extra

    def broken(name, *args):
        raise ImportError("libtorch_cpu.so: cannot open shared object file")

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ValueError, match=r"^mlp: PyTorch is installed but does not import \(libtorch_cpu\.so: "
                                         r"cannot open shared object file\); pip install") as err:
        import_extra("torch", "mlp", "PyTorch")
    assert "\n" not in str(err.value)


def test_training_data_with_nothing_to_learn_is_a_one_line_error(monkeypatch):
    """Queries of one document (or of one label) give the pairwise and listwise losses no gradient:
    the fit is refused in one line before any training, not run at loss 0 from the initial weights.
    One query that can contribute is enough, and the batches stay those of ``useful_queries``."""
    import ltrfs.neural.mlp as mlp_module
    from ltrfs.neural.training import learnable_queries, useful_queries

    rng = np.random.default_rng(0)
    X, y, qid = rng.random((12, 3)), np.array([1, 2, 0, 1, 1, 1, 0, 0, 2, 0, 1, 1]), np.arange(12)
    session = mlp_module.torch_session
    monkeypatch.setattr(mlp_module, "torch_session", None)  # the refusal comes before any training
    for loss, need in (("pairwise", "two documents of different labels"),
                       ("listwise", "two or more documents and a label above 0")):
        with pytest.raises(ValueError) as err:
            make_ranker("mlp", hidden=[4], epochs=2, loss=loss).fit(X, y, qid)
        assert str(err.value) == (f"mlp: no training query can contribute to the {loss} loss (12 queries, none with "
                                  f"{need}): nothing would be learnt")
    # queries of two documents: labels (1, 2) (0, 1) (1, 1) (0, 0) (2, 0) (1, 1)
    ptr = np.arange(0, 13, 2)
    assert learnable_queries("pairwise", y, ptr).tolist() == useful_queries("pairwise", y, ptr).tolist() == [0, 1, 4]
    assert learnable_queries("listwise", y, ptr).tolist() == [0, 1, 2, 4, 5]
    assert learnable_queries("pointwise", y, ptr).tolist() == list(range(6))
    # the listwise loss's batches keep a one-document query with a relevant label (no number moves),
    # though it alone could not teach anything
    one = np.array([0, 1, 3])
    assert useful_queries("listwise", y[:3], one).tolist() == [0, 1]
    assert learnable_queries("listwise", y[:3], one).tolist() == [1]
    monkeypatch.setattr(mlp_module, "torch_session", session)
    pair = np.r_[0, 1, np.arange(1, 11)]  # rows 1 and 2 one query of labels 2 and 0: one pair
    ranker = make_ranker("mlp", hidden=[4], epochs=2, loss="pairwise").fit(X, y, pair)
    assert ranker.n_iter_ == 2 and ranker.train_loss_[0] > 0
    assert make_ranker("mlp", hidden=[4], epochs=2, loss="pointwise").fit(X, y, qid).train_loss_[0] > 0

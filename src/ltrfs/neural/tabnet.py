"""TabNet, an instance-wise (local) feature selector whose per-document masks are summed into one
global ranking (Arik and Pfister, TabNet: Attentive Interpretable Tabular Learning, AAAI 2021),
trained as a ranker as in Lyu, Roy, Oosterhuis and Anand, ECIR 2024 (docs/neural.md, section
'TabNet').

The network is pytorch-tabnet's (``pytorch_tabnet.tab_network.TabNet``, one output, no
categorical embeddings, each feature its own group): ``n_steps`` decision steps, each an
attentive transformer that turns the previous step's output into a sparse mask over the features
(sparsemax or entmax, scaled by a prior that shrinks a feature's weight by ``gamma - M`` each time
it is used) and a feature transformer (GLU blocks, ``n_shared`` of them shared by the steps,
``n_independent`` of each step's own, with ghost batch normalisation) that reads the masked
features; the document's score is a linear map of the sum of the steps' ReLU outputs. The
network's second output ``M_loss`` is the mean over the steps and documents of
``sum_j M_j log M_j`` (minus the masks' entropy); the loss subtracts it as pytorch-tabnet's own
fit does, which adds ``lambda_sparse`` times the masks' mean entropy (sparser masks, a lower loss)::

    score(x) = TabNet(z(x))                                  z the standardised features
    loss = ranking loss of the scores - lambda_sparse x M_loss

It is minimised by the shared loop of the neural selectors: Adam on batches of whole queries,
early stopping on the vali metric of the scores (the network in evaluation mode: batch
normalisation with its running statistics). Batch normalisation cannot train on one row: a
batch of one row (one single-document query) teaches nothing, and one whose ghost batches would
end in a lone row is scored with its first row repeated at the end, the copy's score dropped
(not its last row: a ghost batch of two equal rows has no variance, and its gradient grows past
float32's range over the network's chained normalisations).

Ranking: pytorch-tabnet's global importances (its ``feature_importances_``): per training
document the explain matrix ``sum_steps M_step,j x sum(ReLU output of the step)``, summed over
the training documents (in blocks of rows, evaluation mode) and divided by its total. ``scores_``
= those importances (non-negative, sum 1; uniform in the degenerate case of every step's
output being 0 on every document, where the total is 0). ``importance="per_document"`` divides
each document's row by its own sum first (a row of zeros adds nothing), as pytorch-tabnet's
``explain(normalize=True)``, which Lyu et al.'s code sums: every document then weighs the same,
however large its steps' outputs.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.neural.network import import_extra, to_numpy, to_tensor
from ltrfs.neural.losses import ranking_loss
from ltrfs.neural.selector import NETWORK_PARAMETERS, TRAINING_DOC, NeuralSelector, in_chunks
from ltrfs.params import Integer, Options, Real

__all__ = ["TabNetSelector", "lone_ghost_row"]

#: the shared training parameters TabNet takes (the MLP's hidden, activation, dropout do not apply)
TRAINING_PARAMETERS = {name: allowed for name, allowed in NETWORK_PARAMETERS.items()
                       if name not in ("hidden", "activation", "dropout")}

#: rows of the explain matrix summed at once in ``_order``
EXPLAIN_CHUNK = 16384


def lone_ghost_row(n: int, virtual_batch_size: int) -> bool:
    """Whether batch normalisation in training mode would see one row alone: the batch has one
    row, or ``torch.chunk`` cuts its n rows into ghost batches of at most ``virtual_batch_size``
    rows (pytorch-tabnet's ``GBN``) with a last one of one row.

    Parameters
    ----------
    n : int
        Rows of the batch.
    virtual_batch_size : int
        The ghost batches' size.

    Returns
    -------
    bool

    Examples
    --------
    >>> lone_ghost_row(1, 128), lone_ghost_row(17, 4), lone_ghost_row(18, 4), lone_ghost_row(200, 128)
    (True, True, False, False)
    """
    chunks = -(-n // virtual_batch_size)
    size = -(-n // chunks)
    return n == 1 or n - size * (-(-n // size) - 1) == 1


@fill_doc(neural_training=TRAINING_DOC)
class TabNetSelector(NeuralSelector):
    """TabNet: sequential sparse attention masks over the features; features by its importances.

    Parameters
    ----------
    n_d, n_a : int >= 1, default 128 and 128
        Width of the decision output and of the attention embedding of each step (Lyu et al.'s
        configs; pytorch-tabnet's default is 8; 8 is enough for the planted tests).
    n_steps : int >= 1, default 4
        Decision steps, each with a mask of its own (Lyu et al.'s 4).
    gamma : float >= 1, default 1.3
        Relaxation of the prior: 1 lets a feature be used by one step only, larger values by more.
    lambda_sparse : float >= 0, default 0.01
        Weight of the masks' entropy in the loss (Lyu et al.'s 0.01; pytorch-tabnet's 0.001).
    mask_type : {"sparsemax", "entmax"}, default "sparsemax"
        The masks' normalisation (entmax: 1.5-entmax, less sparse).
    virtual_batch_size : int >= 2, default 128
        Rows per ghost batch of the batch normalisations.
    momentum : float in [0, 1], default 0.02
        Momentum of the batch normalisations' running statistics.
    n_independent, n_shared : int >= 0, default 2 and 2
        GLU layers of each step's own and shared by all steps (not both 0).
    importance : {"total", "per_document"}, default "total"
        The explain matrix summed as it is (pytorch-tabnet's ``feature_importances_``), or each
        document's row normalised to sum 1 first (Lyu et al.'s code; module docstring).
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by their importance, largest first (ties by feature index; constant features last).
    scores_ : float64 (d,)
        The importances: the explain matrix summed over the training documents, divided by its
        total (pytorch-tabnet's ``feature_importances_``).
    chosen_ : dict
        ``epochs``, ``train_loss`` (the ranking loss without the sparsity term), ``best_epoch``,
        ``vali``, ``mean_attended`` (features a step's mask gives a positive weight, averaged over
        the steps and the training documents).
    %(selector_fit_attributes)s

    References
    ----------
    Arik and Pfister, TabNet: Attentive Interpretable Tabular Learning, AAAI 2021 (the network:
    the pytorch-tabnet package); Lyu, Roy, Oosterhuis and Anand, ECIR 2024 (as a feature selector
    for neural ranking).

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("tabnet", n_d=8, n_a=8, epochs=30, batch_size=2)
    >>> sel = sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> round(float(sel.scores_.sum()), 6), sel.ranking_.shape   # importances of every feature
    (1.0, (5,))
    """

    name = "tabnet"
    parameters = {
        "n_d": [Integer(1)],
        "n_a": [Integer(1)],
        "n_steps": [Integer(1)],
        "gamma": [Real(1)],
        "lambda_sparse": [Real(0)],
        "mask_type": [Options("sparsemax", "entmax")],
        "virtual_batch_size": [Integer(2)],
        "momentum": [Real(0, 1)],
        "n_independent": [Integer(0)],
        "n_shared": [Integer(0)],
        "importance": [Options("total", "per_document")],
        **TRAINING_PARAMETERS,
    }

    def __init__(self, n_d=128, n_a=128, n_steps=4, gamma=1.3, lambda_sparse=0.01, mask_type="sparsemax",
                 virtual_batch_size=128, momentum=0.02, n_independent=2, n_shared=2, importance="total",
                 loss="listwise", epochs=20, batch_size=10, learning_rate=1e-3, weight_decay=1e-4, patience=10,
                 metric="ndcg@10", convention="letor4", ties="expected", random_state=0, n_jobs=1):
        self.n_d = n_d
        self.n_a = n_a
        self.n_steps = n_steps
        self.gamma = gamma
        self.lambda_sparse = lambda_sparse
        self.mask_type = mask_type
        self.virtual_batch_size = virtual_batch_size
        self.momentum = momentum
        self.n_independent = n_independent
        self.n_shared = n_shared
        self.importance = importance
        self._set_network(locals(), TRAINING_PARAMETERS)

    def validate_params(self) -> None:  # noqa: D102 (Estimator's docstring)
        super().validate_params()
        if self.n_independent == 0 and self.n_shared == 0:
            raise ValueError(f"{self.name}: n_independent and n_shared cannot both be 0 (a step needs a GLU layer)")

    def _network(self, torch, d: int):
        tab_network = import_extra("pytorch_tabnet.tab_network", self.name, "pytorch-tabnet")
        network = tab_network.TabNet(
            d, 1, n_d=int(self.n_d), n_a=int(self.n_a), n_steps=int(self.n_steps), gamma=float(self.gamma),
            n_independent=int(self.n_independent), n_shared=int(self.n_shared),
            virtual_batch_size=int(self.virtual_batch_size), momentum=float(self.momentum), mask_type=self.mask_type,
            group_attention_matrix=torch.eye(d))  # no feature groups: each feature its own

        class TabNetScorer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.tabnet = network

            def forward(self, z):  # the scores (n,); the sparsity term is the step's
                return self.tabnet(z)[0].reshape(-1)

        return TabNetScorer()

    def _step(self, torch, module):
        loss_fn = ranking_loss(self.loss)
        lam = float(self.lambda_sparse)
        ghost = int(self.virtual_batch_size)

        def step(rows, y, ptr) -> float:
            n = len(rows)
            if n == 1:  # batch norm cannot train on one row: the loss is reported, nothing is learnt
                module.eval()
                with torch.no_grad():
                    value, _ = loss_fn(to_numpy(module(rows).double()), y, ptr)
                module.train()
                return value
            padded = rows
            if lone_ghost_row(n, ghost):  # nor on a ghost batch of one row: add the first row
                padded = torch.cat([padded, rows[:1]])
            out, m_loss = module.tabnet(padded)
            scores = out.reshape(-1)[:n]
            value, grad = loss_fn(to_numpy(scores).astype(np.float64), y, ptr)
            # d(total)/d(scores) is the ranking loss's gradient; the sparsity term as pytorch-tabnet's fit
            total = (scores * to_tensor(torch, grad).to(scores.dtype)).sum() - lam * m_loss
            total.backward()
            return value

        return step

    def _order(self, torch, module, Z) -> np.ndarray:
        module.eval()
        d = Z.shape[1]
        per_document = self.importance == "per_document"

        def explain(rows):  # the block's explain matrix summed over its rows, and its attended count
            m_explain, masks = module.tabnet.forward_masks(rows)
            attended = sum(float((mask > 0).sum()) for mask in masks.values())
            m_explain = m_explain.double()
            if per_document:  # each row to sum 1; a row of zeros stays zeros
                sums = m_explain.sum(dim=1, keepdim=True)
                m_explain = m_explain / torch.where(sums > 0, sums, torch.ones_like(sums))
            return torch.cat([m_explain.sum(dim=0), torch.tensor([attended], dtype=torch.float64)])[None]

        sums = in_chunks(explain, Z, chunk=EXPLAIN_CHUNK).sum(axis=0)
        explained, attended = sums[:d], sums[d]
        self.chosen_["mean_attended"] = float(attended / max(len(Z) * int(self.n_steps), 1))
        total = explained.sum()
        return explained / total if total > 0 else np.full(d, 1.0 / d)

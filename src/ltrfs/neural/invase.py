"""INVASE: instance-wise variable selection by an actor-critic pair (Yoon, Jordon and van der
Schaar, ICLR 2019), with a ranking loss as in Lyu, Roy, Oosterhuis and Anand, ECIR 2024
(docs/neural.md, section 'INVASE').

Three networks on a document's standardised features z: the actor gives selection
probabilities ``p(z) = sigmoid(a(z))`` (d,), the critic scores the document from the features a
mask keeps, the baseline from all of them. Per batch of whole queries:

    mask ~ Bernoulli(p(z)) per document and feature (PyTorch's seeded generator)
    critic:   minimise the ranking loss L_c of critic(z * mask)
    baseline: minimise the ranking loss L_b of baseline(z)
    actor:    minimise -mean_docs r_q(doc) x sum_j log P(mask_j | p_j) + lam x mean(p)

with the reward ``r_q = L_b(q) - L_c(q)``, each query's own losses (``reward="query"``, the
default: INVASE rewards each sample with its own loss difference, and a query is the unit a
ranking loss is defined on), one reward ``L_b - L_c`` of the whole batch for every document
(``reward="batch"``), or none (``reward="none"``: the actor learns from ``lam x mean(p)`` alone,
what Lyu et al.'s code does in effect: its reward is a softmax cross-entropy over the critic's
and the baseline's single output column, so both losses are 0 for every document); a reward is
a constant to the actor. Scoring mode: the
mask ``p(z) > 0.5`` and the critic's score; early stopping on its vali metric.

Ranking (a global order from per-document masks, as Lyu et al.): how many training documents'
masks keep the feature (``scores_``, a share), ties by the mean selection probability.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.neural.losses import query_losses, ranking_loss
from ltrfs.neural.network import build_mlp, to_numpy, to_tensor
from ltrfs.neural.selector import TRAINING_DOC, NeuralSelector, in_chunks
from ltrfs.neural.training import descend
from ltrfs.params import Options, Real

__all__ = ["INVASE"]


@fill_doc(neural_training=TRAINING_DOC)
class INVASE(NeuralSelector):
    """INVASE: an actor samples per-document feature masks; a critic and a baseline reward it.

    Parameters
    ----------
    lam : float >= 0, default 0.1
        Weight of the mean selection probability in the actor's loss (the authors' 0.1): the
        larger, the fewer features each document keeps.
    reward : {"query", "batch", "none"}, default "query"
        The actor's reward: each query's loss difference for its documents, the batch's for all,
        or none (the sparsity term alone: Lyu et al.'s code in effect, module docstring).
    hidden, activation, dropout : as ranker ``mlp``, default [256, 256, 256], "tanh", 0.3
        The actor's, the critic's and the baseline's layers (three networks of that shape).
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by how often documents keep them (constant features last).
    scores_ : float64 (d,)
        The share of training documents whose mask (p > 0.5) keeps the feature.
    chosen_ : dict
        ``epochs``, ``train_loss`` (the critic's), ``best_epoch``, ``vali``, ``mean_kept`` (features
        a training document keeps, on average).
    %(selector_fit_attributes)s

    References
    ----------
    Yoon, Jordon and van der Schaar, INVASE: Instance-wise Variable Selection using Neural
    Networks, ICLR 2019; Lyu, Roy, Oosterhuis and Anand, ECIR 2024.

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("invase", hidden=[16], epochs=40, batch_size=2)
    >>> int(sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val).ranking_[0])  # the strongest
    2
    """

    name = "invase"
    parameters = {**NeuralSelector.parameters, "lam": [Real(0)], "reward": [Options("query", "batch", "none")]}

    def __init__(self, lam=0.1, reward="query", hidden=(256, 256, 256), activation="tanh", dropout=0.3, loss="listwise", epochs=20,
                 batch_size=10, learning_rate=1e-3, weight_decay=1e-4, patience=10, metric="ndcg@10",
                 convention="letor4", ties="expected", random_state=0, n_jobs=1):
        self.lam = lam
        self.reward = reward
        self._set_network(locals())

    def _network(self, torch, d: int):
        def mlp(out):
            return build_mlp(torch, d, self.hidden, self.activation, self.dropout, out=out)

        class ActorCritic(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.actor, self.critic, self.baseline = mlp(d), mlp(1), mlp(1)

            def probabilities(self, z):
                return torch.sigmoid(self.actor(z))

            def forward(self, z):  # scoring mode: the critic on the features with p > 0.5
                return self.critic(z * (self.probabilities(z) > 0.5).to(z.dtype)).reshape(-1)

        return ActorCritic()

    def _step(self, torch, module):
        loss_fn, name, lam = ranking_loss(self.loss), self.loss, float(self.lam)

        def step(z, y, ptr) -> float:
            p = module.probabilities(z)
            mask = torch.bernoulli(p.detach())
            critic_scores, baseline_scores = module.critic(z * mask).reshape(-1), module.baseline(z).reshape(-1)
            critic = descend(torch, critic_scores, y, ptr, loss_fn)
            baseline = descend(torch, baseline_scores, y, ptr, loss_fn)
            if self.reward == "none":               # the selection probabilities' mean alone
                actor = lam * p.mean()
                actor.backward()
                return critic
            if self.reward == "query":
                gap = (query_losses(name, to_numpy(baseline_scores).astype(np.float64), y, ptr)
                       - query_losses(name, to_numpy(critic_scores).astype(np.float64), y, ptr))
                reward = to_tensor(torch, np.repeat(gap, np.diff(ptr))).to(z.dtype)
            else:
                reward = torch.full((len(z),), baseline - critic, dtype=z.dtype)
            log_likelihood = (mask * torch.log(p + 1e-8) + (1 - mask) * torch.log(1 - p + 1e-8)).sum(dim=1)
            actor = -(reward * log_likelihood).mean() + lam * p.mean()
            actor.backward()
            return critic

        return step

    def _order(self, torch, module, Z):
        kept = in_chunks(lambda rows: (module.probabilities(rows) > 0.5).sum(dim=0, keepdim=True), Z).sum(axis=0)
        total = in_chunks(lambda rows: module.probabilities(rows).sum(dim=0, keepdim=True), Z).sum(axis=0)
        self.chosen_["mean_kept"] = float(kept.sum() / len(Z))
        return kept / len(Z), total / len(Z)

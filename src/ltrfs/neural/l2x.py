"""L2X: instance-wise feature selection by a learned Gumbel-softmax top-k sampler (Chen, Song,
Wainwright and Jordan, Learning to Explain, ICML 2018), with a ranking loss as in Lyu, Roy,
Oosterhuis and Anand, ECIR 2024 (docs/neural.md, section 'L2X').

An actor network reads a document's standardised features z and gives d logits ``a(z)``; a
predictor (the ranker MLP) scores the document from the features the actor keeps::

    training:   m(z) = max_r softmax((a(z) + g_r) / T), r = 1..k (relaxed, T fixed, 0.1)
    scoring:    m(z) = the 0/1 mask of the k largest a(z)
    score(x) = predictor(z * m(z))

Actor and predictor are trained together by Adam on the ranking loss (listwise by default), a
batch of whole queries a step, with early stopping on the vali metric of the scoring mode.

Ranking (a global order from per-document masks, as Lyu et al.): how many training documents
have the feature among their k (``scores_``, a share of the documents), ties by the feature's
mean actor softmax probability over those documents.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.neural.masks import gumbel_topk, topk_mask
from ltrfs.neural.network import build_mlp
from ltrfs.neural.selector import TRAINING_DOC, NeuralSelector, in_chunks, mask_size
from ltrfs.params import Integer, Real

__all__ = ["L2X"]


@fill_doc(neural_training=TRAINING_DOC)
class L2X(NeuralSelector):
    """L2X: a network chooses k features per document; ranked by how often each is chosen.

    Parameters
    ----------
    k : int >= 1 or float in (0, 1), default 0.2
        Features each document keeps: a number, or a share of d.
    temperature : float > 0, default 0.1
        The Gumbel-softmax temperature (fixed; the authors' 0.1).
    actor_hidden : list of int, default [256, 256]
        The actor's hidden layers (Lyu et al.'s actor: two of 256).
    hidden, activation, dropout : as ranker ``mlp``, default [256, 256, 256], "tanh", 0.3
        The predictor (the actor uses the same activation and dropout).
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by how often documents keep them (constant features last).
    scores_ : float64 (d,)
        The share of training documents whose k features include the feature.
    chosen_ : dict
        ``k``, ``epochs``, ``train_loss``, ``best_epoch``, ``vali``.
    %(selector_fit_attributes)s

    References
    ----------
    Chen, Song, Wainwright and Jordan, Learning to Explain: An Information-Theoretic Perspective
    on Model Interpretation, ICML 2018; Lyu, Roy, Oosterhuis and Anand, ECIR 2024.

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("l2x", k=2, hidden=[16], actor_hidden=[16], epochs=30, batch_size=2)
    >>> int(sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val).ranking_[0])  # the strongest
    2
    """

    name = "l2x"
    parameters = {
        **NeuralSelector.parameters,
        "k": [Integer(1), Real(0, 1, closed="neither")],
        "temperature": [Real(0, None, closed="neither")],
        "actor_hidden": NeuralSelector.parameters["hidden"],
    }

    def __init__(self, k=0.2, temperature=0.1, actor_hidden=(256, 256), hidden=(256, 256, 256), activation="tanh",
                 dropout=0.3, loss="listwise", epochs=20, batch_size=10, learning_rate=1e-3, weight_decay=1e-4,
                 patience=10, metric="ndcg@10", convention="letor4", ties="expected", random_state=0, n_jobs=1):
        self.k = k
        self.temperature = temperature
        self.actor_hidden = actor_hidden
        self._set_network(locals())

    def _network(self, torch, d: int):
        k = mask_size(self.k, d, self.name)
        self.chosen_["k"] = k
        temperature = float(self.temperature)

        class InstanceMask(torch.nn.Module):
            def __init__(self, actor, predictor):
                super().__init__()
                self.actor, self.predictor = actor, predictor

            def mask(self, z):
                logits = self.actor(z)
                return gumbel_topk(torch, logits, k, temperature) if self.training else topk_mask(torch, logits, k)

            def forward(self, z):
                return self.predictor(z * self.mask(z)).reshape(-1)

        return InstanceMask(build_mlp(torch, d, self.actor_hidden, self.activation, self.dropout, out=d),
                            build_mlp(torch, d, self.hidden, self.activation, self.dropout))

    def _order(self, torch, module, Z):
        kept = in_chunks(lambda rows: module.mask(rows).sum(dim=0, keepdim=True), Z).sum(axis=0)
        prob = in_chunks(lambda rows: torch.softmax(module.actor(rows), dim=-1).sum(dim=0, keepdim=True), Z).sum(axis=0)
        return kept / len(Z), prob / len(Z)

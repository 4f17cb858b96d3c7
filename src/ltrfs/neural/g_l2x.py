"""G-L2X: a global concrete mask trained with the ranker (Lyu, Roy, Oosterhuis and Anand, Is
Interpretable Machine Learning Effective at Feature Selection for Neural Learning-to-Rank?,
ECIR 2024; docs/neural.md, section 'G-L2X').

L2X (Chen et al., ICML 2018) made global: one vector of d logits ``theta`` (Xavier-uniform),
not a network of the document, chooses which k features every document shows the predictor
(an MLP, ``ltrfs.neural.network``, the ranker of the paper)::

    training:   m = top-k of max_r softmax((theta + g_r) / T), r = 1..k, g_r Gumbel noise,
                forward with the 0/1 mask, backward through the relaxed one (straight-through)
    scoring:    m = the k largest theta (a fixed mask)
    score(x) = predictor(z(x) * m)          z the standardised features

Both are trained together by Adam on the ranking loss (listwise by default), a batch of whole
queries a step. The temperature falls geometrically from 10 to 0.01 over the training: epoch e
(1, 2, ...) runs at ``T = start x (end / start)^((e - 1) / anneal_epochs)`` with ``anneal_epochs``
the number of epochs by default, so the last epoch runs near the end temperature, as the paper
describes. (The authors' code divides by 50 epochs and trains at most 20, so its temperature ends
near 0.8: ``anneal_epochs=50``.) Early stopping on the vali metric of the scoring mode keeps the
best epoch.

Ranking: the features by their logits theta of the kept epoch, largest first (the first k are
the mask the predictor was trained with; the paper keeps those, the order beyond them is the
logits' order). ``scores_`` = theta.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.neural.masks import annealed, gumbel_topk, topk_mask
from ltrfs.neural.network import build_mlp, to_numpy
from ltrfs.neural.selector import TRAINING_DOC, NeuralSelector, mask_size
from ltrfs.params import Integer, Real

__all__ = ["GL2X"]


@fill_doc(neural_training=TRAINING_DOC)
class GL2X(NeuralSelector):
    """G-L2X: one learned concrete top-k mask shared by every document, trained with the ranker.

    Parameters
    ----------
    k : int >= 1 or float in (0, 1), default 0.2
        Features in the mask: a number, or a share of d (the paper's ``feature_ratio``).
    start_temperature, end_temperature : float > 0, default 10.0 and 0.01
        The temperature's schedule.
    anneal_epochs : int >= 1 or None, default None
        Epochs over which the temperature falls from start to end; None: ``epochs`` (the
        authors' code: 50).
    hidden, activation, dropout : as ranker ``mlp``, default [256, 256, 256], "tanh", 0.3
        The predictor.
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by their logits, largest first (constant features last).
    scores_ : float64 (d,)
        The logits theta.
    chosen_ : dict
        ``k``, ``epochs``, ``train_loss``, ``best_epoch``, ``vali``, ``final_temperature``.
    %(selector_fit_attributes)s

    References
    ----------
    Lyu, Roy, Oosterhuis and Anand, ECIR 2024 (G-L2X); Chen, Song, Wainwright and Jordan,
    Learning to Explain, ICML 2018 (L2X's sampler); Jang, Gu and Poole, ICLR 2017 (Gumbel-softmax).

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("g_l2x", k=2, hidden=[16], epochs=30, batch_size=2)
    >>> sel = sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> sel.chosen_["k"], sel.ranking_.shape   # a 2-feature mask; every feature ranked by its logit
    (2, (5,))
    """

    name = "g_l2x"
    parameters = {
        **NeuralSelector.parameters,
        "k": [Integer(1), Real(0, 1, closed="neither")],
        "start_temperature": [Real(0, None, closed="neither")],
        "end_temperature": [Real(0, None, closed="neither")],
        "anneal_epochs": [Integer(1), None],
    }

    def __init__(self, k=0.2, start_temperature=10.0, end_temperature=0.01, anneal_epochs=None,
                 hidden=(256, 256, 256), activation="tanh", dropout=0.3, loss="listwise", epochs=20, batch_size=10,
                 learning_rate=1e-3, weight_decay=1e-4, patience=10, metric="ndcg@10", convention="letor4",
                 ties="expected", random_state=0, n_jobs=1):
        self.k = k
        self.start_temperature = start_temperature
        self.end_temperature = end_temperature
        self.anneal_epochs = anneal_epochs
        self._set_network(locals())

    def temperature(self, epochs_done: int) -> float:
        """The temperature of the epoch after ``epochs_done`` epochs (``ltrfs.neural.masks.annealed``)."""
        return annealed(self.start_temperature, self.end_temperature, epochs_done, self.anneal_epochs or self.epochs)

    def _network(self, torch, d: int):
        k = mask_size(self.k, d, self.name)
        predictor = build_mlp(torch, d, self.hidden, self.activation, self.dropout)
        owner = self

        class GlobalMask(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.logits = torch.nn.Parameter(torch.nn.init.xavier_uniform_(torch.empty(1, d)))
                self.predictor = predictor
                self.temperature = float(owner.start_temperature)

            def mask(self):
                if self.training:
                    return gumbel_topk(torch, self.logits, k, self.temperature, hard=True)
                return topk_mask(torch, self.logits, k)

            def forward(self, z):
                return self.predictor(z * self.mask()).reshape(-1)

        self.chosen_["k"] = k
        return GlobalMask()

    def _on_epoch(self, module, epoch: int) -> None:
        module.temperature = self.temperature(epoch)

    def _order(self, torch, module, Z) -> np.ndarray:
        self.chosen_["final_temperature"] = float(module.temperature)
        return to_numpy(module.logits.reshape(-1).double())

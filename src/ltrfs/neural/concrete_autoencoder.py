"""The concrete autoencoder (Abid, Balin and Zou, Concrete Autoencoders: Differentiable Feature
Selection and Reconstruction, ICML 2019), as compared by Lyu, Roy, Oosterhuis and Anand, ECIR 2024
(docs/neural.md, section 'Concrete autoencoder').

A concrete selector layer of k neurons, each a distribution over the d features (logits
``L`` (k, d), Xavier-uniform), encodes a document's standardised features z into k values;
a decoder (an MLP) reconstructs all d of them::

    training:   M_i = softmax((L_i + g_i) / T), g_i Gumbel noise     (a relaxed one-hot row each)
    scoring:    M_i = one-hot of argmax_j L_ij                      (neuron i picks feature j)
    encode(z) = M z (k,),   loss = mean squared error of decoder(M z) against z

Unsupervised by default: the labels are not used, every training document counts the same
(batches of whole queries, for one loop with the other methods), and there is no early stopping
(every epoch runs; the last is kept, as the paper). The temperature falls geometrically after
each epoch from ``start_temperature`` to ``end_temperature`` over ``anneal_epochs`` (default: the
epochs, so the last runs near the end temperature, as the paper; Lyu et al.'s code: 100). ``supervised=True`` is Lyu et al.'s
variant: the decoder is a ranker of the k encoded values trained on the ranking loss, with early
stopping on the vali metric.

Ranking: the features the neurons pick first (a feature two neurons pick counts once), then the
others; within each part by the largest selection probability over the neurons,
``max_i softmax(L_i)_j`` (``scores_`` = that probability, plus 1 for a picked feature).
"""
from __future__ import annotations

from ltrfs.docstrings import fill_doc
from ltrfs.neural.masks import annealed, gumbel_noise
from ltrfs.neural.network import build_mlp, to_numpy
from ltrfs.neural.selector import TRAINING_DOC, NeuralSelector, mask_size
from ltrfs.neural.training import ranking_step
from ltrfs.params import Boolean, Integer, Real

__all__ = ["ConcreteAutoencoder"]


@fill_doc(neural_training=TRAINING_DOC)
class ConcreteAutoencoder(NeuralSelector):
    """Concrete autoencoder: k concrete neurons pick the features from which the rest are rebuilt.

    Parameters
    ----------
    k : int >= 1 or float in (0, 1), default 0.2
        Neurons of the selector layer (features picked): a number, or a share of d.
    start_temperature, end_temperature : float > 0, default 10.0 and 0.01
        The temperature's schedule.
    anneal_epochs : int >= 1 or None, default None
        Epochs over which the temperature falls from start to end; None: ``epochs``.
    supervised : bool, default False
        False: reconstruct the features (the paper); True: rank with the k picked values (Lyu et
        al.'s variant: the ranking loss below and early stopping on vali).
    hidden, activation, dropout : as ranker ``mlp``, default [256, 256, 256], "tanh", 0.3
        The decoder.
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        The picked features, then the others, each part by the largest selection probability
        (constant features last).
    scores_ : float64 (d,)
        The largest selection probability, plus 1 for the picked features.
    chosen_ : dict
        ``k``, ``epochs``, ``train_loss``, ``picked`` (the distinct features the neurons pick),
        ``final_temperature`` (and ``best_epoch``, ``vali`` with ``supervised``).
    %(selector_fit_attributes)s

    References
    ----------
    Abid, Balin and Zou, Concrete Autoencoders: Differentiable Feature Selection and
    Reconstruction, ICML 2019; Maddison, Mnih and Teh, ICLR 2017 (the concrete distribution).

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = make_selector("concrete_autoencoder", k=3, hidden=[16], epochs=30, batch_size=2).fit(X, y, qid)
    >>> len(sel.chosen_["picked"]) <= 3, sel.ranking_.shape
    (True, (5,))
    """

    name = "concrete_autoencoder"
    parameters = {
        **NeuralSelector.parameters,
        "k": [Integer(1), Real(0, 1, closed="neither")],
        "start_temperature": [Real(0, None, closed="neither")],
        "end_temperature": [Real(0, None, closed="neither")],
        "anneal_epochs": [Integer(1), None],
        "supervised": [Boolean()],
    }

    def __init__(self, k=0.2, start_temperature=10.0, end_temperature=0.01, anneal_epochs=None, supervised=False,
                 hidden=(256, 256, 256), activation="tanh", dropout=0.3, loss="listwise", epochs=20, batch_size=10,
                 learning_rate=1e-3, weight_decay=1e-4, patience=10, metric="ndcg@10", convention="letor4",
                 ties="expected", random_state=0, n_jobs=1):
        self.k = k
        self.start_temperature = start_temperature
        self.end_temperature = end_temperature
        self.anneal_epochs = anneal_epochs
        self.supervised = supervised
        self._set_network(locals())

    @property
    def uses_vali(self) -> bool:  # early stopping on a ranking metric only when ranking
        return bool(self.supervised)

    def temperature(self, epochs_done: int) -> float:
        """The temperature of the epoch after ``epochs_done`` epochs (``ltrfs.neural.masks.annealed``)."""
        return annealed(self.start_temperature, self.end_temperature, epochs_done, self.anneal_epochs or self.epochs)

    def _network(self, torch, d: int):
        k = mask_size(self.k, d, self.name)
        self.chosen_["k"] = k
        start = float(self.start_temperature)
        supervised = bool(self.supervised)

        class ConcreteSelector(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.logits = torch.nn.Parameter(torch.nn.init.xavier_uniform_(torch.empty(k, d)))
                self.decoder = build_mlp(torch, k, owner.hidden, owner.activation, owner.dropout,
                                         out=1 if supervised else d)
                self.temperature = start

            def selection(self):
                if self.training:
                    noise = gumbel_noise(torch, self.logits.shape, self.logits.dtype)
                    return torch.softmax((self.logits + noise) / self.temperature, dim=-1)
                return torch.nn.functional.one_hot(self.logits.argmax(dim=-1), d).to(self.logits.dtype)

            def forward(self, z):  # supervised: the score; else the reconstruction
                out = self.decoder(z @ self.selection().T)
                return out.reshape(-1) if supervised else out

        owner = self
        return ConcreteSelector()

    def _step(self, torch, module):
        if self.supervised:
            return ranking_step(torch, module, self.loss)

        def step(z, y, ptr) -> float:
            loss = torch.mean((module(z) - z) ** 2)
            loss.backward()
            return float(loss.detach())

        return step

    def _loss_name(self) -> str:
        return f"{self.loss} loss" if self.supervised else "reconstruction error"

    def _check_learnable(self, y, query_ptr) -> None:
        if self.supervised:  # unsupervised: every document is a reconstruction target
            super()._check_learnable(y, query_ptr)

    def _queries(self, y, query_ptr):
        return super()._queries(y, query_ptr) if self.supervised else list(range(len(query_ptr) - 1))

    def _on_epoch(self, module, epoch: int) -> None:
        module.temperature = self.temperature(epoch)

    def _order(self, torch, module, Z):
        self.chosen_["final_temperature"] = float(module.temperature)
        picked = sorted({int(j) for j in module.logits.argmax(dim=-1)})
        self.chosen_["picked"] = picked
        scores = to_numpy(torch.softmax(module.logits, dim=-1).amax(dim=0).double())
        scores[picked] += 1.0
        return scores

"""Instance-wise feature grouping (Masoomi, Wu, Ioannidis, Brooks and Dy, Instance-wise Feature
Grouping, NeurIPS 2020), the seventh selector Lyu, Roy, Oosterhuis and Anand compare (ECIR 2024;
docs/neural.md, section 'Instance-wise feature grouping').

Per document, a network puts each feature into one of G groups, a second network keeps the
``n_top_groups`` best groups, and the ranker scores the document from the features of the kept
groups. With z (d,) the document's standardised features, T the temperature::

    A = assign(z) (d, G);      S_j = softmax((A_j + g_j) / T)  training (g_j Gumbel noise),
                                    one-hot of argmax_g A_jg     scoring      (feature j's group)
    u = S' z (G,)              each group's value: the sum of its features
    B = choose(u) (G,);        t = gumbel_topk(B, n_top_groups, T)  training, top-n_top 0/1  scoring
    m_j = sum_g t_g S_jg       whether feature j is in a kept group
    r_j = sum_g S_jg u_g / max(sum_i S_ig, eps)    the mean of feature j's group (a reconstruction)
    score(z) = predictor(m * r)
    loss = rank_weight x ranking loss(scores) + reconstruction_weight x mean (r - z)^2

This is the form of the IFG authors' code that Lyu et al. ran (they found the paper's own form,
with a reconstruction network, worse): the predictor sees the kept features through their groups'
means, and the reconstruction term asks the groups to hold features of like value. ``assign`` and
``choose`` are MLPs of ``group_hidden`` units (tanh, no dropout; theirs: two of 100); an empty group
adds nothing to r (its size is floored at eps; in their code its 0/0 makes r NaN).

Ranking (a global order from per-document masks, as Lyu et al.): how many training documents keep
the feature in the scoring mode (``scores_``, a share of the documents), ties by the mean
probability that the feature's group is a kept one, ``sum_g softmax(A_j)_g t_g``.
"""
from __future__ import annotations

from ltrfs.docstrings import fill_doc
from ltrfs.neural.losses import ranking_loss
from ltrfs.neural.masks import gumbel_noise, gumbel_topk, topk_mask
from ltrfs.neural.network import build_mlp
from ltrfs.neural.selector import TRAINING_DOC, NeuralSelector, in_chunks
from ltrfs.neural.training import descend
from ltrfs.params import Integer, Real

__all__ = ["InstanceFeatureGroups"]

#: the least size of a group the reconstruction divides by (an empty group adds nothing)
_EPS = 1e-6
#: values of one (rows, d, G) tensor when rows are read in blocks outside training (``_block_rows``)
_BLOCK_VALUES = 2**22


@fill_doc(neural_training=TRAINING_DOC)
class InstanceFeatureGroups(NeuralSelector):
    """IFG: per document, features grouped and the best groups kept; ranked by how often kept.

    Parameters
    ----------
    n_groups : int >= 2, default 10
        Groups G each document's features are split into.
    n_top_groups : int >= 1, default 1
        Groups each document keeps (fewer than ``n_groups``).
    temperature : float > 0, default 0.1
        The Gumbel-softmax temperature of both samplers (fixed).
    group_hidden : list of int, default [100, 100]
        Hidden layers of the grouping and the group-choosing networks.
    rank_weight, reconstruction_weight : float >= 0, default 10.0 and 1.0
        The weights of the ranking loss and of the reconstruction error (Lyu et al.'s 10 and 1).
    hidden, activation, dropout : as ranker ``mlp``, default [256, 256, 256], "tanh", 0.3
        The predictor (the grouping networks use the same activation, no dropout).
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features by how often documents keep them (constant features last).
    scores_ : float64 (d,)
        The share of training documents that keep the feature.
    chosen_ : dict
        ``n_groups``, ``n_top_groups``, ``mean_kept`` (features a training document keeps, on
        average), ``epochs``, ``train_loss``, ``best_epoch``, ``vali``.
    %(selector_fit_attributes)s

    References
    ----------
    Masoomi, Wu, Ioannidis, Brooks and Dy, Instance-wise Feature Grouping, NeurIPS 2020; Lyu,
    Roy, Oosterhuis and Anand, ECIR 2024.

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("ifg", n_groups=3, hidden=[16], group_hidden=[16], epochs=5, batch_size=2)
    >>> sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val).ranking_.shape
    (5,)
    """

    name = "ifg"
    parameters = {
        **NeuralSelector.parameters,
        "n_groups": [Integer(2)],
        "n_top_groups": [Integer(1)],
        "temperature": [Real(0, None, closed="neither")],
        "group_hidden": NeuralSelector.parameters["hidden"],
        "rank_weight": [Real(0)],
        "reconstruction_weight": [Real(0)],
    }

    def __init__(self, n_groups=10, n_top_groups=1, temperature=0.1, group_hidden=(100, 100), rank_weight=10.0,
                 reconstruction_weight=1.0, hidden=(256, 256, 256), activation="tanh", dropout=0.3, loss="listwise",
                 epochs=20, batch_size=10, learning_rate=1e-3, weight_decay=1e-4, patience=10, metric="ndcg@10",
                 convention="letor4", ties="expected", random_state=0, n_jobs=1):
        self.n_groups = n_groups
        self.n_top_groups = n_top_groups
        self.temperature = temperature
        self.group_hidden = group_hidden
        self.rank_weight = rank_weight
        self.reconstruction_weight = reconstruction_weight
        self._set_network(locals())

    def validate_params(self):
        """Check the parameters; ``n_top_groups`` must be fewer than ``n_groups`` (one line)."""
        super().validate_params()
        if int(self.n_top_groups) >= int(self.n_groups):
            raise ValueError(f"{self.name}: n_top_groups ({self.n_top_groups}) must be fewer than n_groups "
                             f"({self.n_groups}): keeping every group selects nothing")

    def _network(self, torch, d: int):
        G, top, T = int(self.n_groups), int(self.n_top_groups), float(self.temperature)
        self.chosen_.update({"n_groups": G, "n_top_groups": top})
        owner = self

        class FeatureGroups(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.assign = build_mlp(torch, d, owner.group_hidden, owner.activation, 0.0, out=d * G)
                self.choose = build_mlp(torch, G, owner.group_hidden, owner.activation, 0.0, out=G)
                self.predictor = build_mlp(torch, d, owner.hidden, owner.activation, owner.dropout)

            def groups(self, z):
                """(logits A (n, d, G), memberships S (n, d, G))."""
                logits = self.assign(z).reshape(-1, d, G)
                if self.training:
                    return logits, torch.softmax((logits + gumbel_noise(torch, logits.shape, logits.dtype)) / T, -1)
                return logits, torch.zeros_like(logits).scatter_(-1, logits.argmax(dim=-1, keepdim=True), 1.0)

            def parts(self, z):
                """(kept m (n, d), reconstruction r (n, d), kept groups t (n, G), logits A)."""
                logits, S = self.groups(z)
                u = torch.einsum("ndg,nd->ng", S, z)
                b = self.choose(u)
                t = gumbel_topk(torch, b, top, T) if self.training else topk_mask(torch, b, top)
                kept = torch.einsum("ng,ndg->nd", t, S)
                recon = torch.einsum("ndg,ng->nd", S, u / S.sum(dim=1).clamp_min(_EPS))
                return kept, recon, t, logits

            def score(self, kept, recon):
                return self.predictor(kept * recon).reshape(-1)

            def forward(self, z):
                kept, recon, _, _ = self.parts(z)
                return self.score(kept, recon)

        return FeatureGroups()

    def _step(self, torch, module):
        loss_fn = ranking_loss(self.loss)
        a, b = float(self.rank_weight), float(self.reconstruction_weight)

        def step(z, y, ptr) -> float:
            kept, recon, _, _ = module.parts(z)
            return descend(torch, module.score(kept, recon), y, ptr, loss_fn, weight=a,
                           also=[(torch.mean((recon - z) ** 2), b)])

        return step

    def _block_rows(self, d: int) -> int:
        """Rows a block such that each (rows, d, G) tensor holds about 4 million values (16 MB)."""
        return max(1, _BLOCK_VALUES // (d * int(self.n_groups)))

    def _loss_name(self) -> str:
        return f"{self.rank_weight:g} x {self.loss} loss + {self.reconstruction_weight:g} x reconstruction error"

    def _order(self, torch, module, Z):
        def counts(rows):
            kept, _, t, logits = module.parts(rows)
            in_kept = torch.einsum("ndg,ng->nd", torch.softmax(logits, dim=-1), t)
            return torch.stack([kept.sum(dim=0), in_kept.sum(dim=0)])[None]

        kept, prob = in_chunks(counts, Z, self._block_rows(Z.shape[1])).sum(axis=0)
        self.chosen_["mean_kept"] = float(kept.sum() / len(Z))
        return kept / len(Z), prob / len(Z)

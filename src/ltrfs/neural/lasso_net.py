"""LassoNet as a global feature selector (Lemhadri, Ruan, Abraham and Tibshirani, LassoNet: A
Neural Network with Feature Sparsity, JMLR 2021), trained as a ranker as in Lyu, Roy, Oosterhuis
and Anand, ECIR 2024 (docs/neural.md, section 'LassoNet').

The network is the maintained package's (``lassonet.model.LassoNet``): a linear skip layer theta
(d weights, no bias) plus an MLP (ReLU, the package's only activation; dropout on the hidden
layers) whose first layer W (hidden x d) is tied to theta by the hierarchy
``max_i |W_ij| <= M |theta_j|``, so a feature whose theta is 0 reaches the MLP no more::

    score(x) = theta' z + MLP(z)          z the standardised features

Training, in two phases:

- dense: the shared loop of the neural selectors (Adam, ``learning_rate``, ``weight_decay``, the
  ranking loss on batches of whole queries, at most ``epochs``, early stopping on the vali metric,
  the vali-best epoch kept), the package's proximal operator at lambda 0 after every Adam step
  (as its ``_train``: only the hierarchy enforced);
- the path: lambda_i = ``lambda_start`` x ``path_multiplier``^i, i = 0, 1, ... For each lambda,
  SGD (``learning_rate``, momentum 0.9, one optimiser for the whole path) on the ranking loss, and
  after every optimiser step the package's hierarchical proximal operator
  (``LassoNet.prox(lambda_=lambda_i x learning_rate, M=M)``, ``lassonet.prox``) shrinks each
  feature's (theta_j, W_j) towards 0 together; at most ``path_epochs`` epochs, fewer when
  ``path_patience`` epochs in a row do not beat the vali metric of the model the step started
  from; the weights at the step's end go on to the next lambda. The path ends when no feature is
  left or after ``max_path_steps`` lambdas (None: only when no feature is left, as the package).

``lambda_start="auto"`` is the package's rule: a tenth of ``LassoNet.lambda_start(M)`` (half of
the smallest 1e-6 x 2^n at which up to 10,000 proximal steps alone zero a feature of the dense
network; seconds to tens of seconds) divided by the learning rate. A feature leaves only once
lambda outweighs its gradient and, through the hierarchy, about M times the sum of its column of
W; by default the path goes on until no feature is left (the package's path), which may take
a few hundred lambdas at x 1.02. Lyu et al.'s path (x 1.02 over at most 100 steps: a factor 7.1)
may end before any feature leaves, and the ranking is then |theta_j| alone
(``chosen_["features_in_at_end"]`` = d, and a warning): a larger ``path_multiplier`` or
``max_path_steps`` reaches it (docs/neural.md).

What is the package's and what is written here: the model, its proximal operator, its
``lambda_start`` estimate and its ``input_mask`` are the package's; the path loop is written here,
after the package's ``BaseLassoNet.path`` and ``_train`` (dense phase, lambda sequence, one SGD
with momentum 0.9 for the path, the proximal step after each optimiser step, no backtracking,
the same stopping rule), because ``_train`` draws its batches as random rows
(``torch.randperm`` over the rows) and applies a pointwise ``criterion(model(X[batch]),
y[batch])``: a loss over whole queries cannot be given to it. Differences: the batches, the loss
and the dense phase's optimiser are the shared loop's; a path step stops on the vali ranking
metric (the package: on its validation objective, loss + lambda x sum_j |theta_j|, with a 1%
improvement needed); ``max_path_steps`` can cut the path short (Lyu et al.'s ``path_depth``,
100).

Ranking (the package's ``feature_importances_``): a feature leaves the path at the first lambda
after whose step its theta is 0 (then its column of W is 0 too; a later SGD step may bring it
back, and it keeps that first lambda). Features by the lambda at which they left, largest first;
the features still in when the path ended first of all, by |theta_j| at the end, largest first;
ties by index. ``scores_`` = that lambda; a feature still in scores the lambda the next step
would have used (``chosen_["lambda_end"]`` x ``path_multiplier``): finite (the package's inf
would be ``Infinity`` in the selection's JSON), above every leaving lambda.
"""
from __future__ import annotations

import itertools
import logging

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.neural.network import import_extra, to_numpy
from ltrfs.neural.selector import NETWORK_PARAMETERS, TRAINING_DOC, NeuralSelector
from ltrfs.params import Integer, Options, Real

__all__ = ["LassoNetSelector"]

log = logging.getLogger("ltrfs")

#: the shared parameters LassoNet takes (its MLP is the package's, ReLU only: no ``activation``)
SHARED_PARAMETERS = {name: allowed for name, allowed in NETWORK_PARAMETERS.items() if name != "activation"}

#: the momentum of the path's SGD (the package's default optimiser of the path)
PATH_MOMENTUM = 0.9


class _ProxSteps:
    """An optimiser's step, then the hierarchical proximal operator at ``threshold`` (lambda x
    learning rate), as the package's ``_train`` does in both phases: at threshold 0 in the dense
    phase (only the hierarchy ``|W_ij| <= M |theta_j|`` enforced), at lambda x lr on the path."""

    def __init__(self, optimiser, model, M: float):
        self.optimiser, self.model, self.M, self.threshold = optimiser, model, float(M), 0.0

    def zero_grad(self) -> None:
        self.optimiser.zero_grad()

    def step(self) -> None:
        self.optimiser.step()
        self.model.prox(lambda_=self.threshold, M=self.M)


@fill_doc(neural_training=TRAINING_DOC)
class LassoNetSelector(NeuralSelector):
    """LassoNet: a skip layer and an MLP tied by a hierarchy; features by where they leave a path
    of growing l1 penalties.

    Parameters
    ----------
    M : float > 0, default 10.0
        The hierarchy: a feature's first-layer weights are at most M |theta_j| (Lyu et al.'s 10).
    path_multiplier : float > 1, default 1.02
        lambda grows by this factor each path step (the package's and Lyu et al.'s 1.02).
    lambda_start : "auto" or float > 0, default "auto"
        The path's first lambda; "auto": the package's estimate (module docstring).
    max_path_steps : int >= 1 or None, default None
        Most lambdas on the path (Lyu et al.'s ``path_depth``: 100); it ends earlier when no
        feature is left. None: until no feature is left (the package's path).
    path_epochs : int >= 1, default 4
        Most epochs per lambda (Lyu et al.'s ``path_max_epoch``).
    path_patience : int >= 1 or None, default 2
        Epochs of a path step without beating the vali metric of the step's starting model that
        end the step; None, or no validation split: every path epoch runs.
    hidden, dropout : as ranker ``mlp``, default [256, 256, 256], 0.3
        The MLP's layers (at least one: W is the first) and dropout; its activation is ReLU, the
        package's only one.
    %(neural_training)s

    Attributes
    ----------
    ranking_ : int64 (d,)
        Features still in at the path's end (by |theta_j|), then by the lambda at which they left,
        largest first (constant features last).
    scores_ : float64 (d,)
        The lambda at which the feature left; ``lambda_end x path_multiplier`` for those still in.
    chosen_ : dict
        ``epochs``, ``train_loss``, ``best_epoch``, ``vali``, ``vali_metric`` (the dense phase),
        ``lambda_start``, ``lambda_end`` (the last lambda run), ``path_steps`` (lambdas run),
        ``path_epochs`` (epochs run on the path, all steps), ``features_in_at_end`` (the features
        that never left, still in when the path ended: d means the path was too short to select).
    details_ : dict
        ``path``: per step, ``lambda``, ``epochs``, ``selected`` (features in after it) and ``vali``
        (the metric at its end; None without a validation split).
    %(selector_fit_attributes)s

    Notes
    -----
    ``learning_rate`` is the step of both phases (Adam's, then SGD's, as the package's defaults);
    ``epochs``, ``patience`` and ``weight_decay`` are the dense phase's (the path's SGD has no
    weight decay, as the package's). The path costs up to ``max_path_steps`` x ``path_epochs``
    epochs (400 by default; about 3 per step on the planted problems, so about 300 against the
    dense phase's 20), ``lambda_start="auto"`` 5 to 25 s more, and importing lassonet about 3 s.

    References
    ----------
    Lemhadri, Ruan, Abraham and Tibshirani, LassoNet: A Neural Network with Feature Sparsity,
    JMLR 22 (2021); Lyu, Roy, Oosterhuis and Anand, ECIR 2024.

    Examples
    --------
    >>> from ltrfs.selection import make_selector
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> X_val, y_val, qid_val = example_queries(seed=1)
    >>> sel = make_selector("lassonet", hidden=[16], epochs=10, batch_size=2, lambda_start=1.0, path_multiplier=1.5)
    >>> sel = sel.fit(X, y, qid, X_val=X_val, y_val=y_val, qid_val=qid_val)
    >>> int(sel.ranking_[0]), sel.chosen_["features_in_at_end"]   # the strongest goes last; all went
    (2, 0)
    """

    name = "lassonet"
    parameters = {
        **SHARED_PARAMETERS,
        "M": [Real(0, None, closed="neither")],
        "path_multiplier": [Real(1, None, closed="neither")],
        "lambda_start": [Options("auto"), Real(0, None, closed="neither")],
        "max_path_steps": [Integer(1), None],
        "path_epochs": [Integer(1)],
        "path_patience": [Integer(1), None],
    }

    def __init__(self, M=10.0, path_multiplier=1.02, lambda_start="auto", max_path_steps=None, path_epochs=4,
                 path_patience=2, hidden=(256, 256, 256), dropout=0.3, loss="listwise", epochs=20, batch_size=10,
                 learning_rate=1e-3, weight_decay=1e-4, patience=10, metric="ndcg@10", convention="letor4",
                 ties="expected", random_state=0, n_jobs=1):
        self.M = M
        self.path_multiplier = path_multiplier
        self.lambda_start = lambda_start
        self.max_path_steps = max_path_steps
        self.path_epochs = path_epochs
        self.path_patience = path_patience
        self._set_network(locals(), SHARED_PARAMETERS)

    def _network(self, torch, d: int):
        LassoNet = import_extra("lassonet.model", self.name, "the package lassonet").LassoNet
        dropout = float(self.dropout) or None  # the package adds a Dropout layer unless None
        return LassoNet(d, *(int(units) for units in self.hidden), 1, dropout=dropout)

    def _after_path_step(self, model, lambda_: float, left: np.ndarray) -> None:
        """Called after each path step with the model, its lambda and the features that left in
        it (bool (d,)); nothing by default (the tests read the weights here)."""

    def _optimiser(self, torch, module):
        """The dense phase's Adam, with the package's proximal operator at lambda 0 after each step."""
        adam = torch.optim.Adam(module.parameters(), lr=float(self.learning_rate), weight_decay=float(self.weight_decay))
        return _ProxSteps(adam, module, self.M)

    def _rank(self, run):
        """The path on the dense network; (scores, tie): the lambda each feature left at (those
        still in: the next lambda) and, for those still in, |theta_j|."""
        d = run.Z.shape[1]
        left, theta = self._path(run)
        stayed = np.isnan(left)
        self.chosen_["features_in_at_end"] = int(stayed.sum())
        lambda_next = self.chosen_["lambda_end"] * float(self.path_multiplier)
        return np.where(stayed, lambda_next, left), np.where(stayed, theta, np.zeros(d))

    def _path(self, run):
        """Run the path on the dense model; set ``chosen_``'s path entries and ``details_``.

        Returns
        -------
        (float64 (d,), float64 (d,))
            The lambda at which each feature left (NaN: still in at the end), and |theta_j| at
            the end.
        """
        torch, model = run.torch, run.module
        lr = float(self.learning_rate)
        if self.lambda_start == "auto":
            with torch.no_grad():
                lambda_ = float(model.lambda_start(M=float(self.M))) / lr / 10  # the package's rule
        else:
            lambda_ = float(self.lambda_start)
        self.chosen_["lambda_start"] = lambda_
        optimiser = _ProxSteps(torch.optim.SGD(model.parameters(), lr=lr, momentum=PATH_MOMENTUM), model, self.M)
        inside = to_numpy(model.input_mask()).copy()
        left = np.full(len(inside), np.nan)
        left[~inside] = 0.0  # out before the path (theta 0 after the dense phase): last
        table, first_left, lambda_end = [], None, lambda_
        patience = self.path_patience if run.vali is not None else None
        steps = itertools.count() if self.max_path_steps is None else range(int(self.max_path_steps))
        for i in steps if len(run.queries) else ():  # no query to learn from: no path
            if model.selected_count() == 0:
                break
            if i:
                lambda_ *= float(self.path_multiplier)  # as the package: repeated products
            optimiser.threshold = lambda_ * lr
            watch = run.tracker(patience) if patience is not None else None
            if watch is not None:  # the step must beat the model it starts from (the package's rule)
                model.eval()
                with torch.no_grad():
                    watch.update(0, watch.score(run.score_vali()), ())
            history = run.train(self.path_epochs, watch, optimiser=optimiser, snapshot=lambda: (),
                                name=f"{self.name} lambda {lambda_:.4g}")
            now = to_numpy(model.input_mask())
            gone = inside & ~now
            left[gone] = lambda_
            inside &= now
            if gone.any() and first_left is None:
                first_left = lambda_
            vali = watch.history[-1] if watch is not None else None
            table.append({"lambda": lambda_, "epochs": history["epochs"], "selected": int(inside.sum()),
                          "vali": float(vali) if vali is not None and np.isfinite(vali) else None})
            log.info("%s path step %d: lambda %.4g, %d epochs, %d features in", self.name, i + 1, lambda_,
                     history["epochs"], int(inside.sum()))
            self._after_path_step(model, lambda_, gone)
            lambda_end = lambda_
        if first_left is not None and first_left < 2 * self.chosen_["lambda_start"]:  # the package's warning
            log.warning("%s: features began to leave at lambda %.4g, less than twice lambda_start %.4g: it may be "
                        "too large", self.name, first_left, self.chosen_["lambda_start"])
        if table and first_left is None:
            log.warning("%s: no feature left the path (%d steps, lambda %.4g to %.4g): the ranking is by |theta_j| "
                        "alone; raise path_multiplier or max_path_steps", self.name, len(table),
                        self.chosen_["lambda_start"], lambda_end)
        with torch.no_grad():
            theta = to_numpy(torch.linalg.vector_norm(model.skip.weight, dim=0).double())
        self.chosen_.update({"lambda_end": lambda_end, "path_steps": len(table),
                             "path_epochs": int(sum(row["epochs"] for row in table))})
        self.details_ = {"path": table}
        return left, theta

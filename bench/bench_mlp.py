"""Benchmark: the neural ranker ``mlp`` on MQ2008, all 5 folds, against scikit-learn's MLPRegressor.

The reference is the same network trained the same way where scikit-learn can: three hidden
layers of 256 tanh units, Adam (learning rate 1e-3, L2 1e-4), 20 epochs, mini-batches of about
``batch_size`` x the mean query size rows, squared error to the label, no dropout and no early
stopping. ``mlp`` runs with the same settings (``loss="pointwise"``, ``dropout=0``, no
validation split), so the ratio of seconds per epoch compares two implementations of one
computation; then ``mlp`` at its defaults (listwise loss, dropout 0.3, early stopping on vali
NDCG@10) for the accuracy a user gets. Both on one thread (``threadpoolctl`` for scikit-learn's
BLAS, ``n_jobs=1`` for PyTorch). Printed per fold and as the 5-fold mean: test NDCG@10 and MAP
(LETOR 4.0 convention), epochs, ms per epoch; and the ratio of ms per epoch, ours / scikit-learn.

Usage: python bench/bench_mlp.py [path/to/MQ2008.zip] [--folds N]
Exits 0 with a message when the archive or the neural extra is absent.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from ltrfs.io import read_letor
from ltrfs.metrics import evaluate, mean_metrics

DEFAULT_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "MQ2008.zip"
HIDDEN = (256, 256, 256)
EPOCHS, BATCH_QUERIES = 20, 10


def _models(mean_query_rows: float) -> dict:
    """name -> (make, is_reference, uses_vali); make() -> an unfitted model with fit(X, y, qid[, vali])."""
    from sklearn.neural_network import MLPRegressor

    from ltrfs.neural.mlp import MLPRanker

    class SklearnMLP:
        """MLPRegressor behind the rankers' fit signature (vali unused: no early stopping)."""

        def __init__(self):
            self.model = MLPRegressor(hidden_layer_sizes=HIDDEN, activation="tanh", solver="adam",
                                      learning_rate_init=1e-3, alpha=1e-4, max_iter=EPOCHS, shuffle=True,
                                      batch_size=int(round(BATCH_QUERIES * mean_query_rows)), tol=0.0,
                                      n_iter_no_change=EPOCHS + 1, random_state=0)

        def fit(self, X, y, qid):
            import warnings

            from sklearn.exceptions import ConvergenceWarning
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # 20 epochs by design
                self.model.fit(X, y)
            self.n_iter_ = self.model.n_iter_
            return self

        def predict(self, X):
            return self.model.predict(X)

    same = dict(hidden=list(HIDDEN), epochs=EPOCHS, batch_size=BATCH_QUERIES, n_jobs=1)
    return {
        "scikit-learn MLPRegressor (reference)": (SklearnMLP, True, False),
        "mlp, pointwise, no dropout, 20 epochs": (lambda: MLPRanker(loss="pointwise", dropout=0.0, **same), False,
                                                  False),
        "mlp, defaults (listwise, early stopping)": (lambda: MLPRanker(n_jobs=1), False, True),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", default=str(DEFAULT_ZIP))
    parser.add_argument("--folds", type=int, default=5, help="folds to run (1-5)")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.exists():
        print(f"bench_mlp: {archive} not found; nothing to benchmark (give the MQ2008.zip path)")
        return 0
    from ltrfs.neural import extra_installed
    if not extra_installed("mlp"):
        print("bench_mlp: PyTorch is not installed (pip install -r envs/neural.lock); nothing to benchmark")
        return 0
    from threadpoolctl import threadpool_limits

    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=1):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        for fold in range(1, args.folds + 1):
            tr, va, te = (read_letor(Path(tmp) / "MQ2008" / f"Fold{fold}" / f"{s}.txt")
                          for s in ("train", "vali", "test"))
            for name, (make, _, uses_vali) in _models(tr.n_rows / tr.n_queries).items():
                start = time.perf_counter()
                model = make().fit(tr.X, tr.y, tr.qid, *((va.X, va.y, va.qid) if uses_vali else ()))
                seconds = time.perf_counter() - start
                mm = mean_metrics(evaluate(te.y, model.predict(te.X), te.query_ptr, "letor4"))
                row = {"ndcg10": mm["NDCG@10"], "map": mm["MAP"], "epochs": model.n_iter_, "seconds": seconds}
                results.setdefault(name, []).append(row)
                print(f"  fold {fold} {name:44s} test NDCG@10 {row['ndcg10']:.4f} MAP {row['map']:.4f} "
                      f"epochs {row['epochs']:3d} {1000 * seconds / max(row['epochs'], 1):8.1f} ms/epoch", flush=True)

    print(f"\nmean over {args.folds} fold(s), MQ2008 test, LETOR 4.0 convention, one thread")
    print(f"{'model':46s} {'NDCG@10':>8} {'MAP':>7} {'epochs':>7} {'ms/epoch':>9} {'vs reference':>13}")
    per_epoch = {name: 1000 * sum(r["seconds"] for r in rows) / max(sum(r["epochs"] for r in rows), 1)
                 for name, rows in results.items()}
    reference = next(name for name, (_, is_ref, _) in _models(1.0).items() if is_ref)
    for name, rows in results.items():
        print(f"{name:46s} {np.mean([r['ndcg10'] for r in rows]):8.4f} {np.mean([r['map'] for r in rows]):7.4f} "
              f"{np.mean([r['epochs'] for r in rows]):7.1f} {per_epoch[name]:9.1f} "
              f"{per_epoch[name] / per_epoch[reference]:12.2f}x")
    print("(vs reference: ms per epoch over scikit-learn's; below 1 is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

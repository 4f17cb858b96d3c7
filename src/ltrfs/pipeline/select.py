"""Stage select (``workflow/rules/select.smk``): fit one feature-selection method on a fold and
write its selection record (``select/{method}.json``, ``ltrfs.formats.selection_record``) and
the fitted method (``select/{method}.model``, the model of ranker ``own``)."""
from __future__ import annotations

import logging

from ltrfs import io, metrics
from ltrfs.atomic_files import write_json
from ltrfs.context import with_context
from ltrfs.ranking_data import RankingData
from ltrfs.formats import load_scores, save_selector, selection_record
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.tuning import SELECTION_TIES

__all__ = ["fit_selector", "select"]

log = logging.getLogger("ltrfs")


def fit_selector(method: dict, train: RankingData, vali: RankingData | None, *, seed: int,
                 convention: str, precomputed: dict | None = None, threads: int = 1,
                 ties: str = SELECTION_TIES):
    """Build the configured selector and fit it.

    Parameters
    ----------
    method : dict
        ``{"algorithm": ..., "params": {...}}``.
    train, vali : RankingData
        ``vali`` may be None for methods that do not tune on it.
    seed, convention, threads, ties
        The job's context: they fill the parameters the method's config leaves open
        (``ltrfs.context.with_context``; ``relevant_min`` follows the convention's label scale).
    precomputed : dict, optional
        Scorer name -> arrays (``ltrfs.formats.load_scores``) the method reads.

    Returns
    -------
    Selector
        Fitted.
    """
    algorithm = method["algorithm"]
    params = dict(method.get("params") or {})
    cls = SELECTORS.get(algorithm)
    if cls is not None:
        params = with_context(cls, params, random_state=seed, convention=convention, ties=ties,
                              relevant_min=metrics.get_convention(convention).relevant_min, n_jobs=threads)
    selector = make_selector(algorithm, **params)
    kwargs = {}
    if vali is not None:
        kwargs = dict(X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    selector.fit(train.X, train.y, train.qid, precomputed=precomputed, **kwargs)
    return selector


def select(name: str, method: dict, train_path, vali_path, score_paths: dict, out_path, *,
           seed: int, convention: str, threads: int = 1, ties: str = SELECTION_TIES,
           out_selector=None) -> dict:
    """Fit the method on a fold and write its selection record (JSON).

    Parameters
    ----------
    name : str
        The method's name in the config.
    method : dict
        Its config ``{"algorithm", "params", ...}``.
    train_path, vali_path : str or os.PathLike
        The fold's ``.npz`` splits.
    score_paths : dict
        Scorer -> per-fold score file, for the algorithms that read precomputed scores.
    out_path : str or os.PathLike
        The selection record written.
    seed : int
        The job's seed.
    convention : str
        The metric convention.
    threads : int, default 1
        The job's threads.
    ties : str, default "expected"
        How tied scores are ranked in the method's vali choices.
    out_selector : str or os.PathLike or None, default None
        Also write the fitted selector (``ltrfs.formats.save_selector``), which ranker ``own``
        uses as the method's model.

    Returns
    -------
    dict
        The selection record.
    """
    train, vali = io.load_npz(train_path), io.load_npz(vali_path)
    selector = fit_selector(method, train, vali, seed=seed, convention=convention,
                            precomputed=load_scores(score_paths), threads=threads, ties=ties)
    record = selection_record(name, method, selector)
    if out_selector is not None:
        save_selector(out_selector, name, selector)
    write_json(out_path, record)
    log.info("%s: selected in %.3f s; top features %s", name, record["seconds"], record["ranking"][:10])
    return record

"""Stage select (``workflow/rules/select.smk``): fit one feature-selection method on a fold and
write its selection record (``select/{method}.json``, ``ltrfs.formats.selection_record``) and
the fitted method (``select/{method}.model``, the model of ranker ``own``)."""
from __future__ import annotations

import logging

import numpy as np

from ltrfs import io, metrics
from ltrfs.atomic_files import write_json
from ltrfs.context import with_context
from ltrfs.ranking_data import RankingData
from ltrfs.formats import load_scores, save_selector, selection_record
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.tuning import SELECTION_TIES

__all__ = ["fit_selector", "sample_queries", "sample_share", "select", "select_on"]

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


def sample_queries(data: RankingData, share: float, seed: int) -> RankingData:
    """A seeded sample of whole queries of a split, in file order.

    Parameters
    ----------
    data : RankingData
        A split of q queries.
    share : float in (0, 1]
        The share of its queries kept (rounded, at least 2 and at most q).
    seed : int
        The job's seed; the sample is its own stream (``default_rng([seed, 7, q])``).

    Returns
    -------
    RankingData
        ``data`` itself when the share keeps every query.

    Examples
    --------
    >>> import numpy as np
    >>> from ltrfs.ranking_data import RankingData
    >>> data = RankingData(np.zeros((6, 1), np.float32), np.zeros(6, np.int32), np.array([0, 2, 3, 4, 6]),
    ...                    np.array([10, 11, 12, 13]))
    >>> sample_queries(data, 0.5, seed=0).n_queries, sample_queries(data, 1.0, seed=0) is data
    (2, True)
    """
    q = data.n_queries
    n = min(q, max(2, round(share * q)))
    if n >= q:
        return data
    keep = np.sort(np.random.default_rng([seed, 7, q]).choice(q, size=n, replace=False))
    return data.subset_queries(keep)


def sample_share(size, n_queries: int) -> float | None:
    """The share of queries a method's ``sample_queries`` keeps, or None for every query.

    Parameters
    ----------
    size : int >= 2, float in (0, 1) or None
        A number of training queries, or their share; None: no sample.
    n_queries : int
        The training split's queries.

    Examples
    --------
    >>> round(sample_share(2000, 18919), 4), sample_share(0.25, 100), sample_share(2000, 1266), sample_share(None, 10)
    (0.1057, 0.25, None, None)
    """
    if size is None:
        return None
    share = size if isinstance(size, float) else int(size) / n_queries
    return share if share < 1 else None


def select(name: str, method: dict, train_path, vali_path, score_paths: dict, out_path, *,
           seed: int, convention: str, threads: int = 1, ties: str = SELECTION_TIES,
           out_selector=None) -> dict:
    """Fit the method on a fold's ``.npz`` splits and write its selection record (JSON):
    ``select_on`` of the loaded splits.

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
    return select_on(name, method, io.load_npz(train_path), io.load_npz(vali_path), score_paths, out_path, seed=seed,
                     convention=convention, threads=threads, ties=ties, out_selector=out_selector)


def select_on(name: str, method: dict, train: RankingData, vali: RankingData, score_paths: dict, out_path, *,
              seed: int, convention: str, threads: int = 1, ties: str = SELECTION_TIES,
              out_selector=None) -> dict:
    """``select`` on splits already loaded (a batched select job loads its fold once).

    Parameters
    ----------
    name, method, score_paths, out_path, seed, convention, threads, ties, out_selector
        As ``select``'s.
    train, vali : RankingData
        The fold's splits.

    Returns
    -------
    dict
        The selection record.
    """
    share = sample_share(method.get("sample_queries"), train.n_queries)
    sample = None
    if share is not None:  # the same share of the training and the vali queries
        parts = {split: (sample_queries(data, share, seed), data) for split, data in (("train", train), ("vali", vali))}
        sample = {"share": share, **{split: {"queries": [part.n_queries, data.n_queries],
                                             "rows": [part.n_rows, data.n_rows]} for split, (part, data) in parts.items()}}
        train, vali = parts["train"][0], parts["vali"][0]
        log.info("%s: fitted on %s training and %s vali queries (sample_queries %s, share %.4f); the scorers' "
                 "full-fold tables are not read", name, "{:,} of {:,}".format(*sample["train"]["queries"]),
                 "{:,} of {:,}".format(*sample["vali"]["queries"]), method["sample_queries"], share)
    selector = fit_selector(method, train, vali, seed=seed, convention=convention,
                            precomputed=load_scores(score_paths) if sample is None else None, threads=threads,
                            ties=ties)
    record = selection_record(name, method, selector)
    if sample is not None:
        record["sample"] = sample
    if out_selector is not None:
        save_selector(out_selector, name, selector)
    write_json(out_path, record)
    log.info("%s: selected in %.3f s; top features %s", name, record["seconds"], record["ranking"][:10])
    return record

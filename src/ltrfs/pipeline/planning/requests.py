"""Planning of what the jobs ask of a cluster (``resources:`` of the rule files): each job's
sizes, its request from the calibrated cost lines (``ltrfs.pipeline.resources``), the sum over a
run's jobs that a dry run prints before anything is submitted, and the order Snakemake starts
them in (``priority:``, the longest predicted chain of work first)."""
from __future__ import annotations

import functools
import math
from collections import defaultdict
from types import SimpleNamespace

import numpy as np

from ltrfs.datasets import synthetic
from ltrfs.pipeline.resources import TIME_MARGIN, npz_shape, request, scaled
from ltrfs.selection import SELECTORS

__all__ = ["RequestsPlanning", "dry_run", "job_key"]


class RequestsPlanning:
    """Sizes and requests of the download, prepare, score, select and train jobs of a run.

    Parameters
    ----------
    run : ltrfs.pipeline.run.Run
    prepare, score, select, train : the stages' planners
        For the fold text size, the chunks of a scorer, the batched select jobs and the k grid
        and batches of train jobs.
    """

    def __init__(self, run, prepare, score, select, train):
        self.run, self.prepare, self.score, self.select, self.train = run, prepare, score, select, train

    # ------------------------------------------------------------------ the data's shape

    def split_shape(self, dataset: str, fold, split: str) -> tuple[float, int, float] | None:
        """(rows, features, queries) of a split of a fold: read from its prepared file, else
        estimated from the registry (``documents``, ``queries``, ``n_features``, or the
        generator's), else None.

        Parameters
        ----------
        dataset : str
        fold : int or str
        split : {"train", "vali", "test"}

        Returns
        -------
        tuple or None
        """
        shape = npz_shape(f"{self.run.fold_folder(dataset, fold)}/data/{split}.npz")
        if shape is not None:
            return shape
        entry = self.run.registry[dataset]
        total = dataset_size(entry)
        if total is None:
            return None
        share = split_share(entry, split)
        return total[0] * share, total[2], total[1] * share

    def _cells(self, dataset, fold, splits, sample=None) -> tuple[float, float] | None:
        """(rows, features) summed over ``splits`` (the first is train), or the rows of a
        method's ``sample_queries`` of the training queries and the same share of the others."""
        shapes = [self.split_shape(dataset, fold, s) for s in splits]
        if any(s is None for s in shapes):
            return None
        share = 1.0 if sample is None else sample if sample < 1 else min(1.0, sample / max(shapes[0][2], 1))
        return sum(s[0] for s in shapes) * share, shapes[0][1]

    # ------------------------------------------------------------------ sizes per rule

    def sizes(self, rule: str, w) -> tuple[str, float, float, int | None] | None:
        """(kind, held, work, features) of a job (``ltrfs.pipeline.resources.request``); None
        when its data's size cannot be known yet.

        Parameters
        ----------
        rule : str
            download, prepare, score, score_chunk, select or train.
        w : wildcards
            The job's (dataset, fold, and scorer, method or ranker as the rule has them; a
            batched train job's ``rankers``). A batched select job has no sizes of its own
            (``estimate`` sums its methods').

        Returns
        -------
        tuple or None
        """
        if rule in ("download", "prepare"):
            text = (self.prepare.generated_text_mb(w) if rule == "download" else
                    self.prepare.fold_text_mb(w) or self.estimated_text_mb(w.dataset))
            kind = "generate" if rule == "download" else "fold"
            return (kind, text, text, self.run.n_features_of(w.dataset)) if text else None
        if rule in ("score", "score_chunk"):
            cells = self._cells(w.dataset, w.fold, ("train", "vali"))
            if cells is None:
                return None
            held = cells[0] * cells[1]
            return w.scorer, held, held / (int(w.n_chunks) if rule == "score_chunk" else 1), cells[1]
        if rule == "select":
            method = self.run.config["methods"][w.method]
            params = method.get("params") or {}
            whole = self._cells(w.dataset, w.fold, ("train", "vali"))
            if whole is None:
                return None
            rows, d = self._cells(w.dataset, w.fold, ("train", "vali"), sample=method.get("sample_queries"))
            if params.get("sample_size"):  # Lei & Han's selectors fit on a sample of the training rows only
                rows = min(self._cells(w.dataset, w.fold, ("train",))[0], float(params["sample_size"]))
            columns = SELECTORS[self.run.algorithm(w.method)].fit_columns(int(d), params)
            return w.method, whole[0] * whole[1], rows * columns, whole[1]
        if rule == "train":
            rankers = list(w.rankers) if hasattr(w, "rankers") else [w.ranker]
            held = self._cells(w.dataset, w.fold, ("train", "vali", "test"))
            rows = self._cells(w.dataset, w.fold, ("train", "vali"))
            if held is None:
                return None
            d = held[1]
            ks = sum(sum(min(k, d) for k in (self.train.ks(SimpleNamespace(
                dataset=w.dataset, fold=w.fold, method=w.method, ranker=r)) or [d])) for r in rankers)
            # a method that ignores k (waf) trains each ranker once on every feature: a kind of
            # its own (one wide fit holds more memory and takes less time than five narrower ones)
            whole = "" if SELECTORS[self.run.algorithm(w.method)].uses_k else ":all"
            return "+".join(rankers) + whole, held[0] * d, rows[0] * ks, d
        raise ValueError(f"no cost line for rule {rule!r}")

    def estimate(self, rule: str, w, attempt: int = 1) -> tuple[int, int, float] | None:
        """What a job asks (``ltrfs.pipeline.resources.request``: MB, minutes and predicted
        CPU-seconds), None when its data's size cannot be known yet. A batched select job (its
        ``methods``) asks the most memory of its methods and the time of their CPU-seconds summed.

        Parameters
        ----------
        rule : str
            As ``sizes``.
        w : wildcards
            As ``sizes``; a batched select job's ``methods``.
        attempt : int, default 1
            Snakemake's attempt number.

        Returns
        -------
        tuple or None
        """
        if not hasattr(w, "methods"):
            sizes = self.sizes(rule, w)
            return None if sizes is None else request(rule, *sizes, attempt=attempt)
        parts = [self.estimate(rule, SimpleNamespace(dataset=w.dataset, fold=w.fold, method=m)) for m in w.methods]
        if any(part is None for part in parts):
            return None
        seconds = sum(part[2] for part in parts)
        return (max(part[0] for part in parts) * attempt, max(1, math.ceil(TIME_MARGIN * seconds / 60)) * attempt,
                seconds)

    def estimated_text_mb(self, dataset: str) -> float:
        """MB of LETOR text of a dataset's rows, estimated from the registry (0 when it cannot be)."""
        total = dataset_size(self.run.registry[dataset])
        return 0.0 if total is None else synthetic.letor_text_mb(total[0], total[2])

    # ------------------------------------------------------------------ the rules' resources

    def resources(self, rule: str, batch=None) -> dict:
        """The ``resources:`` of a rule: ``mem_mb`` and ``runtime`` callables (``**`` them in).

        Parameters
        ----------
        rule : str
            download, prepare, score, score_chunk, select or train.
        batch : tuple, optional
            For a batched rule (its wildcards hold the fold only): what it fits, (dataset,
            methods) of a batched select rule, (dataset, method, rankers) of a batched train rule.
        """
        # a job that cannot be sized (a fetched archive; a dataset without documents and queries
        # in its registry entry, before its files exist): generous amounts by its input MiB
        fallback = (scaled(1000, 10), scaled(240, 1)) if rule in ("download", "prepare") else (scaled(500, 10), scaled(30, 1))

        def asks(part: int, fall):
            def resource(wildcards, input, attempt):
                asked = self.estimate(rule, _batch_wildcards(rule, batch, wildcards), attempt)
                return fall(wildcards, input, attempt) if asked is None else asked[part]
            return resource

        return {"mem_mb": asks(0, fallback[0]), "runtime": asks(1, fallback[1])}

    # ------------------------------------------------------------------ the order of the jobs

    def priority(self, rule: str, batch=None):
        """A rule's ``priority:`` callable: a job's predicted CPU-seconds plus those of the longest
        chain of planned jobs that wait on it (``chains``), in whole seconds. Snakemake starts the ready jobs of
        highest priority first, so the heads of the longest chains start first (the dear
        selections of a wide dataset do not end up running alone at the end of a run, one core
        idle) and a cluster gets them first. A job outside the planned experiments has 0.

        Parameters
        ----------
        rule : str
            download, prepare, score, score_chunk, select or train.
        batch : tuple, optional
            For a batched rule, as in ``resources``.
        """
        def value(wildcards):
            w = _batch_wildcards(rule, batch, wildcards)
            return round(self.chains.get(job_key(rule, w), 0.0))  # whole seconds: readable in the job's log

        return value

    @functools.cached_property
    def chains(self) -> dict:
        """Predicted CPU-seconds of the longest chain of planned jobs starting at each job
        (``job_key``): its own (``estimate``'s CPU-seconds; for a job that cannot be
        sized yet, the median of its rule's sized jobs, else 1 s; 0 for the job that merges a
        chunked scorer) plus the longest chain among the jobs that wait on it: a train job's own; a
        select's own plus its train jobs'; a scorer's own plus the selects that read it; a
        scorer's chunk's own plus its scorer's; a fold's prepare plus its scorers and selects; a
        download plus its folds. Computed once, when Snakemake first asks (it asks while it builds
        the graph of jobs, sizing data not made yet from the registry)."""
        own, by_rule, sized, unsized = {}, defaultdict(list), defaultdict(list), []
        for rule, w in self.planned_jobs():
            key, asked = job_key(rule, w), self.estimate(rule, w)
            if asked is None:
                unsized.append((rule, key))
            else:
                own[key] = asked[2]
                sized[rule].append(own[key])
            by_rule[rule].append(w)
        for rule, key in unsized:  # the median of its rule's sized jobs, else 1 s: chains still count jobs
            own[key] = float(np.median(sized[rule])) if sized[rule] else 1.0
        for w in by_rule["score_chunk"]:  # a chunked scorer's job only merges its chunks' work
            own[job_key("score", SimpleNamespace(dataset=w.dataset, fold=w.fold, scorer=w.scorer))] = 0.0
        chains, waiting = {}, defaultdict(float)  # waiting: the longest chain that waits on a group of jobs

        def settle(rule, w, feeds, waits_on=()):
            """A job's chain: its own plus the longest chain waiting on its group (``waits_on``);
            then it waits on the groups of the jobs it needs (``feeds``)."""
            key = job_key(rule, w)
            chains[key] = own[key] + max((waiting[g] for g in waits_on), default=0.0)
            for group in feeds:
                waiting[group] = max(waiting[group], chains[key])

        for w in by_rule["train"]:
            settle("train", w, [("select", w.dataset, str(w.fold), w.method)])
        for w in by_rule["select"]:
            fold, methods = (w.dataset, str(w.fold)), getattr(w, "methods", None) or (w.method,)
            needs = dict.fromkeys(("score", *fold, scorer) for m in methods
                                  for scorer in SELECTORS[self.run.algorithm(m)].requires)
            settle("select", w, [("prepare", *fold), *needs], [("select", *fold, m) for m in methods])
        for w in by_rule["score"]:
            fold = (w.dataset, str(w.fold))
            settle("score", w, [("prepare", *fold), ("chunks", *fold, w.scorer)], [("score", *fold, w.scorer)])
        for w in by_rule["score_chunk"]:
            fold = (w.dataset, str(w.fold))
            settle("score_chunk", w, [("prepare", *fold)], [("chunks", *fold, w.scorer)])
        for w in by_rule["prepare"]:
            settle("prepare", w, [("download", w.dataset)], [("prepare", w.dataset, str(w.fold))])
        for w in by_rule["download"]:
            settle("download", w, [], [("download", w.dataset)])
        return chains

    # ------------------------------------------------------------------ the run's sum

    def planned_jobs(self):
        """(rule, wildcards) of every download, prepare, score, select and train job of the
        experiments being run (each once)."""
        seen = set()
        batches = self.train.batches() if self.run.config["train_batch"] else {}
        for name, e, dataset in self.run.run_experiments():
            jobs = [("download", dict(dataset=dataset))]
            for fold in self.run.folds(name, dataset):
                jobs.append(("prepare", dict(dataset=dataset, fold=fold)))
                for method in e["methods"]:
                    for scorer in SELECTORS[self.run.algorithm(method)].requires:
                        n = self.score.n_chunks(scorer)
                        jobs += [("score", dict(dataset=dataset, fold=fold, scorer=scorer))]
                        if n > 1:
                            jobs += [("score_chunk", dict(dataset=dataset, fold=fold, scorer=scorer, chunk=i,
                                                          n_chunks=n)) for i in range(1, n + 1)]
                    jobs.append(("select", vars(self.select_job(dataset, fold, method))))
                    batched = batches.get((dataset, method), (None, []))[1]
                    if batched:
                        jobs.append(("train", dict(dataset=dataset, fold=fold, method=method, rankers=tuple(batched))))
                    jobs += [("train", dict(dataset=dataset, fold=fold, method=method, ranker=r))
                             for r in e["rankers"] if r not in batched and self.train.ranks_itself(method, r)]
            for rule, w in jobs:
                key = (rule, tuple(sorted(w.items())))
                if key not in seen:
                    seen.add(key)
                    yield rule, SimpleNamespace(**w)

    def select_job(self, dataset: str, fold, method: str) -> SimpleNamespace:
        """The select job that fits a method on a fold: its fold's batched job (wildcards with
        the batch's ``methods``) when the method is in one (config ``select_batch``), else its own.

        Parameters
        ----------
        dataset : str
        fold : int or str
        method : str

        Returns
        -------
        types.SimpleNamespace
        """
        batch = self.select.batches().get(dataset, (None, ()))[1] if self.run.config["select_batch"] else ()
        if method in batch:
            return SimpleNamespace(dataset=dataset, fold=fold, methods=tuple(batch))
        return SimpleNamespace(dataset=dataset, fold=fold, method=method)

    def summary(self) -> str:
        """What the run's jobs would ask, for a dry run: their number, predicted CPU-hours,
        requested core-hours and the largest memory and run-time requests (and how many jobs
        could not be sized yet)."""
        n = cpu = core_min = 0.0
        unsized, largest = [], {"mem_mb": (0, ""), "runtime": (0, "")}
        for rule, w in self.planned_jobs():
            n += 1
            asked = self.estimate(rule, w)
            if asked is None:
                unsized.append(rule)
                continue
            mem, minutes, seconds = asked
            cpu += seconds
            core_min += minutes
            name = f"{rule} {'/'.join(str(v) if not isinstance(v, tuple) else '+'.join(v) for v in vars(w).values())}"
            largest["mem_mb"] = max(largest["mem_mb"], (mem, name))
            largest["runtime"] = max(largest["runtime"], (minutes, name))
        mem, mem_job = largest["mem_mb"]
        minutes, time_job = largest["runtime"]
        lines = [f"ltrfs: requests of {int(n)} download, prepare, score, select and train jobs: "
                 f"{cpu / 3600:,.1f} CPU-hours predicted, {core_min / 60:,.1f} core-hours requested; "
                 f"largest memory {mem / 1000:,.1f} GB ({mem_job}), largest run time "
                 f"{f'{minutes / 60:,.1f} h' if minutes >= 120 else f'{minutes} min'} ({time_job})"]
        if unsized:
            lines.append(f"ltrfs: {len(unsized)} jobs ({', '.join(sorted(set(unsized)))}) have no size before their "
                         "data exists (a fetched archive's download; a registry entry without documents and "
                         "queries): they ask their rule's fallback, not counted above")
        return "\n".join(lines) + "\n"


def _batch_wildcards(rule: str, batch, wildcards):
    """A batched rule's job as the planner names it: its fold wildcard and what the rule fits
    (``batch``: (dataset, methods) of a select rule, (dataset, method, rankers) of a train rule);
    other rules' wildcards as they are."""
    if batch is None:
        return wildcards
    if rule == "select":
        return SimpleNamespace(dataset=batch[0], methods=batch[1], fold=wildcards.fold)
    return SimpleNamespace(dataset=batch[0], method=batch[1], rankers=batch[2], fold=wildcards.fold)


def job_key(rule: str, w) -> tuple:
    """A job's name in ``RequestsPlanning.chains``: its rule and wildcards as text (a batched
    job's methods or rankers joined by ``+``), the same for Snakemake's wildcards and the planner's.

    Parameters
    ----------
    rule : str
    w : snakemake.iocontainers.Wildcards or types.SimpleNamespace
        The job's wildcards.

    Returns
    -------
    tuple
        ``(rule, ((name, text), ...))``, sorted by name.
    """
    items = w.items() if hasattr(w, "items") else vars(w).items()  # Snakemake's wildcards, or a namespace
    return rule, tuple(sorted((name, "+".join(v) if isinstance(v, tuple) else str(v)) for name, v in items))


def dataset_size(entry: dict) -> tuple[float, float, int] | None:
    """(documents, queries, features) of a registry entry: its ``documents`` and ``queries``, or
    what its generator makes on average; None when unknown."""
    d = entry.get("n_features")
    if entry["layout"] == "synthetic":
        p = {**synthetic.generator_parameters(), **(entry.get("generator") or {})}
        return p["n_queries"] * synthetic.mean_docs(**p), float(p["n_queries"]), d
    if entry.get("documents") and entry.get("queries") and d:
        return float(entry["documents"]), float(entry["queries"]), d
    return None


def split_share(entry: dict, split: str) -> float:
    """The share of a dataset's rows in one split of a fold, for an estimate: with n query
    subsets (LETOR folds, the generated rotation) train holds n - 2 of them and vali and test one
    each; a fixed split is taken as 60/20/20.

    Parameters
    ----------
    entry : dict
        The registry entry.
    split : {"train", "vali", "test"}

    Returns
    -------
    float
    """
    n = entry.get("n_folds") or 5
    return (n - 2) / n if split == "train" else 1 / n


def dry_run(argv) -> bool:
    """Whether a Snakemake command line asks for a dry run (``-n``, ``--dry-run``, ``--dryrun``,
    or ``-n`` among other one-letter flags such as ``-np``)."""
    return any(a in ("--dry-run", "--dryrun") or (a.startswith("-") and not a.startswith("--") and "n" in a[1:]
                                                  and a[1:].isalpha()) for a in argv)

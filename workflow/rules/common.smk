import json
import math
import os
import re
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace as Namespace

# the jobs import this checkout's package, also inside conda environments (--use-conda)
os.environ.update(
    PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "src"), os.environ.get("PYTHONPATH")]))
)

from ltrfs import artefacts, runlock
from ltrfs.config import (ConfigError, check, convention_of, folds_of, k_grid, train_batches, train_metrics,
                          validation_metric_of)
from ltrfs.datasets.download import available
from ltrfs.datasets.registry import feature_names, load_registry
from ltrfs.experiments import METRIC_COLUMNS, OWN, column_name, has_own_predictions
from ltrfs.scoring import uses_threads
from ltrfs.selection import SELECTORS
from ltrfs.util import stable_seed

if workflow.is_main_process:  # a lock left by a killed run of this host (ltrfs.runlock)
    _released = runlock.release_stale()
    if _released:
        print(_released, file=sys.stderr)

try:
    REGISTRY = load_registry(config.get("datasets_file", "config/datasets.yaml"))
    check(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml", REGISTRY)
except (ConfigError, ValueError, OSError) as exc:
    sys.exit(f"ltrfs: {exc}")

RESOURCES = config["resources_dir"]
RESULTS = config["results_dir"]


def present(dataset):
    """False when ``datasets_present_only`` is set and the dataset cannot be had without the
    network (``ltrfs.datasets.download.available``); the reason is printed once."""
    if not config["datasets_present_only"]:
        return True
    if dataset not in PRESENCE:
        ok, message = available(dataset, REGISTRY[dataset], Path(RESOURCES) / dataset, mirror=config["mirror"],
                                seed=config["seed"])
        PRESENCE[dataset] = ok
        if not ok:
            print(f"ltrfs: skipping dataset {dataset} (datasets_present_only): {message}", file=sys.stderr)
    return PRESENCE[dataset]


PRESENCE = {}


def with_stand_ins(datasets):
    """The datasets with each one that cannot be had (``datasets_present_only``) replaced by
    its registry ``stand_in`` when that one can; the swap is printed."""
    out = []
    for dataset in datasets:
        stand_in = REGISTRY[dataset]["stand_in"]
        if stand_in and stand_in not in datasets and not present(dataset) and present(stand_in):
            print(f"ltrfs: running {stand_in} in place of {dataset} (its registry stand_in)", file=sys.stderr)
            dataset = stand_in
        out.append(dataset)
    return out


for _experiment in config["experiments"].values():
    _experiment["datasets"] = with_stand_ins(_experiment["datasets"])
TRAIN_METRICS = train_metrics(config)  # (dataset, method, ranker) -> vali metric of its train job
FOLD = f"{RESULTS}/{{dataset}}/fold{{fold}}"


wildcard_constraints:
    dataset=r"[A-Za-z0-9][A-Za-z0-9_.+-]*",
    fold=r"\d+",
    split=r"train|vali|test",
    method=r"[A-Za-z0-9][A-Za-z0-9_.+-]*",
    ranker=r"[A-Za-z0-9][A-Za-z0-9_.+-]*",
    scorer=r"[a-z_]+",
    chunk=r"\d+",
    n_chunks=r"\d+",
    experiment="|".join(re.escape(name) for name in config["experiments"]),  # the configured ones only
    metric=r"[A-Za-z0-9]+",
    as_convention=r"letor3|letor4|mslr|standard",


def convention(wildcards):
    return convention_of(config, REGISTRY, wildcards.dataset)


def job_seed(*names):
    """A params function: the config seed combined with the named wildcards."""
    return lambda w: stable_seed(config["seed"], *(getattr(w, name) for name in names))


def baselines(experiment):
    """The experiment's all-features methods (algorithm waf), for p-values and figures."""
    return [m for m in config["experiments"][experiment]["methods"] if config["methods"][m]["algorithm"] == "waf"]


def own_rankers(experiment):
    """The experiment's rankers that are the method's own model (algorithm own)."""
    return [r for r in config["experiments"][experiment]["rankers"] if config["rankers"][r]["algorithm"] == OWN]


def table_metric(experiment):
    """The run-file column of the experiment's vali metric (k chosen on vali, p-values)."""
    return column_name(validation_metric_of(config, experiment))


def train_ks(wildcards):
    """The k grid of a train job; [] for methods that ignore k, so that editing the
    experiments' k lists does not rerun them."""
    if not SELECTORS[config["methods"][wildcards.method]["algorithm"]].uses_k:
        return []
    algorithm = SELECTORS[config["methods"][wildcards.method]["algorithm"]]
    if config["rankers"][wildcards.ranker]["algorithm"] == OWN and not hasattr(algorithm, "predict_scores_k"):
        return []  # the method's own model on all features; only FSMRank's can be cut to its top k
    return k_grid(config, wildcards.dataset, wildcards.method, wildcards.ranker)


def fetch_entry(wildcards):
    """The registry fields that decide a dataset's files (not its description), so that
    editing the description does not fetch the data again."""
    entry = REGISTRY[wildcards.dataset]
    return {key: value for key, value in entry.items() if key not in ("description", "homepage")}


def n_chunks(scorer):
    """How many jobs compute one fold's scorer (config ``chunks``; 1 = one job)."""
    return int((config.get("chunks") or {}).get(scorer, 1))


# ----------------------------------------------------------------------------- resources
# Every job asks for memory (MB) and run time (minutes) that grow with the data it reads, so a
# cluster gets honest requests on MQ2008 and on MSLR alike; a retried job (profiles/slurm
# retries once) asks for `attempt` times as much. On the MQ2008 run every job stayed below its
# request (benchmarks/ max_rss; README, section 'Cluster'); the per-MB factors allow for
# float64 copies of the features and are not yet measured on MSLR-sized data. Profiles can
# override any rule with set-resources.


def scaled(base, per_mb, size=None):
    """A resources callable: ``(base + per_mb * size) * attempt``, rounded up; ``size`` is a
    function of the wildcards giving MB, by default the job's input size (``input_mb``)."""
    def resource(wildcards, input, attempt):
        mb = input_mb(input) if size is None else size(wildcards)
        return int(math.ceil((base + per_mb * mb) * attempt))

    return resource


def input_mb(input):
    """MiB of the job's input files that exist (0 for those still to be made: Snakemake resets
    resources before it schedules a job, when all its input exists). Read with os.stat rather
    than ``input.size_mb``, a coroutine that cannot run inside Snakemake's own event loop while
    it builds the DAG or a report (it printed "coroutine ... was never awaited" warnings)."""
    return sum(os.path.getsize(f) for f in input if os.path.isfile(f)) / 2**20


def fold_text_mb(wildcards):
    """MB of text of one fold of the dataset, from its download manifest (the files' total
    divided by the number of Fold folders, or all of it for one split); 0 before the download."""
    path = Path(RESOURCES) / wildcards.dataset / "manifest.json"
    if not path.exists():
        return 0.0
    files = json.loads(path.read_text()).get("files", {})
    folds = {part for name in files for part in Path(name).parts if re.fullmatch(r"Fold\d+", part)}
    return sum(f.get("size", 0) for f in files.values()) / 1e6 / max(1, len(folds))


def generated_text_mb(wildcards):
    """MB of text a synthetic entry's download job generates (its memory grows with it); 0 for
    data that is fetched."""
    entry = REGISTRY[wildcards.dataset]
    if entry["layout"] != "synthetic":
        return 0.0
    from ltrfs.datasets import synthetic

    return synthetic.text_mb(**(entry.get("generator") or {}))


SCORE_THREADS = 2  # the threaded scorers' default; more with --set-threads score=N


def score_threads(wildcards):
    """Threads of a score job: 1 for a scorer that runs on one, or that only merges its chunks."""
    merges = getattr(wildcards, "chunk", None) is None and n_chunks(wildcards.scorer) > 1
    return SCORE_THREADS if uses_threads(wildcards.scorer) and not merges else 1


def method_config(wildcards):
    return config["methods"][wildcards.method]


def ranker_config(wildcards):
    return config["rankers"][wildcards.ranker]


def own_selector(wildcards):
    """Ranker ``own`` reads the method's fitted model, pickled by its select job."""
    if config["rankers"][wildcards.ranker]["algorithm"] != OWN:
        return {}
    return {"selector": f"{FOLD.format(**wildcards)}/select/{wildcards.method}.pkl"}


def train_threads(wildcards):
    """The ranker's own ``threads`` (default 1); ranker ``own`` takes the method's."""
    if config["rankers"][wildcards.ranker]["algorithm"] == OWN:
        return config["methods"][wildcards.method].get("threads", 1)
    return config["rankers"][wildcards.ranker].get("threads", 1)


def batch_rule_name(dataset, method):
    """``train_{dataset}_{method}`` with every character outside [A-Za-z0-9_] made ``_``."""
    return re.sub(r"\W", "_", f"train_{dataset}_{method}")


def train_metric(wildcards):
    """The vali metric of a train job (``TRAIN_METRICS``; the top-level one for a combination
    of no experiment)."""
    return TRAIN_METRICS.get((wildcards.dataset, wildcards.method, wildcards.ranker), config["validation_metric"])


train_seed = job_seed("dataset", "fold", "method", "ranker")


def batch_jobs(dataset, method, rankers, fold):
    """One batched train job's per-ranker settings, from the functions rule train's params use."""
    jobs = []
    for ranker in rankers:
        w = Namespace(dataset=dataset, fold=fold, method=method, ranker=ranker)
        jobs.append({"ranker": ranker, "config": ranker_config(w), "k": train_ks(w), "metric": train_metric(w),
                     "seed": train_seed(w), "threads": train_threads(w), "own": ranker_config(w)["algorithm"] == OWN})
    return jobs


def scorer_inputs(wildcards):
    """The per-fold score files the method's algorithm reads."""
    algorithm = config["methods"][wildcards.method]["algorithm"]
    fold = FOLD.format(**wildcards)
    return {name: f"{fold}/scores/{name}.npz" for name in SELECTORS[algorithm].requires}


def ranks_itself(method, ranker):
    """False for the pair (method, ranker ``own``) when the method has no model of its own."""
    if config["rankers"][ranker]["algorithm"] != OWN:
        return True
    return has_own_predictions(config["methods"][method]["algorithm"])


def runs_folder(as_convention=None):
    """A fold's folder of run files: ``runs`` (the dataset's convention) or ``runs_{convention}``."""
    return "runs" if as_convention is None else f"runs_{as_convention}"


def run_records(experiment, dataset, as_convention=None):
    """Every run file of an experiment on a dataset, with its coordinates (for the tables); in
    ``as_convention`` the re-evaluated ones (``also_conventions``)."""
    e = config["experiments"][experiment]
    return [
        {"path": f"{RESULTS}/{dataset}/fold{fold}/{runs_folder(as_convention)}/{method}/{ranker}.tsv",
         "fold": fold, "method": method, "ranker": ranker, "k": e["k"],
         "full_model": config["rankers"][ranker]["algorithm"] == OWN}
        for fold in folds_of(config, REGISTRY, experiment, dataset)
        for method in e["methods"]
        for ranker in e["rankers"]
        if ranks_itself(method, ranker)
    ]


def reference_records(experiment, dataset, as_convention=None):
    """The reference file of every fold (file order and random order of a constant score)."""
    name = "reference" if as_convention is None else f"reference_{as_convention}"
    return [{"path": f"{RESULTS}/{dataset}/fold{fold}/{name}.tsv", "fold": fold}
            for fold in folds_of(config, REGISTRY, experiment, dataset)]


def also_conventions(experiment, dataset):
    """The experiment's ``also_conventions`` other than the dataset's own."""
    own = convention_of(config, REGISTRY, dataset)
    return [c for c in config["experiments"][experiment].get("also_conventions", []) if c != own]


METRIC_BY_FILE_NAME = {c.replace("@", ""): c for c in METRIC_COLUMNS}


def metric_file_name(metric):
    return column_name(metric).replace("@", "")




def all_targets():
    targets = []
    for name in config["run"]:
        e = config["experiments"][name]
        for dataset in filter(present, e["datasets"]):
            tables = [name, *(f"{name}.{c}" for c in also_conventions(name, dataset))]
            tables += [f"{name}_published"] if e.get("published") else []
            targets += [f"{RESULTS}/{dataset}/tables/{t}.{ext}" for t in tables for ext in ("md", "html")]
            targets += [f"{RESULTS}/figures/{name}/{dataset}_{metric_file_name(m)}.png" for m in e["figure_metrics"]]
            targets += feature_report_targets(name, dataset)
    targets += [f"{LEADERBOARD}/leaderboard.md", f"{LEADERBOARD}/leaderboard.html"]
    return targets


def methods_with(experiment, test):
    """The experiment's methods whose configuration passes ``test(method config, class)``."""
    return [m for m in config["experiments"][experiment]["methods"]
            if test(config["methods"][m], SELECTORS[config["methods"][m]["algorithm"]])]


def experiment_methods(experiment):
    """The experiment's methods, in order, with their configs."""
    return {m: config["methods"][m] for m in config["experiments"][experiment]["methods"]}


def feature_report_targets(experiment, dataset):
    """The per-feature figures the experiment's methods make possible (decided by the registry
    ``ltrfs.artefacts``; drawn by rule ``artefact``) and the top-feature table."""
    targets = []
    if methods_with(experiment, lambda m, cls: cls.uses_k):
        targets += [f"{RESULTS}/{dataset}/tables/top_features/{experiment}.{ext}" for ext in ("md", "html")]
    wanted = config["experiments"][experiment].get("artefacts")  # None: every one the methods allow
    targets += [f"{RESULTS}/figures/{experiment}/features/{dataset}_{stem}.png"
                for stem in artefacts.stems(experiment_methods(experiment), SELECTORS)
                if wanted is None or artefacts.parse(stem)[0].name in wanted]
    return targets


def artefact_inputs(wildcards):
    """Role -> file(s) the artefact reads (``ltrfs.artefacts``), for ``unpack``."""
    return artefacts.input_paths(wildcards.artefact, results=RESULTS, dataset=wildcards.dataset,
                                 experiment=wildcards.experiment,
                                 folds=folds_of(config, REGISTRY, wildcards.experiment, wildcards.dataset))


def artefact_context(wildcards):
    """The plain values an artefact's drawing function needs besides its files."""
    folds = folds_of(config, REGISTRY, wildcards.experiment, wildcards.dataset)
    return {"dataset": wildcards.dataset, "experiment": wildcards.experiment, "folds": list(folds),
            "names": names_of(wildcards.dataset),
            "title": artefacts.title(wildcards.artefact, dataset=wildcards.dataset, folds=folds)}


def experiment_title(experiment, dataset):
    """The experiment's title, followed by the dataset unless the title names it already."""
    title = config["experiments"][experiment].get("title", experiment)
    return title if dataset in title else f"{title}: {dataset}"


def fold_files(experiment, dataset, pattern):
    """``pattern`` (relative to a fold folder) in every fold of the experiment on the dataset."""
    return [f"{RESULTS}/{dataset}/fold{fold}/{pattern}" for fold in folds_of(config, REGISTRY, experiment, dataset)]


def first_fold(experiment, dataset):
    return folds_of(config, REGISTRY, experiment, dataset)[0]


def names_of(dataset):
    """The dataset's feature names from the registry (None when it has none)."""
    return feature_names(REGISTRY[dataset], Path(config["datasets_file"]).parent)


def score_inputs(wildcards):
    """A fold's splits, plus the chunk files when the scorer is split across jobs."""
    fold = FOLD.format(**wildcards)
    inputs = {"train": f"{fold}/data/train.npz", "vali": f"{fold}/data/vali.npz"}
    n = n_chunks(wildcards.scorer)
    if n > 1:
        inputs["chunks"] = [f"{fold}/scores/{wildcards.scorer}.chunk{i}of{n}.npz" for i in range(1, n + 1)]
    return inputs


LEADERBOARD = f"{RESULTS}/leaderboard"


@cache  # the config is fixed once the workflow is parsed
def leaderboard_records():
    """What the leaderboard reads: the tables of the experiments being run (with their table
    metric), every fold's selection of their competing methods (not WAF) and the benchmark files
    of those select jobs and of the scorer jobs they read."""
    tables, selections, costs, seen = [], [], [], set()
    for name in config["run"]:
        e = config["experiments"][name]
        for dataset in filter(present, e["datasets"]):
            tables.append({"experiment": name, "dataset": dataset, "metric": table_metric(name),
                           "path": f"{RESULTS}/{dataset}/tables/{name}.csv"})
            for method in e["methods"]:
                algorithm = config["methods"][method]["algorithm"]
                if algorithm == "waf" or (dataset, method) in seen:
                    continue
                seen.add((dataset, method))
                for fold in folds_of(config, REGISTRY, name, dataset):
                    bench = f"benchmarks/score/{dataset}/fold{fold}"
                    paths = [f"benchmarks/select/{dataset}/fold{fold}/{method}.tsv"]
                    for scorer in SELECTORS[algorithm].requires:
                        n = n_chunks(scorer)
                        paths.append(f"{bench}/{scorer}.tsv")
                        paths += [f"{bench}/{scorer}.chunk{i}of{n}.tsv" for i in range(1, n + 1)] if n > 1 else []
                    selections.append({"dataset": dataset, "method": method, "fold": fold,
                                       "path": f"{RESULTS}/{dataset}/fold{fold}/select/{method}.json"})
                    costs.append({"dataset": dataset, "method": method, "fold": fold, "paths": paths})
    return {"tables": tables, "selections": selections, "costs": costs}


def planted_datasets():
    """The run's generated datasets (registry layout ``synthetic``): their truth.json names the
    planted features."""
    return sorted({r["dataset"] for r in leaderboard_records()["tables"]
                   if REGISTRY[r["dataset"]]["layout"] == "synthetic"})


def planted_truths():
    return {d: f"{RESOURCES}/{d}/data/truth.json" for d in planted_datasets()}


def leaderboard_inputs(wildcards):
    records = leaderboard_records()
    return ([r["path"] for r in records["tables"]] + [r["path"] for r in records["selections"]]
            + [p for r in records["costs"] for p in r["paths"]]
            + [f"{RESOURCES}/{d}/manifest.json" for d in planted_datasets()])  # truth.json comes with it


def leaderboard_ks():
    return sorted({int(k) for name in config["run"] for k in config["experiments"][name]["k"]})


def all_baselines():
    return sorted({m for name in config["run"] for m in baselines(name)})


def all_own_rankers():
    return sorted({r for name in config["run"] for r in own_rankers(name)})

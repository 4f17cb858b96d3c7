# Config loading and validation, the datasets that take part, wildcard constraints and the one
# planning object (ltrfs.pipeline.plan.Plan): the rule files use its run (PLAN.run) and its stage
# planners (PLAN.score, PLAN.train, ...; ltrfs.pipeline.planning) as input and params functions.
import os
import re
import sys
from pathlib import Path

# the jobs import this checkout's package, also inside conda environments (--use-conda)
os.environ.update(
    PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "src"), os.environ.get("PYTHONPATH")]))
)

from ltrfs import runlock
from ltrfs.config import ConfigError
from ltrfs.config_check import check, k_notices, renamed_keys, without_missing_extras
from ltrfs.datasets.download import available
from ltrfs.datasets.registry import load_registry
from ltrfs.environment import check_results_folder, library_versions
from ltrfs.metric_spec import CONVENTIONS
from ltrfs.pipeline.plan import Plan
from ltrfs.pipeline.planning.requests import dry_run
from ltrfs.pipeline.resources import scaled
from ltrfs.results.figures import registry as figure_registry

if workflow.is_main_process:  # a lock left by a killed run of this host (ltrfs.runlock)
    _released = runlock.release_stale()
    if _released:
        print(_released, file=sys.stderr)

try:
    REGISTRY = load_registry(config.get("datasets_file", "config/datasets.yaml"))
    if workflow.is_main_process:
        for _notice in renamed_keys(config):
            print(_notice, file=sys.stderr)
    check(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml", REGISTRY)
    for _notice in without_missing_extras(config):  # the neural methods where PyTorch is missing
        if workflow.is_main_process:
            print(f"ltrfs: {_notice}", file=sys.stderr)
except (ConfigError, ValueError, OSError) as exc:
    sys.exit(f"ltrfs: {exc}")

PRESENCE = {}


def present(dataset):
    """False when ``datasets_present_only`` is set and the dataset cannot be had without the
    network (``ltrfs.datasets.download.available``); the reason is printed once."""
    if not config["datasets_present_only"]:
        return True
    if dataset not in PRESENCE:
        ok, message = available(dataset, REGISTRY[dataset], Path(config["resources_dir"]) / dataset,
                                mirror=config["mirror"], seed=config["seed"])
        PRESENCE[dataset] = ok
        if not ok:
            print(f"ltrfs: skipping dataset {dataset} (datasets_present_only): {message}", file=sys.stderr)
    return PRESENCE[dataset]


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

PLAN = Plan(config, REGISTRY, present)
if workflow.is_main_process:  # once, on the terminal: where a large k means "all features"
    for _line in k_notices(config, REGISTRY, present):
        print(f"ltrfs: {_line}", file=sys.stderr)
if workflow.is_main_process and dry_run(sys.argv):  # what the jobs would ask, before anything is submitted
    print(PLAN.requests.summary(), end="", file=sys.stderr)
RESOURCES = PLAN.run.resources
RESULTS = PLAN.run.results
FOLD = PLAN.run.fold
LEADERBOARD = PLAN.leaderboard.folder


def figure_outputs(name, **fields):
    """The outputs of the figure ``name`` of the registry (ltrfs.results.figures.registry.FIGURES):
    ``figure_{name}`` the PNG in the report (a folder of one PNG per scope when its file name is
    ``{scope}.png``), ``figure_{name}_pdf`` and ``figure_{name}_csv`` where it has them; ``fields``
    fill some of the path's wildcards (the others stay the rule's)."""
    figure = figure_registry.FIGURES[name]
    files = figure.paths(RESULTS, **fields)
    where = dict(caption=f"../report/{figure.caption}.rst", category=figure.category, labels=figure.labels,
                 **({"subcategory": figure.subcategory} if figure.subcategory else {}))
    folder, _, file_name = files["png"].rpartition("/")
    if figure.per_scope:  # a folder of {scope}.png
        png = report(directory(folder), patterns=[file_name], **where)
    else:
        png = report(files["png"], **where)
    return {f"figure_{name}": png,
            **{f"figure_{name}_{kind}": files[kind] for kind in ("pdf", "csv") if files[kind]}}


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
    as_convention="|".join(CONVENTIONS),  # letor3, letor4, mslr, standard, lei2017, lyu2024
    report="|".join(figure_registry.REPORT_DATA),  # the declared report data only

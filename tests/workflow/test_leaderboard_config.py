"""config/leaderboard.yaml, the one-command comparison: every selector of the registry against
RankSVM and LambdaMART on MQ2008, OHSUMED and the Yahoo! set 2 and MSLR-WEB30K stand-ins, at
k = 5, 10, 20, 30 and half of d; it validates and plans offline (docs/leaderboard.md)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import SHARED_DATA
from ltrfs.datasets.registry import load_registry
from ltrfs.neural import NEURAL_METHODS
from ltrfs.selection import SCORES_ONLY, SELECTORS

REPO = Path(__file__).resolve().parents[2]
CONFIG = yaml.safe_load((REPO / "config/leaderboard.yaml").read_text())
DEFAULTS = yaml.safe_load((REPO / "config/config.yaml").read_text())
#: the issue's datasets, by the names the config runs (the stand-ins by their own names)
DATASETS = {"MQ2008", "OHSUMED", "Yahoo-set2-standin", "MSLR-WEB30K-standin-0.005"}


def algorithm(method: str) -> str:
    """A config method's algorithm: the leaderboard's own entry over config.yaml's."""
    entry = {**DEFAULTS["methods"].get(method, {}), **CONFIG.get("methods", {}).get(method, {})}
    return entry.get("algorithm", method)


def test_every_selector_of_the_registry_takes_part_on_every_dataset():
    # "gas" is GAS with its importance as a parameter: gas_e and gas_l are its two variants. The
    # neural selectors and ranker (the neural extra) are on the neural board (the tests below)
    wanted = set(SELECTORS) - {"gas"} - NEURAL_METHODS
    experiments = [CONFIG["experiments"][name] for name in CONFIG["run"]]
    assert {d for e in experiments for d in e["datasets"]} == DATASETS
    for e in experiments:
        assert {algorithm(m) for m in e["methods"]} >= wanted, e["datasets"]
        assert e["rankers"] == ["ranksvm", "lambdamart"]
        assert "waf" in e["methods"]  # the all-features baseline of "smallest k not below all features"


def test_k_is_5_10_20_30_and_half_of_the_datasets_features():
    registry = load_registry(REPO / "config/datasets.yaml")
    for name in CONFIG["run"]:
        e = CONFIG["experiments"][name]
        (dataset,) = e["datasets"]
        d = registry[dataset]["n_features"]
        assert sorted(e["k"]) == sorted({5, 10, 20, 30, d // 2}), (name, d)


def test_its_runs_live_in_their_own_results_folder():
    """The papers' configs train the same (dataset, method, ranker) on other k grids: one results
    folder keeps one grid per run file, so the leaderboard has its own."""
    assert CONFIG["results_dir"] not in ("results", DEFAULTS.get("results_dir", "results"))


@pytest.mark.parametrize("batch", [False, True])
def test_it_plans_offline_every_selection_and_its_training(tmp_path, batch):
    """The dry run with ``datasets_present_only`` and the mirror: 29 methods on 12 folds (MQ2008 and
    OHSUMED five each when their archives are in the mirror, one per stand-in), one select and one
    train job each, and one leaderboard; with ``select_batch``, one select job per fold for the 13
    baselines and filters, and one each for the 16 others."""
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path), "-n", "--quiet",
         "rules", "--configfile", str(REPO / "config/config.yaml"), str(REPO / "config/leaderboard.yaml"),
         "--config", f"mirror={SHARED_DATA}", "datasets_present_only=true", f"select_batch={str(batch).lower()}",
         f"datasets_file={REPO / 'config/datasets.yaml'}"],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    counts = {}
    for line in result.stdout.splitlines():
        if m := re.fullmatch(r"(\w+)\s+(\d+)", line.strip()):
            counts.setdefault(m[1], int(m[2]))  # the first job table (the second repeats it)
    folds = 2 + 5 * sum((SHARED_DATA / f"{name}.zip").exists() for name in ("MQ2008", "OHSUMED"))
    methods = CONFIG["experiments"]["leaderboard_mq2008"]["methods"]
    n_methods, batched = len(methods), sum(DEFAULTS["methods"][m]["algorithm"] in SCORES_ONLY for m in methods)
    assert (n_methods, batched) == (29, 13)
    assert counts["select"] == (n_methods - batched * batch) * folds
    assert sum(v for k, v in counts.items() if k.startswith("select_batch_")) == folds * batch
    assert sum(v for k, v in counts.items() if k.startswith("train_")) == n_methods * folds
    assert counts["leaderboard"] == 1


def test_the_mslr_stand_in_is_the_full_one_at_half_a_percent():
    from ltrfs.datasets import folds

    registry = load_registry(REPO / "config/datasets.yaml")
    full, part = registry["MSLR-WEB30K-standin"], registry["MSLR-WEB30K-standin-0.005"]
    assert part["generator"]["n_queries"] == round(0.005 * full["generator"]["n_queries"]) == 158
    assert {k: v for k, v in part["generator"].items() if k != "n_queries"} == \
        {k: v for k, v in full["generator"].items() if k != "n_queries"}
    for key in ("layout", "n_features", "label_levels", "convention", "feature_names", "folds"):
        assert part[key] == full[key], key
    subsets, rot = folds.query_subsets(158, 5, seed=0), folds.rotation(1, 5)
    assert {split: sum(len(subsets[s - 1]) for s in rot[split]) for split in ("train", "vali", "test")} == \
        {"train": 96, "vali": 31, "test": 31}


def test_the_full_size_overlay_swaps_the_stand_ins_for_the_archives():
    """config/leaderboard_full.yaml: Yahoo! set 2 and MSLR-WEB30K (five folds) themselves, and
    Istella-S with k up to half its 220 features, in a results folder of its own."""
    full = yaml.safe_load((REPO / "config/leaderboard_full.yaml").read_text())
    e = full["experiments"]
    assert e["leaderboard_yahoo"]["datasets"] == ["Yahoo-set2"]
    assert e["leaderboard_mslr"]["datasets"] == ["MSLR-WEB30K"] and e["leaderboard_mslr"]["folds"] == [1, 2, 3, 4, 5]
    assert e["leaderboard_istella"]["methods"] == CONFIG["experiments"]["leaderboard_mq2008"]["methods"]
    assert sorted(e["leaderboard_istella"]["k"]) == [5, 10, 20, 30, 110]
    assert full["results_dir"] not in (CONFIG["results_dir"], "results")


def test_a_board_without_planted_features_plans_no_recovery_figure(tmp_path):
    """A figure with nothing to show is neither drawn nor listed: the board of MQ2008 alone (no
    generated data, no planted features) plans no planted_recovery.csv/.png; the default run's
    board (generated data) plans both."""
    if not (SHARED_DATA / "MQ2008.zip").exists():
        pytest.skip(f"MQ2008.zip is not in {SHARED_DATA}: the MQ2008 board cannot be planned")

    def leaderboard_outputs(*configfiles, run=()):
        result = subprocess.run(
            [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path), "-n",
             "--configfile", str(REPO / "config/config.yaml"), *configfiles,
             "--config", f"mirror={SHARED_DATA}", f"datasets_file={REPO / 'config/datasets.yaml'}", *run],
            capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        rule = result.stdout.split("rule leaderboard:", 1)[1]
        return re.search(r"output: (.*)", rule)[1].split(", ")

    mq2008 = leaderboard_outputs(str(REPO / "config/leaderboard.yaml"), run=["run=[leaderboard_mq2008]"])
    assert any(p.endswith("/leaderboard.csv") for p in mq2008) and not any("planted_recovery" in p for p in mq2008)
    demo = leaderboard_outputs()
    assert {p.rsplit("/", 1)[1] for p in demo} >= {"planted_recovery.csv", "planted_recovery.png"}


NEURAL = yaml.safe_load((REPO / "config/leaderboard_neural.yaml").read_text())


def merged_plan(*names, overrides=None):
    """The Plan of config.yaml with the given config files on top, as ``--configfile`` merges them."""
    from snakemake.utils import update_config

    from ltrfs.config_check import check
    from ltrfs.pipeline.plan import Plan

    config: dict = {}
    for name in ("config.yaml", *names):
        update_config(config, yaml.safe_load((REPO / "config" / name).read_text()))
    update_config(config, {"datasets_file": str(REPO / "config/datasets.yaml"), **(overrides or {})})
    registry = load_registry(REPO / "config/datasets.yaml")
    check(config, REPO / "workflow/schemas/config.schema.yaml", registry)
    return Plan(config, registry)


def test_the_neural_board_is_the_board_with_the_neural_methods_and_mlp():
    """config/leaderboard_neural.yaml: each experiment is a plain board's experiment (its dataset,
    folds and k) with every selector of the registry and the three rankers, its own board, and
    the plain board's results folder."""
    plain = {e["datasets"][0]: e for e in (CONFIG["experiments"][n] for n in CONFIG["run"])}
    assert "results_dir" not in NEURAL and NEURAL["run_name"] != CONFIG["run_name"]
    for name in NEURAL["run"]:
        e = NEURAL["experiments"][name]
        twin = plain[e["datasets"][0]]
        assert e["k"] == twin["k"] and e.get("folds") == twin.get("folds")
        assert set(e["methods"]) == set(twin["methods"]) | {m for m in NEURAL_METHODS if m in SELECTORS}
        assert e["rankers"] == ["ranksvm", "lambdamart", "mlp"]


def test_the_neural_board_reuses_the_plain_boards_jobs():
    """The plain board's select and batched train jobs are the same jobs with the same settings
    in the neural board (so a folder that ran the plain board only adds to it): mlp trains in a
    job of its own (rule train), never in a batch."""
    plain, neural = merged_plan("leaderboard.yaml"), merged_plan("leaderboard.yaml", "leaderboard_neural.yaml")
    plain_batches, neural_batches = plain.train.batches(), neural.train.batches()
    assert set(plain_batches) < set(neural_batches)
    for (dataset, method), (rule, rankers) in plain_batches.items():
        assert neural_batches[(dataset, method)] == (rule, rankers) == (rule, ["ranksvm", "lambdamart"])
        assert neural.train.batch_jobs(dataset, method, rankers, 1) == plain.train.batch_jobs(dataset, method, rankers, 1)
    assert all("mlp" not in rankers for _, rankers in neural_batches.values())
    assert neural.leaderboard.families()["rankers"] == {"ranksvm": "linear", "lambdamart": "tree", "mlp": "neural"}


def test_without_the_neural_extra_its_methods_are_left_out_in_one_line(monkeypatch):
    from ltrfs.config import ConfigError
    from ltrfs.config_check import without_missing_extras

    config = merged_plan("leaderboard.yaml", "leaderboard_neural.yaml").run.config
    assert without_missing_extras(config, installed=True) == []
    lines = without_missing_extras(config, installed=False)
    assert len(lines) == 1 and "\n" not in lines[0]
    assert lines[0].startswith("the neural extra is not installed: leaving out methods concrete_autoencoder, g_l2x, ifg, "
                               "invase, l2x, lassonet, tabnet and ranker mlp of neural_mq2008, neural_ohsumed, ")
    assert 'pip install -e ".[neural]"' in lines[0]
    for name in NEURAL["run"]:
        e = config["experiments"][name]
        assert e["rankers"] == ["ranksvm", "lambdamart"] and not set(e["methods"]) & NEURAL_METHODS
    assert without_missing_extras(config, installed=False) == []  # nothing more to leave out
    # PyTorch without pytorch-tabnet and lassonet: only their two methods are left out (PyTorch
    # looked up as present, whether or not this environment has it)
    import importlib.util

    config = merged_plan("leaderboard.yaml", "leaderboard_neural.yaml").run.config
    real = importlib.util.find_spec
    present = {"torch": real("json")}  # any spec: only its being found is asked

    def find_spec(name, *a):
        return None if name in ("pytorch_tabnet", "lassonet") else present.get(name) or real(name, *a)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    lines = without_missing_extras(config)
    assert lines[0].startswith("the neural extra is not fully installed: leaving out methods lassonet, tabnet of neural_mq2008")
    assert config["experiments"]["neural_mq2008"]["rankers"] == ["ranksvm", "lambdamart", "mlp"]
    monkeypatch.undo()
    only = {"run": ["x"], "experiments": {"x": {"methods": ["g_l2x"], "rankers": ["ranksvm"]}},
            "methods": {"g_l2x": {"algorithm": "g_l2x"}}, "rankers": {"ranksvm": {"algorithm": "ranksvm"}}}
    with pytest.raises(ConfigError, match=r"^experiments\.x\.methods: every one needs the neural extra"):
        without_missing_extras(only, installed=False)
    named = {"run": ["x"], "experiments": {"x": {"methods": ["g_l2x", "waf"], "rankers": ["ranksvm"],
                                               "compare": [["waf/ranksvm", "g_l2x/ranksvm"]]}},
             "methods": {"g_l2x": {"algorithm": "g_l2x"}, "waf": {"algorithm": "waf"}},
             "rankers": {"ranksvm": {"algorithm": "ranksvm"}}}
    with pytest.raises(ConfigError, match=r"^experiments\.x\.compare\[0\] names g_l2x, which needs the neural extra"):
        without_missing_extras(named, installed=False)


def test_the_neural_methods_jobs_run_in_the_neural_conda_environment():
    """--use-conda: a neural selector's select job and the mlp ranker's train jobs name
    envs/ltrfs-neural.yaml (PyTorch in it), every other job envs/ltrfs.yaml; both files exist where
    the rule files point."""
    from types import SimpleNamespace

    from ltrfs.pipeline.planning.environments import BASE_ENV, NEURAL_ENV

    plan = merged_plan("leaderboard.yaml", "leaderboard_neural.yaml")
    job = SimpleNamespace(dataset="MQ2008", fold="1")
    assert plan.select.conda_env(SimpleNamespace(**vars(job), method="tabnet")) == NEURAL_ENV
    assert plan.select.conda_env(SimpleNamespace(**vars(job), method="lambdamart_rfe")) == BASE_ENV
    assert plan.train.conda_env(SimpleNamespace(**vars(job), method="importance", ranker="mlp")) == NEURAL_ENV
    assert plan.train.conda_env(SimpleNamespace(**vars(job), method="tabnet", ranker="ranksvm")) == BASE_ENV
    for env in (BASE_ENV, NEURAL_ENV):
        assert (REPO / "workflow/rules" / env).resolve().is_file(), env
    assert "PLAN.select.conda_env" in (REPO / "workflow/rules/select.smk").read_text()
    assert "PLAN.train.conda_env" in (REPO / "workflow/rules/train.smk").read_text()

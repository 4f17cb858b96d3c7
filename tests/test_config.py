import copy
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from snakemake.utils import update_config

from ltrfs.config import ConfigError, k_grid
from ltrfs.config_check import check, k_notices, renamed_keys
from ltrfs.datasets.registry import load_registry
from ltrfs.pipeline.plan import Plan
from ltrfs.selection import SELECTORS

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


@pytest.fixture(scope="module")
def registry():
    return load_registry(REPO / "config/datasets.yaml")


@pytest.fixture
def config():
    return yaml.safe_load((REPO / "config/config.yaml").read_text())


def test_default_config_is_valid_and_gets_defaults(config, registry):
    checked = check(copy.deepcopy(config), SCHEMA, registry)
    assert checked["results_dir"] == "results" and checked["conventions"] == {}
    assert k_grid(checked, "synthetic", "importance", "ranksvm") == [3, 6, 10, 15, 20]
    assert k_grid(checked, "MQ2008", "importance", "ranksvm") == []


#: configs that are overlays, with the configs they go on top of (in --configfile order)
OVERLAYS = {"leaderboard_full.yaml": ("leaderboard.yaml",),
            "full_fold.yaml": ("leaderboard.yaml", "leaderboard_full.yaml"),
            "full_fold_0.05.yaml": ("leaderboard.yaml", "leaderboard_full.yaml"),
            "full_fold_0.25.yaml": ("leaderboard.yaml", "leaderboard_full.yaml"),
            "full_fold_0.5.yaml": ("leaderboard.yaml", "leaderboard_full.yaml"),
            "gpu.yaml": ("leaderboard.yaml", "leaderboard_full.yaml")}


def test_every_shipped_config_is_valid(registry):
    base = yaml.safe_load((REPO / "config/config.yaml").read_text())
    for path in sorted((REPO / "config").glob("*.yaml")):
        if path.name in ("config.yaml", "datasets.yaml"):
            continue
        merged = copy.deepcopy(base)
        for under in OVERLAYS.get(path.name, ()):
            update_config(merged, yaml.safe_load((REPO / "config" / under).read_text()))
        update_config(merged, yaml.safe_load(path.read_text()))  # recursively, as --configfile does
        check(merged, SCHEMA, registry)
    # config/mq2008.yaml turns the RF curve off and runs on one thread in the shared method entry,
    # keeping its algorithm; its score jobs and random-forest ranker run on one thread too
    merged = copy.deepcopy(base)
    update_config(merged, yaml.safe_load((REPO / "config/mq2008.yaml").read_text()))
    assert merged["methods"]["rf_importance"] == {**base["methods"]["rf_importance"], "threads": 1,
                                                  "params": {"curve": False}}
    assert merged["rankers"]["random_forest"] == {**base["rankers"]["random_forest"], "threads": 1}
    job = SimpleNamespace(dataset="MQ2008", fold="1", scorer="single_feature")
    assert Plan(check(merged, SCHEMA, registry), registry).score.threads(job) == 1
    assert Plan(check(copy.deepcopy(base), SCHEMA, registry), registry).score.threads(job) == 2


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["experiments"]["demo"]["methods"].append("gasx"),
     r"^config experiments\.demo\.methods: unknown method 'gasx' \(did you mean 'xgas'\?\); valid: chi, concrete_autoencoder, fenchelrank, fs_bfs, fs_ed, fsmrank, fsmrank_a_identity, fsmrank_lambda1_0, fsmrank_lambda2_0, fsmrank_s1, fsmsvm, g_l2x, gas_e, gas_e_map, .*waf, xgas$"),
    (lambda c: c["experiments"]["demo"]["rankers"].append("svm"),
     r"^config experiments\.demo\.rankers: unknown ranker 'svm' \(did you mean 'svmmap'\?\); valid: adarank_map, adarank_ndcg, coord_ascent, fenchelrank, fsmrank, lambdamart, linear_regression, listnet, logistic, mart, mlp, own, random_forest, rankboost, ranknet, rankrls, ranksvm, ranksvm_primal, sparse_ranksvm, svmmap$"),
    (lambda c: c["experiments"]["demo"]["datasets"].append("MQ2009"),
     r"^config experiments\.demo\.datasets: unknown dataset 'MQ2009' \(did you mean 'MQ2008'\?\); valid: .*MQ2008.*$"),
    (lambda c: c["methods"].update(x={"algorithm": "fsmrankk"}),
     r"^config methods\.x: unknown method algorithm 'fsmrankk' \(did you mean 'fsmrank'\?\); valid: " + re.escape(", ".join(sorted(SELECTORS))) + "$"),
    (lambda c: c["methods"]["importance"]["params"].update(metrc="map"),
     r"^config methods\.importance: method 'importance' has no parameter 'metrc'"),
    (lambda c: c["rankers"]["ranksvm"]["grid"].update(Cc=[1]),
     r"^config rankers\.ranksvm: .*'Cc'"),
    (lambda c: c.update(run=["demo2"]),
     r"^config run: unknown experiment 'demo2' \(did you mean 'demo'\?\); valid: demo$"),
    (lambda c: c["experiments"]["demo"].update(k=[0, 5]),
     r"^config experiments\.demo\.k\.0: 0 is less than the minimum of 1$"),
    (lambda c: c.update(validation_metric="ndcg@20"),
     r"^config: metric 'ndcg@20' is not reported"),
    (lambda c: c["experiments"]["demo"].update(folds=[6]),
     r"^config experiments\.demo\.folds: dataset 'synthetic' has no fold 6; valid: 1, 2, 3, 4, 5$"),
    (lambda c: c["experiments"]["demo"].update(figure_curves=["importance/ranksvmm"]),
     r"^config experiments\.demo\.figure_curves: unknown ranker 'ranksvmm'"),
    (lambda c: c["experiments"]["demo"].update(metrics=["NDCG@20"]),
     r"^config: metric 'NDCG@20' is not reported"),
    (lambda c: c["experiments"].update(demo2={**c["experiments"]["demo"], "validation_metric": "map"})
     or c.update(run=["demo", "demo2"]),
     r"^config experiments\.demo2\.validation_metric: 'map' differs from 'ndcg@10' of experiment 'demo' for "),
    (lambda c: c["experiments"]["demo"].update(feature_reports=["convergenc"]),
     r"^config experiments\.demo\.feature_reports: unknown feature report 'convergenc' \(did you mean 'convergence'\?\); valid: chosen_k, convergence, "),
    (lambda c: c.update(run_name="my run"),
     r"^config run_name: 'my run' does not match "),
    (lambda c: c.update(colour="red"),
     r"^config \(top level\): Additional properties are not allowed \('colour' was unexpected\)$"),
])
def test_config_errors_are_one_line_and_name_the_entry(config, registry, edit, message):
    edit(config)
    with pytest.raises(ConfigError, match=message) as info:
        check(config, SCHEMA, registry)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["methods"]["importance"]["params"].update(metric="ndcg@20"),
     r"^config methods\.importance: metric must be one of p@1, .*, meanndcg \(any case\); got 'ndcg@20'$"),
    (lambda c: c["methods"]["importance"]["params"].update(orientation="up"),
     r"^config methods\.importance: orientation must be one of descending, best; got 'up'$"),
    (lambda c: c["rankers"]["ranksvm"]["grid"].update(C=[1, "abc"]),
     r"^config rankers\.ranksvm: C must be a finite number > 0; got 'abc'$"),
    (lambda c: c["rankers"]["lambdamart"]["params"].update(n_estimators=-5),
     r"^config rankers\.lambdamart: n_estimators must be an integer >= 1; got -5$"),
    (lambda c: c["rankers"]["ranksvm"]["params"].update(C=1.0),
     r"^config rankers\.ranksvm: 'C' is both a fixed parameter and a grid$"),
])
def test_bad_parameter_values_are_caught_before_any_job(config, registry, edit, message):
    edit(config)
    with pytest.raises(ConfigError, match=message):
        check(config, SCHEMA, registry)


def test_own_ranker_takes_no_parameters():
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    config["rankers"]["own"]["grid"] = {"C": [1]}
    with pytest.raises(ConfigError, match=r"^config rankers\.own: the 'own' ranker takes no params or grid"):
        check(config, SCHEMA, load_registry(REPO / "config/datasets.yaml"))


def test_validation_metric_per_experiment(config, registry):
    from ltrfs.config import train_metrics, validation_metric_of

    config["experiments"]["demo"]["validation_metric"] = "map"
    checked = check(config, SCHEMA, registry)
    assert validation_metric_of(checked, "demo") == "map"
    dataset = checked["experiments"]["demo"]["datasets"][0]
    assert train_metrics(checked)[(dataset, "importance", "ranksvm")] == "map"
    assert ("MQ2008", "importance", "ranksvm") not in train_metrics(checked)  # not run: the top-level metric


def test_numbers_in_a_config_file_read_as_people_write_them(registry, tmp_path):
    """Snakemake reads --configfile with YAML 1.1, which leaves 1e-7, 1E-7 and -.5 as text; check()
    reads them as the numbers they are (and .5, 5. stay numbers) in the methods' and rankers'
    params and grids."""
    from snakemake.common.configfile import load_configfile

    text = (REPO / "config/config.yaml").read_text()
    text = text.replace("\nmethods:\n", "\nmethods:\n"
                        "  l1_tight: {algorithm: l1_logistic, params: {tol: 1e-7, lambda_min_ratio: 1E-3}}\n"
                        "  fsm_small: {algorithm: fsmrank, params: {lambda1_grid: [.5, 5., 1e-2], lambda2_grid: [-.5]}}\n", 1)
    text = text.replace("\nrankers:\n", "\nrankers:\n"
                        "  ranksvm_small: {algorithm: ranksvm, grid: {C: [1e-3, 1E2, .5, 5.]}}\n", 1)
    path = tmp_path / "config.yaml"
    path.write_text(text)
    loaded = load_configfile(str(path))
    assert loaded["methods"]["l1_tight"]["params"]["tol"] == "1e-7"  # what YAML 1.1 gives
    with pytest.raises(ConfigError, match=r"lambda2_grid must be a non-empty list of finite numbers >= 0; got \[-0\.5\]$"):
        check(copy.deepcopy(loaded), SCHEMA, registry)
    loaded["methods"]["fsm_small"]["params"]["lambda2_grid"] = ["2E1"]
    checked = check(loaded, SCHEMA, registry)
    assert checked["methods"]["l1_tight"]["params"] == {"tol": 1e-7, "lambda_min_ratio": 1e-3}
    assert checked["methods"]["fsm_small"]["params"] == {"lambda1_grid": [0.5, 5.0, 0.01], "lambda2_grid": [20.0]}
    assert checked["rankers"]["ranksvm_small"]["grid"] == {"C": [1e-3, 100.0, 0.5, 5.0]}
    assert all(type(v) is float for v in checked["rankers"]["ranksvm_small"]["grid"]["C"])


def test_run_name_defaults_to_the_experiments_run(config, registry):
    """The leaderboard folder's name: the config's run_name, else the experiments of run joined."""
    assert check(copy.deepcopy(config), SCHEMA, registry)["run_name"] == "demo"
    config["experiments"]["inter"] = copy.deepcopy(config["experiments"]["demo"])
    config["run"] = ["demo", "inter"]
    assert check(copy.deepcopy(config), SCHEMA, registry)["run_name"] == "demo+inter"
    config["run_name"] = "both"
    assert check(config, SCHEMA, registry)["run_name"] == "both"


def test_k_above_the_features_is_said_per_dataset(config, registry):
    """k above a dataset's feature count keeps all d features, one rule whether every k is above
    or only some (one line per experiment and dataset); WAF alone takes no k; an absent dataset
    (datasets_present_only) says nothing."""
    config["experiments"]["demo"].update(datasets=["MQ2008", "OHSUMED", "synthetic"], k=[100, 200])
    config["experiments"]["mixed"] = {**config["experiments"]["demo"], "datasets": ["OHSUMED"], "k": [10, 45, 46, 50]}
    config["experiments"]["waf_only"] = {**config["experiments"]["demo"], "methods": ["waf"], "k": [1000]}
    config["run"] = ["demo", "mixed", "waf_only"]
    checked = check(config, SCHEMA, registry)
    assert k_notices(checked, registry) == [
        "experiment demo: k 100, 200 exceed the 46 features: all 46 are kept on MQ2008 (the \"all (46)\" row of "
        "tables and figures); k 100, 200 exceed the 45 features: all 45 are kept on OHSUMED (the \"all (45)\" row of "
        "tables and figures); k 100, 200 exceed the 30 features: all 30 are kept on synthetic (the \"all (30)\" row "
        "of tables and figures)",
        "experiment mixed: k 46, 50 exceed the 45 features: all 45 are kept on OHSUMED (the \"all (45)\" row of "
        "tables and figures)"]
    assert k_notices(checked, registry, present=lambda d: d == "synthetic")[0] == (
        "experiment demo: k 100, 200 exceed the 30 features: all 30 are kept on synthetic (the \"all (30)\" row of "
        "tables and figures)")
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    assert k_notices(check(config, SCHEMA, registry), registry) == []  # the default run: every k fits


# ----------------------------------------------------------------------------- names end where they end

REGISTRY_SCHEMA = REPO / "src/ltrfs/datasets/registry.schema.yaml"
# an accepted value of every pattern anchored at its end, in both schemas
PATTERN_SAMPLES = {
    "^[A-Za-z0-9][A-Za-z0-9_.+-]*$(?!\\n)": ["demo", "MSLR-WEB10K", "gas_e.2"],
    "^([Nn][Dd][Cc][Gg]@[1-9][0-9]*|[Pp]@[1-9][0-9]*|MAP|map|MeanNDCG|meanndcg)$(?!\\n)": ["ndcg@10", "MAP", "P@5"],
    "^[^/\\x00-\\x1f]+/[^/\\x00-\\x1f]+$(?!\\n)": ["importance/ranksvm"],
    "^[^/\\x00-\\x1f]+/[^/\\x00-\\x1f]*$(?!\\n)": ["fsmrank/own", "waf/"],
    "^fig[0-9]+$(?!\\n)": ["fig2"],
    "^(?!/)(?!(.*/)?\\.\\.(/|$))[^\\\\\\x00-\\x1f]+$(?!\\n)": ["Fold1/train.txt", "a..b/c"],
    "^(?!\\.\\.?$)[^/\\x00-\\x1f]+$(?!\\n)": ["MQ2008.zip"],
    "^[ \\t]*([sS][hH][aA]256:[ \\t]*[0-9a-fA-F]{64}|[mM][dD]5:[ \\t]*[0-9a-fA-F]{32}|unpublished)[ \\t]*$(?!\\n)":
        ["sha256:" + "ab" * 32, "md5: " + "0" * 32, "unpublished"],
    "^[0-9a-fA-F]{64}$(?!\\n)": ["ab" * 32],
    "^([^{}\\x00-\\x1f]|\\{(fold|split)(:[^{}\\x00-\\x1f]*)?\\})*$(?!\\n)": ["Fold{fold}/{split}.txt", "S{fold:1d}.txt"],
    "^[^{}\\x00-\\x1f]*$(?!\\n)": ["all.txt"],
}


def _schema_patterns(path: Path) -> list[str]:
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(path.read_text()))
    return found


@pytest.mark.parametrize("schema", [SCHEMA, REGISTRY_SCHEMA], ids=["config", "registry"])
def test_every_anchored_schema_pattern_refuses_a_final_newline(schema):
    import jsonschema

    patterns = _schema_patterns(schema)
    anchored = [p for p in patterns if p.endswith("$") or p.endswith("$(?!\\n)")]
    assert len(anchored) >= 5
    for pattern in anchored:
        assert pattern.endswith("$(?!\\n)"), f"{pattern!r}: end it with $(?!\\n), as every pattern of the schemas"
        assert pattern in PATTERN_SAMPLES, f"{pattern!r}: add accepted values to PATTERN_SAMPLES"
        validator = jsonschema.Draft202012Validator({"type": "string", "pattern": pattern})
        for value in PATTERN_SAMPLES[pattern]:
            assert validator.is_valid(value), (pattern, value)
            assert not validator.is_valid(value + "\n"), (pattern, value)
    # the others are searches on purpose (a URL's scheme, a {fold} placeholder somewhere)
    assert all(not p.endswith("$") for p in patterns if p not in anchored)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.update(run_name="demo\n"), r"^config run_name: 'demo\\n' does not match "),
    (lambda c: c.update(run=["demo\n"]), r"^config run\.0: 'demo\\n' does not match "),
    (lambda c: c["methods"].update({"importance\n": c["methods"].pop("importance")}),
     r"^config methods: 'importance\\n' does not match "),
    (lambda c: c["rankers"].update({"ranksvm\n": c["rankers"]["ranksvm"]}),
     r"^config rankers: 'ranksvm\\n' does not match "),
    (lambda c: c["experiments"]["demo"].update(figure_curves=["importance/ranksvm\n"]),
     r"^config experiments\.demo\.figure_curves\.0: 'importance/ranksvm\\n' does not match "),
])
def test_a_name_ending_in_a_newline_is_refused_in_one_line(config, registry, edit, message):
    edit(config)
    with pytest.raises(ConfigError, match=message) as info:
        check(config, SCHEMA, registry)
    assert "\n" not in str(info.value)


def test_the_old_name_artefacts_is_read_as_feature_reports_with_a_notice(config, registry):
    """A config written before the figure registry's rename still runs: ``artefacts`` is moved to
    ``feature_reports`` with one notice line; both names in one experiment is an error."""
    old = copy.deepcopy(config)
    old["experiments"]["demo"]["artefacts"] = ["kendall"]
    assert renamed_keys(old) == ["ltrfs: config experiments.demo.artefacts is now called feature_reports (read as such)"]
    assert old["experiments"]["demo"]["feature_reports"] == ["kendall"] and "artefacts" not in old["experiments"]["demo"]
    again = copy.deepcopy(config)
    again["experiments"]["demo"]["artefacts"] = ["kendall"]
    assert check(again, SCHEMA, registry)["experiments"]["demo"]["feature_reports"] == ["kendall"]
    both = copy.deepcopy(config)
    both["experiments"]["demo"].update(artefacts=["kendall"], feature_reports=[])
    with pytest.raises(ConfigError, match=r"^config experiments\.demo: both artefacts and feature_reports; artefacts is "
                                          r"the old name of feature_reports: keep feature_reports$"):
        check(both, SCHEMA, registry)

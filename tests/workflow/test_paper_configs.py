"""Every paper configuration (config/papers/*.yaml) validates and dry-runs, and names only
datasets, methods and rankers the project has; the published numbers load and name only
papers that have a configuration."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrfs.neural import extra_installed
from ltrfs.results.tables import REFERENCE_RANKER

REPO = Path(__file__).resolve().parents[2]
PAPERS = ["gupta2012", "geng2007", "lei2017", "pahikkala2010", "lai2013", "lyu2024"]


def test_there_is_one_config_per_paper():
    assert sorted(p.stem for p in (REPO / "config/papers").glob("*.yaml")) == sorted(PAPERS)


@pytest.mark.parametrize("paper", PAPERS)
def test_paper_config_dry_runs(paper, tmp_path):
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO),
                             "--configfile", str(REPO / f"config/papers/{paper}.yaml"), "--dry-run", "--quiet"],
                            capture_output=True, text=True, cwd=REPO)
    config = yaml.safe_load((REPO / f"config/papers/{paper}.yaml").read_text())
    assert config["run"] and set(config["run"]) <= set(config["experiments"])
    if paper == "lyu2024" and not extra_installed():  # its one ranker is the neural extra's mlp
        lines = [line for line in result.stderr.splitlines() if line.startswith("ltrfs:")]
        assert result.returncode != 0 and len(lines) == 1, result.stderr[-2000:]
        assert lines[0].startswith("ltrfs: experiments.lyu2024.rankers: every one needs the neural extra: pip install")
        return
    assert result.returncode == 0, result.stderr[-2000:]


def test_published_numbers_load():
    frames = [pd.read_csv(p) for p in sorted((REPO / "config/published").glob("*.csv"))]
    table = pd.concat(frames, ignore_index=True)
    assert list(frames[0].columns) == ["paper", "table", "dataset", "method", "ranker", "k", "metric", "value",
                                       "convention", "note"]
    assert set(table.paper) <= set(PAPERS)
    # SPEC section 5's MQ2008 FSMRank row (Lai et al. Table II)
    row = table[(table.paper == "lai2013") & (table.table == "Table II") & (table.dataset == "MQ2008")
                & (table.method == "fsmrank")].set_index("metric")["value"]
    assert row[["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP"]].tolist() == [0.3686, 0.4399, 0.4791, 0.2327, 0.4771]
    check = subprocess.run([sys.executable, str(REPO / "config/published/check.py")], capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.strip().endswith("OK"), check.stdout[-1000:] + check.stderr[-1000:]


@pytest.mark.parametrize("paper", [p for p in PAPERS if (REPO / f"config/published/{p}.csv").exists()])
def test_experiments_compute_every_ranking_metric_their_published_tables_hold(paper):
    """The `_published` tables compare every cutoff a paper prints (e.g. Lei & Han's P@1..10 and
    NDCG@1..10 in Tables 3.6-3.7 and A.1-A.2), not a few."""
    from ltrfs.metric_spec import parse_metric

    def ranking_metric(name):
        try:
            return bool(parse_metric(name))
        except ValueError:  # counts such as k_best: compared without being a metric column
            return False

    config = yaml.safe_load((REPO / f"config/papers/{paper}.yaml").read_text())
    published = pd.read_csv(REPO / f"config/published/{paper}.csv")
    for name, experiment in config["experiments"].items():
        if "published" not in experiment:
            continue
        held = published[published.table.isin(experiment["published"]["tables"])].metric
        assert set(filter(ranking_metric, held)) <= set(experiment["metrics"]), name


def test_datasets_present_only_skips_what_cannot_be_had_offline(tmp_path):
    """A dataset without an archive here (HP2004) stops only its own jobs: with
    datasets_present_only the plan keeps the generated dataset, prints the registry's one-line
    message, and asks for the published comparison table."""
    config = {"run": ["mixed"], "datasets_file": str(REPO / "config/datasets.yaml"), "resources_dir": str(tmp_path / "r"),
              "results_dir": str(tmp_path / "results"),
              "experiments": {"mixed": {"datasets": ["synthetic-tiny", "HP2004"], "methods": ["waf"],
                                        "rankers": ["ranksvm"], "k": [5],
                                        "published": {"paper": "lai2013", "tables": ["Table II"]}}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    base = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(REPO), "--configfile",
            str(tmp_path / "c.yaml"), "--dry-run"]
    result = subprocess.run(base + ["--config", "datasets_present_only=true"], capture_output=True, text=True, cwd=REPO)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-2000:]
    assert "skipping dataset HP2004 (datasets_present_only): HP2004: no source to fetch from; download Gov.rar" in out
    assert "results/synthetic-tiny/tables/mixed_published.md" in out and "results/HP2004" not in out
    # without the option the plan includes HP2004's jobs (its download job fails with the same message)
    result = subprocess.run(base, capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0 and "HP2004" in result.stdout + result.stderr


def run_on_generated_archives(paper: str, tmp_path: Path, archives, datasets, experiments=None,
                              registry_edits=None, present_only=False, methods=None,
                              rankers=None) -> tuple[dict, str]:
    """Run ``config/papers/{paper}.yaml`` on generated archives in the real layouts (``archives``:
    keys of ``lookalike_archives.BENCHMARKS``, small; the real archives' digests dropped from a copy of
    the registry for ``datasets``), every experiment on fold 1 only, ``experiments`` overlaying
    the paper's experiments (e.g. a shorter k grid), ``registry_edits`` ({dataset: fields};
    a mapping field is merged) the registry copy, ``present_only`` setting ``datasets_present_only``,
    ``methods`` and ``rankers`` overlaying named methods and rankers (e.g. fewer trees). Returns
    the paper config and the run's stderr."""
    import lookalike_archives
    from ltrfs.datasets import download

    mirror = tmp_path / "mirror"
    rar = download.rar_tool() is not None
    for key in archives:
        zipped = not rar and lookalike_archives.BENCHMARKS[key]["archive"].endswith(".rar")
        lookalike_archives.write_benchmark_archive(key, mirror, seed=5, queries_per_subset=4, fmt="zip" if zipped else None)
    registry = yaml.safe_load((REPO / "config/datasets.yaml").read_text())
    for entry in registry.values():  # the copy lives elsewhere: its feature-name files by absolute path
        if isinstance(entry.get("feature_names"), str):
            entry["feature_names"] = str(REPO / "config" / entry["feature_names"])
    for name in datasets:
        for pin in ("checksum", "files_sha256"):
            registry[name].pop(pin, None)
        if not rar:
            registry[name]["archive"] = registry[name]["archive"].replace(".rar", ".zip")
    for name, fields in (registry_edits or {}).items():
        for key, value in fields.items():
            registry[name][key] = {**registry[name][key], **value} if isinstance(value, dict) else value
    (tmp_path / "datasets.yaml").write_text(yaml.safe_dump(registry))
    config = yaml.safe_load((REPO / f"config/papers/{paper}.yaml").read_text())
    overlay = {"datasets_file": str(tmp_path / "datasets.yaml"), "mirror": str(mirror),
               "datasets_present_only": present_only,
               "experiments": {name: {"folds": [1], **(experiments or {}).get(name, {})} for name in config["run"]},
               "methods": methods or {}, "rankers": rankers or {}}
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    result = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(tmp_path),
                             "--configfile", str(REPO / "config/config.yaml"), str(REPO / f"config/papers/{paper}.yaml"),
                             str(tmp_path / "overlay.yaml"), "--cores", "2"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return config, result.stderr


@pytest.mark.slow
@pytest.mark.long
def test_lai2013_runs_end_to_end_on_generated_archives(tmp_path):
    """The lai2013 config, unchanged but for fold 1 and a short k grid, on generated archives in
    the real layouts (OHSUMED.zip with QueryLevelNorm, MQ2008.zip, Gov.rar for HP2004 and
    NP2004): every table, figure, comparison and published table of the paper is made, the
    published tables name the paper's rows, and FSMRank's non-zero weights are counted."""
    paper, _ = run_on_generated_archives("lai2013", tmp_path, ("OHSUMED", "MQ2008", "Gov"),
                                      ("OHSUMED", "MQ2008", "HP2004", "NP2004"),
                                      {"lai2013_table1": {"k": [1, 3, 70]}})
    results = tmp_path / "results"
    for dataset in ("OHSUMED", "MQ2008", "HP2004", "NP2004"):
        table = pd.read_csv(results / dataset / "tables/lai2013_table1.csv", dtype={"k": str})
        # FSMRank's own model: its top 1 and 3 features and the full model, no vali row
        d = {"OHSUMED": 45, "MQ2008": 46}.get(dataset, 64)
        own = table[(table.method == "fsmrank") & (table.ranker == "own")]
        assert list(own.k) == ["1", "3", str(d)]
        published = (results / dataset / "tables/lai2013_table1_published.md").read_text()
        assert "| fsmrank | own | " + str(d) + " |" in published and "| gas_e | ranksvm_primal | vali (" in published
        table2 = (results / dataset / "tables/lai2013_table2_published.md").read_text()
        assert "| fsmrank | own |" in table2 and "— /" not in table2.split("| fsmrank | own |")[1].split("\n")[0]
        compare = pd.read_csv(results / dataset / "tables/lai2013_table1_compare.csv", dtype={"k_a": str})
        assert set(compare["at"]) == {"chosen", "k"}
        for metric in ("NDCG1", "NDCG5", "NDCG10", "MAP"):
            drawn = pd.read_csv(results / f"figures/lai2013_table1/{dataset}_{metric}.csv", dtype={"k": str})
            assert set(drawn.method + "/" + drawn.ranker) == set(paper["experiments"]["lai2013_table1"]["figure_curves"])
        # FSMRank's non-zero weights at its vali-chosen lambdas: fold 1 and the mean, out of d
        nonzero = pd.read_csv(results / f"figures/lai2013_table1/features/{dataset}_nonzero_fsmrank.csv",
                              dtype={"fold": str})
        assert nonzero.fold.tolist() == ["1", "mean"] and (nonzero.n_features == d).all()
        assert nonzero.nonzero.between(1, d).all() and nonzero.nonzero.iloc[0] == nonzero.nonzero.iloc[1]
    assert list((results / "figures/lai2013_table1").glob("**/*convergence*.png"))


@pytest.mark.slow
def test_pahikkala2010_runs_end_to_end_on_generated_archives(tmp_path):
    """The pahikkala2010 config on generated MQ2007 (.rar) and MQ2008 archives, fold 1: the path
    figure of every dataset (MAP and MeanNDCG for the four lambdas, each path ending at all 46
    features), the table with the paper's metrics, and the comparisons."""
    run_on_generated_archives("pahikkala2010", tmp_path, ("MQ2007", "MQ2008"), ("MQ2007", "MQ2008"),
                              {"pahikkala2010": {"k": [1, 5, 46]}})
    results = tmp_path / "results"
    for dataset in ("MQ2007", "MQ2008"):
        path = pd.read_csv(results / f"figures/pahikkala2010/features/{dataset}_path_greedy_rankrls.csv")
        assert sorted(path["lambda"].unique()) == sorted(["2^-7", "2^2", "2^6", "2^8"])
        assert set(path.groupby("lambda").k.max()) == {46} and path[["MAP", "MeanNDCG"]].notna().all().all()
        md = (results / dataset / "tables/pahikkala2010.md").read_text()
        assert "| method | ranker | k | MAP | MeanNDCG | NDCG@10 |" in md
        compare = pd.read_csv(results / dataset / "tables/pahikkala2010_compare.csv")
        assert set(compare.a + " vs " + compare.b) == {"greedy_rankrls/own vs waf/rankrls",
                                                       "greedy_rankrls/own vs waf/ranksvm"}


@pytest.mark.slow
@pytest.mark.long
def test_gupta2012_runs_end_to_end_on_generated_archives(tmp_path):
    """The gupta2012 config on generated OHSUMED (.zip), MQ2007 (.rar) and MQ2008 archives, and,
    Yahoo! set 2 being absent, on its registry stand-in (700 features, 104 of them zero; shrunk
    to 40 queries here), fold 1: Table 1 beside the paper's (k_best), the Fig. 2 bars with their
    marks, Fig. 3's densities of non-constant features, the FS-ED vs FS-BFS comparisons."""
    _, stderr = run_on_generated_archives(
        "gupta2012", tmp_path, ("OHSUMED", "MQ2007", "MQ2008"), ("OHSUMED", "MQ2007", "MQ2008"),
        {"gupta2012": {"k": [1, 3, 46]}, "gupta2012_yahoo": {"k": [2, 5, 700]},
         "gupta2012_group_size": {"k": [1, 3, 46]}},
        registry_edits={"Yahoo-set2-standin": {"generator": {"n_queries": 40, "docs_median": 8}}},
        present_only=True)
    assert "running Yahoo-set2-standin in place of Yahoo-set2 (its registry stand_in)" in stderr
    results = tmp_path / "results"
    assert not (results / "Yahoo-set2").exists()
    runs = {"OHSUMED": "gupta2012", "MQ2007": "gupta2012", "MQ2008": "gupta2012",
            "Yahoo-set2-standin": "gupta2012_yahoo"}
    for dataset, experiment in runs.items():
        tables = results / dataset / "tables"
        table = pd.read_csv(tables / f"{experiment}.csv", dtype={"k": str})
        chosen = table[table.k.str.startswith("vali")]
        assert set(chosen.method + "/" + chosen.ranker) == {f"{m}/{r}" for m in ("fs_ed", "fs_bfs")
                                                            for r in ("ranksvm", "rankboost", "lambdamart")}
        assert chosen.k_best.notna().all()
        published = (tables / f"{experiment}_published.md").read_text()
        if dataset == "Yahoo-set2-standin":  # the stand-in's numbers match no published row
            assert "publishes no number for this dataset" in published
        else:
            assert "| fs_ed | ranksvm | vali (" in published and "| waf | — |" in published
            assert "k_best: the number of features the paper reports as best" in published
            beside = pd.read_csv(tables / f"{experiment}_published.csv")  # the report's table
            assert list(beside.columns) == ["table", "method", "ranker", "k", "metric", "ours", "published", "difference"]
            np.testing.assert_allclose(beside.difference, beside.ours - beside.published)
        compare = pd.read_csv(tables / f"{experiment}_compare.csv")
        assert set(compare.a + " vs " + compare.b) == {f"fs_ed/{r} vs fs_bfs/{r}" for r in ("ranksvm", "rankboost",
                                                                                           "lambdamart")}
        bars = pd.read_csv(results / f"figures/{experiment}/features/{dataset}_chosen_k.csv")
        assert len(bars) == 9 and bars["NDCG@10"].between(0, 1).all()
        densities = pd.read_csv(results / f"figures/{experiment}/features/{dataset}_densities_fs_ed.csv")
        selection = json.loads((results / dataset / "fold1/select/fs_ed.json").read_text())
        assert not set(densities.feature) & set(selection["constant_features"])  # Fig. 3 excludes them
        if dataset == "Yahoo-set2-standin":
            assert len(selection["constant_features"]) == 104 and selection["n_features"] == 700
    # the group-size experiment (OHSUMED): every FS-BFS bound with every ranker, groups within their bound
    sizes = pd.read_csv(results / "OHSUMED/tables/gupta2012_group_size.csv", dtype={"k": str})
    chosen = sizes[sizes.k.str.startswith("vali")]
    assert set(chosen.method + "/" + chosen.ranker) == {f"{m}/{r}" for m in ("fs_bfs_size2", "fs_bfs", "fs_bfs_size5",
                                                                             "fs_bfs_unbounded")
                                                        for r in ("ranksvm", "rankboost", "lambdamart")}
    for method, bound in (("fs_bfs_size2", 2), ("fs_bfs", 3), ("fs_bfs_size5", 5)):
        groups = json.loads((results / f"OHSUMED/fold1/select/{method}.json").read_text())["details"]["subsets"]
        assert groups and max(len(group) for group in groups) <= bound, (method, groups)


@pytest.mark.slow
@pytest.mark.long
def test_geng2007_runs_end_to_end_on_generated_archives(tmp_path):
    """The geng2007 config on generated OHSUMED (.zip) and Gov (.rar, TD2004) archives, fold 1:
    every metric against k (RankSVM and RankNet panels, every selector), Figs. 2-3 (TD2004) and
    4-5 (OHSUMED) in the paper's form (RankSVM, RankNet: a panel per metric), Fig. 6 (MAP of each
    feature alone) and Fig. 7 (Kendall similarity map) for both datasets; RankNet is trained on
    every selection."""
    paper, _ = run_on_generated_archives("geng2007", tmp_path, ("OHSUMED", "Gov"), ("OHSUMED", "TD2004"),
                                         {"geng2007": {"k": [1, 3, 64]}})
    results = tmp_path / "results"
    e = paper["experiments"]["geng2007"]
    for dataset, d in (("OHSUMED", 45), ("TD2004", 64)):
        table = pd.read_csv(results / dataset / "tables/geng2007.csv", dtype={"k": str})
        ranknet = table[table.ranker == "ranknet"]
        selectors = [m for m in e["methods"] if m != "waf"]
        assert {(m, k) for m, k in zip(ranknet.method, ranknet.k)} >= {(m, k) for m in selectors for k in ("1", "3")}
        assert ("waf", str(d)) in set(zip(ranknet.method, ranknet.k))
        for metric in ("NDCG1", "NDCG3", "NDCG5", "NDCG10", "MAP"):
            drawn = pd.read_csv(results / f"figures/geng2007/{dataset}_{metric}.csv", dtype={"k": str})
            assert set(drawn.ranker) >= {"ranksvm", "ranknet"} and set(drawn.method) >= set(e["methods"])
        figures = {"OHSUMED": {"fig4": "ranksvm", "fig5": "ranknet"}, "TD2004": {"fig2": "ranksvm", "fig3": "ranknet"}}
        for figure, ranker in figures[dataset].items():
            drawn = pd.read_csv(results / f"figures/geng2007/{dataset}_{figure}.csv", dtype={"k": str})
            assert (results / f"figures/geng2007/{dataset}_{figure}.png").stat().st_size > 0
            assert set(drawn.ranker) == {ranker} and set(drawn.method) == set(e["methods"])
            assert list(dict.fromkeys(drawn.metric)) == e["figure_metrics"]
        other = "23" if dataset == "OHSUMED" else "45"  # the other dataset's figure numbers
        assert not list(results.glob(f"figures/geng2007/{dataset}_fig[{other}].*"))
        importance = pd.read_csv(results / f"figures/geng2007/features/{dataset}_importance_MAP.csv")
        assert len(importance) == d and importance.filter(like="MAP").stack().between(0, 1).all()
        kendall = pd.read_csv(results / f"figures/geng2007/features/{dataset}_kendall.csv",
                              index_col="feature").to_numpy()
        assert kendall.shape == (d, d) and np.allclose(kendall, kendall.T)
        assert np.allclose(np.diag(kendall), 1.0) and ((kendall >= 0) & (kendall <= 1)).all()


@pytest.mark.slow
@pytest.mark.long
def test_lei2017_runs_end_to_end_on_the_mslr_stand_in(tmp_path):
    """The lei2017 config without the MSLR archive: its registry stand-in (136 features with
    MSLR's names, labels 0-4; shrunk to 60 queries here) runs all three experiments: the
    report's sampled selectors (sample shrunk to 300 rows) with their own models and the
    P@1..10 / NDCG@1..10 tables, the top features by name, Table 2.1's curve, Fig. 2.1's BIC
    path, Fig. 3.1's importance plot; the same selectors on all rows; RankLib's baselines."""
    sample = {"sample_size": 300}
    _, stderr = run_on_generated_archives(
        "lei2017", tmp_path, (), (),
        {"lei2017": {"k": [5, 10]}, "lei2017_full": {"k": [5, 10]},
         "lei2017_appendix": {"rankers": ["mart", "rankboost", "lambdamart", "random_forest"]},
         "lei2017_appendix_web30k": {"rankers": ["mart", "random_forest"]}},
        registry_edits={"MSLR-WEB10K-standin": {"generator": {"n_queries": 60, "docs_median": 20}},
                        "MSLR-WEB30K-standin": {"generator": {"n_queries": 70, "docs_median": 20}},
                        "MSLR-WEB30K-standin-0.05": {"generator": {"n_queries": 50, "docs_median": 20}}},
        present_only=True,
        methods={"l1_logistic_10k": {"params": sample}, "ordinal_cr_10k": {"params": sample},
                 "svm_rfe_10k": {"params": {**sample, "n_bootstrap": 5, "rfe_cv": 3, "step": 0.25}},
                 "rf_importance_10k": {"params": {**sample, "n_estimators": 20}},
                 "gbm_importance_10k": {"params": {**sample, "n_estimators": 30}},
                 "rf_importance": {"params": {"n_estimators": 20}}, "gbm_importance": {"params": {"n_estimators": 30}}},
        rankers={"lambdamart": {"params": {"n_estimators": 30}}, "mart": {"params": {"n_estimators": 30}},
                 "random_forest": {"params": {"n_estimators": 20}}})
    assert "running MSLR-WEB10K-standin in place of MSLR-WEB10K (its registry stand_in)" in stderr
    results = tmp_path / "results"
    tables, figures = results / "MSLR-WEB10K-standin/tables", results / "figures/lei2017/features"
    assert not (results / "MSLR-WEB10K").exists()
    sampled = ["l1_logistic_10k", "svm_rfe_10k", "ordinal_cr_10k", "rf_importance_10k", "gbm_importance_10k"]
    table = pd.read_csv(tables / "lei2017.csv", dtype={"k": str})
    own = table[table.ranker == "own"]
    assert sorted(own.method) == sorted(sampled) and (own.k == "136").all()
    metrics = [f"P@{i}" for i in range(1, 11)] + [f"NDCG@{i}" for i in range(1, 11)]
    assert own[metrics].apply(lambda col: col.between(0, 1)).all().all()
    assert "| " + " | ".join(metrics) + " |" in (tables / "lei2017.md").read_text()
    assert "publishes no number for this dataset" in (tables / "lei2017_published.md").read_text()
    # also_conventions: the same models in the standard convention (relevant from label 1, not 2)
    standard = pd.read_csv(tables / "lei2017.standard.csv", dtype={"k": str})
    mine, theirs = own.set_index("method"), standard[standard.ranker == "own"].set_index("method")
    assert (theirs.loc[mine.index, "P@10"] >= mine["P@10"]).all() and (theirs["P@10"] > mine.loc[theirs.index, "P@10"]).any()
    assert "standard convention" in (tables / "lei2017.standard.md").read_text()
    # the report's own evaluation (also_conventions lei2017): labels 2-4 relevant as in mslr, a
    # query shorter than k divided by its n documents, not k: never below mslr's P@k
    report = pd.read_csv(tables / "lei2017.lei2017.csv", dtype={"k": str})
    theirs = report[report.ranker == "own"].set_index("method")
    assert (theirs.loc[mine.index, "P@10"] >= mine["P@10"] - 1e-12).all()
    assert (theirs.loc[mine.index, "P@1"] == mine["P@1"]).all()  # every query has a document
    for method in sampled:  # the report's 10,000-row sample, shrunk: 300 of the fold's training rows
        selection = json.loads((results / f"MSLR-WEB10K-standin/fold1/select/{method}.json").read_text())
        assert selection["n_features"] == 136
        if "n_rows" in selection["chosen"]:
            assert selection["chosen"]["n_rows"] == 300, method
    top = pd.read_csv(tables / "top_features/lei2017.csv")
    names = (REPO / "config/feature_names/mslr.txt").read_text().splitlines()
    assert set(top.method) == set(sampled) and top.name.isin(names).all()
    curve = pd.read_csv(figures / "MSLR-WEB10K-standin_elimination_rf_importance_10k.csv")
    assert curve.n_features.tolist()[:3] == [136, 95, 67] and curve.cv_error.between(0, 1).all()
    bic = pd.read_csv(figures / "MSLR-WEB10K-standin_criterion_ordinal_cr_10k.csv")
    assert bic.chosen.sum() == 1 and bic.minimum.sum() == 1
    chosen, minimum = bic[bic.chosen].iloc[0], bic[bic.minimum].iloc[0]
    assert chosen.bic >= minimum.bic == bic.bic.min() and chosen.n_features <= minimum.n_features
    for method in ("rf_importance_10k", "gbm_importance_10k"):
        importance = pd.read_csv(figures / f"MSLR-WEB10K-standin_importance_plot_{method}.csv")
        assert len(importance) == 136 and importance.name.isin(names).all()
        assert abs(importance.iloc[:, 2].sum() - 1) < 1e-6 and importance.iloc[:, 2].is_monotonic_decreasing
    full = pd.read_csv(tables / "lei2017_full.csv", dtype={"k": str})
    assert set(full.method) - {"file order", "random order"} == {"waf", "l1_logistic", "svm_rfe", "ordinal_cr",
                                                                  "rf_importance", "gbm_importance"}
    selected = full[~full.method.isin(["waf", "file order", "random order"])]
    assert set(selected.ranker) == {"own", "ranksvm_primal", "lambdamart"}
    rf = json.loads((results / "MSLR-WEB10K-standin/fold1/select/rf_importance.json").read_text())
    assert rf["chosen"]["n_rows"] > 300 and "curve" not in rf["chosen"]  # all rows, no curve
    appendix = pd.read_csv(tables / "lei2017_appendix.csv", dtype={"k": str})
    assert set(appendix.ranker) >= {"mart", "rankboost", "lambdamart", "random_forest"}
    # MSLR-WEB30K: the sample from its full stand-in (own models only), RankLib's models on the 5% one
    web30k = pd.read_csv(results / "MSLR-WEB30K-standin/tables/lei2017_web30k.csv", dtype={"k": str})
    assert set(web30k.ranker) == {"own", "(no model)"} and set(web30k.method) == {*sampled, "file order", "random order"}
    assert "running MSLR-WEB30K-standin in place of MSLR-WEB30K (its registry stand_in)" in stderr
    appendix30 = pd.read_csv(results / "MSLR-WEB30K-standin-0.05/tables/lei2017_appendix_web30k.csv", dtype={"k": str})
    assert set(appendix30.ranker) >= {"mart", "random_forest"} and "P@7" in appendix30
    assert set(metrics) <= set(appendix.columns)  # Tables A.1-A.2 at every cutoff they print


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.neural
def test_lyu2024_runs_end_to_end_on_a_generated_mq2008_and_the_stand_ins(tmp_path):
    """The lyu2024 config on a generated MQ2008.zip and the two stand-ins (shrunk), small
    networks and few epochs: each selector's mlp rows at the shares' k (int(r d)), every table in
    the lyu2024 convention (a query without a relevant document scores NDCG 1)."""
    small = {"hidden": [8], "epochs": 2}
    methods = {name: {"params": dict(small)} for name in ("g_l2x_lyu", "l2x", "invase_lyu", "invase",
                                                            "cae_supervised")}
    methods["g_l2x_lyu"]["params"]["anneal_epochs"] = 50
    methods["invase_lyu"]["params"]["reward"] = "none"
    methods["cae_supervised"]["params"].update(supervised=True, anneal_epochs=100)
    methods["lassonet_lyu"] = {"params": {**small, "max_path_steps": 3, "lambda_start": 1.0}}
    methods["tabnet"] = {"params": {"n_d": 8, "n_a": 8, "epochs": 2}}
    methods["tabnet_lyu"] = {"params": {"n_d": 8, "n_a": 8, "epochs": 2, "importance": "per_document"}}
    methods["ifg"] = {"params": {**small, "n_groups": 3, "group_hidden": [8]}}
    for share in ("05", "10", "30"):  # the mask-based selectors trained per share (experiments lyu2024_shareNN)
        k = {"k": int(share) / 100}
        methods[f"g_l2x_lyu_share{share}"] = {"params": {**small, **k, "anneal_epochs": 50}}
        methods[f"l2x_share{share}"] = {"params": {**small, **k}}
        methods[f"cae_supervised_share{share}"] = {"params": {**small, **k, "supervised": True, "anneal_epochs": 100}}
    methods["lambdamart_gain"] = {"params": {"ranker_params": {"n_estimators": 20}}}
    methods["lambdamart_rfe"] = {"params": {"ranker_params": {"n_estimators": 20}, "step": 0.5}}
    shrink = {"generator": {"n_queries": 40, "docs_median": 15}}
    run_on_generated_archives("lyu2024", tmp_path, ("MQ2008",), ("MQ2008",),
                              registry_edits={"MSLR-WEB30K-standin-0.005": shrink, "Yahoo-set2-standin": shrink},
                              methods=methods, rankers={"mlp": {"params": small}})
    config = yaml.safe_load((REPO / "config/papers/lyu2024.yaml").read_text())
    results = tmp_path / "results/lyu2024"
    for name, dataset, d in (("lyu2024", "MQ2008", 46), ("lyu2024_mslr", "MSLR-WEB30K-standin-0.005", 136),
                             ("lyu2024_yahoo", "Yahoo-set2-standin", 700)):
        experiment = config["experiments"][name]
        assert experiment["k"] == [int(r * d) for r in (0.05, 0.1, 0.2, 0.3)]
        table = pd.read_csv(results / dataset / f"tables/{name}.csv", dtype={"k": str})
        table = table[table.ranker != REFERENCE_RANKER]  # the file-order and random-order rows
        assert set(table.ranker) == {"mlp"}
        assert set(table.method) == set(experiment["methods"])
        for method in set(experiment["methods"]) - {"waf"}:
            assert {str(k) for k in experiment["k"]} <= set(table[table.method == method].k), (name, method)
        assert table["NDCG@10"].between(0, 1).all()
    # the mask-based selectors trained per share: each mask of int(r d) features, read at that k alone
    for share, k in (("05", 2), ("10", 4), ("30", 13)):
        experiment = config["experiments"][f"lyu2024_share{share}"]
        assert experiment["k"] == [k] == [int(int(share) / 100 * 46)]
        table = pd.read_csv(results / f"MQ2008/tables/lyu2024_share{share}.csv", dtype={"k": str})
        rows = table[(table.ranker == "mlp") & (table.method != "waf")]
        assert set(rows.method) == set(experiment["methods"]) - {"waf"} and set(rows.k) >= {str(k)}
        for method in set(rows.method):
            record = json.loads((results / f"MQ2008/fold1/select/{method}.json").read_text())
            assert record["chosen"]["k"] == k, (method, record["chosen"])

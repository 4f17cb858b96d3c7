"""End-to-end runs of the Snakemake workflow on a tiny generated dataset: the produced table
is checked against the run files and the models, and reruns do only what changed."""
from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from ltrfs import io, metrics
from ltrfs.formats import load_models, predict
from ltrfs.job_log import read_usage

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

CONFIG = {
    "run": ["tiny"],
    "datasets_file": str(REPO / "config/datasets.yaml"),
    "seed": 7,
    "experiments": {"tiny": {"datasets": ["synthetic-tiny"], "folds": [1, 2],
                             "methods": ["waf", "random", "importance", "fs_ed"], "rankers": ["ranksvm", "lambdamart"],
                             "k": [2, 4, 40], "figure_metrics": ["NDCG@10"]}},
    "chunks": {"divergence": 2},
    "methods": {"waf": {"algorithm": "waf"}, "random": {"algorithm": "random"}, "fs_ed": {"algorithm": "fs_ed"},
                "importance": {"algorithm": "importance", "params": {"metric": "ndcg@10"}}},
    "rankers": {"ranksvm": {"algorithm": "ranksvm", "grid": {"C": [0.001, 0.1]}},
                "lambdamart": {"algorithm": "lambdamart", "params": {"n_estimators": 40, "early_stopping_rounds": 10}}},
}


def snakemake(workdir: Path, *args, check=True, background=False):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir),
           "--configfile", str(workdir / "config.yaml"), "--cores", "2", *args]
    if background:  # in its own process group, so that the test can kill it with its jobs
        log = open(workdir / "interrupted.log", "w")
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    result = subprocess.run(cmd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(result.stdout[-3000:] + result.stderr[-3000:])
    return result


def train_jobs(jobs: dict[str, int]) -> int:
    """The train jobs of a dry run's job stats: rule train (per ranker) and the batched
    ``train_{dataset}_{method}`` rules."""
    return sum(n for rule, n in jobs.items() if rule == "train" or rule.startswith("train_"))


def planned_jobs(result) -> dict[str, int]:
    """Rule -> job count from a dry run's job stats ({} when there is nothing to do)."""
    out = result.stdout + result.stderr
    stats = re.search(r"Job stats:\n.*?\n-+\s+-+\n(.*?)\ntotal", out, re.S)
    if not stats:
        assert "Nothing to be done" in out, out[-2000:]
        return {}
    return {line.split()[0]: int(line.split()[1]) for line in stats.group(1).splitlines() if line.strip()}


def write_config(workdir: Path, config: dict) -> None:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("wf")
    tiny = {**CONFIG["experiments"]["tiny"], "compare": [["importance/ranksvm", "random/ranksvm"]]}
    write_config(workdir, {**CONFIG, "experiments": {"tiny": tiny}})
    (workdir / "run.log").write_text(snakemake(workdir).stderr)
    return workdir


def test_a_finished_run_ends_with_where_its_results_are(finished):
    """The run's last words (before Snakemake's log path) say where the tables, figures and
    leaderboard went, each a folder or file the run filled, and how to make the report."""
    log = finished.joinpath("run.log").read_text().splitlines()
    start = log.index("ltrfs: the run is complete; its results:")
    block = [line for line in log[start + 1:] if line.startswith("ltrfs: ")]
    assert len(block) == len(log[start + 1:start + 1 + len(block)])  # one block, nothing in between
    named = [re.match(r"ltrfs: (\w+) +(\S+)", line).groups() for line in block]
    order = ["tables", "figures", "leaderboard", "report", "fits"]
    kinds = [what for what, _ in named]
    assert set(kinds) == set(order) and kinds == sorted(kinds, key=order.index), block
    for what, path in named:
        if what in ("tables", "figures", "leaderboard"):
            assert (finished / path).is_dir() and any((finished / path).iterdir()) if path.endswith("/") \
                else (finished / path).is_file(), (what, path)
    assert ("tables", "results/synthetic-tiny/tables/") in named
    assert "snakemake --report report.html" in block[-2]
    # the fits shared between methods (share_fits), as the train jobs' info files count them: at
    # least the all-features fit of random, importance and fs_ed (k = 40 is all 12), read from waf's
    infos = [json.loads(p.read_text()) for p in finished.glob("results/synthetic-tiny/fold*/models/*/*.json")]
    total = sum(len(info["k"]) for info in infos)
    shared = sum(bool(entry.get("shared")) for info in infos for entry in info["k"].values())
    assert block[-1] == (f"ltrfs: fits        {shared:,} of {total:,} (ranker, k) fits were another method's, read, "
                         "not fitted again (share_fits)") and shared >= 3 * 2 * 2


def test_the_run_end_names_short_queries_a_letor_convention_zeroes(finished, monkeypatch):
    """The tiny data under its own standard convention: no note. Under letor4 (the config's
    ``conventions``), the run end says how many of the two folds' test queries have fewer than 10
    documents, counted here from the folds' reference files."""
    from ltrfs.config_check import check
    from ltrfs.datasets.registry import load_registry
    from ltrfs.pipeline.plan import Plan

    registry = load_registry(REPO / "config/datasets.yaml")
    config = yaml.safe_load((finished / "config.yaml").read_text())
    monkeypatch.chdir(finished)
    schema = REPO / "workflow/schemas/config.schema.yaml"
    assert Plan(check(dict(config), schema, registry), registry).short_query_notes() == []
    letor = Plan(check({**config, "conventions": {"synthetic-tiny": "letor4"}}, schema, registry), registry)
    test = pd.concat([pd.read_csv(f"results/synthetic-tiny/fold{f}/reference.tsv", sep="\t").assign(fold=f)
                      for f in (1, 2)]).query("split == 'test'").drop_duplicates(["fold", "qid"])
    n_short = int((test.n_docs < 10).sum())
    assert 0 < n_short < len(test)
    assert letor.short_query_notes() == [
        f"note: synthetic-tiny: {n_short} of {len(test)} queries of all folds' test sets have fewer than 10 documents: "
        "letor4 scores their NDCG@10 0 (the LETOR and MSLR scripts' rule); the convention standard computes it on "
        "their documents: set the dataset's `convention:` in the registry, or `conventions: {synthetic-tiny: standard}` "
        "in the config."]


def test_the_results_folder_records_the_library_versions_that_made_it(finished):
    from ltrfs.environment import library_versions

    record = json.loads((finished / "results/versions.json").read_text())
    assert record == {"made_with": library_versions(), "also_run_with": []}
    page = (finished / "results/versions.html").read_text()
    assert "Library versions" in page and f">{record['made_with']['numpy']}</td>" in page


def test_table_matches_runs_and_models(finished):
    root = finished / "results/synthetic-tiny"
    table = pd.read_csv(root / "tables/tiny.csv", dtype={"k": str})
    # 12 features: k = 40 is dropped; WAF is trained once on all 12
    assert set(map(tuple, table[["method", "k"]].drop_duplicates().values)) == {
        ("waf", "12"), ("random", "2"), ("random", "4"), ("random", "vali"),
        ("importance", "2"), ("importance", "4"), ("importance", "vali"),
        ("fs_ed", "2"), ("fs_ed", "4"), ("fs_ed", "vali"), ("file order", "0"), ("random order", "0")}
    assert set(table.ranker) == {"ranksvm", "lambdamart", "(no model)"} and (table.folds == 2).all()
    # the reference rows: a constant score in file order (official) and in expectation (tie-aware)
    for name, ties in (("file order", "file_order"), ("random order", "expected")):
        values = []
        for fold in (1, 2):
            data = io.load_npz(root / f"fold{fold}/data/test.npz")
            values.append(metrics.evaluate(data.y, np.zeros(data.n_rows), data.query_ptr, "standard",
                                           ties=ties).map.mean())
        ref = table[table.method == name].iloc[0]
        assert ref["MAP"] == pytest.approx(np.mean(values), abs=1e-6)
    # compare: importance vs random with RankSVM, each at its vali-chosen k, paired over the test queries
    comp = pd.read_csv(root / "tables/tiny_compare.csv")
    assert set(comp["at"]) == {"chosen", "k"}  # and at every k both sides have (the figures' marks)
    comp = comp[comp["at"] == "chosen"].set_index("metric")
    mine = table[(table.ranker == "ranksvm") & (table.k == "vali")].set_index("method")
    assert comp.loc["NDCG@10", "mean_a"] == pytest.approx(mine.loc["importance", "NDCG@10"], abs=1e-6)
    assert comp.loc["NDCG@10", "mean_b"] == pytest.approx(mine.loc["random", "NDCG@10"], abs=1e-6)
    assert 0 <= comp.loc["NDCG@10", "p"] <= 1 and "#### Paired t-tests" in (root / "tables/tiny.md").read_text()
    # vali rows (which choose k) are tie-aware, test rows are the official evaluation
    run = pd.read_csv(root / "fold1/runs/importance/ranksvm.tsv", sep="\t")
    assert set(run[run.split == "vali"].ties) == {"expected"} and set(run[run.split == "test"].ties) == {"file_order"}
    # every table cell is the mean over folds of the run files' per-query test values...
    row = table[(table.method == "importance") & (table.ranker == "ranksvm") & (table.k == "4")].iloc[0]
    fold_means = []
    for fold in (1, 2):
        run = pd.read_csv(root / f"fold{fold}/runs/importance/ranksvm.tsv", sep="\t")
        test = run[(run.k == 4) & (run.split == "test")]
        fold_means.append(test["NDCG@10"].mean())
        # ...and the run file holds the metrics of the saved model's scores on the test split
        data = io.load_npz(root / f"fold{fold}/data/test.npz")
        model = load_models(root / f"fold{fold}/models/importance/ranksvm.model")[4]
        qm = metrics.evaluate(data.y, predict(model, data), data.query_ptr, "standard")
        np.testing.assert_allclose(test["NDCG@10"].to_numpy(), qm.ndcg[:, 9], atol=1e-8)
        selection = json.loads((root / f"fold{fold}/select/importance.json").read_text())
        assert sorted(np.asarray(selection["ranking"][:4]) - 1) == sorted(model["features"].tolist())
    assert row["NDCG@10"] == pytest.approx(np.mean(fold_means), abs=1e-6)
    assert row["NDCG@10_std"] == pytest.approx(np.std(fold_means, ddof=1), abs=1e-6)
    md = (root / "tables/tiny.md").read_text()
    assert f"{row['NDCG@10']:.4f} ± {row['NDCG@10_std']:.4f}" in md
    assert (finished / "results/figures/tiny/synthetic-tiny_NDCG10.png").stat().st_size > 10_000
    # a log per (fold, method, ranker) and a benchmark file per batched job (fold, method)
    assert len(list((finished / "logs/train").rglob("*.log"))) == 16
    assert len(list((finished / "benchmarks/train").rglob("*.tsv"))) == 8
    assert "train ranksvm: 1 of 1 k values" in (finished / "logs/train/synthetic-tiny/fold1/waf/ranksvm.log").read_text()
    assert "train lambdamart: 1 of 1" in (finished / "logs/train/synthetic-tiny/fold1/waf/lambdamart.log").read_text()


@pytest.mark.long
def test_the_tables_compare_every_pair_of_one_ranker(finished):
    """tiny_pairs.csv: per ranker and k (2, 4 and the vali choice) one family of the 4 methods'
    6 pairs (WAF joins at its one k) on the 2 folds' pooled test queries, Holm over the family;
    the Markdown shows the vali families."""
    root = finished / "results/synthetic-tiny/tables"
    pairs = pd.read_csv(root / "tiny_pairs.csv", dtype={"k": str})
    assert set(zip(pairs.ranker, pairs.k)) == {(r, k) for r in ("ranksvm", "lambdamart") for k in ("2", "4", "vali")}
    assert (pairs.groupby(["ranker", "k"]).size() == 6).all() and (pairs.p_holm >= pairs.p - 1e-12).all()
    test = pd.read_csv(root.parent / "fold1/reference.tsv", sep="\t").query("split == 'test' and ties == 'file_order'")
    test2 = pd.read_csv(root.parent / "fold2/reference.tsv", sep="\t").query("split == 'test' and ties == 'file_order'")
    assert (pairs.n == len(test) + len(test2)).all()
    assert "#### Every pair of methods, k chosen on vali" in (root / "tiny.md").read_text()


def test_per_ranker_train_jobs_give_the_same_tables(tmp_path, finished):
    """train_batch: false, one job per ranker (rule train): the same run files and table as the
    batched jobs of the finished run."""
    write_config(tmp_path, {**CONFIG, "train_batch": False})
    assert planned_jobs(snakemake(tmp_path, "-n"))["train"] == 16
    snakemake(tmp_path)
    for path in ["results/synthetic-tiny/tables/tiny.csv",
                 *(f"results/synthetic-tiny/fold{f}/runs/{m}/{r}.tsv" for f in (1, 2) for m in CONFIG["experiments"]["tiny"]["methods"]
                   for r in ("ranksvm", "lambdamart"))]:
        assert (tmp_path / path).read_bytes() == (finished / path).read_bytes(), path


def test_batched_select_jobs_give_the_same_selections_and_tables(tmp_path, finished):
    """select_batch: true, the 4 methods (a baseline and filters each) of a fold in one select job:
    the same rankings, run files, table and leaderboard ranks as the finished run's one job per
    method; each method's log ends with its part's usage (which the leaderboard's cost column
    reads), the job's own log with the whole job's; editing one batched method refits the batch
    and retrains every batched method (the price of the batch, docs/cluster.md)."""
    write_config(tmp_path, {**CONFIG, "select_batch": True})
    jobs = planned_jobs(snakemake(tmp_path, "-n"))
    assert jobs["select_batch_synthetic_tiny"] == 2 and "select" not in jobs
    snakemake(tmp_path)
    methods = CONFIG["experiments"]["tiny"]["methods"]
    for f in (1, 2):
        for m in methods:
            ours, theirs = (json.loads((root / f"results/synthetic-tiny/fold{f}/select/{m}.json").read_text())
                            for root in (tmp_path, finished))
            assert ours.pop("seconds") >= 0 and ours == {k: v for k, v in theirs.items() if k != "seconds"}, (f, m)
            for r in ("ranksvm", "lambdamart"):
                path = f"results/synthetic-tiny/fold{f}/runs/{m}/{r}.tsv"
                assert (tmp_path / path).read_bytes() == (finished / path).read_bytes(), path
            log = (tmp_path / f"logs/select/synthetic-tiny/fold{f}/{m}.log").read_text()
            assert f"{m}: selected in" in log and log.rstrip().splitlines()[-1].split(" INFO ")[1].startswith("part used")
        whole = (tmp_path / f"logs/select_batch/synthetic-tiny/fold{f}.log").read_text().rstrip().splitlines()
        assert whole[-1].split(" INFO ")[1].startswith("job used")
    table = "results/synthetic-tiny/tables/tiny.csv"
    assert (tmp_path / table).read_bytes() == (finished / table).read_bytes()
    ranks = [pd.read_csv(root / "results/leaderboard/tiny/leaderboard.csv") for root in (tmp_path, finished)]
    assert ranks[0].filter(like="rank_").equals(ranks[1].filter(like="rank_"))
    # a batched method's cost: its part of the job (its log's last line) and the scorer jobs it reads
    cost = pd.read_csv(tmp_path / "results/leaderboard/tiny/cost.csv").set_index("method")
    parts = [read_usage((tmp_path / f"logs/select/synthetic-tiny/fold{f}/importance.log").read_text())["cpu_s"]
             + max(read_usage((tmp_path / f"logs/score/synthetic-tiny/fold{f}/single_feature.log").read_text())["cpu_s"],
                   pd.read_csv(tmp_path / f"benchmarks/score/synthetic-tiny/fold{f}/single_feature.tsv", sep="\t").cpu_time.iloc[-1])
             for f in (1, 2)]
    assert cost.loc["importance", "cpu_s"] == pytest.approx(sum(parts) / 2, abs=1e-6)
    config = json.loads(json.dumps({**CONFIG, "select_batch": True}))
    config["methods"]["importance"]["params"]["metric"] = "map"
    write_config(tmp_path, config)
    jobs = planned_jobs(snakemake(tmp_path, "-n"))
    assert jobs["select_batch_synthetic_tiny"] == 2 and train_jobs(jobs) == 2 * len(methods)


def test_leaderboard_follows_the_tables_and_selections(finished):
    root = finished / "results"
    table = pd.read_csv(root / "synthetic-tiny/tables/tiny.csv", dtype={"k": str})
    board = pd.read_csv(root / "leaderboard/tiny/leaderboard.csv").set_index("method")
    assert set(board.index) == {"random", "importance", "fs_ed"} and set(board.scope) == {"tiny"}  # WAF is the bar
    # mean ranks recomputed from the table: blocks (dataset x ranker), each method at its k chosen on vali
    rows = table[(table.k == "vali") & table.method.isin(board.index)]
    wide = rows.pivot(index="ranker", columns="method", values="NDCG@10")
    assert wide.shape == (2, 3) and (board["blocks_NDCG@10"] == 2).all() and (board["datasets_NDCG@10"] == 1).all()
    ranks = wide.rank(axis=1, ascending=False).mean()
    for method in board.index:
        assert board.loc[method, "rank_NDCG@10"] == pytest.approx(ranks[method])
    assert board["rank_NDCG@10"].is_monotonic_increasing  # sorted, best first
    # stability from the folds' selections, by hand: Jaccard of the top-2 and top-4 sets, mean over k
    tops = {f: json.loads((root / f"synthetic-tiny/fold{f}/select/importance.json").read_text())["ranking"] for f in (1, 2)}
    jac = np.mean([len(set(tops[1][:k]) & set(tops[2][:k])) / len(set(tops[1][:k]) | set(tops[2][:k])) for k in (2, 4)])
    assert board.loc["importance", "jaccard"] == pytest.approx(jac)
    # cost: the select job and the scorer jobs it reads, each the larger of the CPU-seconds its
    # log ends with (the kernel's count for the job's Python) and its benchmark's (Snakemake's
    # sample of the job's process tree, the shell that starts it included), mean over the folds
    cost = pd.read_csv(root / "leaderboard/tiny/cost.csv").set_index("method")
    jobs = [f"{stage}/synthetic-tiny/fold{f}/{name}" for f in (1, 2)
            for stage, name in (("select", "importance"), ("score", "single_feature"))]
    used = {job: read_usage((finished / "logs" / f"{job}.log").read_text())["cpu_s"] for job in jobs}
    sampled = {job: pd.read_csv(finished / "benchmarks" / f"{job}.tsv", sep="\t").cpu_time.iloc[-1] for job in jobs}
    assert cost.loc["importance", "cpu_s"] == pytest.approx(sum(max(used[j], sampled[j]) for j in jobs) / 2, abs=1e-6)
    # the log's count misses none of the job's work, only the shell and the interpreter's exit after
    # the line: within 0.05 s here on an idle machine, more than 0.5 s with three runs on two cores
    # (a CI run beside two workflows), so the bound leaves room for load, not for a missed child
    assert all(sampled[j] <= 2 * used[j] + 0.5 for j in jobs)
    small = pd.read_csv(root / "leaderboard/tiny/smallest_k.csv")
    assert len(small) == 6 and set(small.metric) == {"NDCG@10"}
    md = (root / "leaderboard/tiny/leaderboard.md").read_text()
    assert "## Experiment tiny" in md and "Friedman p =" in md and "## How many features can be dropped" in md
    assert ("2 blocks from 1 dataset (the rankers of one dataset share its queries" in md
            and "cannot separate any pair: over 2 blocks the smallest corrected p a pair can reach is 1" in md)
    pairs = pd.read_csv(root / "leaderboard/tiny/pairs.csv")
    assert len(pairs) == 3 * 2 and set(pairs.metric) == {"NDCG@10", "MAP"}
    # the planted features (truth.json): the selectors that find them rank above random
    recovery = pd.read_csv(root / "leaderboard/tiny/planted_recovery.csv")
    assert set(recovery.k) == {2, 4} and (recovery.folds == 2).all()
    for method in ("importance", "fs_ed"):  # (their ranks over 2 blocks tell nothing: the board says so)
        assert board.loc[method, "planted_precision"] > board.loc["random", "planted_precision"]
    assert "## Planted features found" in md
    for png in ("critical_difference/tiny", "stability", "accuracy_vs_cost", "planted_recovery"):
        assert (root / f"leaderboard/tiny/{png}.png").stat().st_size > 10_000
    assert [p.name for p in (root / "leaderboard/tiny/critical_difference").glob("*.png")] == ["tiny.png"]


def report_index(zip_path: Path) -> tuple[dict, dict]:
    """(categories, results) of a Snakemake report zip: the JSON index its report.html embeds;
    each result gets the ``text`` of its file in the zip where that is HTML."""
    with zipfile.ZipFile(zip_path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("report.html"))
        html = archive.read(name).decode()
        index = {key: json.loads(re.search(rf"var {key} = (\{{.*?\}});\n", html, re.S).group(1))
                 for key in ("categories", "results")}
        for entry in index["results"].values():  # every entry's file is in the zip
            member = next((n for n in archive.namelist() if n.endswith(entry["data_uri"])), None)
            assert member is not None, entry["data_uri"]
            if entry["mime_type"] == "text/html":
                entry["text"] = archive.read(member).decode()
    return index["categories"], index["results"]


def test_report_holds_every_table_and_figure_by_experiment(finished, tmp_path):
    snakemake(finished, "--report", str(tmp_path / "report.zip"))
    categories, results = report_index(tmp_path / "report.zip")
    assert set(categories) == {"tiny", "Leaderboard", "Environment"}
    assert {p for paths in categories["Environment"].values() for p in paths} == {"results/versions.html"}
    assert set(categories["tiny"]) == {"Tables", "Figures", "Feature reports"}
    assert set(categories["tiny"]["Tables"]) == {"results/synthetic-tiny/tables/tiny.html",
                                                 "results/synthetic-tiny/tables/top_features/tiny.html"}
    assert categories["tiny"]["Figures"] == ["results/figures/tiny/synthetic-tiny_NDCG10.png"]
    from ltrfs.results.figures import registry

    for path in categories["tiny"]["Feature reports"]:  # each says what it shows: the registry's caption
        report, _ = registry.parse(path.rsplit("/", 1)[1].removeprefix("synthetic-tiny_").removesuffix(".png"))
        assert report.caption[:40] in html.unescape(results[path]["caption"]), (path, results[path]["caption"])
        assert "mailto:" not in results[path]["caption"]
    board = {p for paths in categories["Leaderboard"].values() for p in paths}
    assert {f"results/leaderboard/tiny/{n}" for n in ("leaderboard.html", "critical_difference/tiny.png", "stability.png",
                                                  "accuracy_vs_cost.png", "planted_recovery.png")} == board
    assert results["results/leaderboard/tiny/critical_difference/tiny.png"]["labels"] == {
        "figure": "critical-difference diagram: tiny"}
    # tables are HTML pages (shown inline by the report, not offered as downloads) that hold
    # the Markdown's table, its marks and its footnote
    table = results["results/synthetic-tiny/tables/tiny.html"]
    assert table["labels"] == {"dataset": "synthetic-tiny", "table": "test metrics"}
    assert "standard deviation over folds" in table["caption"] and "tiny" in table["caption"]
    md = (finished / "results/synthetic-tiny/tables/tiny.md").read_text()
    waf = next(line for line in md.splitlines() if line.startswith("| waf |"))
    cells = [c.strip() for c in waf.strip("|").split("|")]
    assert "<table>" in table["text"] and "<td>waf</td>" in table["text"]
    assert all(f">{c}</td>" in table["text"] for c in cells if c), cells
    assert "mean ± standard deviation over the 2 folds" in md and "mean ± standard deviation over the 2 folds" in table["text"]
    board_md = (finished / "results/leaderboard/tiny/leaderboard.md").read_text()
    n_tables = len(re.findall(r"^\|[-:| ]+\|$", board_md, flags=re.M))
    assert n_tables >= 3 and results["results/leaderboard/tiny/leaderboard.html"]["text"].count("<table>") == n_tables


def two_run_config(name: str, methods: list, **top) -> dict:
    """A one-fold, one-ranker config of experiment ``name`` on the tiny data."""
    return {**CONFIG, **top, "run": [name], "chunks": {},
            "experiments": {name: {"datasets": ["synthetic-tiny"], "folds": [1], "methods": methods,
                                   "rankers": ["ranksvm"], "k": [2, 4], "figure_metrics": ["NDCG@10"],
                                   "feature_reports": []}},
            "methods": {m: {"algorithm": m} for m in methods},
            "rankers": {"ranksvm": {"algorithm": "ranksvm", "grid": {"C": [0.1]}}}}


@pytest.mark.long
def test_two_configs_in_one_results_folder_keep_their_leaderboards_and_reports(tmp_path):
    """The default config, then another one (run_name "second"), in one working directory: each
    run's leaderboard is in its own folder and names only its experiment, a dry run of either
    plans nothing afterwards (no leaderboard rerun on a params change), and each report holds
    only its own run's tables, figures and leaderboard. One fold: the table says "fold 1 only",
    the leaderboard "one fold: no stability"."""
    first = two_run_config("a", ["waf", "random", "importance", "pearson"])
    second = two_run_config("b", ["waf", "pearson", "ig", "chi"], run_name="second")
    (tmp_path / "second.yaml").write_text(yaml.safe_dump(second))
    write_config(tmp_path, first)
    snakemake(tmp_path)
    snakemake(tmp_path, "--configfile", str(tmp_path / "second.yaml"))
    boards = tmp_path / "results/leaderboard"
    assert sorted(p.name for p in boards.iterdir()) == ["a", "second"]
    for folder, scope, methods in (("a", "a", {"random", "importance", "pearson"}), ("second", "b", {"pearson", "ig", "chi"})):
        board = pd.read_csv(boards / folder / "leaderboard.csv")
        assert set(board.scope) == {scope} and set(board.method) == methods
        assert [p.name for p in (boards / folder / "critical_difference").glob("*.png")] == [f"{scope}.png"]
        md = (boards / folder / "leaderboard.md").read_text()
        assert f"## Experiment {scope}" in md and "one fold: no stability" in md
    # the second run did not touch the first one's files, and neither run plans anything now
    for configfile in (tmp_path / "config.yaml", tmp_path / "second.yaml"):
        dry = snakemake(tmp_path, "-n", "--configfile", str(configfile))
        assert planned_jobs(dry) == {}, (dry.stdout + dry.stderr)[-3000:]
    table = (tmp_path / "results/synthetic-tiny/tables/a.md").read_text()
    assert "Test metrics, fold 1 only (one fold: no standard deviation)" in table and "±" not in table
    assert "| waf | ranksvm | all (12) |" in table
    for configfile, scope, folder in ((tmp_path / "config.yaml", "a", "a"), (tmp_path / "second.yaml", "b", "second")):
        snakemake(tmp_path, "--configfile", str(configfile), "--report", str(tmp_path / f"{scope}.zip"))
        categories, results = report_index(tmp_path / f"{scope}.zip")
        assert set(categories) == {scope, "Leaderboard", "Environment"}  # the versions page of the folder
        board = {p for paths in categories["Leaderboard"].values() for p in paths}
        assert board and all(p.startswith(f"results/leaderboard/{folder}/") for p in board), board
        assert results[f"results/leaderboard/{folder}/critical_difference/{scope}.png"]["labels"] == {
            "figure": f"critical-difference diagram: {scope}"}
        tables = {p for sub in categories[scope].values() for p in sub if "/tables/" in p}
        assert tables == {f"results/synthetic-tiny/tables/{scope}.html",
                          f"results/synthetic-tiny/tables/top_features/{scope}.html"}


def test_k_above_the_features_is_said_on_the_terminal(tmp_path):
    """k: [100, 200] on the 12 features of the tiny data: the config check says, once, on the
    terminal, that these rows use all 12 features; the dry run goes on."""
    config = two_run_config("big", ["waf", "importance"])
    config["experiments"]["big"]["k"] = [100, 200]
    write_config(tmp_path, config)
    dry = snakemake(tmp_path, "-n")
    line = ("ltrfs: experiment big: k 100, 200 exceed the 12 features: all 12 are kept on synthetic-tiny (the "
            "\"all (12)\" row of tables and figures)")
    assert dry.stderr.count(line) == 1, dry.stderr[-3000:]
    assert planned_jobs(dry)["train_synthetic_tiny_importance"] == 1


def test_feature_reports_follow_the_methods(finished):
    figures = finished / "results/figures/tiny/features"
    # importance and fs_ed read the single-feature table; fs_ed draws its densities and the
    # bars at the vali-chosen k (Gupta & Rosso Fig. 2); no Kendall
    assert sorted(p.name for p in figures.glob("*.png")) == [
        "synthetic-tiny_chosen_k.png", "synthetic-tiny_densities_fs_ed.png", "synthetic-tiny_importance_MAP.png"]
    chosen = pd.read_csv(figures / "synthetic-tiny_chosen_k.csv", dtype={"k": str})
    table = pd.read_csv(finished / "results/synthetic-tiny/tables/tiny.csv", dtype={"k": str})
    assert len(chosen) == 8  # 4 methods x 2 rankers, WAF at its single k, the others at k = vali
    for row in chosen.to_dict("records"):
        mine = table[(table.method == row["method"]) & (table.ranker == row["ranker"]) & (table.k == row["k"])]
        assert row["k"] == ("12" if row["method"] == "waf" else "vali")
        assert mine["NDCG@10"].iloc[0] == pytest.approx(row["NDCG@10"], abs=1e-6)
    bars = pd.read_csv(figures / "synthetic-tiny_importance_MAP.csv")
    fold_means = np.mean([np.load(finished / f"results/synthetic-tiny/fold{f}/scores/single_feature.npz")["map"]
                          for f in (1, 2)], axis=0)
    np.testing.assert_allclose(bars.iloc[:, 1], fold_means, atol=1e-6)
    top = pd.read_csv(finished / "results/synthetic-tiny/tables/top_features/tiny.csv")
    selection = json.loads((finished / "results/synthetic-tiny/fold1/select/fs_ed.json").read_text())
    assert top[top.method == "fs_ed"].feature.tolist() == selection["ranking"][:10]
    assert set(top.method) == {"random", "importance", "fs_ed"}  # WAF ranks nothing


def test_own_ranker_runs_only_for_methods_with_a_model(tmp_path):
    config = {**CONFIG, "experiments": {"tiny": {**CONFIG["experiments"]["tiny"], "methods": ["waf", "ordinal_cr"],
                                                 "rankers": ["ranksvm", "own"]}},
              "methods": {**CONFIG["methods"], "ordinal_cr": {"algorithm": "ordinal_cr"}},
              "rankers": {**CONFIG["rankers"], "own": {"algorithm": "own"}}}
    write_config(tmp_path, config)
    out = snakemake(tmp_path, "-n")
    # per fold: waf and ordinal_cr with ranksvm, ordinal_cr with its own model; not waf with own
    assert planned_jobs(out)["train_synthetic_tiny_ordinal_cr"] == 2 and planned_jobs(out)["train_synthetic_tiny_waf"] == 2
    assert re.search(r"rule train_synthetic_tiny_ordinal_cr:\n    input: [^\n]*select/ordinal_cr.model", out.stdout)
    assert "runs/waf/own.tsv" not in out.stdout + out.stderr


def test_chunked_scorer_equals_one_job(finished):
    from ltrfs import scoring

    fold = finished / "results/synthetic-tiny/fold1"
    assert sorted(p.name for p in (fold / "scores").glob("divergence.chunk*")) == [
        "divergence.chunk1of2.npz", "divergence.chunk2of2.npz"]
    whole = scoring.compute("divergence", io.load_npz(fold / "data/train.npz"), "standard",
                            io.load_npz(fold / "data/vali.npz"))
    with np.load(fold / "scores/divergence.npz") as merged:
        np.testing.assert_array_equal(merged["divergence"], whole["divergence"])


def test_rerun_does_nothing_and_a_method_edit_reruns_only_that_method(finished):
    assert planned_jobs(snakemake(finished, "-n")) == {}
    original = (finished / "config.yaml").read_text()
    config = json.loads(json.dumps(CONFIG))
    config["methods"]["importance"]["params"]["metric"] = "map"
    write_config(finished, config)
    try:
        jobs = planned_jobs(snakemake(finished, "-n"))
        # 2 folds x (1 selection + 2 rankers x train, which also evaluates), then the table, its figure,
        # the bars at the chosen k and the top-feature table (the importance bars read the
        # unchanged score files)
        assert jobs == {"select": 2, "train_synthetic_tiny_importance": 2, "tables": 1, "figure_metric_vs_k": 1,
                        "feature_report": 1, "top_features": 1, "leaderboard": 1, "all": 1}
        # a new k retrains the methods that use k, not WAF, and selects nothing again
        config = json.loads(json.dumps(CONFIG))
        config["experiments"]["tiny"]["k"].append(3)
        write_config(finished, config)
        jobs = planned_jobs(snakemake(finished, "-n"))
        assert jobs == {"train_synthetic_tiny_random": 2, "train_synthetic_tiny_importance": 2,
                        "train_synthetic_tiny_fs_ed": 2, "tables": 1, "figure_metric_vs_k": 1, "feature_report": 1,
                        "leaderboard": 1, "all": 1}
    finally:  # the fixture's own config (with its compare pair), so that later tests find the run unchanged
        (finished / "config.yaml").write_text(original)
    assert planned_jobs(snakemake(finished, "-n")) == {}


def test_bad_config_is_one_line(tmp_path):
    config = json.loads(json.dumps(CONFIG))
    config["experiments"]["tiny"]["methods"].append("fs_edd")
    write_config(tmp_path, config)
    result = snakemake(tmp_path, "-n", check=False)
    assert result.returncode != 0
    assert "ltrfs: config experiments.tiny.methods: unknown method 'fs_edd' (did you mean 'fs_ed'?); valid: fs_ed, importance, random, waf" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.long
def test_interrupted_run_resumes_with_only_the_unfinished_jobs(tmp_path, finished):
    write_config(tmp_path, CONFIG)
    total = sum(planned_jobs(snakemake(tmp_path, "-n")).values())
    proc = snakemake(tmp_path, background=True)
    selections = tmp_path / "results/synthetic-tiny/fold1/select"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(selections.glob("*.json"))) < 2:
        time.sleep(0.2)
    # Ctrl-C, as a terminal sends it: SIGINT to the whole process group. (SIGTERM is not used:
    # Snakemake's SIGTERM handler takes the scheduler's non-reentrant lock and can deadlock when
    # the signal lands while the scheduler holds it.)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("snakemake did not stop on Ctrl-C:\n"
                             + (tmp_path / "interrupted.log").read_text()[-3000:]) from None
    # outputs of the jobs the interrupt cut short may exist (written, not yet reported done):
    # Snakemake must rerun those, and keep every other output as it is. The next dry run plans
    # exactly the jobs to rerun; an output of none of them must stay as it is.
    dry = snakemake(tmp_path, "-n")
    blocks = re.findall(r"^\s*output: ([^\n]*)", dry.stdout + dry.stderr, re.M)
    cut_short = {tmp_path / path for block in blocks for path in block.split(", ")}
    # ... and a planned job whose outputs exist is planned only because they are incomplete. With
    # the profile's rerun-incomplete, Snakemake adds incomplete outputs to its forced files, and
    # such a job reads "Forced execution" (nothing else forces a job here: no --forcerun).
    for job in re.split(r"\n\s*\n", dry.stdout + dry.stderr):
        out = re.search(r"^\s*output: ([^\n]*)", job, re.M)
        if out and any((tmp_path / path).exists() for path in out.group(1).split(", ")):
            assert "Incomplete output files" in job or "Forced execution" in job, job
    done = {p: p.stat().st_mtime_ns for p in (tmp_path / "results").rglob("*")
            if p.is_file() and not p.name.startswith(".") and p not in cut_short}
    assert done, "the run was interrupted before any output"
    remaining = sum(planned_jobs(dry).values())
    assert 0 < remaining < total
    snakemake(tmp_path)
    # the finished outputs were kept as they were, and the table is there now: byte-identical
    # to the table of the uninterrupted run with the same config (determinism)
    rewritten = sorted(str(p.relative_to(tmp_path)) for p, t in done.items() if p.stat().st_mtime_ns != t)
    assert not rewritten, rewritten
    table = "results/synthetic-tiny/tables/tiny.csv"
    assert (tmp_path / table).read_bytes() == (finished / table).read_bytes()


@pytest.mark.long
def test_killed_run_resumes_with_the_same_command(tmp_path, finished):
    """kill -9 of Snakemake and its jobs (a crash, a power cut) at three points of a run; the same
    command again, without --unlock, removes the dead run's lock, reruns the jobs cut short and
    ends with the tables, run files and top features of an uninterrupted run, byte for byte."""
    write_config(tmp_path, CONFIG)
    results = tmp_path / "results/synthetic-tiny"
    points = [("fold*/select/*.json", 1), ("fold*/runs/*/*.tsv", 3), ("fold*/runs/*/*.tsv", 12)]
    for n, (pattern, count) in enumerate(points):
        proc = snakemake(tmp_path, background=True)
        deadline = time.time() + 300
        while time.time() < deadline and len(list(results.glob(pattern))) < count and proc.poll() is None:
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        log = (tmp_path / "interrupted.log").read_text()
        assert len(list(results.glob(pattern))) >= count, log[-3000:]
        assert list((tmp_path / ".snakemake/locks").glob("*.lock")), "the killed run left no lock"
        if n:  # every rerun found the previous run's lock and removed it
            assert "ltrfs: removed the lock of the run started" in log and "LockException" not in log, log[-3000:]
    done = snakemake(tmp_path)
    assert "ltrfs: removed the lock of the run started" in done.stderr
    assert not list((tmp_path / ".snakemake/locks").glob("*.lock"))
    same = ["tables/tiny.csv", "tables/top_features/tiny.csv", "tables/top_features/tiny.md",
            *(str(p.relative_to(finished / "results/synthetic-tiny")) for p in
              (finished / "results/synthetic-tiny").glob("fold*/runs/*/*.tsv"))]
    assert len(same) == 3 + 2 * 4 * 2  # 2 folds x 4 methods x 2 rankers
    for name in same:
        assert (results / name).read_bytes() == (finished / "results/synthetic-tiny" / name).read_bytes(), name


def test_a_failing_job_says_why_in_its_log_and_leaves_no_output(tmp_path, finished):
    """One job per stage fails on a damaged input (from the last stage to the first, download,
    in a copy of the finished run): the job's log holds the one-line error naming the damaged file, and
    none of the job's outputs is left for a rerun to trust."""
    import shutil

    work = tmp_path / "wf"
    shutil.copytree(finished, work, symlinks=True)
    r = "results/synthetic-tiny"
    stages = [  # (the damaged input, what to write in it, a target of the failing job, its other outputs)
        (f"{r}/tables/tiny.csv", "method,ranker\nx", "results/leaderboard/tiny/leaderboard.md",
         ["results/leaderboard/tiny/leaderboard.csv", "results/leaderboard/tiny/leaderboard.html"]),
        (f"{r}/fold1/runs/random/ranksvm.tsv", "garbage\n", f"{r}/tables/tiny.csv", [f"{r}/tables/tiny.md"]),
        (f"{r}/fold1/select/importance.json", "{not json", f"{r}/fold1/runs/importance/ranksvm.tsv",
         [f"{r}/fold1/runs/importance/lambdamart.tsv", f"{r}/fold1/models/importance/ranksvm.model"]),
        (f"{r}/fold1/scores/single_feature.npz", "not a zip", f"{r}/fold1/select/importance.json", []),
        (f"{r}/fold1/data/train.npz", "not a zip", f"{r}/fold1/scores/single_feature.npz", []),
        ("resources/synthetic-tiny/data/all.txt", None, f"{r}/fold1/data/train.npz",
         [f"{r}/fold1/data/vali.npz", f"{r}/fold1/data/test.npz"]),
    ]
    # the first stage, download: a damaged archive given as the local path of a registry entry
    registry = (REPO / "config/datasets.yaml").read_text().replace(
        "feature_names: feature_names/", f"feature_names: {REPO}/config/feature_names/")
    (work / "datasets.yaml").write_text(registry + "\nbroken:\n  path: broken.zip\n  layout: folds\n")
    stages.append(("broken.zip", "not a zip", "resources/broken/manifest.json", []))
    for damaged, text, target, others in stages:
        if text is None:  # a label flipped in place, same size: only the recorded checksum tells
            raw = (work / damaged).read_bytes()
            at = raw.index(b"\n") + 1
            (work / damaged).write_bytes(raw[:at] + (b"1" if raw[at:at + 1] == b"0" else b"0") + raw[at + 1:])
        else:
            (work / damaged).write_text(text)
        if damaged == "broken.zip":
            write_config(work, {**CONFIG, "datasets_file": str(work / "datasets.yaml")})
        result = snakemake(work, "-f", target, check=False)
        out = result.stdout + result.stderr
        assert result.returncode != 0, out[-2000:]
        logs = re.findall(r"^\s*log: (.+?) \(check log file", out, re.M)
        assert logs, out[-3000:]
        # a batched train job has one log per ranker: the error is in the one it was writing
        log = "".join((work / path).read_text() for path in logs[0].split(", "))
        assert "ltrfs: error: " in log and damaged.split("/")[-1] in log.split("ltrfs: error: ")[1], (target, log)
        assert "Traceback" not in log, log  # a damaged input is the user's problem: one line, no traceback
        for path in [target, *others]:
            assert not (work / path).exists(), f"{path} left behind by the failed job"


def test_a_live_runs_lock_is_kept(tmp_path):
    """The lock of a live Snakemake process of this host stays (here a process whose command
    line says snakemake stands in for it) and the run stops as Snakemake always did; once that
    process is gone, the same command removes the lock."""
    import socket

    from ltrfs import runlock

    write_config(tmp_path, CONFIG)
    locks = tmp_path / ".snakemake/locks"
    locks.mkdir(parents=True)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "snakemake"])
    try:
        (locks / "0.output.lock").write_text("results/leaderboard/tiny/leaderboard.md\n")
        (tmp_path / ".snakemake" / runlock.OWNER).write_text(json.dumps(
            {"host": socket.gethostname(), "pid": live.pid, "started": "now"}))
        result = snakemake(tmp_path, check=False)
        assert result.returncode != 0 and "LockException" in result.stdout + result.stderr
        assert (locks / "0.output.lock").exists() and "removed the lock" not in result.stderr
    finally:
        live.kill()
        live.wait()
    result = snakemake(tmp_path, "-n")
    assert f"ltrfs: removed the lock of the run started now (process {live.pid} on" in result.stderr
    assert not (locks / "0.output.lock").exists()


def test_slurm_profile_asks_resources_that_grow_with_the_input(finished):
    """On the finished run (every input present), a forced dry run through profiles/slurm
    prints what the run's jobs would ask in sum, and each batched train job's request is the
    calibrated line's at the job's size (``ltrfs.pipeline.resources.request``: rows of its
    three splits x features held; rows of train and vali x the sum of its rankers' k worked on,
    k capped at the 12 features), with its rankers' threads, and no placeholder partition or
    account (the cluster's default partition, no -A)."""
    from ltrfs.pipeline.resources import npz_shape, request

    result = snakemake(finished, "-n", "-F", "--profile", str(REPO / "profiles/slurm"))
    out = result.stdout + result.stderr
    assert re.search(r"ltrfs: requests of \d+ download, prepare, score, select and train jobs: [\d.]+ CPU-hours "
                     r"predicted, [\d.]+ core-hours requested; largest memory [\d.]+ GB \(\w+ ", out), out[-3000:]
    blocks = re.split(r"(?m)^(?=(?:local)?rule \w+:)", out)
    jobs = [block for block in blocks if block.startswith("rule train_synthetic_tiny_importance:")
            and "wildcards: fold=1" in block]
    assert len(jobs) == 1, out[-3000:]
    resources = dict(item.split("=", 1) for item in re.search(r"resources: (.*)", jobs[0]).group(1).split(", "))
    fold = finished / "results/synthetic-tiny/fold1"
    shapes = {split: npz_shape(fold / f"data/{split}.npz") for split in ("train", "vali", "test")}
    d = shapes["train"][1]
    held = sum(s[0] for s in shapes.values()) * d
    work = (shapes["train"][0] + shapes["vali"][0]) * 2 * (2 + 4 + min(40, d))  # two rankers, k = 2, 4, all
    mem, minutes, _ = request("train", "ranksvm+lambdamart", held, work, d)
    assert (int(resources["mem_mb"]), int(resources["runtime"])) == (mem, minutes)
    assert "slurm_partition" not in resources and "slurm_account" not in resources
    scores = [block for block in blocks if block.startswith("rule score:")]
    threads = {re.search(r"scorer=(\w+)", b).group(1): re.search(r"threads: (\d+)", b) for b in scores}
    assert {name: m.group(1) if m else "1" for name, m in threads.items()} == {"single_feature": "2", "divergence": "1"}  # divergence: merges chunks


def test_generic_cluster_profile_dry_run(tmp_path):
    write_config(tmp_path, CONFIG)
    result = snakemake(tmp_path, "-n", "--profile", str(REPO / "profiles/generic"))
    assert train_jobs(planned_jobs(result)) == 8


def test_workflow_passes_snakemake_lint():
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint", "-s", str(REPO / "Snakefile")],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_every_rule_has_a_log_and_a_benchmark():
    rules = {}
    for path in [REPO / "Snakefile", *sorted((REPO / "workflow/rules").glob("*.smk"))]:
        for block in re.split(r"\n(?=(?:local)?rule )", path.read_text()):
            match = re.match(r"(?:local)?rule (\w+):", block)
            if match and match.group(1) != "all":
                rules[match.group(1)] = ("    log:" in block, "    benchmark:" in block)
    assert len(rules) >= 15
    assert {name for name, (log, bench) in rules.items() if not (log and bench)} == set()


ALL_ARTEFACTS_CONFIG = {
    **CONFIG,
    "experiments": {"tiny": {**CONFIG["experiments"]["tiny"], "methods": ["waf", "greedy", "fsm", "gas", "rf", "fs_ed", "cr"],
                             "rankers": ["rankrls"], "k": [2, 4]}},
    "methods": {**CONFIG["methods"], "greedy": {"algorithm": "greedy_rankrls", "params": {"k": 6}},
                "fsm": {"algorithm": "fsmrank", "params": {"lambda1": 0.01, "lambda2": 0.001}},
                "gas": {"algorithm": "gas_e", "params": {"c": 0.1}},
                "rf": {"algorithm": "rf_importance", "params": {"n_estimators": 20, "cv": 2}},
                "cr": {"algorithm": "ordinal_cr"}},
    "rankers": {"rankrls": {"algorithm": "rankrls", "params": {"lam": 4.0}}},
}


def test_registry_decides_the_feature_report_targets():
    """The workflow draws exactly the feature reports the registry declares possible for the methods."""
    from ltrfs.results.figures import registry
    from ltrfs.selection import SELECTORS

    methods = {m: ALL_ARTEFACTS_CONFIG["methods"][m] for m in ALL_ARTEFACTS_CONFIG["experiments"]["tiny"]["methods"]}
    assert registry.stems(methods, SELECTORS) == [
        "importance_MAP", "importance_NDCG10", "kendall", "densities_fs_ed", "elimination_rf", "importance_plot_rf",
        "criterion_cr", "chosen_k", "path_greedy", "convergence_fsm", "nonzero_fsm"]
    assert registry.stems({"waf": {"algorithm": "waf"}}, SELECTORS) == []
    assert registry.stems({"rf": {"algorithm": "rf_importance", "params": {"curve": False}}},
                           SELECTORS) == ["importance_plot_rf"]  # no curve: no elimination figure


@pytest.mark.long
def test_every_declared_feature_report_is_drawn_from_its_stage_files(tmp_path):
    """A dry run plans exactly the registry's feature reports (one job each, rule ``feature_report``); the run
    draws every declared feature report; the figures only read what the stages wrote: the Greedy
    RankRLS path from ``paths/{method}.tsv`` (per-query test metrics of the path's own models),
    the FS-ED densities from ``densities/{method}.tsv``, the FSMRank convergence from
    ``convergence/{method}.tsv`` (both solvers' traces, checked against the selection's)."""
    from ltrfs.results.figures import registry
    from ltrfs.selection import SELECTORS

    config = ALL_ARTEFACTS_CONFIG
    write_config(tmp_path, config)
    methods = {m: config["methods"][m] for m in config["experiments"]["tiny"]["methods"]}
    expected = set(registry.stems(methods, SELECTORS))
    assert {registry.parse(stem)[0].name for stem in expected} == set(registry.FEATURE_REPORTS)  # all declared
    dry = snakemake(tmp_path, "-n")
    planned = set(re.findall(r"features/synthetic-tiny_([^,\s]+)\.png", dry.stdout + dry.stderr))
    assert planned == expected
    assert planned_jobs(dry)["feature_report"] == len(expected)
    snakemake(tmp_path)
    figures = tmp_path / "results/figures/tiny/features"
    for stem in expected:
        assert (figures / f"synthetic-tiny_{stem}.png").stat().st_size > 10_000, stem
        assert (figures / f"synthetic-tiny_{stem}.pdf").stat().st_size > 0, stem
        assert len(pd.read_csv(figures / f"synthetic-tiny_{stem}.csv")) > 0, stem
    root = tmp_path / "results/synthetic-tiny"

    # Greedy RankRLS: the path file holds the per-query test metrics of the path's own models...
    path = pd.read_csv(figures / "synthetic-tiny_path_greedy.csv")
    assert sorted(set(path["lambda"])) == ["2^-7", "2^2", "2^6", "2^8"] and path.k.max() == 6
    values = []
    for fold in (1, 2):
        entry = json.loads((root / f"fold{fold}/select/greedy.json").read_text())["details"]["lambdas"][repr(4.0)]
        test = io.load_npz(root / f"fold{fold}/data/test.npz")
        scores = test.X.astype(float)[:, entry["order"][:3]] @ np.asarray(entry["coef"][2])
        per_query = metrics.metric_per_query(test.y, scores, test.query_ptr, "map", "standard")
        stage = pd.read_csv(root / f"fold{fold}/paths/greedy.tsv", sep="\t", dtype={"lambda": str})
        stage = stage[(stage["lambda"] == repr(4.0)) & (stage.k == 3)]
        assert set(stage.ties) == {"file_order"} and stage.qid.tolist() == test.query_ids.tolist()
        np.testing.assert_allclose(stage.MAP.to_numpy(), per_query, atol=1e-8)
        values.append(per_query.mean())
    # ...and the figure shows their fold mean: lambda 2^2, k = 3
    row = path[(path["lambda"] == "2^2") & (path.k == 3)]
    assert row.MAP.iloc[0] == pytest.approx(np.mean(values), abs=1e-6)

    # FSMRank: the accelerated proximal gradient repeats the fit's own iterates; both from a stage file
    conv = pd.read_csv(figures / "synthetic-tiny_convergence_fsm.csv")
    assert set(conv.solver) == {"FSMRank (accelerated proximal gradient)", "projected subgradient"}
    fsm = conv[conv.solver.str.startswith("FSMRank")].objective.to_numpy()
    sub = conv[conv.solver == "projected subgradient"].objective.to_numpy()
    trace = json.loads((root / "fold1/select/fsm.json").read_text())["details"]["trace"]
    np.testing.assert_allclose(fsm, trace["objective"], rtol=1e-5)  # the CSV keeps 6 digits
    assert len(sub) == 401  # the selection's max_iter (400) iterations after the start
    assert fsm[-1] <= sub[-1] and fsm[-1] < fsm[0]

    # FS-ED: top and last feature by psi, the last one skipping constant and all-zero features
    dens = pd.read_csv(figures / "synthetic-tiny_densities_fs_ed.csv")
    selection = json.loads((root / "fold1/select/fs_ed.json").read_text())
    train = io.load_npz(root / "fold1/data/train.npz")
    useful = [f for f in selection["ranking"] if f not in selection["constant_features"]
              and np.any(train.X[:, f - 1] != 0)]
    assert list(dict.fromkeys(dens.feature)) == [useful[0], useful[-1]]


@pytest.mark.neural
def test_the_neural_methods_add_to_a_finished_run_without_redoing_it(tmp_path, finished):
    """A finished run with a neural selector and the mlp ranker added (what config/leaderboard_neural.yaml
    does to the plain board): the dry run plans the new selector's jobs and one mlp train job per
    (method, fold), not the finished batched train jobs; after the run the board's cross table has
    the three rankers' columns."""
    import shutil

    workdir = tmp_path / "wf"
    shutil.copytree(finished, workdir, symlinks=True)
    tiny = {**CONFIG["experiments"]["tiny"], "compare": [["importance/ranksvm", "random/ranksvm"]]}
    methods = {**CONFIG["methods"], "g_l2x": {"algorithm": "g_l2x", "params": {"hidden": [8], "epochs": 2}}}
    rankers = {**CONFIG["rankers"], "mlp": {"algorithm": "mlp", "params": {"hidden": [8], "epochs": 2}}}
    tiny.update(methods=[*tiny["methods"], "g_l2x"], rankers=[*tiny["rankers"], "mlp"])
    write_config(workdir, {**CONFIG, "experiments": {"tiny": tiny}, "methods": methods, "rankers": rankers})
    jobs = planned_jobs(snakemake(workdir, "-n"))
    assert jobs["select"] == 2 and jobs["train_synthetic_tiny_g_l2x"] == 2  # the new method's, on 2 folds
    assert jobs["train"] == 2 * 5  # mlp for each of the 5 methods on each fold, in jobs of its own
    assert not [rule for rule in jobs if rule.startswith("train_") and rule != "train_synthetic_tiny_g_l2x"]
    snakemake(workdir)
    cross = pd.read_csv(workdir / "results/leaderboard/tiny/cross_family.csv")
    assert set(cross.ranker) == {"ranksvm", "lambdamart", "mlp"}
    assert set(cross.family) == {"baseline", "filter", "neural"}  # random; importance, fs_ed; g_l2x
    assert "## Selector family x ranker" in (workdir / "results/leaderboard/tiny/leaderboard.md").read_text()

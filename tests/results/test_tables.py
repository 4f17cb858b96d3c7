import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ltrfs.formats import METRIC_COLUMNS
from ltrfs.pipeline.tables import write_tables
from ltrfs.results.significance import holm
from ltrfs.results.tables import by_k_markdown, k_label, read_runs, summarise, to_markdown


def write_run(path, rows):
    """rows: (k, split, qid, ndcg10); the other metrics are set to ndcg10 / 2."""
    lines = ["\t".join(["k", "split", "qid", "n_docs"] + METRIC_COLUMNS)]
    for k, split, qid, value in rows:
        vals = [value / 2] * len(METRIC_COLUMNS)
        vals[METRIC_COLUMNS.index("NDCG@10")] = value
        lines.append("\t".join([str(k), split, str(qid), "10"] + [repr(v) for v in vals]))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def runs(tmp_path):
    # two folds; WAF uses all 8 features; "imp" has k = 2 and 4
    out = []
    waf = {1: [0.5, 0.3], 2: [0.6, 0.2]}
    imp = {  # fold -> k -> (test values of queries 1, 2), vali mean
        1: {2: ([0.4, 0.2], 0.9), 4: ([0.7, 0.5], 0.1)},
        2: {2: ([0.8, 0.4], 0.3), 4: ([0.1, 0.3], 0.3)},  # vali tie -> smaller k
    }
    for fold in (1, 2):
        rows = [(8, "test", q, v) for q, v in zip((1, 2), waf[fold])] + [(8, "vali", 9, 0.5)]
        out.append({"path": write_run(tmp_path / f"w{fold}.tsv", rows), "fold": fold, "method": "waf", "ranker": "r"})
        rows = []
        for k, (test, vali) in imp[fold].items():
            rows += [(k, "test", q, v) for q, v in zip((1, 2), test)] + [(k, "vali", 9, vali)]
        out.append({"path": write_run(tmp_path / f"i{fold}.tsv", rows), "fold": fold, "method": "imp", "ranker": "r"})
    return out


def test_fold_means_std_vali_choice_and_p_values(runs):
    table = summarise(read_runs(runs), "NDCG@10").set_index(["method", "k"])
    # k=2: fold means 0.3 and 0.6 -> mean 0.45, std (ddof 1) = 0.212132
    assert table.loc[("imp", "2"), "NDCG@10"] == pytest.approx(0.45)
    assert table.loc[("imp", "2"), "NDCG@10_std"] == pytest.approx(np.std([0.3, 0.6], ddof=1))
    assert table.loc[("imp", "2"), "MAP"] == pytest.approx(0.225)
    assert table.loc[("waf", "8"), "NDCG@10"] == pytest.approx((0.4 + 0.4) / 2)
    # vali chooses k=2 in fold 1 (0.9 > 0.1) and k=2 in fold 2 (tie -> smaller k)
    assert table.loc[("imp", "vali"), "k_chosen"] == "2"
    assert table.loc[("imp", "vali"), "NDCG@10"] == pytest.approx(0.45)
    # p-value: paired t-test over the pooled (fold, query) test values against WAF
    want = stats.ttest_rel([0.4, 0.2, 0.8, 0.4], [0.5, 0.3, 0.6, 0.2]).pvalue
    assert table.loc[("imp", "2"), "p_vs_waf"] == pytest.approx(want)
    assert np.isnan(table.loc[("waf", "8"), "p_vs_waf"])
    assert table.loc[("imp", "4"), "folds"] == 2 and table.loc[("imp", "4"), "n_queries"] == 4


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # the one-fold t-test of 2 queries
def test_written_tables(runs, tmp_path):
    write_tables(runs, tmp_path / "t.csv", tmp_path / "t.md", title="demo")
    csv = pd.read_csv(tmp_path / "t.csv", dtype={"k": str})
    assert list(csv.k) == ["2", "4", "vali", "8"]
    md = (tmp_path / "t.md").read_text()
    assert "| imp | r | 2 | " in md and "0.4500 ± 0.2121" in md
    assert "| imp | r | vali (2) |" in md
    # header, rule, 4 rows, a blank line and the footnote saying what the cells are, then how to read "vali (2)"
    assert to_markdown(summarise(read_runs(runs))).count("\n") == 2 + 4 + 2 + 2
    assert ('\n\nk = "vali" (2): the k chosen on each fold\'s validation split (the k with the best vali '
            'NDCG@10), in brackets every k some fold chose; the test metrics are each fold\'s at its own choice.\n') in md
    assert "mean ± standard deviation over the 2 folds' means" in md
    one = to_markdown(summarise(read_runs([r for r in runs if r["fold"] == 2])), folds=[2])  # one fold: no ±
    assert "±" not in one.split("\n\n")[0] and "Test metrics, fold 2 only (one fold: no standard deviation)" in one
    assert "single train/vali/test split" not in one  # fold 2 of five is no single split


def test_reference_rows(runs, tmp_path):
    """A reference file per fold (constant score in file order / random order) adds two rows,
    ranker "(no model)", after the methods, with no p-value, and the "fixed" column of the by-k
    table shows them as "all tied"."""
    refs = []
    for fold, (fo, ro) in {1: (0.6, 0.2), 2: (0.4, 0.3)}.items():
        lines = ["\t".join(["order", "split", "ties", "qid", "n_docs"] + METRIC_COLUMNS)]
        for name, value in (("file order", fo), ("random order", ro)):
            for split in ("vali", "test"):
                lines += ["\t".join([name, split, "x", str(q), "10"] + [repr(value)] * len(METRIC_COLUMNS))
                          for q in (1, 2)]
        path = tmp_path / f"ref{fold}.tsv"
        path.write_text("\n".join(lines) + "\n")
        refs.append({"path": path, "fold": fold})
    table = write_tables(runs, tmp_path / "t.csv", tmp_path / "t.md", references=refs)
    assert table.method.tolist()[-2:] == ["file order", "random order"]
    ref = table.set_index("method").loc["file order"]
    assert ref["ranker"] == "(no model)" and ref["NDCG@10"] == pytest.approx(0.5) and np.isnan(ref["p_vs_waf"])
    assert table.set_index("method").loc["random order", "NDCG@10"] == pytest.approx(0.25)
    md = (tmp_path / "t.md").read_text()
    assert "| file order | (no model) | all tied | 0.6000 ± 0.0000" not in md  # fold means 0.6, 0.4
    assert "| file order | (no model) | all tied | 0.5000 ± 0.1414" in md
    assert "| random order | (no model) |" in md and "0.2500 (all tied) |" in md


def test_metric_by_k_table(runs):
    lines = by_k_markdown(summarise(read_runs(runs), "NDCG@10")).splitlines()
    assert lines[0] == "| method | ranker | k=2 | k=4 | vali | fixed |"
    # WAF's only k (8, all features) is outside the grid: the "fixed" column
    assert lines[2:4] == ["| imp | r | 0.4500 | 0.4000 | 0.4500 (2) |  |",
                          "| waf | r |  |  |  | 0.4000 (k=8) |"]
    assert lines[4:6] == ["", 'the "vali" column (2): the k chosen on each fold\'s validation split (the k with the best '
                              'vali NDCG@10), in brackets every k some fold chose; the test metrics are each fold\'s at '
                              'its own choice.']
    assert lines[6] == "" and lines[7].startswith("* differs from WAF with the same ranker (paired two-sided t-test on "
                                                  "the pooled test queries, Holm-corrected over the table's 3 tests")


def test_unknown_table_metric(runs):
    with pytest.raises(ValueError, match="unknown table metric 'NDCG@20'"):
        summarise(read_runs(runs), "NDCG@20")


def test_experiment_k_grid_filters_shared_run_files(runs):
    # the run files hold k = 2 and 4 (union of two experiments); this experiment asked for 4 only
    for run in runs:
        run["k"] = [4]
    table = summarise(read_runs(runs), "NDCG@10")
    assert sorted(set(table.k)) == ["4", "8"]  # WAF's single k stays; no vali row with one k


def test_baseline_is_found_by_the_methods_passed_not_by_the_name_waf(runs):
    for run in runs:
        run["method"] = "all" if run["method"] == "waf" else run["method"]
    table = summarise(read_runs(runs), "NDCG@10", baselines=("all",)).set_index(["method", "k"])
    assert table.loc[("imp", "2"), "p_vs_waf"] == pytest.approx(
        stats.ttest_rel([0.4, 0.2, 0.8, 0.4], [0.5, 0.3, 0.6, 0.2]).pvalue)


def test_a_k_reached_in_fewer_folds_is_marked(runs, tmp_path):
    """A projection method may build fewer than k features in some folds: its k row then
    averages fewer folds, and both tables say so (the figure leaves it out)."""
    rows = [(6, "test", q, v) for q, v in zip((1, 2), (0.9, 0.9))] + [(6, "vali", 9, 0.2)]
    extra = {"path": write_run(tmp_path / "i1_k6.tsv", rows), "fold": 1, "method": "imp", "ranker": "r"}
    table = summarise(read_runs(runs + [extra]), "NDCG@10")
    row = table[(table.method == "imp") & (table.k == "6")].iloc[0]
    assert row["folds"] == 1 and row["NDCG@10"] == pytest.approx(0.9)
    assert "| imp | r | 6 (1 of 2 folds) |" in to_markdown(table)
    by_k = by_k_markdown(table)
    assert "| imp | r | 0.4500 | 0.4000 | 0.9000† |" in by_k and "† mean over fewer than 2 folds" in by_k
    from ltrfs.results.figures import curves

    curves.metric_vs_k(table, "NDCG@10", tmp_path / "f.png", csv=tmp_path / "f.csv")
    assert "6" not in set(pd.read_csv(tmp_path / "f.csv", dtype={"k": str}).k)


def test_compare_pairs_with_paired_t_tests(runs, tmp_path):
    """compare: each side at its vali-chosen k (imp: k = 2 in both folds) or its single k (waf),
    paired over (fold, qid) of the test queries, every metric; CSV and Markdown."""
    from ltrfs.results.tables import compare, compare_markdown

    per_query = read_runs(runs)
    comp = compare(per_query, [("imp/r", "waf/r")]).set_index("metric")
    row = comp.loc["NDCG@10"]
    assert row["k_a"] == "vali (2)" and row["k_b"] == "8" and row["n_queries"] == 4
    a, b = [0.4, 0.2, 0.8, 0.4], [0.5, 0.3, 0.6, 0.2]
    assert row["difference"] == pytest.approx(np.mean(a) - np.mean(b))
    assert row["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert comp.loc["MAP", "mean_a"] == pytest.approx(np.mean(a) / 2)  # the fixture's other metrics
    chosen = comp[comp["at"] == "chosen"]  # one family: the pair's metrics at the chosen k
    np.testing.assert_allclose(chosen.p_holm, holm(chosen.p.to_numpy()))
    imp = per_query[per_query.method == "imp"]
    shift = np.where(imp.qid.to_numpy() == 1, 0.1, 0.3) * imp.k.astype(int).to_numpy() / 4 + 0.01 * imp.fold.to_numpy()
    alt = imp.assign(method="alt", **{m: imp[m] + shift for m in METRIC_COLUMNS if m in imp})
    curves = compare(pd.concat([per_query, alt]), [("alt/r", "imp/r")])  # k = 2 and 4 shared
    for _, curve in curves[curves["at"] == "k"].groupby("metric"):  # one family per metric's curve
        assert len(curve) == 2 and curve.p.notna().all() and (curve.p_holm > curve.p).any()
        np.testing.assert_allclose(curve.p_holm, holm(curve.p.to_numpy()))
    md = compare_markdown(comp.reset_index())
    assert md.startswith("| a | b | k (a; b) | NDCG@1") and "| imp/r | waf/r | vali (2); 8 |" in md
    write_tables(runs, tmp_path / "t.csv", tmp_path / "t.md", pairs=[("imp/r", "waf/r")], out_compare=tmp_path / "c.csv")
    assert len(pd.read_csv(tmp_path / "c.csv")) == len(METRIC_COLUMNS)
    assert "#### Paired t-tests" in (tmp_path / "t.md").read_text()
    with pytest.raises(ValueError, match="compare: no runs of 'imp/x'"):
        compare(per_query, [("imp/x", "waf/r")])


@pytest.fixture
def own_runs(tmp_path):
    """Two folds; "fsm" ranks with its own model, cut to its top k = 2 and full at k = 8 (an own
    ranker), "gas" is a two-stage method at k = 2 and 4 with a vali choice."""
    out = []
    fsm = {1: {2: [0.9, 0.7], 8: [0.6, 0.4]}, 2: {2: [0.8, 0.6], 8: [0.5, 0.5]}}
    gas = {1: {2: ([0.3, 0.1], 0.2), 4: ([0.5, 0.1], 0.9)}, 2: {2: ([0.2, 0.2], 0.8), 4: ([0.4, 0.0], 0.1)}}
    for fold in (1, 2):
        rows = []
        for k, test in fsm[fold].items():  # vali favours k = 2 strongly: it must not be chosen
            rows += [(k, "test", q, v) for q, v in zip((1, 2), test)] + [(k, "vali", 9, 1.0 if k == 2 else 0.0)]
        out.append({"path": write_run(tmp_path / f"f{fold}.tsv", rows), "fold": fold, "method": "fsm",
                    "ranker": "own"})
        rows = []
        for k, (test, vali) in gas[fold].items():
            rows += [(k, "test", q, v) for q, v in zip((1, 2), test)] + [(k, "vali", 9, vali)]
        out.append({"path": write_run(tmp_path / f"g{fold}.tsv", rows), "fold": fold, "method": "gas",
                    "ranker": "svm"})
    return out


def test_own_model_curve_has_no_vali_row_and_compares_at_the_full_model(own_runs, tmp_path):
    from ltrfs.results.figures import curves
    from ltrfs.results.published import beside
    from ltrfs.results.tables import compare

    per_query = read_runs(own_runs)
    table = summarise(per_query, "NDCG@10", own=("own",))
    fsm = table[table.method == "fsm"]
    assert list(fsm.k) == ["2", "8"]  # no vali row for the own model's top-k view
    comp = compare(per_query, [("fsm/own", "gas/svm")], own=("own",))
    chosen = comp[(comp["at"] == "chosen") & (comp.metric == "NDCG@10")].iloc[0]
    # fsm at its full model (k = 8); gas at its vali choice: k = 4 in fold 1, k = 2 in fold 2
    a, b = [0.6, 0.4, 0.5, 0.5], [0.5, 0.1, 0.2, 0.2]
    assert chosen["k_a"] == "8 (own model)" and chosen["key_a"] == "8" and chosen["k_b"] == "vali (2,4)"
    assert chosen["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    # per-k rows only where both sides were run: k = 2
    at_k = comp[(comp["at"] == "k") & (comp.metric == "NDCG@10")]
    assert list(at_k.k_a) == ["2"]
    assert at_k.iloc[0]["p"] == pytest.approx(stats.ttest_rel([0.9, 0.7, 0.8, 0.6], [0.3, 0.1, 0.2, 0.2]).pvalue)
    # marks on side a at its chosen k: p = 0.015 (differences 0.1, 0.3, 0.3, 0.3)
    assert 0.01 < chosen["p"] < 0.05
    md = to_markdown(table, ("NDCG@10",), comparison=comp)
    assert "| fsm | own | 8 | 0.5000 ± 0.0000▲1 |" in md and "1 = fsm/own vs gas/svm" in md
    assert "| fsm | own | 2 | 0.7500 ± 0.0707 |" in md  # per-k tests mark the figures, not the table
    assert "| gas | svm | vali (2,4) |" in md and 'k = "vali" (2,4): the k chosen on each fold\'s validation' in md
    assert "▲" not in to_markdown(table, ("NDCG@10",), comparison=comp, alpha=0.01)
    only_ndcg = comp.assign(p=comp.p.where(comp.metric == "NDCG@10", 1.0))
    assert "▲" not in to_markdown(table, ("P@1",), comparison=only_ndcg)  # marks and their note: shown columns only
    curves.metric_vs_k(table, "NDCG@10", tmp_path / "f.png", csv=tmp_path / "f.csv",
                      curves=["fsm/own", "gas/svm"], comparison=comp)
    drawn = pd.read_csv(tmp_path / "f.csv", dtype={"k": str}).fillna("")
    assert set(drawn.method + "/" + drawn.ranker) == {"fsm/own", "gas/svm"}
    assert list(drawn[drawn.significant_vs != ""].k) == ["2"]  # gas's point at k = 2 is marked
    # published values of an own model match its full model
    pub = pd.DataFrame([{"table": "T", "dataset": "D", "method": "fsm", "ranker": "own", "k": "",
                         "metric": "NDCG@10", "value": 0.5}])
    assert beside(table, pub, "D").iloc[0]["k"] == "8"
    renamed = table.replace({"method": {"fsm": "all"}, "ranker": {"own": "fsmrank"}})
    row = beside(renamed, pub, "D", rows={"fsm/own": "all/fsmrank"}).iloc[0]
    assert row["method"] == "fsm" and row["ours"] == pytest.approx(0.5) and row["difference"] == pytest.approx(0)


def test_k_best_is_the_vali_best_k_of_the_fold_pooled_curve(runs):
    """Gupta & Rosso's Table 1 gives one k per method and ranker: the vali metric averaged over
    the folds per k (imp: k = 2 -> (0.9 + 0.3) / 2 = 0.6, k = 4 -> 0.2), best k; WAF: its k."""
    from ltrfs.results.published import beside, to_markdown as published_markdown

    table = summarise(read_runs(runs), "NDCG@10").set_index(["method", "k"])
    assert table.loc[("imp", "vali"), "k_best"] == 2 and table.loc[("waf", "8"), "k_best"] == 8
    assert np.isnan(table.loc[("imp", "2"), "k_best"])
    pub = pd.DataFrame([{"table": "Table 1", "dataset": "D", "method": "imp", "ranker": "r", "k": "",
                         "metric": "k_best", "value": 3.0},
                        {"table": "Table 1", "dataset": "D", "method": "waf", "ranker": "", "k": "",
                         "metric": "k_best", "value": 8.0}])
    cells = beside(table.reset_index(), pub, "D")
    assert list(cells.ours) == [2.0, 8.0] and list(cells.difference) == [-1.0, 0.0]
    md = published_markdown(cells, tolerance=0.015)
    assert "| imp | r | vali (2) | 2 / 3 (-1) |" in md and "| waf | — | 8 | 8 / 8 (+0) |" in md


def test_k_of_all_features_reads_all_d(runs, tmp_path):
    """A row at k = d (WAF, or a selector whose every k was above d and so trained on all d
    features) reads "all (d)" in both Markdown tables; the CSV keeps the number."""
    assert k_label("8", 8) == "all (8)" and k_label("4", 8) == "4" and k_label("8", None) == "8"
    table = summarise(read_runs(runs))
    md = to_markdown(table, n_features=8)
    assert "| waf | r | all (8) |" in md and "| imp | r | 2 |" in md
    assert by_k_markdown(table, n_features=8).splitlines()[3] == "| waf | r |  |  |  | 0.4000 (all (8)) |"
    # a grid that reaches d: its column is "all (d)"
    grid = summarise(read_runs([{**r, "method": "imp"} for r in runs if r["method"] == "waf"] +
                               [r for r in runs if r["method"] == "imp"]))
    assert by_k_markdown(grid, n_features=8).splitlines()[0] == "| method | ranker | k=2 | k=4 | all (8) | vali | fixed |"
    write_tables(runs, tmp_path / "t.csv", tmp_path / "t.md", n_features=8)
    assert "| waf | r | all (8) |" in (tmp_path / "t.md").read_text()
    assert "8" in set(pd.read_csv(tmp_path / "t.csv", dtype={"k": str}).k)


def test_no_p_column_without_waf(runs, tmp_path):
    """A table whose methods hold no all-features baseline has no p-value column, and its
    footnotes say nothing of p."""
    mine = [r for r in runs if r["method"] == "imp"]
    write_tables(mine, tmp_path / "t.csv", tmp_path / "t.md", baselines=())
    md = (tmp_path / "t.md").read_text()
    head = next(line for line in md.splitlines() if line.startswith("| method | ranker | k |"))
    assert head == "| method | ranker | k | NDCG@1 | NDCG@3 | NDCG@5 | NDCG@10 | P@10 | MAP |"
    assert "vs WAF" not in md and "against WAF" not in md
    assert "| imp | r | 2 | " in md and md.count("| imp | r |") == 3 + 1  # three rows, one by-k row
    with_waf = to_markdown(summarise(read_runs(runs)))  # with WAF: the column is there
    assert "p (NDCG@10 vs WAF, Holm) |" in with_waf.splitlines()[0]


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # the one-fold t-test of 2 queries
def test_figure_labels_all_features_and_one_fold(runs, tmp_path, monkeypatch):
    """The metric-vs-k figure: the k = d tick reads "all (d)" (no tick above d), and with one fold
    the y label promises no ± std (there is none), nor does the baseline's legend."""
    from ltrfs.results.figures import curves, style

    drawn = []
    monkeypatch.setattr(style, "save", lambda fig, png, pdf=None: drawn.append(fig))
    one_fold = summarise(read_runs([r for r in runs if r["fold"] == 1]))
    curves.metric_vs_k(one_fold, "NDCG@10", tmp_path / "f.png", n_features=4)
    ax = drawn[0].axes[0]
    ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
    assert ticks["all (4)"] == 4 and all(x < 4 for x in ticks.values() if x != 4)
    assert ax.get_ylabel() == "test NDCG@10, one fold"
    assert [t.get_text() for t in drawn[0].legends[0].get_texts()][:2] == ["imp", "waf"]
    curves.metric_vs_k(one_fold, "NDCG@10", tmp_path / "f.png", n_features=8)  # only WAF's line is at d
    assert not any("all (" in t.get_text() for t in drawn[1].axes[0].get_xticklabels())
    curves.metric_vs_k(summarise(read_runs(runs)), "NDCG@10", tmp_path / "f.png")  # two folds, d unknown
    ax = drawn[2].axes[0]
    assert "± std over folds" in ax.get_ylabel() and not any("all (" in t.get_text() for t in ax.get_xticklabels())
    assert "waf (band: ± std over folds)" in [t.get_text() for t in drawn[2].legends[0].get_texts()]


def test_a_convention_that_zeroes_short_queries_says_so_under_the_table(runs, tmp_path):
    """Query 2 of each fold's test set has 4 documents: under letor4 the Markdown says in one line
    that 2 of the 4 pooled test queries score NDCG@10 0 and how to change the convention; under
    standard, and in the CSV, nothing changes."""
    for run in runs:
        frame = pd.read_csv(run["path"], sep="\t")
        frame.loc[(frame.split == "test") & (frame.qid == 2), "n_docs"] = 4
        frame.to_csv(run["path"], sep="\t", index=False)
    write_tables(runs, tmp_path / "l.csv", tmp_path / "l.md", convention="letor4")
    write_tables(runs, tmp_path / "s.csv", tmp_path / "s.md", convention="standard")
    line = ("2 of 4 queries of all folds' test sets have fewer than 10 documents: letor4 scores their NDCG@10 0 "
            "(the LETOR and MSLR scripts' rule); the convention standard computes it on their documents: set the "
            "dataset's `convention:` in the registry, or `conventions: {DATASET: standard}` in the config.")
    letor = (tmp_path / "l.md").read_text()
    assert letor.count(line) == 1 and line not in (tmp_path / "s.md").read_text()
    assert letor.replace(f"\n{line}\n", "") == (tmp_path / "s.md").read_text()
    assert (tmp_path / "l.csv").read_bytes() == (tmp_path / "s.csv").read_bytes()


def test_marks_follow_holm_and_non_inferiority(tmp_path):
    """Two folds of 100 test queries each: "copy" ranks as WAF does (never differs, shown as good
    as WAF), "better" gains 0.05 (differs), "worse" loses 0.05 (differs, not as good). The
    table's p columns are Holm over its tests, the marks follow the corrected values."""
    rng = np.random.default_rng(11)
    runs = []
    for fold in (1, 2):
        waf = rng.uniform(0.2, 0.8, 100)
        noise = rng.normal(0, 0.02, 100)
        for method, values in (("waf", waf), ("copy", waf), ("better", waf + 0.05 + noise), ("worse", waf - 0.05 + noise)):
            k = 8 if method == "waf" else 4
            rows = [(k, "test", q, float(v)) for q, v in enumerate(values)] + [(k, "vali", 999, 0.5)]
            runs.append({"path": write_run(tmp_path / f"{method}{fold}.tsv", rows), "fold": fold, "method": method,
                         "ranker": "r"})
    table = summarise(read_runs(runs), "NDCG@10", margin=0.01).set_index("method")
    tested = table.p_vs_waf.dropna()
    assert len(tested) == 3
    for column, raw in (("p_vs_waf_holm", "p_vs_waf"), ("p_noninf_holm", "p_noninf")):
        p = table.loc[tested.index, raw].to_numpy()
        order = np.argsort(p)
        want = np.maximum.accumulate(np.minimum(1, p[order] * (3 - np.arange(3))))
        np.testing.assert_allclose(table.loc[tested.index[order], column], want)
    assert table.loc["copy", "p_vs_waf_holm"] == 1.0 and table.loc["copy", "p_noninf_holm"] == 0.0
    assert table.loc["better", "p_vs_waf_holm"] < 1e-6 and table.loc["worse", "p_noninf_holm"] > 0.5
    assert table.loc["better", "diff_low"] < 0.05 < table.loc["better", "diff_high"]
    md = by_k_markdown(summarise(read_runs(runs), "NDCG@10", margin=0.01))
    cells = {line.split(" | ")[0].strip("| "): line for line in md.splitlines() if line.startswith("| ")}
    assert "≈" in cells["copy"] and "*" not in cells["copy"]
    assert "*≈" in cells["better"] and "*" in cells["worse"] and "≈" not in cells["worse"]
    assert "Holm-corrected over the table's 3 tests" in md


def test_every_pair_of_one_ranker_is_one_family(tmp_path):
    """Methods twin1 and twin2 rank identically, "good" gains 0.05: at every k and at the vali
    choice the twins are never separated and good is separated from both and from WAF (which
    joins each family at its one k); Holm over each (ranker, k) family of 6 pairs."""
    from ltrfs.results.tables import all_pairs, pairs_markdown

    rng = np.random.default_rng(5)
    runs = []
    for fold in (1, 2):
        waf = rng.uniform(0.2, 0.8, 80)
        for method in ("waf", "twin1", "twin2", "good"):
            rows = []
            for k in ([8] if method == "waf" else [2, 4]):
                values = waf + (0.05 + rng.normal(0, 0.02, 80) if method == "good" else 0.0)
                rows += [(k, "test", q, float(v)) for q, v in enumerate(values)]
                rows += [(k, "vali", 999, 0.5 + 0.01 * k)]
            runs.append({"path": write_run(tmp_path / f"{method}{fold}.tsv", rows), "fold": fold, "method": method,
                         "ranker": "r"})
    pairs = all_pairs(read_runs(runs), "NDCG@10")
    assert sorted(set(pairs.k)) == ["2", "4", "vali"] and (pairs.groupby("k").size() == 6).all()
    assert (pairs.n == 160).all()
    for k, family in pairs.groupby("k"):
        twins = family[family.a.str.startswith("twin") & family.b.str.startswith("twin")]
        assert len(twins) == 1 and twins.p_holm.iloc[0] == 1.0 and twins["mean"].iloc[0] == 0.0
        good = family[(family.a == "good") | (family.b == "good")]
        assert len(good) == 3 and (good.p_holm < 1e-6).all()
        p = family.p.to_numpy()
        order = np.argsort(p, kind="stable")
        want = np.maximum.accumulate(np.minimum(1, p[order] * (6 - np.arange(6))))
        np.testing.assert_allclose(family.p_holm.to_numpy()[order], want)
    md = pairs_markdown(pairs)
    assert md.startswith("##### r: 3 of 6 pairs differ") and "Holm-corrected over the ranker's pairs" in md

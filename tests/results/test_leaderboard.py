"""The leaderboard's statistics against hand-computed values (Demsar 2006's formulas and table)."""
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ltrfs.results import leaderboard as lb
from ltrfs.pipeline.leaderboard import write_leaderboard
from ltrfs.results.tables import REFERENCE_RANKER


def long_table(rows):
    """Rows (dataset, method, ranker, k, NDCG@10, p_noninf_holm) of the tables' layout; the other
    columns of a comparison with all features follow from them."""
    frame = pd.DataFrame(rows, columns=["dataset", "method", "ranker", "k", "NDCG@10", "p_noninf_holm"])
    return frame.assign(diff_vs_waf=frame["NDCG@10"] - 0.5, diff_low=frame["NDCG@10"] - 0.52)


def test_a_block_is_a_dataset_and_ranker_at_the_vali_chosen_k():
    """Two datasets, one ranker, two k each: two blocks (not four), each method's value its row
    at the k chosen on vali (a method of one k: that k); own models, references and WAF out."""
    table = long_table([
        ("D", "waf", "svm", "12", 0.9, np.nan),
        ("D", "a", "svm", "2", 0.5, 0.01), ("D", "b", "svm", "2", 0.6, 0.02),
        ("D", "a", "svm", "4", 0.7, 0.3), ("D", "b", "svm", "4", 0.65, 0.2),
        ("D", "a", "svm", "vali", 0.68, 0.3), ("D", "b", "svm", "vali", 0.61, 0.2),
        ("D", "a", "own", "12", 0.4, np.nan), ("D", "b", "own", "12", 0.45, np.nan),
        ("D", "file order", REFERENCE_RANKER, "0", 0.3, np.nan),
        ("D", "a", "svm", "2", 0.5, 0.01),  # the same run in a second experiment counts once
        ("E", "a", "svm", "2", 0.2, 0.01), ("E", "a", "svm", "4", 0.3, 0.01), ("E", "a", "svm", "vali", 0.25, 0.01),
        ("E", "b", "svm", "3", 0.35, 0.01),  # one k: its value
    ])
    scores = lb.block_scores(table, exclude_methods=["waf"], exclude_rankers=["own"])
    assert list(scores.columns) == ["a", "b"]
    assert scores.index.tolist() == [("D", "svm"), ("E", "svm")]
    np.testing.assert_allclose(scores.to_numpy(), [[0.68, 0.61], [0.25, 0.35]])


def test_wilcoxon_holm_separates_a_planted_winner_and_says_when_blocks_cannot():
    """20 blocks: c beats a and b in every block, a and b tie in half: c's pairs differ after
    Holm, a-b does not. 4 blocks cannot separate any of 3 pairs: 3 x 2 / 2^4 = 0.375."""
    rng = np.random.default_rng(1)
    base = rng.uniform(0.3, 0.6, 20)
    scores = pd.DataFrame({"a": base, "b": base + np.where(np.arange(20) % 2, 0.01, -0.01), "c": base + 0.05 + rng.uniform(0, 0.01, 20)})
    pairs = lb.wilcoxon_holm(scores).set_index(["a", "b"])
    assert pairs.loc[("a", "c"), "losses"] == 20 and pairs.loc[("a", "c"), "p_holm"] < 1e-4
    assert pairs.loc[("b", "c"), "p_holm"] < 1e-4 and pairs.loc[("a", "b"), "p_holm"] > 0.5
    assert pairs.loc[("a", "c"), "p"] == pytest.approx(2 * 0.5 ** 20)  # exact: c wins all 20
    assert lb.smallest_holm_p(4, 3) == pytest.approx(0.375)
    table = long_table([(d, m, "svm", "5", v, np.nan) for d in "DEFG" for m, v in (("a", 0.3), ("b", 0.4), ("c", 0.5))])
    frame, stats_ = lb.board(table, ("NDCG@10",))
    s = stats_["NDCG@10"]
    assert (s["blocks"], s["datasets"], s["pairs_differ"], s["smallest_holm_p"]) == (4, 4, 0, 0.375)
    row = frame.assign(**{f"{k}_NDCG@10": v for k, v in (("blocks", 4), ("datasets", 4), ("friedman_p", s["p"]),
                                                          ("cd", s["cd"]), ("pairs_differ", 0), ("pairs", 3),
                                                          ("smallest_holm_p", 0.375))}).iloc[0]
    assert "cannot separate any pair: over 4 blocks the smallest corrected p a pair can reach is 0.375" in \
        lb._block_note(row, "NDCG@10", 0.05)


def test_mean_ranks_share_ties():
    scores = pd.DataFrame({"a": [0.9, 0.5], "b": [0.8, 0.6], "c": [0.7, 0.6]})
    ranks = lb.mean_ranks(scores)
    assert ranks.to_dict() == {"b": 1.75, "a": 2.0, "c": 2.25}
    assert list(ranks.index) == ["b", "a", "c"]


def test_friedman_matches_the_textbook_statistic():
    # ranks per block [1,2,3], [1,2,3], [1,3,2], [2,1,3]: rank sums 5, 8, 11 over N = 4, m = 3
    # chi2 = 12 / (N m (m + 1)) * sum R^2 - 3 N (m + 1) = 0.25 * 210 - 48 = 4.5
    scores = pd.DataFrame({"a": [0.9, 0.8, 0.7, 0.5], "b": [0.5, 0.6, 0.1, 0.6], "c": [0.1, 0.2, 0.3, 0.4]})
    chi2, p = lb.friedman(scores)
    assert chi2 == pytest.approx(4.5)
    assert p == pytest.approx(np.exp(-4.5 / 2))  # chi-square with 2 degrees of freedom
    assert np.isnan(lb.friedman(scores[["a", "b"]])[0])  # fewer than 3 methods
    assert lb.friedman(pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, 2.0], "c": [1.0, 2.0]})) == (0.0, 1.0)


@pytest.mark.parametrize("m, q", [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850), (10, 3.164)])
def test_critical_difference_uses_demsars_q(m, q):
    # Demsar (2006), Table 5(a): q_0.05 of the Nemenyi test; CD = q sqrt(m (m + 1) / (6 N))
    assert lb.critical_difference(m, 10) / np.sqrt(m * (m + 1) / 60.0) == pytest.approx(q, abs=1e-3)


def test_nemenyi_p_values_follow_the_rank_differences():
    rng = np.random.default_rng(0)
    base = rng.random((12, 1))
    scores = pd.DataFrame(np.hstack([base + 0.3, base + 0.2 + 0.05 * rng.random((12, 1)), base]), columns=["a", "b", "c"])
    p = lb.nemenyi(scores)
    assert list(p.index) == list(p.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(p.to_numpy(), p.to_numpy().T)
    ranks = lb.mean_ranks(scores)
    z = abs(ranks["a"] - ranks["c"]) / np.sqrt(3 * 4 / (6 * 12))
    assert p.loc["a", "c"] == pytest.approx(stats.studentized_range.sf(z * np.sqrt(2), 3, np.inf), rel=1e-3)
    assert p.loc["a", "c"] < 0.001 and p.loc["a", "c"] < p.loc["a", "b"]


def test_jaccard_and_kuncheva_by_hand():
    assert lb.jaccard([1, 2, 3], [1, 2, 4]) == 0.5
    assert lb.kuncheva([1, 2, 3], [1, 2, 4], 10) == pytest.approx((2 * 10 - 9) / (3 * 7))
    assert lb.kuncheva([1, 2, 3], [3, 2, 1], 10) == pytest.approx(1.0)
    assert lb.kuncheva([1, 2, 3], [4, 5, 6], 6) == pytest.approx(-1.0)  # disjoint halves: the minimum
    assert np.isnan(lb.kuncheva([1, 2], [1, 2], 2))
    with pytest.raises(ValueError, match="one size"):
        lb.kuncheva([1, 2], [1], 5)


def test_stability_is_the_mean_over_fold_pairs():
    rankings = [[1, 2, 3, 9], [1, 2, 4, 9], [1, 2, 3, 8]]
    jac, kun = lb.stability(rankings, 3, 10)
    assert jac == pytest.approx((0.5 + 1.0 + 0.5) / 3)
    assert kun == pytest.approx((11 / 21 + 1.0 + 11 / 21) / 3)
    assert all(np.isnan(v) for v in lb.stability(rankings[:1], 3, 10))


def test_smallest_k_is_the_first_shown_as_good_as_the_baseline():
    """The smallest k whose non-inferiority test rejects (Holm p < 0.05), not the first k whose
    difference test fails to reject: b's k = 10 is not shown as good (p 0.2), so b has none."""
    table = long_table([
        ("D", "waf", "svm", "46", 0.50, np.nan),
        ("D", "a", "svm", "5", 0.40, 0.9),     # not shown as good
        ("D", "a", "svm", "10", 0.49, 0.01),   # shown as good: the answer
        ("D", "a", "svm", "20", 0.52, 0.001),
        ("D", "b", "svm", "5", 0.30, 0.99), ("D", "b", "svm", "10", 0.47, 0.20),
        ("D", "a", "svm", "vali", 0.52, 0.001),
    ])
    got = lb.smallest_k(table).set_index("method")
    assert got.loc["a", "k"] == 10 and got.loc["a", "NDCG@10"] == 0.49 and got.loc["a", "p_noninf_holm"] == 0.01
    assert got.loc["a", "diff_vs_waf"] == pytest.approx(-0.01) and got.loc["a", "diff_low"] == pytest.approx(-0.03)
    assert np.isnan(got.loc["b", "k"]) and got.loc["b", "k_max"] == 10 and got.loc["b", "waf"] == 0.5
    assert list(lb.smallest_k(table).columns) == ["dataset", "method", "ranker", "k", "NDCG@10", "diff_vs_waf", "diff_low",
                                                  "p_noninf_holm", "waf", "k_max"]


def test_pooled_experiments_leave_out_the_method_missing_most_blocks():
    table = long_table([
        (d, m, "svm", "5", v, np.nan) for m, vals in {"a": (0.5, 0.6, 0.7), "b": (0.4, 0.5, 0.8), "c": (0.3, 0.2, 0.1)}.items()
        for d, v in zip("DEF", vals)] + [("D", "z", "svm", "5", 0.9, np.nan)])  # z: one dataset only
    assert len(lb.block_scores(table)) == 1  # only D has all four
    pooled = lb.block_scores(table, drop_sparse=True)
    assert list(pooled.columns) == ["a", "b", "c"] and len(pooled) == 3


def test_a_method_missing_from_some_datasets_costs_its_row_not_the_blocks():
    """A method run on one of three datasets: leaving it out keeps 3 complete blocks instead of
    1; it stays in the board without ranks, with the blocks it missed. A method that reaches
    fewer k than the others (FS-BFS's groups) keeps its blocks: its value is at its vali choice."""
    table = long_table([(d, m, "svm", "10", v, np.nan)
                        for m, vals in {"a": (0.5, 0.6, 0.7), "b": (0.4, 0.5, 0.8), "c": (0.3, 0.2, 0.1)}.items()
                        for d, v in zip("DEF", vals)] + [("D", "fs_bfs", "svm", "10", 0.9, np.nan)])
    assert len(lb.block_scores(table)) == 1
    frame, stats_ = lb.board(table, ("NDCG@10",), drop_sparse=True)
    assert stats_["NDCG@10"]["blocks"] == 3
    assert frame.method.tolist() == ["a", "b", "c", "fs_bfs"]  # ranks by dataset: a 1, 1, 2; b 2, 2, 1; c 3, 3, 3
    assert np.isnan(frame["rank_NDCG@10"].iloc[-1])
    assert np.allclose(frame["rank_NDCG@10"].iloc[:3], [4 / 3, 5 / 3, 3.0])
    assert dict(zip(frame.method, frame.missing_blocks)) == {"a": 0, "b": 0, "c": 0, "fs_bfs": 2}
    short = long_table([(d, m, "svm", k, 0.1 * i + 0.01 * j, np.nan) for d in "DE" for i, m in enumerate("abc")
                        for j, k in enumerate(("10", "20", "vali")) if not (m == "c" and k == "20")])
    assert lb.block_scores(short).shape == (2, 3)  # c has no k = 20, all three have a vali value


def test_all_experiments_board_only_when_two_experiments_have_one(tmp_path):
    def table(name, methods):
        rows = [("D", "waf", "svm", "46", 0.5, np.nan, 0.4, 5)]
        rows += [("D", m, "svm", k, 0.3 + 0.1 * i + 0.01 * j, 0.1, 0.3, 5)
                 for i, m in enumerate(methods) for j, k in enumerate(("5", "10", "vali"))]
        path = tmp_path / f"{name}.csv"
        pd.DataFrame(rows, columns=["dataset", "method", "ranker", "k", "NDCG@10", "p_noninf_holm", "MAP", "folds"]
                     ).assign(diff_vs_waf=0.0, diff_low=0.0).drop(columns="dataset").to_csv(path, index=False)
        return {"experiment": name, "dataset": "D", "path": str(path)}

    def boards(tables):
        out = {key: tmp_path / f"out_{key}.{key.split('_')[-1] if key.endswith(('png', 'csv')) else 'txt'}"
               for key in ("csv", "md", "html", "stability", "cost", "smallest_k", "figure_accuracy_vs_cost_csv")}
        out |= {"figure_stability": tmp_path / "s.png", "figure_accuracy_vs_cost": tmp_path / "pareto.png",
                "figure_critical_difference": tmp_path / "cd"}
        write_leaderboard(tables, [], [], {k: str(v) for k, v in out.items()}, ks={"D": [5, 10]})
        return pd.read_csv(out["csv"]), sorted(p.name for p in out["figure_critical_difference"].glob("*.png"))

    one = [table("e1", ["a", "b", "c"]), table("e2", [])]  # e2 has only the baseline: no board
    frame, pngs = boards(one)
    assert set(frame.scope) == {"e1"} and pngs == ["e1.png"]
    two = [table("e1", ["a", "b", "c"]), table("e2", ["a", "b", "c"])]
    frame, pngs = boards(two)
    assert set(frame.scope) == {"e1", "e2", "all"} and pngs == ["all.png", "e1.png", "e2.png"]


def test_the_footnote_says_over_how_many_folds_the_means_are():
    import pandas as pd

    from ltrfs.results.leaderboard import n_folds_text

    assert n_folds_text(pd.DataFrame({"folds": [5, 5]})) == "5 folds"
    assert n_folds_text(pd.DataFrame({"folds": [1]})) == "1 fold"
    assert n_folds_text(pd.DataFrame({"folds": [5, 1, 3]})) == "1 to 5 folds"  # rows only some folds have
    assert n_folds_text(pd.DataFrame({"method": ["x"]})) == "? folds"


def test_stability_and_recovery_read_each_dataset_at_its_own_ks(tmp_path):
    """A dataset is measured at its own k values below d only, not at another dataset's."""
    rankings = {"D": [[1, 2, 3, 4, 5, 6], [2, 1, 3, 5, 4, 6]], "E": [[6, 5, 4, 3, 2, 1], [6, 5, 4, 3, 2, 1]]}
    selections = [{"dataset": d, "method": "m", "fold": f + 1, "ranking": r, "n_features": 6}
                  for d, rs in rankings.items() for f, r in enumerate(rs)]
    stab = lb.stability_table(selections, {"D": [2, 6], "E": [3]})
    assert sorted(zip(stab.dataset, stab.k)) == [("D", 2), ("E", 3)]  # 6 = d is no subset; no 2 on E
    assert stab.set_index("dataset").loc["D", "jaccard"] == 1.0 and stab.set_index("dataset").loc["E", "kuncheva"] == 1.0
    truth = {"informative": [1], "redundant": [2], "noise": [3, 4, 5, 6], "n_features": 6}
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(truth))
    recovery = lb.recovery_table(selections, {"D": str(path), "E": str(path)}, {"D": [4], "E": [3]})
    assert sorted(zip(recovery.dataset, recovery.k, recovery.precision)) == [("D", 4, 0.5), ("E", 3, 0.0)]
    assert lb.stability_table(selections, {}).empty  # a dataset without a grid has no row


def test_one_fold_says_no_stability(tmp_path):
    """With one fold there is no pair of folds: the board's Jaccard and Kuncheva cells say so
    (not "nan"), and with two folds they are numbers (from the folds' top-k sets)."""
    import json

    rows = [("waf", "svm", "46", 0.5, np.nan, 0.4, 1)]
    rows += [(m, "svm", k, 0.3 + 0.1 * i + 0.01 * j, 0.1, 0.3, 1)
             for i, m in enumerate("abc") for j, k in enumerate(("5", "10", "vali"))]
    table = tmp_path / "e.csv"
    pd.DataFrame(rows, columns=["method", "ranker", "k", "NDCG@10", "p_noninf_holm", "MAP", "folds"]).assign(
        diff_vs_waf=0.0, diff_low=0.0).to_csv(table, index=False)

    def board(folds):
        selections = []
        for m in "abc":
            for fold in folds:
                path = tmp_path / f"{m}{fold}.json"
                path.write_text(json.dumps({"ranking": list(range(1, 47))[::fold], "n_features": 46}))
                selections.append({"dataset": "D", "method": m, "fold": fold, "path": str(path)})
        out = {key: str(tmp_path / f"out_{key}.txt") for key in ("csv", "md", "html", "stability", "cost", "smallest_k",
                                                                 "figure_accuracy_vs_cost_csv")}
        out |= {"figure_stability": str(tmp_path / "s.png"), "figure_accuracy_vs_cost": str(tmp_path / "p.png"),
                "figure_critical_difference": str(tmp_path / "cd")}
        write_leaderboard([{"experiment": "e", "dataset": "D", "path": str(table)}], selections, [], out, ks={"D": [5, 10]})
        md = (tmp_path / "out_md.txt").read_text()
        return next(line for line in md.splitlines() if line.startswith("| a ")), pd.read_csv(out["csv"])

    line, frame = board([1])
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[5:7] == ["one fold: no stability"] * 2  # Jaccard, Kuncheva
    assert (frame.stability_folds == 1).all() and frame.jaccard.isna().all()
    line, frame = board([1, 2])
    jac = np.mean([len(set(range(1, 47)[:k]) & set(list(range(1, 47))[::2][:k])) / len(set(range(1, 47)[:k])
                   | set(list(range(1, 47))[::2][:k])) for k in (5, 10)])
    assert "no stability" not in line and frame.set_index("method").loc["a", "jaccard"] == pytest.approx(jac)
    assert f"{jac:.3f}" in line


def test_a_selection_with_a_bad_feature_id_stops_the_leaderboard_naming_it(tmp_path):
    from ltrfs.results.leaderboard import read_selections
    from ltrfs.ranking_data import DataError

    path = tmp_path / "select" / "pearson.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"method": "pearson", "n_features": 3, "ranking": [2, 0, 1]}))
    with pytest.raises(DataError, match=r"pearson\.json: bad selection file: ranking holds feature id 0, outside 1\.\.3"):
        read_selections([{"dataset": "d", "method": "pearson", "fold": 1, "path": path}])
    path.write_text(json.dumps({"method": "pearson", "n_features": 3, "ranking": [2, 3, 1]}))
    assert read_selections([{"dataset": "d", "method": "pearson", "fold": 1, "path": path}])[0]["ranking"] == [2, 3, 1]


def test_as_good_as_all_features_counts_datasets_and_averages_rankers():
    """Six datasets, two rankers each: ``same`` is within 0.002 of all features everywhere, ``worse``
    loses 0.05 everywhere; a dataset is one unit (its rankers averaged), and only the first is
    shown practically as good; with one dataset there is no across-dataset answer."""
    rows = []
    for i, d in enumerate("DEFGHI"):
        for ranker in ("svm", "mart"):
            waf = 0.4 + 0.03 * i + (0.01 if ranker == "mart" else 0.0)
            rows += [(d, "waf", ranker, "46", waf, np.nan), (d, "same", ranker, "vali", waf + 0.002 * (-1) ** i, 0.01),
                     (d, "same", ranker, "5", waf - 0.1, 0.9), (d, "worse", ranker, "vali", waf - 0.05, 0.9)]
    table = long_table(rows)
    scores = lb.dataset_scores(table)
    assert scores.shape == (6, 3) and scores.loc["E", "worse"] == pytest.approx(0.43 + 0.005 - 0.05)
    verdict = lb.as_good_as_baseline(table, rope=0.01)
    assert verdict.loc["same", "datasets"] == 6 and verdict.loc["same", "p_as_good"] > 0.99
    assert verdict.loc["worse", "p_worse"] > 0.99 and verdict.loc["worse", "p_as_good"] < 0.01
    frame, _ = lb.board(table, ("NDCG@10",), rope=0.01)
    assert frame.set_index("method")["p_as_good_NDCG@10"].round(2).to_dict() == {"same": 1.0, "worse": 0.0}
    assert lb.as_good_as_baseline(table[table.dataset == "D"]).empty


def test_cross_family_gap_and_rank_by_hand():
    """Two datasets x two rankers, selector families F (a, b) and G (c): each cell's gap is the
    family's mean of (value at the vali k - waf's value, same ranker) per dataset, then mean and sd
    over the datasets; rank: the family's mean rank among a, b, c per block, then over datasets."""
    rows = []
    values = {  # (dataset, ranker) -> waf, a, b, c
        ("D", "lin"): (0.50, 0.48, 0.44, 0.40), ("D", "nn"): (0.60, 0.50, 0.58, 0.62),
        ("E", "lin"): (0.30, 0.31, 0.25, 0.20), ("E", "nn"): (0.40, 0.30, 0.40, 0.35),
    }
    for (dataset, ranker), (waf, a, b, c) in values.items():
        rows.append((dataset, "waf", ranker, "46", waf, np.nan))
        for method, v in zip("abc", (a, b, c)):
            rows += [(dataset, method, ranker, "5", v - 0.1, 0.5), (dataset, method, ranker, "vali", v, 0.5)]
    rows.append(("D", "a", "own", "5", 0.9, np.nan))  # a method's own model: no family, left out
    cross = lb.cross_family(long_table(rows), {"a": "F", "b": "F", "c": "G"},
                            {"lin": "linear", "nn": "neural", "own": None})
    got = cross.set_index(["family", "ranker"])
    # F with lin: D mean(-0.02, -0.06) = -0.04, E mean(+0.01, -0.05) = -0.02 -> -0.03, sd 0.0141
    assert got.loc[("F", "lin"), "gap"] == pytest.approx(-0.03)
    assert got.loc[("F", "lin"), "gap_sd"] == pytest.approx(np.std([-0.04, -0.02], ddof=1))
    # ranks with lin: D a 1, b 2, c 3; E a 1, b 2, c 3 -> F 1.5, G 3
    assert got.loc[("F", "lin"), "rank"] == pytest.approx(1.5) and got.loc[("G", "lin"), "rank"] == 3
    # G with nn: D +0.02, E -0.05 -> -0.015; ranks D c 1, E c 2 (a 3, b 1) -> 1.5
    assert got.loc[("G", "nn"), "gap"] == pytest.approx(-0.015) and got.loc[("G", "nn"), "rank"] == 1.5
    assert set(cross.ranker) == {"lin", "nn"} and (cross.datasets == 2).all() and (cross.competitors == 3).all()
    assert got.loc[("F", "nn"), "ranker_family"] == "neural" and got.loc[("F", "nn"), "methods"] == 2
    text = lb.cross_family_markdown(cross, "NDCG@10")
    assert "| F " in text and "-0.0300 ± 0.0141 (rank 1.5)" in text and "lin (linear)" in text


def test_every_selector_and_ranker_has_a_family():
    from ltrfs.rankers import RANKERS, ranker_family
    from ltrfs.selection import SELECTOR_FAMILIES, SELECTORS, selector_family

    assert sorted(m for members in SELECTOR_FAMILIES.values() for m in members) == sorted(SELECTORS)
    assert all(selector_family(m) for m in SELECTORS)
    assert [r for r in RANKERS if ranker_family(r) is None] == []


def test_cross_family_leaves_out_a_block_without_its_reference():
    """Where all features has no value in a block, that block counts for neither the gap nor the
    rank (not the gap of one block and the rank of two)."""
    rows = [("D", "waf", "lin", "46", 0.5, np.nan), ("D", "a", "lin", "5", 0.4, 0.5), ("D", "b", "lin", "5", 0.3, 0.5),
            ("E", "a", "lin", "5", 0.1, 0.5), ("E", "b", "lin", "5", 0.2, 0.5)]
    cross = lb.cross_family(long_table(rows), {"a": "F", "b": "F"}, {"lin": "linear"}).iloc[0]
    assert cross.datasets == 1 and cross.gap == pytest.approx(-0.15) and cross["rank"] == 1.5
    assert np.isnan(cross.gap_sd)

"""Published numbers beside ours: matching rows, differences, Markdown."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ltrfs.results import published

REPO = __import__("pathlib").Path(__file__).resolve().parents[2]


def ours_table():
    rows = [  # method, ranker, k, k_chosen, NDCG@10, MAP
        ("waf", "ranksvm", "46", "46", 0.2257, 0.4721),
        ("fsmrank", "own", "46", "46", 0.2302, 0.4770),
        ("gas_e", "ranksvm_primal", "5", "5", 0.2200, 0.4600),
        ("gas_e", "ranksvm_primal", "10", "10", 0.2310, 0.4782),
        ("gas_e", "ranksvm_primal", "vali", "10,30", 0.2290, 0.4750),
    ]
    return pd.DataFrame(rows, columns=["method", "ranker", "k", "k_chosen", "NDCG@10", "MAP"])


def pub_table():
    rows = [
        ("lai2013", "Table II", "MQ2008", "waf", "ranksvm", "", "NDCG@10", 0.2279, "letor4", ""),
        ("lai2013", "Table II", "MQ2008", "fsmrank", "own", "", "MAP", 0.4771, "letor4", ""),
        ("lai2013", "Table I", "MQ2008", "gas_e", "ranksvm_primal", "", "MAP", 0.4800, "letor4", ""),
        ("lai2013", "Table I", "MQ2008", "gas_e", "ranksvm_primal", "5", "MAP", 0.4500, "letor4", ""),
        ("lai2013", "Table I", "MQ2008", "fsmsvm", "ranksvm_primal", "", "MAP", 0.4700, "letor4", ""),
        ("lai2013", "Table I", "MQ2008", "fsmsvm", "ranksvm_primal", "", "NDCG@2", 0.4, "letor4", ""),
        ("lai2013", "Table I", "OHSUMED", "gas_e", "ranksvm_primal", "", "MAP", 0.4475, "letor3", ""),
    ]
    return pd.DataFrame(rows, columns=published.COLUMNS)


def test_beside_matches_rows_and_computes_differences():
    comp = published.beside(ours_table(), pub_table(), "MQ2008")
    got = {(r.method, r.k, r.metric): (r.ours, r.published, r.difference) for r in comp.itertuples()}
    # NDCG@2 is not a column of our table: left out; OHSUMED is another dataset
    assert len(comp) == 5
    assert got[("waf", "46", "NDCG@10")] == pytest.approx((0.2257, 0.2279, -0.0022))
    assert got[("gas_e", "vali (10,30)", "MAP")] == pytest.approx((0.4750, 0.4800, -0.0050))  # k chosen on vali
    assert got[("gas_e", "5", "MAP")] == pytest.approx((0.4600, 0.4500, 0.0100))  # a fixed k
    ours, pub, diff = got[("fsmsvm", "", "MAP")]
    assert np.isnan(ours) and pub == 0.47 and np.isnan(diff)  # no run of ours
    md = published.to_markdown(comp[comp.table == "Table II"], title="MQ2008", tolerance=0.002)
    assert "| waf | ranksvm | 46 | 0.2257 / 0.2279 (-0.0022)† |  |" in md
    assert "| fsmrank | own | 46 |  | 0.4770 / 0.4771 (-0.0001) |" in md
    assert "ours / published (ours − published)" in md and "† |difference| > 0.002" in md
    # a dataset the paper has no numbers for (a stand-in): the table says so instead of a header
    none = published.to_markdown(published.beside(ours_table(), pub_table(), "Yahoo-set2-standin"), title="x")
    assert "| method |" not in none and "publishes no number for this dataset" in none


def test_load_the_project_files_and_refuse_bad_ones(tmp_path):
    lai = published.load("lai2013", REPO / "config/published")
    assert {"Table I", "Table II", "Table III"} <= set(lai.table) and lai.value.dtype == float
    with pytest.raises(ValueError, match="no published numbers for 'nobody'"):
        published.load("nobody", REPO / "config/published")
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="columns must be paper, table"):
        published.load("x", tmp_path)


def test_closest_convention_is_the_smallest_mean_absolute_difference():
    other = ours_table().assign(**{"NDCG@10": lambda t: t["NDCG@10"] + 0.01, "MAP": lambda t: t["MAP"] - 0.002})
    frame = published.closest_convention({"letor4": ours_table(), "standard": other}, pub_table(), "MQ2008")
    got = frame.set_index(["table", "convention"])
    # Table II: waf NDCG@10 (-0.0022 / +0.0078) and fsmrank MAP (-0.0001 / -0.0021)
    assert got.loc[("Table II", "letor4"), "mean_abs_difference"] == pytest.approx((0.0022 + 0.0001) / 2)
    assert got.loc[("Table II", "standard"), "mean_abs_difference"] == pytest.approx((0.0078 + 0.0021) / 2)
    # Table I: gas_e vali MAP (-0.0050 / -0.0070) and gas_e k=5 MAP (+0.0100 / +0.0080); fsmsvm has no run
    assert got.loc[("Table I", "letor4"), "cells"] == 2
    assert got.loc[("Table I", "standard"), "mean_abs_difference"] == pytest.approx((0.0070 + 0.0080) / 2)
    md = published.closest_convention_markdown(frame)
    assert "| Table II | 0.0012 (2 cells) | 0.0050 (2 cells) | letor4 |" in md
    assert "| Table I | 0.0075 (2 cells) | 0.0075 (2 cells) |" in md
    only_map = published.closest_convention({"letor4": ours_table()}, pub_table(), "MQ2008", metrics=["MAP"])
    assert only_map.set_index("table").loc["Table II", "cells"] == 1
    assert published.closest_convention_markdown(only_map.iloc[0:0]) == ""


def test_paper_layout_keeps_the_papers_rows_columns_and_printed_values(tmp_path):
    from ltrfs.results import paper_layout

    values = pd.DataFrame(pub_table()).astype(str)
    values.loc[1, "value"] = "0.4770"  # as printed: trailing zero kept
    rows = [("gas_e/ranksvm_primal", "GAS-E"), ("fsmsvm/ranksvm_primal", "FSMSVM"), ("fsmrank/own", "FSMRank")]
    md = paper_layout.published_grid(values, "Table I", rows, [("MAP", "MAP"), ("NDCG@2", "N@2")], dataset="MQ2008")
    assert md.splitlines() == ["| Model | MAP | N@2 |", "|---|---|---|", "| GAS-E | 0.48 |  |",
                               "| FSMSVM | 0.47 | 0.4 |", "| FSMRank |  |  |"]  # a row the table lacks stays, empty
    # a k column (Lei & Han's Table 2.1): the row of the fixed k, not the row without one
    by_k = paper_layout.published_grid(values, "Table I", rows[:1], [("5", "5 features")], by="k", dataset="MQ2008")
    assert "| GAS-E | 0.45 |" in by_k
    # ours: each (method, ranker) at its chosen k (vali where there is one), at the paper's decimals
    ours = paper_layout.ours_grid(ours_table(), [("gas_e/ranksvm_primal", "GAS-E"), ("waf/ranksvm", "WAF")],
                                  [("MAP", "MAP")], digits=3)
    assert "| GAS-E | 0.475 |" in ours and "| WAF | 0.472 |" in ours
    (tmp_path / "x.csv").write_text(",".join(published.COLUMNS) + "\nx,Table 3.1,D,m,,2,feature,9,,\n"
                                    "x,Table 3.1,D,m,,1,feature,12,,\nx,Table 3.1,D,m,,,k_selected,2,,\n")
    listed = paper_layout.published_features(paper_layout.printed("x", tmp_path), "Table 3.1")
    assert listed == [12, 9]
    side = paper_layout.feature_lists({"paper": listed, "ours": [3]}, [f"f{i}" for i in range(1, 13)],
                                      {"ours": {3: "informative"}})
    assert side.splitlines()[2:] == ["| 1 | X12 | f12 | X3 | f3 — informative |", "| 2 | X9 | f9 |  |  |"]
    with pytest.raises(ValueError, match="no published numbers for 'nobody'"):
        paper_layout.printed("nobody", tmp_path)

"""A paper's figure in its form (ltrfs.results.figures.curves.metric_panels, config ``paper_figures``): one ranker,
a panel per metric, the compare pairs circled, on a generated table; the config check and the
plan of the figures."""
from __future__ import annotations

import copy
from pathlib import Path

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest
import yaml
from snakemake.utils import update_config

from ltrfs.results.figures import curves
from ltrfs.config import ConfigError
from ltrfs.config_check import check
from ltrfs.datasets.registry import load_registry
from ltrfs.pipeline.figures import figure_paper
from ltrfs.pipeline.plan import Plan
from ltrfs.results.tables import REFERENCE_RANKER

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
METRICS = ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP"]
KS = [*range(1, 11), *range(15, 46, 5)]
LABELS = {"waf": "WAF", "gas_e": "GAS-E (NDCG@10)", "gas_l": "GAS-L", "ig": "IG", "chi": "CHI"}


def value(ranker: str, method: str, k: int, metric: str) -> float:
    """The generated table's mean: distinct for every ranker, method, k and metric."""
    return (0.3 + 0.1 * (ranker == "ranknet") + 0.01 * list(LABELS).index(method) + 0.002 * k
            + 0.05 * METRICS.index(metric))


def table() -> pd.DataFrame:
    """Two rankers, four selectors at the ks of the geng2007 config, WAF at k = 45, a reference row."""
    rows = [{"method": m, "ranker": r, "k": str(k), "folds": 5,
             **{c: value(r, m, k, c) for c in METRICS}, **{c + "_std": 0.01 for c in METRICS}}
            for r in ("ranksvm", "ranknet") for m in LABELS for k in ([45] if m == "waf" else KS)]
    rows += [{"method": m, "ranker": r, "k": "vali", "folds": 5, **{c: 0.9 for c in METRICS}}
             for r in ("ranksvm", "ranknet") for m in LABELS]  # never drawn
    rows.append({"method": "file order", "ranker": REFERENCE_RANKER, "k": "0", "folds": 5, **{c: 0.1 for c in METRICS}})
    return pd.DataFrame(rows)


def comparison() -> pd.DataFrame:
    """GAS-E differs from IG at k = 3 on every metric and GAS-L from GAS-E at k = 20 on MAP, with
    RankSVM; with RankNet GAS-E differs from CHI at k = 5 (not drawn in a RankSVM figure)."""
    rows = [("gas_e/ranksvm", "ig/ranksvm", m, "3", 0.01) for m in METRICS]
    rows += [("gas_e/ranksvm", "ig/ranksvm", "MAP", "4", 0.2), ("gas_l/ranksvm", "gas_e/ranksvm", "MAP", "20", 0.04),
             ("gas_e/ranknet", "chi/ranknet", "MAP", "5", 0.001)]
    frame = pd.DataFrame(rows, columns=["a", "b", "metric", "k_b", "p"]).assign(at="k", difference=0.01)
    chosen = frame.iloc[:1].assign(at="chosen", k_b="vali (7)", p=0.0)  # the vali-chosen rows are not circles
    return pd.concat([frame.assign(k_a=frame.k_b), chosen.assign(k_a="vali (7)")], ignore_index=True)


def circles(ax) -> list[tuple]:
    """(x, y, edge colour) of every open circle of a panel."""
    return [(x, y, mcolors.to_hex(line.get_markeredgecolor())) for line in ax.lines
            if line.get_linestyle() == "None" for x, y in zip(line.get_xdata(), line.get_ydata())]


def colour_of(ax, method: str) -> str:
    (line,) = [line for line in ax.lines if line.get_linestyle() != "None" and len(line.get_xdata()) == len(KS)
               and np.allclose(line.get_ydata(), [value("ranksvm", method, k, ax.get_title()) for k in KS])]
    return mcolors.to_hex(line.get_color())


def test_one_panel_per_metric_one_line_per_method_and_the_pairs_circled(drawn, tmp_path):
    curves.metric_panels(table(), "ranksvm", METRICS, tmp_path / "f.png", csv=tmp_path / "f.csv", title="Fig. 4",
                        caption="test mean over 5 folds", labels=LABELS, comparison=comparison(), n_features=45)
    (fig,) = drawn
    panels, spare = fig.axes[:5], fig.axes[5]
    assert [ax.get_title() for ax in panels] == METRICS and not spare.axison
    for ax in panels:  # RankSVM's values only (RankNet's are 0.1 higher), at every k; WAF a horizontal line
        metric = ax.get_title()
        colours = {m: colour_of(ax, m) for m in ("gas_e", "gas_l", "ig", "chi")}
        assert len(set(colours.values())) == 4
        (waf,) = [line for line in ax.lines if line.get_linestyle() == "--"]
        assert list(waf.get_ydata()) == [pytest.approx(value("ranksvm", "waf", 45, metric))] * 2
        expected = [(3, value("ranksvm", "ig", 3, metric), colours["gas_e"])]
        if metric == "MAP":  # p = 0.2 at k = 4 is no circle; the RankNet pair is not in this figure
            expected.append((20, value("ranksvm", "gas_e", 20, metric), colours["gas_l"]))
        assert [(x, pytest.approx(y), c) for x, y, c in expected] == circles(ax)
        assert ax.get_ylabel() == f"test {metric}, mean over 5 folds"
        assert ax.get_xlabel() == "number of selected features k"
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "10", "20", "30", "all (45)"]
    legend = [t.get_text() for t in spare.get_legend().get_texts()]
    assert legend == ["GAS-E (NDCG@10)", "GAS-L", "IG", "CHI", "WAF (all features)",
                      "circle in GAS-E (NDCG@10)'s colour: differs from\nGAS-E (NDCG@10) at that k (paired t-test, p < 0.05;\nuncorrected: the paper's test)",
                      "circle in GAS-L's colour: differs from\nGAS-L at that k (paired t-test, p < 0.05;\nuncorrected: the paper's test)"]
    assert fig._suptitle.get_text() == "Fig. 4"
    assert [t.get_text() for t in fig.texts if t is not fig._suptitle] == ["test mean over 5 folds"]
    drawn_csv = pd.read_csv(tmp_path / "f.csv", dtype={"k": str}).fillna("")
    assert len(drawn_csv) == 5 * (4 * len(KS) + 1) and set(drawn_csv.ranker) == {"ranksvm"}
    marked = drawn_csv[drawn_csv.significant_vs != ""]
    assert sorted(zip(marked.method, marked.k, marked.metric, marked.significant_vs)) == sorted(
        [("ig", "3", m, "gas_e") for m in METRICS] + [("gas_e", "20", "MAP", "gas_l")])
    row = drawn_csv[(drawn_csv.method == "chi") & (drawn_csv.k == "7") & (drawn_csv.metric == "NDCG@5")].iloc[0]
    assert row["mean"] == pytest.approx(value("ranksvm", "chi", 7, "NDCG@5")) and row["std"] == 0.01


def test_four_metrics_two_by_two_with_the_legend_beside(drawn, tmp_path):
    curves.metric_panels(table(), "ranknet", METRICS[:4], tmp_path / "f.png", methods=["gas_e", "ig", "waf"],
                        comparison=comparison())
    (fig,) = drawn
    assert len(fig.axes) == 4 and len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["gas_e", "ig", "waf (all features)"]
    assert all(circles(ax) == [] for ax in fig.axes)  # the RankNet pair is gas_e vs chi, on MAP only
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][-1] == "45"  # d unknown: a number


def test_a_ranker_not_in_the_table_is_a_one_line_error(tmp_path):
    with pytest.raises(ValueError, match=r"^no rows of ranker 'lambdamart' .*; its rankers: ranknet, ranksvm$"):
        curves.metric_panels(table(), "lambdamart", METRICS, tmp_path / "f.png")


def test_figure_paper_writes_the_figure_and_says_what_a_point_and_a_circle_are(drawn, tmp_path):
    table().to_csv(tmp_path / "t.csv", index=False)
    comparison().to_csv(tmp_path / "c.csv", index=False)
    spec = {"figure": "fig5", "ranker": "ranknet", "metrics": ["MAP"], "methods": list(LABELS),
            "labels": {**LABELS, "ranknet": "RankNet"}}
    figure_paper(tmp_path / "t.csv", tmp_path / "c.csv", {"png": tmp_path / "f.png", "pdf": None, "csv": tmp_path / "f.csv"}, spec=spec,
                 title="Geng et al. 2007 on OHSUMED", baselines=["waf"], n_features=45)
    (fig,) = drawn
    assert fig._suptitle.get_text() == "Fig. 5 (ours): RankNet, Geng et al. 2007 on OHSUMED"
    (caption,) = [" ".join(t.get_text().split()) for t in fig.texts if t is not fig._suptitle]
    assert caption.startswith("Fig. 5 in the paper's form, ours: each point is the test value of RankNet trained on "
                              "the k features a method selected, mean over 5 folds")
    assert "dashed line: WAF (all 45 features)" in caption and "p < 0.05" in caption
    assert circles(fig.axes[0]) == [(5, pytest.approx(value("ranknet", "chi", 5, "MAP")), circles(fig.axes[0])[0][2])]
    assert set(pd.read_csv(tmp_path / "f.csv").metric) == {"MAP"}


@pytest.fixture
def geng_config():
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    update_config(config, yaml.safe_load((REPO / "config/papers/geng2007.yaml").read_text()))
    return config


@pytest.mark.parametrize("edit, message", [
    (lambda e: e["paper_figures"]["fig4"].update(ranker="lambdamart"),
     r"^config experiments\.geng2007\.paper_figures\.fig4: unknown ranker 'lambdamart'; valid: ranknet, ranksvm$"),
    (lambda e: e["paper_figures"]["fig4"].update(dataset="MQ2008"),
     r"^config experiments\.geng2007\.paper_figures\.fig4: unknown dataset 'MQ2008'; valid: OHSUMED, TD2004$"),
    (lambda e: e["paper_figures"]["fig4"].update(methods=["gas_e", "pearson"]),
     r"^config experiments\.geng2007\.paper_figures\.fig4: unknown method 'pearson'; valid: chi, gas_e, "),
    (lambda e: e["paper_figures"]["fig4"].update(metrics=["NDCG@20"]), r"^config: metric 'NDCG@20' is not reported"),
    (lambda e: e["paper_figures"].update(figure4={"dataset": "OHSUMED", "ranker": "ranksvm"}),
     r"^config experiments\.geng2007\.paper_figures: 'figure4' does not match "),
    (lambda e: e["figure_labels"].update(lambdamart="LambdaMART"),
     r"^config experiments\.geng2007\.figure_labels: unknown method or ranker 'lambdamart'"),
])
def test_paper_figures_name_the_experiments_datasets_rankers_and_methods(geng_config, edit, message):
    edit(geng_config["experiments"]["geng2007"])
    with pytest.raises(ConfigError, match=message) as info:
        check(geng_config, SCHEMA, load_registry(REPO / "config/datasets.yaml"))
    assert "\n" not in str(info.value)


def test_the_plan_asks_for_each_datasets_paper_figures(geng_config):
    registry = load_registry(REPO / "config/datasets.yaml")
    plan = Plan(check(copy.deepcopy(geng_config), SCHEMA, registry), registry)
    figures = {d: [t.rpartition("/")[2] for t in plan.figures.targets("geng2007", d) if "_fig" in t]
               for d in ("OHSUMED", "TD2004")}
    assert figures == {"OHSUMED": ["OHSUMED_fig4.png", "OHSUMED_fig5.png"],
                       "TD2004": ["TD2004_fig2.png", "TD2004_fig3.png"]}
    spec = plan.figures.paper_figure("geng2007", "fig5")
    assert spec == {"figure": "fig5", "dataset": "OHSUMED", "ranker": "ranknet",
                    "metrics": ["NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "MAP"],
                    "methods": ["waf", "gas_e", "gas_e_map", "gas_l", "ig", "chi"],
                    "labels": geng_config["experiments"]["geng2007"]["figure_labels"]}

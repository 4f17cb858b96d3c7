"""How the figures read: references beyond the y axis, sideways shifts, legends, notes (ltrfs.results.figures)."""
import types

import numpy as np
import pandas as pd
import pytest

from ltrfs.results.figures import board, curves
from ltrfs.pipeline.run import Run
from ltrfs.results.tables import REFERENCE_RANKER


def _table(folds=5, file_order=0.306, random_order=0.322) -> pd.DataFrame:
    """Two rankers, three methods at k = 3, 6, 10, WAF on 46 features and the two reference rows."""
    rows = []
    for ranker in ("ranksvm", "lambdamart"):
        for i, method in enumerate(("random", "gas_e", "ig")):
            rows += [{"method": method, "ranker": ranker, "k": str(k), "folds": folds,
                      "NDCG@10": 0.6 + 0.02 * k + 0.01 * i, "NDCG@10_std": 0.02 if folds > 1 else 0.0}
                     for k in (3, 6, 10)]
        rows.append({"method": "waf", "ranker": ranker, "k": "46", "folds": folds, "NDCG@10": 0.8,
                     "NDCG@10_std": 0.01})
    rows += [{"method": name, "ranker": REFERENCE_RANKER, "k": "0", "folds": folds, "NDCG@10": value,
              "NDCG@10_std": 0.0}
             for name, value in (("file order", file_order), ("random order", random_order))]
    return pd.DataFrame(rows)


def _legend(fig) -> list[str]:
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts()]


def test_references_below_the_axis_are_marked_on_its_edge_and_said_so_in_the_legend(drawn, tmp_path):
    curves.metric_vs_k(_table(), "NDCG@10", tmp_path / "f.png")
    (fig,) = drawn
    low, high = fig.axes[0].get_ylim()
    assert 0.322 < low < 0.66 and high > 0.83  # the axis fits the lines, not the references
    labels = _legend(fig)
    assert "file order (no model): 0.306, below the axis" in labels
    assert "random order (no model): 0.322, below the axis" in labels
    for ax in fig.axes:  # each panel: the two values written beside triangles on the bottom edge
        assert sorted(t.get_text() for t in ax.texts) == ["0.306", "0.322"]
        edge = [line for line in ax.lines if line.get_marker() == "v"]
        assert len(edge) == 2 and all(list(line.get_ydata()) == [0.0] for line in edge)


def test_references_within_the_axis_are_lines(drawn, tmp_path):
    curves.metric_vs_k(_table(file_order=0.70, random_order=0.72), "NDCG@10", tmp_path / "f.png")
    (fig,) = drawn
    assert {"file order (no model): 0.700", "random order (no model): 0.720"} <= set(_legend(fig))
    assert not any("axis" in label for label in _legend(fig)) and not fig.axes[0].texts


def _points_k(fig) -> np.ndarray:
    """The x of every point of the first panel's lines."""
    return np.concatenate([np.asarray(line.get_xdata(), dtype=float) for line in fig.axes[0].lines
                           if line.get_marker() == "o"])


def test_the_sideways_shift_is_small_stated_and_absent_with_one_fold(drawn, tmp_path):
    curves.metric_vs_k(_table(), "NDCG@10", tmp_path / "f.png", csv=tmp_path / "f.csv")
    curves.metric_vs_k(_table(folds=1), "NDCG@10", tmp_path / "g.png")
    five, one = drawn
    # three lines, smallest step 3: together a fifth of it, so at most 0.3 from their k
    xs = _points_k(five)
    assert np.abs(xs - np.round(xs)).max() == pytest.approx(0.3)
    assert five.axes[0].get_xlabel() == "number of features k\n(lines shifted sideways \u2264 \u00b10.3 k)"
    assert list(five.axes[0].get_xticks()) == [3, 6, 10]
    assert set(pd.read_csv(tmp_path / "f.csv").k) == {3, 6, 10, 46}  # the CSV keeps the true ks
    xs = _points_k(one)
    assert set(xs) == {3, 6, 10} and one.axes[0].get_xlabel() == "number of features k"


def test_the_legend_sits_just_right_of_the_last_panel(drawn, tmp_path):
    curves.metric_vs_k(_table(), "NDCG@10", tmp_path / "f.png")
    (fig,) = drawn
    fig.canvas.draw()
    right = fig.axes[-1].get_window_extent().x1
    legend = fig.legends[0].get_window_extent()
    assert 0 < legend.x0 - right < 0.25 * fig.dpi  # under a quarter inch: no empty band


def test_a_long_title_wraps_within_the_panels_and_legend_instead_of_widening_the_figure(drawn, tmp_path):
    """An experiment's title of 150 characters over one panel: it starts at the figure's left edge
    and no line of it reaches past the panels and their legend (a figure once drawn a third blank)."""
    table = _table()
    table = table[table.ranker.isin(["ranksvm", REFERENCE_RANKER])]
    title = "Test NDCG@10 against the number of features k, 5 folds: " + "a long experiment title " * 4
    curves.metric_vs_k(table, "NDCG@10", tmp_path / "f.png", title=title)
    (fig,) = drawn
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    text = fig._suptitle
    assert " ".join(text.get_text().split()) == " ".join(title.split()) and "\n" in text.get_text()
    plot = [fig.axes[0].get_tightbbox(renderer), fig.legends[0].get_window_extent()]
    left, right = min(b.x0 for b in plot), max(b.x1 for b in plot)
    box = text.get_window_extent(renderer)
    assert box.x0 >= left - 2 and box.x1 <= right + 0.05 * (right - left)


def test_the_cost_figure_notes_points_drawn_at_0_01_s_only_when_there_are_some(drawn, tmp_path):
    chosen = pd.DataFrame({"dataset": "synthetic", "method": ["a", "b", "waf"], "NDCG@10": [0.7, 0.8, 0.75]})
    cost = pd.DataFrame({"dataset": "synthetic", "method": ["a", "b", "waf"], "cpu_s": [0.5, 2.0, 0.1]})
    board.accuracy_vs_cost(chosen, cost, "NDCG@10", tmp_path / "c.png", baselines=("waf",))
    board.accuracy_vs_cost(chosen, cost.assign(cpu_s=[0.0, 2.0, 0.0]), "NDCG@10", tmp_path / "d.png",
                           baselines=("waf",))
    measured = drawn[0]
    notes = [[t.get_text() for t in fig.texts if t is not fig._suptitle] for fig in drawn]
    assert notes[0] == []
    assert notes[1] == [
        "Drawn at 0.01 s: a, waf (selection too short for Snakemake's benchmark to measure, 0 s)."]
    # one dataset: named once, in the figure's title, not again above its panel
    assert measured._suptitle.get_text() == "Accuracy against selection cost: synthetic"
    assert measured.axes[0].get_title() == ""
    # plain numbers on the log axis, the 2s and 5s labelled within two decades (0.1 .. 2 s here)
    measured.canvas.draw()
    ax = measured.axes[0]
    low, high = ax.get_xlim()
    ticks = [t.get_text() for t in (*ax.get_xticklabels(), *ax.get_xticklabels(minor=True))
             if t.get_text() and low <= t.get_position()[0] <= high]
    assert sorted(ticks, key=float) == ["0.1", "0.2", "0.5", "1", "2"]


@pytest.mark.parametrize("title, dataset, expected", [
    ("Synthetic data, planted features", "synthetic", "Synthetic data, planted features"),
    ("Lei & Han 2017 on MSLR-WEB10K", "mslr_web10k", "Lei & Han 2017 on MSLR-WEB10K"),
    ("Filter selectors", "MQ2008", "Filter selectors: MQ2008"),
])
def test_a_title_that_names_the_dataset_is_not_followed_by_it_again(title, dataset, expected):
    run = types.SimpleNamespace(experiment=lambda name: {"title": title})
    assert Run.experiment_title(run, "demo", dataset) == expected


def _cells(ax) -> dict:
    """(row label, k label) -> the text written in that cell of a grid panel (the rows are labelled
    on the first panel: the panels share them)."""
    rows = [t.get_text() for t in ax.figure.axes[0].get_yticklabels()]
    cols = [t.get_text() for t in ax.get_xticklabels()]
    return {(rows[round(t.get_position()[1])], cols[round(t.get_position()[0])]): t.get_text() for t in ax.texts}


def test_the_recovery_grids_write_each_value_in_its_cell_best_method_first(drawn, tmp_path):
    """A row per method ordered by mean precision (ties in the frame's order), a column per k of the
    dataset, precision and recall side by side per dataset; a missing value is a blank cell."""
    rows = [{"dataset": "synthetic", "method": m, "k": k, "precision": p, "recall": k / 10, "folds": 5}
            for m, p in (("a", 0.5), ("b", 1.0), ("c", 0.5)) for k in (3, 6, 10)]
    rows += [{"dataset": "other", "method": "b", "k": 4, "precision": 0.25, "recall": 0.125, "folds": 1}]
    recovery = pd.DataFrame([r for r in rows if not (r["method"] == "c" and r["k"] == 6)])
    board.recovery_curves(recovery, tmp_path / "r.png")
    (fig,) = drawn
    panels = [ax for ax in fig.axes if ax.get_title()]  # the colour bar has none
    assert [ax.get_title() for ax in panels] == [
        "synthetic, 5 folds\nprecision: share of the top k with signal", "synthetic, 5 folds\nrecall: share of the informative found",
        "other, 1 fold\nprecision: share of the top k with signal", "other, 1 fold\nrecall: share of the informative found"]
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["b", "a", "c"]  # b's mean 0.81, a and c 0.5
    cells = _cells(panels[1])
    assert cells[("a", "6")] == "0.60" and cells[("b", "10")] == "1.00" and ("c", "6") not in cells
    assert len(cells) == 8
    assert _cells(panels[2]) == {("b", "4"): "0.25"} and [t.get_text() for t in panels[2].get_xticklabels()] == ["4"]


def test_stability_draws_the_datasets_of_several_folds_and_names_the_others(drawn, tmp_path):
    stab = pd.DataFrame([{"dataset": d, "method": m, "k": 5, "kuncheva": v, "jaccard": 0.5, "folds": f}
                         for d, f in (("MQ2008", 5), ("standin", 1)) for m, v in (("x", -0.004), ("y", 0.9))])
    board.stability_curves(stab, tmp_path / "s.png")
    board.stability_curves(stab[stab.dataset == "standin"], tmp_path / "t.png")
    several, single = drawn
    (panel,) = [ax for ax in several.axes if ax.get_title()]
    assert panel.get_title().startswith("MQ2008, 5 folds") and _cells(panel) == {("y", "5"): "0.90", ("x", "5"): "0.00"}
    assert several.texts[-1].get_text() == "Not drawn, one fold: standin."
    assert [t.get_text() for t in single.axes[0].texts] == ["every dataset has one fold: no pair of folds to compare"]


def test_every_k_from_1_to_d_is_drawn_without_error_bars_on_a_wider_panel(drawn, tmp_path):
    """Lai et al. Figs. 1-3 draw every k from 1 to d: 45 points a line are drawn at their own k
    (no bars, no sideways shift: the CSV keeps the std), the panel widens with the ks, and the
    circles' legend line names the other curve."""
    rows = [{"method": method, "ranker": ranker, "k": str(k), "folds": 5, "NDCG@10": 0.4 + 0.001 * k + 0.01 * i,
             "NDCG@10_std": 0.05} for i, (method, ranker) in enumerate((("fsmrank", "own"), ("gas_e", "svm")))
            for k in range(1, 46)]
    comparison = pd.DataFrame([{"a": "fsmrank/own", "b": "gas_e/svm", "at": "k", "metric": "NDCG@10", "k_b": "3",
                                "p": 0.01}])
    curves.metric_vs_k(pd.DataFrame(rows), "NDCG@10", tmp_path / "f.png", csv=tmp_path / "f.csv",
                      curves=["fsmrank/own", "gas_e/svm"], comparison=comparison, n_features=45)
    curves.metric_vs_k(_table(), "NDCG@10", tmp_path / "g.png")  # 3 ks: bars, the usual width
    many, few = drawn
    assert set(_points_k(many)) == set(range(1, 46)) | {3.0}  # the circle at k = 3, unshifted
    assert not many.axes[0].containers and few.axes[0].containers  # error bars only with few ks
    assert many.axes[0].get_xlabel() == "number of features k"
    assert many.axes[0].get_ylabel().endswith("(± std over folds: in the CSV)")
    assert many.get_figwidth() == pytest.approx(0.12 * 45 + 1.5) and few.get_figwidth() == pytest.approx(2 * 4.2)
    assert "circled: differs from fsmrank/own (same k; paired t-test p < 0.05, uncorrected)" in _legend(many)
    assert len(pd.read_csv(tmp_path / "f.csv")) == 90


def test_fourteen_lines_look_different_and_the_band_comes_only_with_the_bars(drawn, tmp_path):
    """14 methods: every line has its own (colour, marker, line style), none shares a colour with
    another of the same marker; with more lines than ``max_error_bars`` there are no bars and
    no WAF band either (it would fill the panel), and the legend does not promise one. Three
    methods: bars, and the band with its legend entry."""
    methods = [f"m{i:02d}" for i in range(14)]
    table = pd.concat([_table()] + [pd.DataFrame(
        [{"method": m, "ranker": r, "k": str(k), "folds": 5, "NDCG@10": 0.6 + 0.001 * i, "NDCG@10_std": 0.2}
         for r in ("ranksvm", "lambdamart") for k in (3, 6, 10)]) for i, m in enumerate(methods)])
    curves.metric_vs_k(table, "NDCG@10", tmp_path / "many.png")
    curves.metric_vs_k(_table(), "NDCG@10", tmp_path / "few.png")
    many, few = drawn
    for ax in many.axes[:2]:
        looks = {line.get_label(): (line.get_color(), line.get_marker(), line.get_linestyle())
                 for line in ax.lines if line.get_label() in set(methods) | {"random", "gas_e", "ig"}}
        assert len(looks) == 17 and len(set(looks.values())) == 17
        assert not ax.patches  # no band
    assert "waf" in _legend(many) and not any("band" in label for label in _legend(many))
    assert "waf (band: ± std over folds)" in _legend(few) and all(len(ax.patches) == 1 for ax in few.axes[:2])


def test_a_critical_difference_axis_spans_every_rank_so_that_ties_read_as_ties(drawn, tmp_path):
    """Five selectors tied at 3.0 over two blocks (Geng et al.'s board): the axis runs from rank 1 to
    5 with integer ticks, not over a hundredth of a rank around 3."""
    names = ["chi", "gas_e", "gas_e_map", "gas_l", "ig"]
    tied = {"ranks": pd.Series(3.0, index=names), "nemenyi": pd.DataFrame(1.0, index=names, columns=names),
            "blocks": 2, "p": 1.0}
    spread = {**tied, "ranks": pd.Series([2.0, 3.5, 2.0, 3.5, 4.0], index=names)}
    board.cd_diagrams([("geng2007", "NDCG@10", tied), ("geng2007", "MAP", spread)], tmp_path / "cd.png")
    (fig,) = drawn
    fig.canvas.draw()
    for ax in fig.axes:
        low, high = ax.get_xlim()
        assert 0.8 < low < 1.0 and 5.0 < high < 5.2  # ranks 1 to 5 and a margin for the markers
        ticks = [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
        assert ticks == ["1", "2", "3", "4", "5"]

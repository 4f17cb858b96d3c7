"""Stage tables (``workflow/rules/tables.smk``): the fold-averaged tables of an experiment on a
dataset (``results/{dataset}/tables/{experiment}.csv|.md|.html``, ``ltrfs.results.tables``), the same in
other metric conventions (``{experiment}.{convention}.csv``), the paper's published numbers
beside ours (``{experiment}_published``, ``ltrfs.results.published``) and each method's top features
(``tables/top_features/{experiment}``, ``top_features``)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ltrfs.atomic_files import write_text
from ltrfs.formats import read_csv, read_selection
from ltrfs.results import published
from ltrfs.results.htmlpage import write_markdown
from ltrfs.results.tables import (COMPARE_COLUMNS, NONINFERIORITY_MARGIN, REFERENCE_NOTE, all_pairs, by_k_markdown, compare,
                                  compare_markdown, folds_text, pairs_markdown, read_references, read_runs, short_query_footnote,
                                  summarise, to_markdown)

__all__ = ["write_tables", "write_published", "top_features"]


def write_tables(runs: list[dict], out_csv, out_md, *, metric: str = "NDCG@10", title=None,
                 baselines=("waf",), references: list[dict] | None = None, pairs=(),
                 out_compare=None, own=(), columns=None, out_html=None, n_features: int | None = None,
                 convention: str | None = None, dataset: str = "DATASET",
                 margin: float = NONINFERIORITY_MARGIN, out_pairs=None) -> pd.DataFrame:
    """Write an experiment's tables: the long table as CSV, and as Markdown (and HTML).

    The Markdown has the table of ``columns`` and then ``metric`` by k.

    Parameters
    ----------
    runs : list of dict
        The run files with their coordinates (``PLAN.tables.run_records``,
        ``ltrfs.pipeline.planning.tables``).
    out_csv : str or os.PathLike
        The long table (``ltrfs.results.tables.summarise``) written as CSV.
    out_md : str or os.PathLike
        The Markdown tables written.
    metric : str, default "NDCG@10"
        The metric that chooses k on vali and that the by-k table shows.
    title : str or None, default None
        The heading of the Markdown table.
    baselines : sequence of str, default ("waf",)
        The all-features baseline methods of ``p_vs_waf``.
    references : list of dict or None, default None
        Per-fold reference files: they add the file-order and random-order rows.
    pairs : sequence of (str, str), default ()
        The experiment's ``compare``: paired t-tests, written to ``out_compare``, to the Markdown
        and as marks in the table.
    out_compare : str or os.PathLike or None, default None
        The paired t-tests written as CSV.
    own : sequence of str, default ()
        The rankers that are a method's own model (see ``ltrfs.results.tables.summarise``).
    columns : sequence of str or None, default None
        The metrics of the Markdown table (None: ``DEFAULT_COLUMNS``).
    out_html : str or os.PathLike or None, default None
        The Markdown as an HTML page.
    n_features : int or None, default None
        The dataset's number of features: rows at k = d (all features, where a k above d lands
        too) read "all (d)" in the Markdown; the CSV keeps the number.
    convention : str or None, default None
        The convention the run files were evaluated in: where it scores the short test queries'
        NDCG 0, the Markdown says how many in one line (``short_query_footnote``).
    dataset : str, default "DATASET"
        The dataset's name, in that line.
    margin : float, default 0.01
        The non-inferiority margin (config ``noninferiority_margin``; ``ltrfs.results.tables.summarise``).
    out_pairs : str or os.PathLike or None, default None
        Every pair of methods of one ranker at each k and at the vali-chosen k
        (``ltrfs.results.tables.all_pairs``) as CSV; the Markdown then shows the vali-chosen families.

    Returns
    -------
    pandas.DataFrame
        The long table.
    """
    per_query = read_runs(runs)
    if references:
        per_query = pd.concat([per_query, read_references(references)], ignore_index=True)
    table = summarise(per_query, metric, baselines, own, margin)
    write_text(out_csv, table.to_csv(index=False, float_format="%.6f"))
    comparison = compare(per_query, pairs, metric, own) if pairs else pd.DataFrame(columns=COMPARE_COLUMNS)
    if out_compare is not None:
        write_text(out_compare, comparison.to_csv(index=False, float_format="%.6g"))
    tests = f"\n#### Paired t-tests\n\n{compare_markdown(comparison, columns)}" if pairs else ""
    if out_pairs is not None:
        every = all_pairs(per_query, metric, baselines, own)
        write_text(out_pairs, every.to_csv(index=False, float_format="%.6g"))
        shown = pairs_markdown(every, metric)
        tests += f"\n#### Every pair of methods, k chosen on vali\n\n{shown}" if shown else ""
    folds = sorted({int(r["fold"]) for r in runs})
    short = short_query_footnote(per_query, convention, metric, dataset) if convention else None
    notes = ["test", "mean over folds" if len(folds) > 1 else folds_text(folds)]
    notes += ["*, ≈: against WAF, below the table"] if table["p_vs_waf"].notna().any() else []
    write_markdown(out_md, to_markdown(table, columns, metric=metric, title=title, comparison=comparison,
                                       n_features=n_features, folds=folds)
                   + (f"\n{short}\n" if short else "")
                   + f"\n#### {metric} by k ({'; '.join(notes)}; vali: the k chosen on vali)\n\n"
                   + by_k_markdown(table, metric, n_features=n_features, margin=margin)
                   + "\n" + REFERENCE_NOTE + "\n" + tests, out_html)
    return table


def write_published(spec: dict, paper_dir, tables: dict, dataset: str, title: str, out: dict) -> None:
    """A paper's published numbers beside the experiment's table (``ltrfs.results.published``).

    Parameters
    ----------
    spec : dict
        The experiment's ``published`` entry (``paper``, ``tables``, ``rows``, ``metrics``, ``tolerance``,
        ``datasets``: our dataset -> the paper's dataset whose rows it is compared with).
    paper_dir : path-like
        The folder of the published-number files (``config/published``).
    tables : dict
        Convention -> path of the experiment's table in it; the first is the dataset's own.
        With more than one, the page also says which convention each paper table is closest to.
    dataset, title : str
    out : dict
        Paths ``md``, ``html`` and ``csv`` (ours, published and their difference per cell).
    """
    paper = published.load(spec["paper"], Path(paper_dir))
    tables = {c: read_csv(path, ("method", "ranker", "k"), dtype={"k": str, "k_chosen": str})
              for c, path in tables.items()}
    ours = next(iter(tables.values()))
    dataset = (spec.get("datasets") or {}).get(dataset, dataset)  # e.g. a paper table titled with another dataset
    comparison = published.beside(ours, paper, dataset, spec.get("tables"), spec.get("rows"))
    if spec.get("metrics"):
        comparison = comparison[comparison.metric.str.lower().isin([m.lower() for m in spec["metrics"]])]
    text = published.to_markdown(comparison, title, spec.get("tolerance"))
    if len(tables) > 1:
        closest = published.closest_convention(tables, paper, dataset, spec.get("tables"), spec.get("rows"),
                                               spec.get("metrics"))
        text += ("\n" + published.closest_convention_markdown(closest)) if not closest.empty else ""
    write_markdown(out["md"], text, out["html"])
    write_text(out["csv"], comparison.to_csv(index=False, float_format="%.6g"))


def top_features(selection_paths: dict, out_md, out_csv, *, k: int = 10, names=None, title: str = "",
                 out_html=None) -> None:
    """Every method's top k features in the first fold given, with their names and scores.

    The set a method chose itself, when it chose one, in the order of its ranking.

    Parameters
    ----------
    selection_paths : dict
        Method -> selection file.
    out_md, out_csv : path
        Markdown (a name column only where ``names`` are known) and CSV.
    k : int, default 10
    names : sequence of str or None
    title : str, default ''
    out_html : path or None
        Also as an HTML page.
    """
    rows, lines = [], [f"### {title}", ""] if title else []
    for method, path in selection_paths.items():
        selection = read_selection(path)
        chosen = (selection.get("chosen") or {}).get("n_selected")
        n = int(chosen) if chosen else k
        ids = selection["ranking"][:n]
        scores = selection.get("scores")
        lines += [f"**{method}** ({'its own choice of ' if chosen else 'top '}{n} features)", "",
                  "| rank | feature | name | score |" if names else "| rank | feature | score |",
                  "|---|---|---|---|" if names else "|---|---|---|"]
        for rank, feature in enumerate(ids, 1):
            name = names[feature - 1] if names else ""
            score = "" if scores is None else f"{scores[feature - 1]:.4g}"
            lines.append(f"| {rank} | {feature} | {name} | {score} |" if names else f"| {rank} | {feature} | {score} |")
            rows.append({"method": method, "rank": rank, "feature": feature, "name": name,
                         "score": None if scores is None else scores[feature - 1]})
        lines.append("")
    lines.append("Feature: the column number in the data files (1-based)"
                 + ("; name: from the dataset's feature list" if names else " (the registry lists no names)")
                 + "; score: the method's score of the feature on the fold's training split (empty for a "
                 "method without scores, such as random); a method's own choice is the set it selected "
                 "itself, otherwise the first k of its ranking.")
    write_markdown(out_md, "\n".join(lines) + "\n", out_html)
    # 12 significant digits: a score's last bits follow the CPU's BLAS kernel (docs/environment.md)
    write_text(out_csv, pd.DataFrame(rows).to_csv(index=False, float_format="%.12g"))

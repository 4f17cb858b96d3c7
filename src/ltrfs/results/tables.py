"""Fold-averaged result tables from the per-query run files.

Input: ``runs/{method}/{ranker}.tsv`` of every fold (columns k, split, qid, n_docs and the
metrics of ``ltrfs.formats.METRIC_COLUMNS``). Output rows are (method, ranker, k) with, for
every metric, the mean over folds of the fold's test mean and the standard deviation over folds
(ddof=1; 0 with one fold); plus one row per (method, ranker) with ``k = "vali"``: in each fold
the k whose mean vali metric is best (ties: smaller k), as docs/methods.md, section
'Choice on vali and significance' states for papers that choose k by validation.
Against the all-features baseline (the methods of algorithm ``waf``) with the same ranker, over
the test queries of all folds pooled (``ltrfs.results.significance``): ``p_vs_waf``, the paired
two-sided t-test of the per-query test values of the validation metric (the papers' test, same
section), the mean difference with its 95% interval, and the non-inferiority test at the margin;
each kind of test Holm-corrected over the table's rows (``*_holm``, which the marks follow);
empty when the experiment has no such baseline.

One run file serves every experiment that contains its (dataset, method, ranker), with the
union of their k grids; ``read_runs`` keeps the k values of the experiment at hand.

Reference rows (``reference.tsv`` of every fold, ``read_references``): a constant score ranked
in the data file's order ("file order") and in expectation over all orders ("random order"),
method = the reference's name, ranker ``REFERENCE_RANKER``, k = "0"; they show how much of a
number the file order alone explains (on OHSUMED, a lot).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ltrfs import metric_spec
from ltrfs.formats import METRIC_COLUMNS, read_csv
from ltrfs.results import significance

KEY = ["method", "ranker", "k"]
#: the loss against all features that still counts as "as good as" (config ``noninferiority_margin``)
NONINFERIORITY_MARGIN = 0.01
#: the ranker column of the reference rows (no model: every document gets the same score)
REFERENCE_RANKER = "(no model)"


def read_runs(runs: list[dict]) -> pd.DataFrame:
    """Concatenate run files; ``runs`` items are {"path", "fold", "method", "ranker"} and
    optionally "k", the experiment's k grid: rows of other k are dropped, unless the file has
    none of those k (methods that ignore k, or every k above the feature count); with
    "full_model" true (a method's own model) the file's largest k, the full model, is kept too."""
    frames = []
    for run in runs:
        frame = read_csv(run["path"], ("k", "split", "qid"), sep="\t", dtype={"k": str, "qid": str})
        wanted = {str(k) for k in run.get("k") or ()}
        if run.get("full_model") and len(frame):
            wanted.add(str(frame.k.astype(int).max()))
        if wanted & set(frame.k):
            frame = frame[frame.k.isin(wanted)]
        frame.insert(0, "fold", int(run["fold"]))
        frame.insert(1, "method", run["method"])
        frame.insert(2, "ranker", run["ranker"])
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def read_references(references: list[dict]) -> pd.DataFrame:
    """The test rows of the per-fold reference files (``{"path", "fold"}`` items) in the layout
    of ``read_runs``: method "file order" / "random order", ranker ``REFERENCE_RANKER``, k "0"."""
    frames = []
    for ref in references:
        frame = read_csv(ref["path"], ("order", "split", "qid"), sep="\t", dtype={"qid": str})
        frame = frame[frame.split == "test"]
        method = frame.pop("order")
        frame.insert(0, "k", "0")
        frame.insert(0, "fold", int(ref["fold"]))
        frame.insert(1, "method", method.to_numpy())
        frame.insert(2, "ranker", REFERENCE_RANKER)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def short_query_footnote(per_query: pd.DataFrame, convention, metric: str = "NDCG@10",
                         dataset: str = "DATASET") -> str | None:
    """The one footnote line of a table whose convention scores the short test queries' NDCG 0.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``read_runs`` or ``read_references`` rows (columns fold, split, qid, n_docs); each
        (fold, qid) of the test split counts once.
    convention : str or Convention
        The convention the table's metrics were computed in.
    metric : str, default "NDCG@10"
        The table's metric: its cutoff decides what is short (10 for a metric without one).
    dataset : str, default "DATASET"
        The dataset's name, in the line's how-to-change.

    Returns
    -------
    str or None
        ``metric_spec.short_query_note`` over all folds' test queries and how to change the
        convention; None when the convention computes short queries or none is short.

    Examples
    --------
    >>> rows = pd.DataFrame({"fold": [1, 1, 2], "split": "test", "qid": ["1", "1", "7"], "n_docs": [4, 4, 30]})
    >>> short_query_footnote(rows, "letor4").split(":")[0]
    "1 of 2 queries of all folds' test sets have fewer than 10 documents"
    >>> short_query_footnote(rows, "standard") is None
    True
    """
    kind, k = metric_spec.parse_metric(metric)
    test = per_query[per_query.split == "test"].drop_duplicates(["fold", "qid"])
    sizes = test["n_docs"].to_numpy(dtype=np.int64)
    query_ptr = np.concatenate([[0], np.cumsum(sizes)])
    note = metric_spec.short_query_note(query_ptr, convention, k if kind == "ndcg" else 10, "all folds' test sets")
    return None if note is None else (f"{note}: set the dataset's `convention:` in the registry, or "
                                      f"`conventions: {{{dataset}: standard}}` in the config.")


def _best_k(means: pd.DataFrame, by: list, metric: str) -> pd.DataFrame:
    """Per group ``by`` of ``means`` (columns ``by``, k, ``metric``), the row of the best
    ``metric`` (ties: the smaller k); columns ``by`` + k."""
    order = means.assign(k_num=means.k.astype(int)).sort_values(
        [*by, metric, "k_num"], ascending=[True] * len(by) + [False, True], kind="stable")
    return order.groupby(by, sort=False).head(1)[[*by, "k"]]


def chosen_k(ks) -> str:
    """The k that stands for one (method, ranker) among its table or run rows' k values: "vali"
    (the k chosen on vali) when it has one, else its largest k (its single k, or a method's own
    full model beside its top-k view). Used by comparisons, published numbers and figures alike."""
    ks = set(ks)
    return "vali" if "vali" in ks else str(max(int(k) for k in ks))


def chosen_rows(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (method, ranker) of a summarised table: the row of its ``chosen_k``."""
    key = table.groupby(["method", "ranker"], sort=False).k.transform(chosen_k)
    return table[table.k == key]


def _with_vali_choice(per_query: pd.DataFrame, metric: str, own=()) -> pd.DataFrame:
    """Append, per (fold, method, ranker) with more than one k, the rows of the k chosen on
    vali, labelled k='vali'; not for the ``own`` rankers (a method's own model: its k curve,
    FSMRank's top-k restriction, is a view, and its answer is the full model at the largest k)."""
    n_k = per_query.groupby(["method", "ranker"])["k"].transform("nunique")
    vali = per_query[(per_query.split == "vali") & (n_k > 1) & ~per_query.ranker.isin(list(own))]
    means = vali.groupby(["fold", "method", "ranker", "k"], sort=False)[metric].mean().reset_index()
    chosen = _best_k(means, ["fold", "method", "ranker"], metric)
    picked = per_query.merge(chosen, on=["fold", "method", "ranker", "k"])
    picked["k_chosen"] = picked["k"]
    picked["k"] = "vali"
    return pd.concat([per_query.assign(k_chosen=per_query["k"]), picked], ignore_index=True)


def summarise(per_query: pd.DataFrame, metric: str = "NDCG@10", baselines=("waf",), own=(),
              margin: float = NONINFERIORITY_MARGIN) -> pd.DataFrame:
    """The long table: one row per (method, ranker, k), with the vali choice of k.

    Parameters
    ----------
    per_query : pandas.DataFrame
        The per-query rows of the run files of every fold (``read_runs``).
    metric : str, default "NDCG@10"
        The metric that chooses k on vali and that ``p_vs_waf`` tests (a ``METRIC_COLUMNS`` name).
    baselines : sequence of str, default ("waf",)
        The method(s) ``p_vs_waf`` compares against (same ranker).
    own : sequence of str, default ()
        Rankers that rank by their own model: they get no vali row.
    margin : float, default 0.01
        The non-inferiority margin of ``p_noninf``, in ``metric`` units.

    Returns
    -------
    pandas.DataFrame
        One row per (method, ranker, k) with, for every metric, the mean over folds and
        ``<metric>_std``, ``folds``, ``n_queries``, ``k_chosen``, ``k_best``, and against the
        baseline with the same ranker on the pooled test queries (``ltrfs.results.significance``):
        ``p_vs_waf`` (two-sided paired t-test, the papers' test), ``diff_vs_waf`` with its 95%
        interval ``diff_low``/``diff_high``, ``p_noninf`` (H0: the row loses ``margin`` or more),
        and both p Holm-corrected over the table's rows (``p_vs_waf_holm``, ``p_noninf_holm``:
        each kind one family).

    Raises
    ------
    ValueError
        When ``metric`` is not a metric of the run files.
    """
    if metric not in METRIC_COLUMNS:
        raise ValueError(f"unknown table metric {metric!r}; valid: {', '.join(METRIC_COLUMNS)}")
    data = _with_vali_choice(per_query, metric, own)
    test = data[data.split == "test"]
    fold_means = test.groupby(KEY + ["fold"], sort=False)[METRIC_COLUMNS].mean()
    grouped = fold_means.groupby(level=KEY, sort=False)
    table = grouped.mean()
    std = grouped.std(ddof=1).fillna(0.0).add_suffix("_std")
    table = table.join(std)
    table["folds"] = grouped.size()
    table["n_queries"] = test.groupby(KEY, sort=False).size()
    table["k_chosen"] = (test.groupby(KEY, sort=False)["k_chosen"]
                         .agg(lambda s: ",".join(sorted(set(s), key=int))))
    table = table.reset_index()
    table["k_best"] = _k_best(per_query, table, metric, own)
    table[VS_WAF] = _against_baseline(test, table, metric, baselines, margin)
    table["p_vs_waf_holm"] = significance.holm(table.p_vs_waf.to_numpy())  # one family: the table's tests
    table["p_noninf_holm"] = significance.holm(table.p_noninf.to_numpy())
    order = table.k.map(lambda k: (1, 0) if k == "vali" else (0, int(k)))
    table = (table.assign(_o=order, _ref=table.ranker == REFERENCE_RANKER)
             .sort_values(["_ref", "method", "ranker", "_o"], kind="stable").drop(columns=["_o", "_ref"]))
    return table.reset_index(drop=True)


def _k_best(per_query: pd.DataFrame, table: pd.DataFrame, metric: str, own=()) -> list:
    """One number of features per (method, ranker), as Gupta & Rosso's Table 1 reports it: on the
    ``vali`` row, the k whose vali ``metric`` averaged over the folds' means is best (the
    fold-pooled curve; ties: smaller k); on the ``chosen_rows`` row of a method without a vali
    choice (WAF, an own model), its k; elsewhere NaN."""
    vali = per_query[(per_query.split == "vali") & ~per_query.ranker.isin(list(own))]
    curve = (vali.groupby(["method", "ranker", "k", "fold"], sort=False)[metric].mean()
             .groupby(level=["method", "ranker", "k"], sort=False).mean().reset_index())
    pooled = _best_k(curve, ["method", "ranker"], metric).set_index(["method", "ranker"]).k
    chosen = set(chosen_rows(table[table.ranker != REFERENCE_RANKER]).index)
    return [float(pooled.get((row.method, row.ranker), np.nan)) if row.k == "vali"
            else float(row.k) if i in chosen else np.nan
            for i, row in zip(table.index, table.itertuples(index=False))]


#: the columns of a table row's comparison with the all-features baseline (``summarise``)
VS_WAF = ["p_vs_waf", "diff_vs_waf", "diff_low", "diff_high", "p_noninf"]


def _against_baseline(test: pd.DataFrame, table: pd.DataFrame, metric: str, baselines, margin: float) -> pd.DataFrame:
    """Per table row, its paired comparison with the baseline of the same ranker on the pooled
    test queries (``significance.paired_difference``): the ``VS_WAF`` columns, NaN where there is
    no baseline (or the row is one)."""
    waf = test[test.method.isin(list(baselines)) & (test.k != "vali")]
    if waf.method.nunique() > 1:
        raise ValueError(f"more than one all-features baseline: {sorted(waf.method.unique())}")
    out = []
    for row in table.itertuples(index=False):
        if waf.empty or row.method in baselines or row.ranker == REFERENCE_RANKER:
            out.append([np.nan] * len(VS_WAF))
            continue
        base = waf[waf.ranker == row.ranker][["fold", "qid", metric]]
        mine = test[(test.method == row.method) & (test.ranker == row.ranker) & (test.k == row.k)]
        pairs = mine[["fold", "qid", metric]].merge(base, on=["fold", "qid"], suffixes=("", "_waf"))
        if len(pairs) < 2:
            out.append([np.nan] * len(VS_WAF))
            continue
        d = significance.paired_difference(pairs[metric].to_numpy(), pairs[metric + "_waf"].to_numpy(), margin=margin)
        out.append([d.p, d.mean, d.low, d.high, d.p_noninferior])
    return pd.DataFrame(out, columns=VS_WAF, index=table.index)


#: the metrics of the Markdown tables unless an experiment names its own (``metrics``)
DEFAULT_COLUMNS = ("NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@10", "MAP")


def _marks(comparison: pd.DataFrame | None, alpha: float) -> dict:
    """(method, ranker, k, metric) -> marks such as "▲1▼2" from the chosen-k rows of a
    ``compare`` result: ▲n / ▼n on side a of pair n when a is significantly above / below b."""
    out: dict = {}
    if comparison is None or comparison.empty:
        return out
    chosen = comparison[comparison["at"] == "chosen"]
    for n, ((a, b), rows) in enumerate(chosen.groupby(["a", "b"], sort=False), 1):
        method, _, ranker = a.partition("/")
        for row in rows.itertuples(index=False):
            if row.p == row.p and row.p < alpha:
                key = (method, ranker, row.key_a, row.metric)
                out[key] = out.get(key, "") + ("▲" if row.difference > 0 else "▼") + str(n)
    return out


def k_label(k, n_features: int | None = None) -> str:
    """How tables and figures show a k: ``"all (46)"`` for k = d (every feature; a k above d
    lands there too, ``ltrfs.pipeline.train.valid_ks``), else the number.

    Parameters
    ----------
    k : int or str
        A number of features (a table's k column holds strings).
    n_features : int or None, default None
        d, the dataset's number of features; None: unknown, every k is shown as a number.

    Returns
    -------
    str
    """
    return f"all ({int(k)})" if n_features is not None and str(k) == str(n_features) else str(k)


def folds_text(folds) -> str:
    """What the fold means of a table are over: "the 5 folds' means" or "fold 1 only"
    (one fold has no standard deviation).

    Parameters
    ----------
    folds : sequence of int
        The folds the table's runs come from.

    Returns
    -------
    str
    """
    folds = sorted(set(int(f) for f in folds))
    return f"fold {folds[0]} only" if len(folds) == 1 else f"the {len(folds)} folds' means"


def to_markdown(table: pd.DataFrame, columns=DEFAULT_COLUMNS, metric: str = "NDCG@10", title: str | None = None,
                comparison: pd.DataFrame | None = None, alpha: float = 0.05, n_features: int | None = None,
                folds=None) -> str:
    """A readable table: mean ± std over folds for ``columns``, k chosen, p-value vs WAF.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``summarise`` result.
    columns : sequence of str, default ("NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@10", "MAP")
        The metrics shown.
    metric : str, default "NDCG@10"
        The table's metric (the one k was chosen by).
    title : str or None, default None
        A heading above the table.
    comparison : pandas.DataFrame or None, default None
        A ``compare`` result: the cells of each pair's side a then carry ▲n / ▼n where it is
        significantly above / below side b of pair n.
    alpha : float, default 0.05
        Significance level of the marks.
    n_features : int or None, default None
        The dataset's number of features: rows at k = d read "all (d)" (``k_label``).
    folds : sequence of int or None, default None
        The folds of the table's runs, for the footnote (None: counted from the table).

    Returns
    -------
    str
        The Markdown table; without the p column when no row has a p-value (no WAF among the methods).
    """
    columns = list(columns or DEFAULT_COLUMNS)
    marks = {key: mark for key, mark in _marks(comparison, alpha).items() if key[3] in columns}
    with_p = bool(table["p_vs_waf"].notna().any()) if len(table) else False
    head = ["method", "ranker", "k"] + columns + ([f"p ({metric} vs WAF, Holm)"] if with_p else [])
    lines = ([f"### {title}", ""] if title else []) + ["| " + " | ".join(head) + " |",
                                                         "|" + "---|" * len(head)]
    n_folds = int(table["folds"].max()) if len(table) else 0
    for row in table.to_dict("records"):
        k = f"vali ({row['k_chosen']})" if row["k"] == "vali" else k_label(row["k"], n_features)
        if row["ranker"] == REFERENCE_RANKER:
            k = "all tied"
        if row["folds"] < n_folds:  # e.g. k above the features a method built in some folds
            k = f"{k} ({row['folds']} of {n_folds} folds)"
        cells = [row["method"], row["ranker"], str(k)]
        cells += [f"{row[c]:.4f}" + (f" ± {row[c + '_std']:.4f}" if n_folds > 1 else "")
                  + marks.get((row["method"], row["ranker"], row["k"], c), "") for c in columns]
        p = row["p_vs_waf_holm"]
        cells += ["" if p != p else f"{p:.3g}"] if with_p else []
        lines.append("| " + " | ".join(cells) + " |")
    if n_folds > 1:
        summary = f"mean ± standard deviation over the {n_folds} folds' means"
    else:
        summary = f"{folds_text(folds) if folds else 'one fold'} (one fold: no standard deviation)"
    p_note = (f"; p: paired two-sided t-test of the per-query test values against WAF with the same ranker, all "
              f"folds' queries pooled, Holm-corrected over the table's {int(table.p_vs_waf.notna().sum())} tests "
              "against WAF (one family; the CSV has the raw p, the difference with its 95% interval and the "
              "non-inferiority test)" if with_p else "")
    lines += ["", f"Test metrics, {summary}{p_note}. " + REFERENCE_NOTE]
    lines += _vali_note(table, metric)
    if marks:
        pairs = comparison[["a", "b"]].drop_duplicates().itertuples(index=False)
        lines += ["", f"▲n / ▼n: significantly above / below (p < {alpha:g}, paired two-sided t-test, all folds' "
                      "test queries pooled, uncorrected: a paper's own test) the other side of comparison n: "
                  + "; ".join(f"{n} = {a} vs {b}" for n, (a, b) in enumerate(pairs, 1)) + "."]
    return "\n".join(lines) + "\n"


def _vali_note(table: pd.DataFrame, metric: str, column: bool = False) -> list[str]:
    """The footnote lines that read a vali row's k, e.g. "vali (15,20)", when the table has one."""
    vali = table[table.k == "vali"]
    if vali.empty:
        return []
    example = max(vali.k_chosen.astype(str), key=lambda ks: (ks.count(","), ks))
    where = 'the "vali" column' if column else 'k = "vali"'
    return ["", f"{where} ({example}): the k chosen on each fold's validation split (the k with the best vali "
                f"{metric}), in brackets every k some fold chose; the test metrics are each fold's at its own choice."]


REFERENCE_NOTE = ("Reference rows (ranker " + REFERENCE_RANKER + "): every document gets the same score, "
                  "ranked in the data file's order (file order, as the official evaluation scripts break "
                  "ties) or in expectation over all orders (random order).")


def by_k_markdown(table: pd.DataFrame, metric: str = "NDCG@10", alpha: float = 0.05,
                  n_features: int | None = None, margin: float = NONINFERIORITY_MARGIN) -> str:
    """``metric`` (test, fold mean) with one row per (method, ranker) and one column per k.

    Besides the k columns: ``vali`` (the k chosen on vali) and ``fixed`` for rows whose one k is
    outside the grid (WAF on all d features, a method's own model). ``*`` marks a Holm-corrected
    p < ``alpha`` against WAF (``p_vs_waf_holm``), ``≈`` a row shown non-inferior to WAF within
    ``margin`` (``p_noninf_holm`` < ``alpha``) and ``†`` a mean over fewer folds than the table's
    others (a k some folds could not reach).

    Parameters
    ----------
    table : pandas.DataFrame
        A ``summarise`` result.
    metric : str, default "NDCG@10"
        The metric shown.
    alpha : float, default 0.05
        Significance level of ``*``.
    n_features : int or None, default None
        The dataset's number of features: k = d reads "all (d)" (``k_label``).
    margin : float, default 0.01
        The non-inferiority margin the table was summarised with, for the footnote.

    Returns
    -------
    str
        The Markdown table.
    """
    n_folds = int(table["folds"].max()) if len(table) else 0
    single = table[table.k != "vali"].groupby(["method", "ranker"])["k"].transform("nunique") == 1
    grid = sorted({int(k) for k in table.k[(table.k != "vali") & ~single]})
    fixed = table[(table.k != "vali") & single & ~table.k.isin([str(k) for k in grid])]

    def k_head(k) -> str:  # "k=10", or "all (46)" at k = d
        return k_label(k, n_features) if str(k) == str(n_features) else f"k={k}"

    head = ["method", "ranker"] + [k_head(k) for k in grid]
    head += ["vali", "fixed"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (method, ranker), rows in table.groupby(["method", "ranker"], sort=False):
        by_k = {row["k"]: row for row in rows.to_dict("records")}

        def cell(row):
            if row is None:
                return ""
            star = "*" if row["p_vs_waf_holm"] < alpha else ""  # NaN compares False
            same = "≈" if row["p_noninf_holm"] < alpha else ""
            dagger = "†" if row["folds"] < n_folds else ""
            return f"{row[metric]:.4f}{star}{same}{dagger}"

        cells = [cell(by_k.get(str(k))) for k in grid]
        vali = by_k.get("vali")
        cells.append("" if vali is None else f"{cell(vali)} ({vali['k_chosen']})")
        own = fixed[(fixed.method == method) & (fixed.ranker == ranker)]
        label = "" if own.empty else "all tied" if ranker == REFERENCE_RANKER else k_head(own.iloc[0]["k"])
        cells.append("" if own.empty else f"{cell(own.iloc[0].to_dict())} ({label})")
        lines.append("| " + " | ".join([method, ranker] + cells) + " |")
    lines += _vali_note(table, metric, column=True)
    if table["p_vs_waf"].notna().any():
        lines += ["", f"* differs from WAF with the same ranker (paired two-sided t-test on the pooled test queries, "
                      f"Holm-corrected over the table's {int(table.p_vs_waf.notna().sum())} tests, p < {alpha:g}); "
                      f"≈ as good as WAF: loses less than {margin:g} {metric} (one-sided paired t-test of a loss of "
                      f"{margin:g} or more, Holm-corrected over the same rows, p < {alpha:g}). Neither mark: the test "
                      "queries cannot tell."]
    if (table["folds"] < n_folds).any():
        lines += ["", f"† mean over fewer than {n_folds} folds: some folds could not give this k "
                      "(k above the features the method built there)"]
    return "\n".join(lines) + "\n"


COMPARE_COLUMNS = ["a", "b", "at", "metric", "k_a", "k_b", "key_a", "key_b", "mean_a", "mean_b", "difference",
                   "t", "p", "p_holm", "n_queries"]


def _side(test: pd.DataFrame, name: str) -> tuple[pd.DataFrame, str, str]:
    """The test rows of one side of a comparison, ``method/ranker``: its vali-chosen k when it
    has a k grid, else its single k, else (a method's own model with a top-k curve) its largest
    k; (rows, the table's k of those rows, a label)."""
    rows = test[_is(test, name)]
    if rows.empty:
        raise ValueError(f"compare: no runs of {name!r} in this experiment (write method/ranker, e.g. gas_e/ranksvm)")
    k = chosen_k(rows.k)
    picked = rows[rows.k == k]
    if k == "vali":
        return picked, k, "vali (" + ",".join(sorted(set(picked.k_chosen), key=int)) + ")"
    return picked, k, k if rows.k.nunique() == 1 else f"{k} (own model)"


def _tests(rows_a: pd.DataFrame, rows_b: pd.DataFrame) -> list[tuple]:
    """(metric, mean_a, mean_b, difference, t, p, n) for every metric over the queries both have."""
    joined = rows_a.merge(rows_b, on=["fold", "qid"], suffixes=("_a", "_b"))
    out = []
    for name in METRIC_COLUMNS:
        va, vb = joined[name + "_a"].to_numpy(), joined[name + "_b"].to_numpy()
        t, p = significance.paired_ttest(va, vb) if len(joined) >= 2 else (np.nan, np.nan)
        out.append((name, va.mean(), vb.mean(), va.mean() - vb.mean(), t, p, len(joined)))
    return out


def compare(per_query: pd.DataFrame, pairs, metric: str = "NDCG@10", own=()) -> pd.DataFrame:
    """Paired two-sided t-tests between the two sides of every pair of (method, ranker).

    As docs/methods.md, section 'Choice on vali and significance': per-query test values, all
    folds pooled, on every metric of the run files: at each side's k chosen on vali by ``metric``
    (or its single k, or an ``own`` ranker's full model), ``at = "chosen"``, and at every k both
    sides were run with, ``at = "k"`` (the marks of the metric-vs-k figures).

    Parameters
    ----------
    per_query : pandas.DataFrame
        The per-query rows of the run files (``read_runs``).
    pairs : iterable of (str, str)
        Pairs ``("method/ranker", "method/ranker")``.
    metric : str, default "NDCG@10"
        The metric that chooses k on vali.
    own : sequence of str, default ()
        Rankers that rank by their own model.

    Returns
    -------
    pandas.DataFrame
        One row per (pair, at, k, metric), columns ``COMPARE_COLUMNS``
        (difference = mean_a - mean_b); ``p`` is the papers' test, uncorrected (their marks and
        the figures' circles), ``p_holm`` the same p Holm-corrected over its family: a pair's
        metrics at the chosen k (one row of the Markdown table), or a pair's k values of one
        metric (one curve's circles).
    """
    data = _with_vali_choice(per_query, metric, own)
    test = data[data.split == "test"]
    out = []
    for a, b in pairs:
        (rows_a, key_a, k_a), (rows_b, key_b, k_b) = _side(test, a), _side(test, b)
        out += [[a, b, "chosen", name, k_a, k_b, key_a, key_b, *rest] for name, *rest in _tests(rows_a, rows_b)]
        all_a, all_b = test[_is(test, a) & (test.k != "vali")], test[_is(test, b) & (test.k != "vali")]
        for k in sorted(set(all_a.k) & set(all_b.k), key=int):
            out += [[a, b, "k", name, k, k, k, k, *rest]
                    for name, *rest in _tests(all_a[all_a.k == k], all_b[all_b.k == k])]
    frame = pd.DataFrame(out, columns=[c for c in COMPARE_COLUMNS if c != "p_holm"])
    family = frame.metric.where(frame["at"] == "k", "")
    holm = frame.groupby([frame.a, frame.b, frame["at"], family], sort=False).p.transform(
        lambda p: significance.holm(p.to_numpy()))
    frame.insert(COMPARE_COLUMNS.index("p_holm"), "p_holm", holm.astype(float) if len(frame) else [])
    return frame


PAIR_COLUMNS = ["ranker", "k", "a", "b", "mean", "low", "high", "p", "p_holm", "n"]


def all_pairs(per_query: pd.DataFrame, metric: str = "NDCG@10", baselines=("waf",), own=()) -> pd.DataFrame:
    """Every pair of the methods of one ranker compared on the pooled test queries, at each k
    and at the k chosen on vali (``significance.pairwise``): one family per (ranker, k), Holm
    over its pairs. The all-features baselines join every family at their one k.

    Parameters
    ----------
    per_query : pandas.DataFrame
        The per-query rows of the run files (``read_runs``).
    metric : str, default "NDCG@10"
        The metric compared (and that chooses k on vali).
    baselines : sequence of str, default ("waf",)
        Methods of one k (all features) compared at every k.
    own : sequence of str, default ()
        Rankers that rank by their own model: left out (only some methods have one).

    Returns
    -------
    pandas.DataFrame
        ``PAIR_COLUMNS``: mean = mean of a minus mean of b over the queries both have, with its
        95% interval, p (paired two-sided t-test) and p_holm; families of fewer than 2 methods
        left out.
    """
    data = _with_vali_choice(per_query, metric, own)
    test = data[(data.split == "test") & (data.ranker != REFERENCE_RANKER) & ~data.ranker.isin(list(own))]
    base = test[test.method.isin(list(baselines))]
    out = []
    for (ranker, k), part in test[~test.method.isin(list(baselines))].groupby(["ranker", "k"], sort=False):
        part = pd.concat([part, base[base.ranker == ranker]])
        wide = part.pivot_table(index=["fold", "qid"], columns="method", values=metric, sort=False).dropna()
        if wide.shape[1] >= 2 and len(wide) >= 2:
            out.append(significance.pairwise(wide).assign(ranker=ranker, k=k))
    frame = pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=PAIR_COLUMNS)
    order = frame.k.map(lambda k: (1, 0) if k == "vali" else (0, int(k)))
    return frame.assign(_o=order).sort_values(["ranker", "_o"], kind="stable")[PAIR_COLUMNS].reset_index(drop=True)


def pairs_markdown(pairs: pd.DataFrame, metric: str = "NDCG@10", alpha: float = 0.05) -> str:
    """At the k chosen on vali, per ranker: the mean difference row minus column of every pair,
    ``*`` where Holm's p < ``alpha``, and how many of the family's pairs differ.

    Parameters
    ----------
    pairs : pandas.DataFrame
        An ``all_pairs`` result.
    metric : str, default "NDCG@10"
    alpha : float, default 0.05

    Returns
    -------
    str
        Markdown; empty when no ranker has a vali family.
    """
    chosen = pairs[pairs.k == "vali"]
    lines = []
    for ranker, part in chosen.groupby("ranker", sort=False):
        methods = list(dict.fromkeys([*part.a, *part.b]))
        cell = {}
        for row in part.itertuples(index=False):
            star = "*" if row.p_holm < alpha else ""
            cell[(row.a, row.b)] = f"{row.mean:+.4f}{star}"
            cell[(row.b, row.a)] = f"{-row.mean:+.4f}{star}"
        n_diff = int((part.p_holm < alpha).sum())
        lines += [f"##### {ranker}: {n_diff} of {len(part)} pairs differ", "",
                  "| | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
        lines += [f"| {m} | " + " | ".join(cell.get((m, o), "") for o in methods) + " |" for m in methods]
        lines.append("")
    if not lines:
        return ""
    n = int(chosen.n.max())
    return ("\n".join(lines) + f"\nRow minus column, test {metric} at each method's k chosen on vali (all features "
            f"at d), mean over the {n} test queries of all folds pooled; * paired two-sided t-test, Holm-corrected "
            f"over the ranker's pairs, p < {alpha:g}. Every k's family, with 95% intervals: the _pairs CSV.\n")


def _is(test: pd.DataFrame, name: str) -> pd.Series:
    method, _, ranker = name.partition("/")
    return (test.method == method) & (test.ranker == ranker)


def compare_markdown(comparison: pd.DataFrame, columns=DEFAULT_COLUMNS, alpha: float = 0.05) -> str:
    """One row per pair (each side at its chosen k): "difference (p)" per metric.

    Parameters
    ----------
    comparison : pandas.DataFrame
        A ``compare`` result.
    columns : sequence of str, default ("NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@10", "MAP")
        The metrics shown, as in ``to_markdown``.
    alpha : float, default 0.05
        ``*`` marks p < ``alpha``.

    Returns
    -------
    str
        The Markdown table.
    """
    comparison = comparison[comparison["at"] == "chosen"]
    if comparison.empty:
        return ""
    columns = list(columns or DEFAULT_COLUMNS)
    head = ["a", "b", "k (a; b)"] + columns
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (a, b), rows in comparison.groupby(["a", "b"], sort=False):
        by = rows.set_index("metric")
        cells = [f"{by.loc[c, 'difference']:+.4f} ({by.loc[c, 'p']:.3g}){'*' if by.loc[c, 'p'] < alpha else ''}"
                 for c in columns]
        lines.append(f"| {a} | {b} | {by['k_a'].iloc[0]}; {by['k_b'].iloc[0]} | " + " | ".join(cells) + " |")
    return ("\n".join(lines) + f"\n\nCells: mean of a minus mean of b over the test queries of all folds (p of "
            f"the paired two-sided t-test on the per-query values); * p < {alpha:g}, uncorrected (the comparisons "
            "the experiment's `compare` names, a paper's own test; the CSV's p_holm corrects each row over its "
            "metrics, and each curve over its k values); each side at its k chosen on vali.\n")

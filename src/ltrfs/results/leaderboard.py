"""The leaderboard: which selector, for which ranker, at which k, and at what cost.

Input: the experiments' long tables (``tables.summarise``: one row per (method, ranker, k), test
means over folds), each with its dataset. A **block** is one (dataset, ranker): each method's
value in it is its test metric at its k chosen on vali (``tables.chosen_k``; its one k when it
has no choice), one value per block, so that the same queries measured at k = 20 and k = 23 are
not counted as two blocks. Within a block the methods are ranked by that value, 1 the best,
ties sharing the mean of their ranks. The rankers of one dataset share its queries: the
datasets, not the blocks, are the independent units, and the notes say how many there are.
Left out of the blocks: the all-features baselines (algorithm ``waf``: every selector is
measured against them in ``smallest_k``, they do not compete), the reference rows and the
rankers that are a method's own model (only some methods have one). Only blocks where every
compared method has a value count (Friedman's test needs complete blocks).

Statistics (Demsar 2006, J. Mach. Learn. Res. 7:1-30): the mean rank of each method over the
blocks; the Friedman test of "all methods rank alike" (``scipy.stats.friedmanchisquare``); the
Nemenyi post-hoc test of every pair (``scikit_posthocs.posthoc_nemenyi_friedman``) and its
critical difference CD = q_alpha sqrt(m (m + 1) / (6 N)) for m methods and N blocks, q_alpha the
studentized range quantile over sqrt(2); the critical-difference diagram is
``scikit_posthocs.critical_difference_diagram`` (methods joined by a bar do not differ at alpha).
Every pair also by the Wilcoxon signed-rank test over the blocks with Holm's correction
(``wilcoxon_holm``; Benavoli, Corani and Mangili 2016), and the smallest corrected p a pair can
reach with N blocks (``smallest_holm_p``): where it is not below alpha, the board says that its
blocks cannot separate any pair. "As good as all features" across datasets (``as_good_as_baseline``):
the Bayesian signed-rank test over the datasets (the independent units; each method's value the
mean over the dataset's rankers) of the method against the baseline, with the tables'
non-inferiority margin as the region of practical equivalence (``significance.bayesian_signed_rank``).

Stability of a selector across folds, for each k: the mean over fold pairs of the Jaccard index
|A & B| / |A | B| and of Kuncheva's index (r d - k^2) / (k (d - k)) of the two top-k sets (r =
|A & B|, d features; Kuncheva 2007, corrected for the overlap two random k-sets have by chance:
0 for chance, 1 for identical sets; undefined for k = d).
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from ltrfs.formats import read_json, read_selection
from ltrfs.job_log import job_cost
from ltrfs.results import significance
from ltrfs.results.tables import NONINFERIORITY_MARGIN, REFERENCE_RANKER, chosen_k

BLOCK = ["dataset", "ranker"]


def block_scores(tables: pd.DataFrame, metric: str = "NDCG@10", *, exclude_methods=(), exclude_rankers=(),
                 drop_sparse: bool = False) -> pd.DataFrame:
    """The (blocks x methods) matrix of the test ``metric``: only complete blocks.

    A (dataset, method, ranker, k) in several experiments (one run file serves them all) counts
    once.

    Parameters
    ----------
    tables : pandas.DataFrame
        The long tables (``tables.summarise``) with a ``dataset`` column.
    metric : str, default "NDCG@10"
        The test metric.
    exclude_methods : sequence of str, default ()
        Methods left out (the all-features baselines).
    exclude_rankers : sequence of str, default ()
        Rankers left out (the methods' own models).
    drop_sparse : bool, default False
        Leave out the method missing from the most blocks, again and again, while that makes
        more blocks complete or fewer than 2 are: a method that cannot reach some k (FS-BFS
        builds fewer groups than k) or that only some pooled experiments run then costs its own
        row, not every block it misses (``missing_blocks`` says how many it missed).

    Returns
    -------
    pandas.DataFrame
        Index (dataset, ranker), one column per method.
    """
    wide = _blocks(tables, metric, exclude_methods, exclude_rankers)
    complete = lambda frame: len(frame.dropna(axis=0, how="any"))  # noqa: E731
    while drop_sparse and wide.shape[1] > 2 and wide.isna().any(axis=None):
        fewer = wide.drop(columns=wide.isna().sum().idxmax())
        if complete(wide) >= 2 and complete(fewer) <= complete(wide):
            break
        wide = fewer
    return wide.dropna(axis=0, how="any").sort_index()


def missing_blocks(tables: pd.DataFrame, metric: str = "NDCG@10", *, exclude_methods=(), exclude_rankers=()) -> pd.Series:
    """How many of the scope's blocks (dataset, ranker) each competing method has no value in.

    Parameters
    ----------
    tables, metric, exclude_methods, exclude_rankers
        As ``block_scores``.

    Returns
    -------
    pandas.Series
        Method -> the number of blocks (``block_scores``'s rows before any method is left out)
        without its value; 0 for a method in every block.
    """
    return _blocks(tables, metric, exclude_methods, exclude_rankers).isna().sum(axis=0)


def _blocks(tables: pd.DataFrame, metric: str, exclude_methods, exclude_rankers) -> pd.DataFrame:
    """The (blocks x methods) matrix of ``metric`` with its gaps (``block_scores``'s parameters):
    per (dataset, ranker) each method's value at its ``tables.chosen_k`` (the k chosen on vali,
    or its one k), no reference rows, a (dataset, method, ranker) once."""
    rows = tables[(tables.ranker != REFERENCE_RANKER) & ~tables.method.isin(list(exclude_methods))
                  & ~tables.ranker.isin(list(exclude_rankers))]
    rows = rows.assign(k=rows.k.astype(str)).drop_duplicates(["dataset", "method", "ranker", "k"])
    key = rows.groupby(["dataset", "method", "ranker"], sort=False).k.transform(chosen_k)
    return rows[rows.k == key].pivot(index=BLOCK, columns="method", values=metric)


def dataset_scores(tables: pd.DataFrame, metric: str = "NDCG@10", *, exclude_rankers=()) -> pd.DataFrame:
    """The (datasets x methods) matrix of ``metric``: per dataset each method's value at its k
    chosen on vali, averaged over the dataset's rankers; NaN where a ranker has no value.

    Parameters
    ----------
    tables : pandas.DataFrame
        As ``block_scores`` (the baselines stay in).
    metric : str, default "NDCG@10"
        The test metric.
    exclude_rankers : sequence of str, default ()
        Rankers left out (the methods' own models).

    Returns
    -------
    pandas.DataFrame
        Index dataset, one column per method.
    """
    wide = _blocks(tables, metric, (), exclude_rankers)
    return wide.groupby(level="dataset", sort=True).agg(lambda col: col.mean(skipna=False))


def as_good_as_baseline(tables: pd.DataFrame, metric: str = "NDCG@10", *, baseline: str = "waf", exclude_rankers=(),
                        rope: float = NONINFERIORITY_MARGIN) -> pd.DataFrame:
    """Each method against the all-features ``baseline`` across datasets: the Bayesian
    signed-rank test of its ``dataset_scores`` minus the baseline's, rope ``rope``.

    Parameters
    ----------
    tables, metric, exclude_rankers
        As ``dataset_scores``.
    baseline : str, default "waf"
        The method every other one is compared with.
    rope : float, default 0.01
        The region of practical equivalence (the tables' non-inferiority margin).

    Returns
    -------
    pandas.DataFrame
        Index method; columns ``datasets`` (the datasets where both have a value), ``p_worse``,
        ``p_equivalent``, ``p_better`` (``significance.bayesian_signed_rank``) and ``p_as_good``
        (``p_equivalent + p_better``); empty without the baseline or with fewer than 2 datasets.
    """
    scores = dataset_scores(tables, metric, exclude_rankers=exclude_rankers)
    columns = ["datasets", "p_worse", "p_equivalent", "p_better", "p_as_good"]
    if baseline not in scores or len(scores) < 2:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="method"))
    rows = {}
    for method in scores.columns.drop(baseline):
        diff = (scores[method] - scores[baseline]).dropna()
        if len(diff) >= 2:
            worse, equivalent, better = significance.bayesian_signed_rank(diff.to_numpy(), rope=rope)
            rows[method] = (len(diff), worse, equivalent, better, equivalent + better)
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("method")


def mean_ranks(scores: pd.DataFrame) -> pd.Series:
    """Mean rank of each method (column) over the blocks (rows), 1 = the highest score, ties the
    mean of their ranks; ascending."""
    ranks = scores.rank(axis=1, ascending=False, method="average")
    return ranks.mean(axis=0).sort_values(kind="stable")


def friedman(scores: pd.DataFrame) -> tuple[float, float]:
    """Friedman's chi-square and its p-value over the blocks; NaN when there are fewer than 3
    methods or 2 blocks."""
    if scores.shape[1] < 3 or scores.shape[0] < 2:
        return float("nan"), float("nan")
    if np.all(scores.to_numpy() == scores.to_numpy()[:, :1]):  # every method equal in every block
        return 0.0, 1.0
    result = stats.friedmanchisquare(*(scores[c].to_numpy() for c in scores.columns))
    return float(result.statistic), float(result.pvalue)


def nemenyi(scores: pd.DataFrame) -> pd.DataFrame:
    """(methods x methods) p-values of the Nemenyi test after Friedman (scikit-posthocs)."""
    import scikit_posthocs as sp  # heavy (statsmodels): only when a board has a post-hoc test

    p = sp.posthoc_nemenyi_friedman(scores.to_numpy())
    p.index = p.columns = list(scores.columns)
    return p


def wilcoxon_holm(scores: pd.DataFrame) -> pd.DataFrame:
    """Every pair of methods (columns) over the blocks (rows): the Wilcoxon signed-rank test
    (``scipy.stats.wilcoxon``, exact for small N), Holm over the pairs, as Benavoli, Corani and
    Mangili (J. Mach. Learn. Res. 17(5), 2016) recommend instead of mean-rank post-hoc tests.

    Parameters
    ----------
    scores : pandas.DataFrame
        Blocks x methods (``block_scores``).

    Returns
    -------
    pandas.DataFrame
        Columns a, b, wins (blocks where a is higher), losses, p, p_holm; p 1 where a and b are
        equal in every block.
    """
    rows = []
    for a, b in combinations(scores.columns, 2):
        diff = scores[a].to_numpy() - scores[b].to_numpy()
        p = 1.0 if np.all(diff == 0) else float(stats.wilcoxon(scores[a], scores[b]).pvalue)
        rows.append({"a": a, "b": b, "wins": int((diff > 0).sum()), "losses": int((diff < 0).sum()), "p": p})
    out = pd.DataFrame(rows, columns=["a", "b", "wins", "losses", "p"])
    out["p_holm"] = significance.holm(out.p.to_numpy())
    return out


def smallest_holm_p(n_blocks: int, n_pairs: int) -> float:
    """The smallest Holm-corrected p any pair can reach over ``n_blocks`` blocks: the exact
    two-sided Wilcoxon p of one side winning every block, 2 / 2^N, times the ``n_pairs`` of the
    family (Holm's first step); at most 1.

    Parameters
    ----------
    n_blocks : int
        The blocks N the pairs are tested over.
    n_pairs : int
        The pairs of the family.

    Returns
    -------
    float

    Examples
    --------
    >>> smallest_holm_p(4, 1), smallest_holm_p(8, 406), round(smallest_holm_p(20, 406), 5)
    (0.125, 1.0, 0.00077)
    """
    return min(1.0, n_pairs * 2.0 ** (1 - n_blocks))


def critical_difference(n_methods: int, n_blocks: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks: q_alpha sqrt(m (m + 1) / (6 N)).

    Parameters
    ----------
    n_methods : int
        m, the number of methods.
    n_blocks : int
        N, the number of blocks.
    alpha : float, default 0.05
        Significance level.

    Returns
    -------
    float
        The critical difference.

    References
    ----------
    Demsar. Statistical comparisons of classifiers over multiple data sets. J. Mach. Learn. Res.
    7:1-30, 2006 (the Nemenyi test's critical difference).
    """
    q = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_blocks)))


def jaccard(a, b) -> float:
    """|A & B| / |A | B| of two feature sets (1 for two empty sets).

    Parameters
    ----------
    a, b : iterable of int
        The two feature sets.

    Returns
    -------
    float
        The Jaccard index.
    """
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 1.0


def kuncheva(a, b, n_features: int) -> float:
    """Kuncheva's consistency index of two k-subsets of d features.

    ``(r d - k^2) / (k (d - k))`` with r = |A & B|: 0 for chance, 1 for identical sets.

    Parameters
    ----------
    a, b : iterable of int
        The two k-subsets.
    n_features : int
        d, the number of features.

    Returns
    -------
    float
        The index; NaN when k = 0 or k = d (every subset is the same).

    References
    ----------
    Kuncheva. A stability index for feature selection. IASTED Artificial Intelligence and
    Applications, 2007 (the consistency index).
    """
    a, b = set(a), set(b)
    k, d = len(a), int(n_features)
    if len(b) != k:
        raise ValueError(f"Kuncheva's index compares subsets of one size; got {k} and {len(b)}")
    if k == 0 or k >= d:
        return float("nan")
    return (len(a & b) * d - k * k) / (k * (d - k))


def stability(rankings, k: int, n_features: int) -> tuple[float, float]:
    """Mean Jaccard and mean Kuncheva index over all pairs of folds of the top-k sets.

    Parameters
    ----------
    rankings : sequence of sequence of int
        One feature ranking per fold (best first).
    k : int
        Size of the top sets.
    n_features : int
        d, the number of features.

    Returns
    -------
    (float, float)
        (mean Jaccard, mean Kuncheva); NaN with fewer than two folds.
    """
    tops = [list(r)[:k] for r in rankings]
    pairs = list(combinations(tops, 2))
    if not pairs:
        return float("nan"), float("nan")
    return (float(np.mean([jaccard(a, b) for a, b in pairs])),
            float(np.mean([kuncheva(a, b, n_features) for a, b in pairs])))


#: the columns of ``smallest_k`` (``metric`` stands for the table metric's name)
SMALLEST_K = ["dataset", "method", "ranker", "k", "metric", "diff_vs_waf", "diff_low", "p_noninf_holm", "waf", "k_max"]


def cross_family(tables: pd.DataFrame, families: dict, ranker_families: dict, metric: str = "NDCG@10", *,
                 baselines=("waf",), exclude_rankers=()) -> pd.DataFrame:
    """Selector family x ranker: how well the features each family of selectors chooses serve each
    ranker, measured against the ranker's own all-features value.

    In each block (dataset, ranker) every competing method has its test ``metric`` at its k chosen
    on vali (``_blocks``); its **gap** is that value minus the all-features baseline's in the same
    block, its **rank** its rank among the competing methods with a value in the block (1 the
    best, ties sharing). Per (family, ranker) and dataset, the mean over the family's methods;
    then the mean and standard deviation over the datasets, the independent units.

    Parameters
    ----------
    tables : pandas.DataFrame
        The long tables with a ``dataset`` column (as ``block_scores``).
    families : dict
        Method -> its selector family (``ltrfs.selection.selector_family`` of its algorithm).
    ranker_families : dict
        Ranker -> its family (``ltrfs.rankers.ranker_family``; None left out, as ``own``).
    metric : str, default "NDCG@10"
    baselines : sequence of str, default ("waf",)
        The all-features methods: the first with a value in a block is the gap's reference; a
        block without any is left out (of the gap and the rank).
    exclude_rankers : sequence of str, default ()

    Returns
    -------
    pandas.DataFrame
        One row per (family, ranker): ``family``, ``ranker``, ``ranker_family``, ``methods`` (the
        family's methods with a value), ``datasets``, ``gap`` and ``gap_sd`` (over datasets; sd NaN
        for one dataset), ``rank``, ``competitors`` (the most methods ranked in a block).
    """
    columns = ["family", "ranker", "ranker_family", "methods", "datasets", "gap", "gap_sd", "rank", "competitors"]
    wide = _blocks(tables, metric, (), [*exclude_rankers, *[r for r, f in ranker_families.items() if f is None]])
    present = [b for b in baselines if b in wide]
    competing = [m for m in wide.columns if m not in baselines and m in families]
    if not present or not competing:
        return pd.DataFrame(columns=columns)
    reference = wide[present].bfill(axis=1).iloc[:, 0]  # the first baseline with a value in the block
    wide = wide[reference.notna()]  # gap and rank over the same blocks: those with a reference
    gaps = wide[competing].sub(reference[reference.notna()], axis=0)
    ranks = wide[competing].rank(axis=1, ascending=False, method="average")
    rows = []
    for ranker, part in gaps.groupby(level="ranker", sort=False):
        rank_part = ranks.loc[part.index]
        for family in dict.fromkeys(families[m] for m in competing):
            members = [m for m in competing if families[m] == family and part[m].notna().any()]
            if not members:
                continue
            per_dataset = part[members].mean(axis=1, skipna=True).dropna()
            per_rank = rank_part[members].mean(axis=1, skipna=True).dropna()
            rows.append({"family": family, "ranker": ranker, "ranker_family": ranker_families.get(ranker),
                         "methods": len(members), "datasets": len(per_dataset), "gap": per_dataset.mean(),
                         "gap_sd": per_dataset.std(ddof=1) if len(per_dataset) > 1 else np.nan,
                         "rank": per_rank.mean(), "competitors": int(rank_part.notna().sum(axis=1).max())})
    return pd.DataFrame(rows, columns=columns)


def cross_family_markdown(cross: pd.DataFrame, metric: str) -> str:
    """The cross table as Markdown: a row per selector family, a column per ranker.

    Parameters
    ----------
    cross : pandas.DataFrame
        ``cross_family``'s rows.
    metric : str
        Its metric, for the note.

    Returns
    -------
    str
        A section (heading, table, note) with cells ``gap ± sd (rank r)``; '' when ``cross`` is
        empty.
    """
    if cross.empty:
        return ""
    cell = cross.assign(text=[f"{r.gap:+.4f}" + ("" if pd.isna(r.gap_sd) else f" ± {r.gap_sd:.4f}") + f" (rank {r.rank:.1f})"
                              for r in cross.itertuples()])
    cell = cell.assign(column=[f"{r.ranker} ({r.ranker_family})" for r in cell.itertuples()])
    table = cell.pivot(index="family", columns="column", values="text").reindex(
        index=list(dict.fromkeys(cross.family)), columns=list(dict.fromkeys(cell.column))).fillna("")
    n_datasets = int(cross.datasets.max())
    return "\n".join([
        "## Selector family x ranker", "",
        table.rename_axis("selector family").reset_index().to_markdown(index=False), "",
        f"Each cell: the family's test {metric} at each method's k chosen on vali minus all features' with the "
        f"same ranker (mean over the family's methods, then over the datasets; "
        + (f"± one standard deviation over the {n_datasets} datasets, the independent units" if n_datasets > 1
           else "one dataset: no spread to show")
        + "), and the family's mean rank among the "
        f"{int(cross.competitors.max())} competing methods of each (dataset, ranker) block (1 = best). "
        "A family's column of its own kind (tree selectors for LambdaMART, say) against the others says "
        "whether features chosen for one kind of ranker serve another.", ""])


def smallest_k(tables: pd.DataFrame, metric: str = "NDCG@10", *, baselines=("waf",), alpha: float = 0.05) -> pd.DataFrame:
    """Per (dataset, method, ranker): the smallest k shown as good as the all-features baseline.

    A k is as good as the baseline with the same ranker when its table row's non-inferiority test
    rejects "it loses the margin or more" (``p_noninf_holm`` < ``alpha``: a one-sided paired
    t-test over the pooled test queries, Holm-corrected over the table's tests, ``tables.summarise``).
    A k that is not shown so may still be as good: its test queries could not tell.

    Parameters
    ----------
    tables : pandas.DataFrame
        The long tables with a ``dataset`` column.
    metric : str, default "NDCG@10"
        The test metric (the tables' metric, which their tests are of).
    baselines : sequence of str, default ("waf",)
        The all-features baseline methods.
    alpha : float, default 0.05
        Significance level.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, method, ranker): that k, its mean, its mean difference to the
        baseline and the lower end of its 95% interval, its corrected p, the baseline's mean and
        the largest k tried; k NaN when no k is shown as good.
    """
    rows = tables[(tables.k.astype(str) != "vali") & (tables.ranker != REFERENCE_RANKER)]
    base = (rows[rows.method.isin(list(baselines))].groupby(["dataset", "ranker"])[metric].first()
            .rename("waf"))
    out = []
    for (dataset, method, ranker), group in rows[~rows.method.isin(list(baselines))].groupby(
            ["dataset", "method", "ranker"], sort=False):
        if (dataset, ranker) not in base.index:
            continue
        group = group.assign(k=group.k.astype(int)).sort_values("k")
        shown = group[group.p_noninf_holm < alpha]
        first = shown.iloc[0] if len(shown) else None
        value = (lambda col: float(first[col]) if first is not None else np.nan)  # noqa: E731
        out.append({"dataset": dataset, "method": method, "ranker": ranker,
                    "k": int(first.k) if first is not None else np.nan, metric: value(metric),
                    "diff_vs_waf": value("diff_vs_waf"), "diff_low": value("diff_low"),
                    "p_noninf_holm": value("p_noninf_holm"), "waf": float(base[(dataset, ranker)]),
                    "k_max": int(group.k.max())})
    return pd.DataFrame(out, columns=[metric if c == "metric" else c for c in SMALLEST_K])


def read_costs(records) -> pd.DataFrame:
    """Selection cost per (dataset, method): records {dataset, method, fold, paths: [benchmark
    files of the select job and of the scorer jobs it reads]}; CPU seconds of a fold = the sum
    over its jobs, peak MB = the largest (``ltrfs.job_log.job_cost``: the larger of the line the
    job's log ends with and Snakemake's sampled benchmark); then the mean CPU seconds and the
    largest peak over folds."""
    rows = []
    for r in records:
        used = [job_cost(p) for p in r["paths"]]
        rows.append({"dataset": r["dataset"], "method": r["method"], "fold": r["fold"],
                     "cpu_s": float(sum(cpu for cpu, _ in used)), "peak_mb": float(max(peak for _, peak in used))})
    per_fold = pd.DataFrame(rows, columns=["dataset", "method", "fold", "cpu_s", "peak_mb"])
    return (per_fold.groupby(["dataset", "method"], sort=False)
            .agg(cpu_s=("cpu_s", "mean"), peak_mb=("peak_mb", "max"), folds=("fold", "nunique")).reset_index())


def read_selections(records) -> list[dict]:
    """The records {dataset, method, fold, path: a select job's JSON} with the JSON's
    ``ranking`` (best first) and ``n_features`` added."""
    out = []
    for r in records:
        selection = read_selection(r["path"])
        out.append({**r, "ranking": selection["ranking"], "n_features": int(selection["n_features"])})
    return out


def _ks_below(ks, n_features: int) -> list[int]:
    """The k values that select a proper subset of ``n_features`` (0 < k < d), ascending."""
    return sorted({int(k) for k in ks if 0 < int(k) < n_features})


def stability_table(selections, ks: dict) -> pd.DataFrame:
    """Per (dataset, method, k): mean pairwise Jaccard and Kuncheva of the folds' top-k sets.

    Parameters
    ----------
    selections : list of dict
        The selections, from ``read_selections``.
    ks : dict
        dataset -> its k values (the experiments' grids on that dataset; those from 1 to d - 1
        are measured).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, method, k).
    """
    by_method: dict = {}
    for r in selections:
        by_method.setdefault((r["dataset"], r["method"]), []).append(r)
    rows = []
    for (dataset, method), selections in by_method.items():
        d = selections[0]["n_features"]
        for k in _ks_below(ks.get(dataset, ()), d):
            jac, kun = stability([s["ranking"] for s in selections], k, d)
            rows.append({"dataset": dataset, "method": method, "k": k, "jaccard": jac, "kuncheva": kun,
                         "folds": len(selections)})
    return pd.DataFrame(rows, columns=["dataset", "method", "k", "jaccard", "kuncheva", "folds"])


def recovery_table(selections, truths: dict, ks: dict) -> pd.DataFrame:
    """Per (dataset, method, k): how well the top k recovers the planted features of generated data.

    Means over folds of: precision |top-k & S| / k, S the features that carry signal (informative
    and redundant: a redundant feature is a noisy mix of informative ones); recall |top-k & I| / |I|
    of the informative features I; and the share of pure-noise features in the top k.

    Parameters
    ----------
    selections : list of dict
        The selections, from ``read_selections``.
    truths : dict
        dataset -> its ``truth.json`` (``ltrfs.datasets.synthetic``); only these datasets are
        measured.
    ks : dict
        dataset -> its k values (the experiments' grids on that dataset; those from 1 to d - 1
        are measured).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, method, k): the means and the number of folds.
    """
    truth = {d: read_json(p) for d, p in truths.items()}
    rows = []
    for r in selections:
        if r["dataset"] not in truth:
            continue
        t = truth[r["dataset"]]
        informative, noise = set(t["informative"]), set(t["noise"])
        signal = informative | set(t["redundant"])
        for k in _ks_below(ks.get(r["dataset"], ()), t["n_features"]):
            top = set(r["ranking"][:k])
            rows.append({"dataset": r["dataset"], "method": r["method"], "k": k, "fold": r["fold"],
                         "precision": len(top & signal) / k, "recall": len(top & informative) / len(informative),
                         "noise_share": len(top & noise) / k})
    frame = pd.DataFrame(rows, columns=["dataset", "method", "k", "fold", "precision", "recall", "noise_share"])
    return (frame.groupby(["dataset", "method", "k"], sort=False)
            .agg(precision=("precision", "mean"), recall=("recall", "mean"), noise_share=("noise_share", "mean"),
                 folds=("fold", "nunique")).reset_index())


def board(tables: pd.DataFrame, metrics=("NDCG@10", "MAP"), *, baselines=("waf",), own=(), alpha: float = 0.05,
          drop_sparse: bool = False, rope: float = NONINFERIORITY_MARGIN):
    """The ranking of the methods of one scope.

    Parameters
    ----------
    tables : pandas.DataFrame
        The long tables of the scope, with a ``dataset`` column.
    metrics : sequence of str, default ("NDCG@10", "MAP")
        The test metrics; the first sorts the methods.
    baselines : sequence of str, default ("waf",)
        Methods left out of the blocks (they do not compete).
    own : sequence of str, default ()
        Rankers left out of the blocks (the methods' own models).
    alpha : float, default 0.05
        Significance level of the critical difference.
    drop_sparse : bool, default False
        As ``block_scores``.
    rope : float, default 0.01
        The region of practical equivalence of ``as_good_as_baseline`` (against ``baselines[0]``).

    Returns
    -------
    frame : pandas.DataFrame
        One row per method, sorted by the mean rank of the first metric; columns
        ``rank_<metric>``, ``mean_<metric>`` (the metric's mean over the blocks) and
        ``p_as_good_<metric>`` (``as_good_as_baseline``; NaN with fewer than 2 datasets).
    statistics : dict
        Per metric: blocks N, Friedman chi2 and p, the critical difference at ``alpha``, the
        Nemenyi p-values (m x m; None for fewer than 3 methods) and the mean ranks.

    References
    ----------
    Demsar. Statistical comparisons of classifiers over multiple data sets. J. Mach. Learn. Res.
    7:1-30, 2006 (Friedman test and Nemenyi post-hoc test; module docstring).
    """
    frame, stats_ = None, {}
    for metric in metrics:
        scores = block_scores(tables, metric, exclude_methods=baselines, exclude_rankers=own, drop_sparse=drop_sparse)
        if scores.empty or scores.shape[1] < 2:
            continue
        ranks = mean_ranks(scores)
        chi2, p = friedman(scores)
        pairs = wilcoxon_holm(scores)
        stats_[metric] = {"blocks": int(scores.shape[0]), "chi2": chi2, "p": p,
                          "datasets": int(scores.index.get_level_values("dataset").nunique()),
                          "cd": critical_difference(scores.shape[1], scores.shape[0], alpha),
                          "nemenyi": nemenyi(scores) if scores.shape[1] >= 3 else None, "ranks": ranks,
                          "pairs": pairs, "pairs_differ": int((pairs.p_holm < alpha).sum()),
                          "smallest_holm_p": smallest_holm_p(scores.shape[0], len(pairs))}
        bayes = as_good_as_baseline(tables, metric, baseline=baselines[0], exclude_rankers=own, rope=rope) \
            if baselines else pd.DataFrame(columns=["datasets", "p_as_good"])
        stats_[metric]["bayes_datasets"] = int(bayes.datasets.max()) if len(bayes) else 0
        part = pd.DataFrame({f"rank_{metric}": ranks, f"mean_{metric}": scores.mean(axis=0),
                             f"p_as_good_{metric}": bayes.p_as_good.reindex(ranks.index).astype(float)})
        frame = part if frame is None else frame.join(part, how="outer")
    if frame is None:
        return pd.DataFrame(), stats_
    frame = frame.sort_values(frame.columns[0], kind="stable")
    missing = missing_blocks(tables, metrics[0], exclude_methods=baselines, exclude_rankers=own)
    left_out = [m for m in missing.index if m not in frame.index]  # rows without ranks, last
    frame = pd.concat([frame, pd.DataFrame(index=pd.Index(left_out))]) if left_out else frame
    frame["missing_blocks"] = missing.reindex(frame.index).fillna(0).astype(int)
    frame.index.name = "method"
    return frame.reset_index(), stats_


def n_folds_text(long: pd.DataFrame) -> str:
    """How many folds the blocks' means are over: "5 folds", or "1 to 5 folds" where some
    (dataset, method, ranker, k) rows exist in fewer folds (e.g. a k above some folds' reach)."""
    folds = sorted({int(f) for f in long.get("folds", pd.Series(dtype=int)).dropna()})
    if not folds:
        return "? folds"
    return f"{folds[0]} fold{'s' * (folds[0] > 1)}" if len(folds) == 1 else f"{folds[0]} to {folds[-1]} folds"


def _cells(values: pd.Series, why) -> list[str]:
    """A Markdown column: each value to 3 decimals, and ``why`` (one string, or one per row)
    where it has none."""
    return [f"{v:.3f}" if v == v else reason for v, reason in zip(values, np.broadcast_to(why, len(values)))]


def _no_stability(part: pd.DataFrame) -> np.ndarray:
    """Per leaderboard row, why it has no stability value: one fold (no pair of folds to
    compare), or no k below the number of features (a top-k set of every feature is the same set)."""
    return np.where(part["stability_folds"] == 1, "one fold: no stability", "no k below d")


def _block_note(row, metric: str, alpha: float) -> str:
    """The footnote sentence of one metric's tests over a board's blocks (a row of the board)."""
    n, n_datasets = int(row[f"blocks_{metric}"]), int(row[f"datasets_{metric}"])
    p = row[f"friedman_p_{metric}"]
    units = (f"{n} blocks from {n_datasets} dataset{'s' * (n_datasets > 1)}"
             + (" (the rankers of one dataset share its queries: the datasets are the independent units)"
                if n > n_datasets else ""))
    friedman_text = (f"Friedman p = {p:.3g}, Nemenyi critical difference {row[f'cd_{metric}']:.2f} ranks"
                     if p == p else "no Friedman test (it needs 3 or more methods)")
    m, smallest = int(row[f"pairs_{metric}"]), row[f"smallest_holm_p_{metric}"]
    if smallest >= alpha:
        pairs_text = (f"the Wilcoxon signed-rank test with Holm over the {m} pairs cannot separate any pair: over {n} "
                      f"blocks the smallest corrected p a pair can reach is {smallest:.3g}, not below {alpha:g}")
    else:
        pairs_text = (f"Wilcoxon signed-rank with Holm over the {m} pairs: {int(row[f'pairs_differ_{metric}'])} differ "
                      f"at {alpha:g}")
    return f"{metric}: {units}; {friedman_text}; {pairs_text}."


def _as_good_note(part: pd.DataFrame, metrics, margin: float) -> str:
    """The footnote sentence of a board's P(as good) columns."""
    n = max(int(part.iloc[0].get(f"bayes_datasets_{m}", 0) or 0) for m in metrics)
    counts = ", ".join(f"{int((part[f'p_as_good_{m}'] > 0.95).sum())} by {m}" for m in metrics
                       if f"p_as_good_{m}" in part)
    return (f" P(as good): the Bayesian signed-rank test of the method against all features over the {n} datasets "
            f"(each dataset's value the mean over its rankers, at the k chosen on vali), region of practical "
            f"equivalence ±{margin:g}: the posterior probability that the most probable region is not \"all features "
            f"better by more than {margin:g}\" (prior: one pseudo-dataset at 0 of weight 0.5); above 0.95: {counts}.")


def markdown(result: pd.DataFrame, small: pd.DataFrame, metrics, *, alpha: float, n_folds: str,
             recovery: pd.DataFrame | None = None, margin: float = NONINFERIORITY_MARGIN) -> str:
    """The leaderboard as Markdown.

    Parameters
    ----------
    result : pandas.DataFrame
        The per-method rows of every scope (a ``scope`` column).
    small : pandas.DataFrame
        The smallest-k rows (``smallest_k`` with an ``experiment`` column).
    metrics : sequence of str
        The metrics ranked.
    alpha : float
        Significance level, as in the statistics.
    n_folds : str
        How many folds the means are over (``n_folds_text``).
    recovery : pandas.DataFrame or None, default None
        The planted-feature recovery (``recovery_table``), where it is known.
    margin : float, default 0.01
        The tables' non-inferiority margin, for the smallest-k note.

    Returns
    -------
    str
        One table per scope, the smallest-k table, and the recovery table.
    """
    lines = ["# Leaderboard of the feature selectors", ""]
    for scope, part in result.groupby("scope", sort=False):
        head = [f"## {'All experiments together' if scope == 'all' else 'Experiment ' + scope}", ""]
        if scope == "all":
            head += ["Every experiment's blocks (dataset x ranker) together.", ""]
        notes = []
        for metric in metrics:
            col = f"blocks_{metric}"
            if col in part and part[col].notna().any():
                notes.append(_block_note(part.iloc[0], metric, alpha))
        cols = ["method"] + [c for metric in metrics for c in (f"rank_{metric}", f"mean_{metric}") if c in part]
        cols += [f"p_as_good_{m}" for m in metrics if part.get(f"p_as_good_{m}", pd.Series(dtype=float)).notna().any()]
        cols += ["jaccard", "kuncheva", "select_cpu_s", "select_peak_mb"]
        cols += ["planted_precision"] if part.planted_precision.notna().any() else []
        names = ({f"rank_{m}": f"rank {m}" for m in metrics} | {f"mean_{m}": f"mean {m}" for m in metrics}
                 | {f"p_as_good_{m}": f"P(as good) {m}" for m in metrics})
        names |= {"jaccard": "Jaccard", "kuncheva": "Kuncheva", "select_cpu_s": "select CPU s", "select_peak_mb": "peak MB",
                  "planted_precision": "planted precision"}
        table = part[cols].copy()
        unranked = part[part[f"rank_{metrics[0]}"].isna()] if f"rank_{metrics[0]}" in part else part.iloc[:0]
        for col in [c for c in table.columns if c.startswith(("rank_", "mean_", "p_as_good_"))]:
            table[col] = _cells(part[col], "not ranked" if not col.startswith("p_as_good_") else "")
        why = _no_stability(part)
        for col in ("jaccard", "kuncheva"):
            table[col] = _cells(part[col], why)
        table = table.rename(columns=names)
        head.append(table.to_markdown(index=False, floatfmt=".3f"))
        head += ["", f"Rank: mean rank over blocks (dataset x ranker; each method's test metric, averaged over the "
                 f"folds ({n_folds}), at its k chosen on vali, or its one k), 1 = best, ties share ranks; mean: the "
                 f"metric's mean over the same blocks. {' '.join(notes)}"
                 + (_as_good_note(part, metrics, margin) if any(c.startswith("p_as_good_") for c in cols) else "")
                 + " Jaccard, Kuncheva: stability of the top-k sets across folds "
                 "(mean over fold pairs, then over the dataset's own ks and over datasets; Kuncheva 0 = chance, "
                 "1 = identical). "
                 "Select CPU s: CPU seconds of a fold's select job and the scorer jobs it reads (mean over "
                 "folds and datasets); peak MB: the largest resident memory of those jobs. The all-features "
                 "baseline and the methods' own models are not ranked."
                 + (" Planted precision: the share of the top k that carries signal in the generated data "
                    "(informative or redundant features, not noise; mean over folds, the dataset's own ks and "
                    "datasets)."
                    if "planted_precision" in cols else "")
                 + (" Not ranked: " + ", ".join(f"{r.method} (no value in {r.missing_blocks} blocks)"
                                                for r in unranked.itertuples())
                    + "; a method is left out where that completes more blocks than it misses (FS-BFS "
                      "builds fewer groups than the larger k), its other columns stay."
                    if len(unranked) else ""), ""]
        lines += head
    if not small.empty:
        cols = ["experiment", "dataset", "method", "ranker", "metric", "k", "value", "diff_vs_waf", "diff_low",
                "p_noninf_holm", "waf", "k_max"]
        shown = small[cols].copy()
        for col, fmt in (("k", "{:.0f}"), ("k_max", "{:.0f}"), ("value", "{:.4f}"), ("diff_vs_waf", "{:+.4f}"),
                         ("diff_low", "{:+.4f}"), ("p_noninf_holm", "{:.3g}"), ("waf", "{:.4f}")):
            shown[col] = shown[col].map(lambda v, f=fmt: "" if pd.isna(v) else f.format(v))
        lines += ["## How many features can be dropped", "",
                  shown.rename(columns={"k": "smallest k", "value": "its test value", "diff_vs_waf": "difference",
                                        "diff_low": "95% low", "p_noninf_holm": "p (Holm)", "waf": "all features",
                                        "k_max": "largest k tried"}).to_markdown(index=False, disable_numparse=True), "",
                  f"Smallest k shown as good as the all-features baseline with the same ranker: it loses less than "
                  f"the margin of {margin:g} in the experiment's table metric (one-sided paired t-test of a loss of "
                  f"{margin:g} or more over the test queries of all folds pooled, Holm-corrected over the table's "
                  f"tests, p < {alpha:g}). Difference: its mean minus all features', with the lower end of the 95% "
                  "interval. Empty: no k was shown as good, which is not evidence that every k is worse (the "
                  "queries may be too few to tell).", ""]
    if recovery is not None and not recovery.empty:
        wide = recovery.pivot_table(index=["dataset", "method"], columns="k", values=["precision", "recall"],
                                    sort=False)
        wide.columns = [f"{name}@{k}" for name, k in wide.columns]
        lines += ["## Planted features found", "", wide.reset_index().to_markdown(index=False, floatfmt=".3f"), "",
                  "precision@k: the share of the selector's top k that carries signal in the generated data (its "
                  "truth.json: informative or redundant features); recall@k: the share of the informative features "
                  "that are in the top k; means over folds. The share of pure-noise features is in "
                  "planted_recovery.csv.", ""]
    return "\n".join(lines)

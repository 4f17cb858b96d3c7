"""The registry of the feature reports: every per-feature or per-method figure of the papers is
declared here once, and the workflow's generic rule ``artefact`` (``workflow/rules/artefacts.smk``)
draws any of them.

A declaration (``Artefact``) names:

- ``name``: the file stem after the dataset, ``{dataset}_{name}`` for an experiment-level
  artefact, ``{dataset}_{name}_{method}`` for a per-method one (``per_method=True``); the files
  are ``results/figures/{experiment}/features/{stem}.png``, ``.pdf`` and ``.csv`` (the numbers
  drawn);
- ``inputs``: the files it reads, by role, as ``FoldFile`` (a file of every fold, or of the
  first fold, relative to ``results/{dataset}/fold{fold}/``, ``{method}`` filled in) or
  ``ExperimentTable`` (the experiment's table CSV). Only files written by the stage that owns
  the computation: a figure job reads and draws, it never recomputes;
- ``when``: which methods make it possible, ``when(method_config, selector_class) -> bool``
  (helpers ``algorithms(...)``, ``reads(...)``); an experiment-level artefact is drawn when
  at least one of the experiment's methods passes, a per-method one for each method that does;
- ``title`` (a template with ``{dataset}``, ``{method}``, ``{fold}`` = the first fold),
  ``caption`` and ``category`` (for ``snakemake --report``);
- ``draw``: ``draw(inputs, png, pdf, csv, context)``, a thin call of a drawing function of
  ``ltrfs.results.figures.feature_reports``; ``inputs`` maps each role to a path (first fold) or a
  list of paths (every fold, in fold order); ``context`` holds ``dataset``, ``experiment``,
  ``method``, ``folds``, ``names`` (the dataset's feature names or None) and ``title``.

Some figures draw data that only a stage can compute from a method's fitted selection (a
Greedy RankRLS path evaluated on test, FS-ED's class densities, FSMRank's solver traces). Such
*report data* is declared here too (``ReportData``, ``declare_report_data``): its folder name,
the methods it exists for, the split it reads and its computing function, which lives beside
its method (e.g. ``ltrfs.selection.greedy_rankrls.path_metrics``). The workflow's generic rule
``report_data`` writes ``results/{dataset}/fold{fold}/{name}/{method}.tsv``; a figure reads it
through ``ReportData.file()``.

Adding an artefact: a drawing function, one ``declare(...)`` below, and its test; the workflow's
targets, inputs and wildcard constraint all come from this registry.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable



@dataclass(frozen=True)
class FoldFile:
    """A file of the fold folders, relative to ``results/{dataset}/fold{fold}/``.

    Attributes
    ----------
    pattern : str
        The path relative to the fold folder; ``{method}`` is filled in.
    folds : {"all", "first"}, default "all"
        ``"all"`` gives every fold's file as a list in fold order, ``"first"`` the first fold's
        file.
    """

    pattern: str
    folds: str = "all"

    def __post_init__(self):
        if self.folds not in ("all", "first"):
            raise ValueError(f"FoldFile folds must be 'all' or 'first'; got {self.folds!r}")

    def resolve(self, results: str, dataset: str, experiment: str, method, folds: list):
        """The path(s) of this file for one dataset and method.

        Parameters
        ----------
        results : str
            The results folder.
        dataset : str
            The dataset.
        experiment : str
            The experiment (unused: the file belongs to the fold).
        method : str or None
            The method filled into ``{method}``.
        folds : list of int
            The experiment's folds, in order.

        Returns
        -------
        str or list of str
            The first fold's path, or every fold's path in fold order.
        """
        relative = self.pattern.format(method=method)
        paths = [f"{results}/{dataset}/fold{fold}/{relative}" for fold in folds]
        return paths if self.folds == "all" else paths[0]


@dataclass(frozen=True)
class ExperimentTable:
    """The experiment's fold-averaged table, ``results/{dataset}/tables/{experiment}.csv``, or
    with ``suffix="_compare"`` its paired t-tests (``{experiment}_compare.csv``)."""

    suffix: str = ""

    def resolve(self, results: str, dataset: str, experiment: str, method, folds: list):
        """The path of the experiment's table (arguments as ``FoldFile.resolve``)."""
        return f"{results}/{dataset}/tables/{experiment}{self.suffix}.csv"


@dataclass(frozen=True, eq=False)
class Artefact:
    """One declared figure (module docstring).

    Attributes
    ----------
    name : str
        The file stem after the dataset (``{dataset}_{name}``, or ``{dataset}_{name}_{method}``
        when ``per_method``).
    inputs : dict
        Role -> ``FoldFile`` or ``ExperimentTable``: the files it reads.
    draw : callable
        ``draw(inputs, png, pdf, csv, context)``.
    when : callable
        ``when(method_config, selector_class) -> bool``: which methods make it possible.
    per_method : bool
        One figure per passing method, or one per experiment.
    title : str
        A template with ``{dataset}``, ``{method}`` and ``{fold}`` (the first fold).
    caption : str
        The caption in ``snakemake --report``.
    category : str
        The category in ``snakemake --report``.
    paper : str, default ""
        The paper whose figure it reproduces, if any.
    """

    name: str
    inputs: dict
    draw: Callable
    when: Callable
    per_method: bool
    title: str
    caption: str
    category: str
    paper: str = ""

    def stem(self, method=None) -> str:
        """The file stem after ``{dataset}_``: ``name`` or ``name_method``."""
        if self.per_method != (method is not None):
            raise ValueError(f"artefact {self.name!r} is {'per method' if self.per_method else 'per experiment'}; "
                             f"got method {method!r}")
        return f"{self.name}_{method}" if self.per_method else self.name


#: name -> Artefact, in declaration order
ARTEFACTS: dict[str, Artefact] = {}
NAME = re.compile(r"[a-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")


def declare(name: str, *, inputs: dict, draw: Callable, when: Callable, per_method: bool, title: str,
            caption: str, category: str, paper: str = "") -> Artefact:
    """Add an artefact to ``ARTEFACTS`` (module docstring).

    A name must be new, and no per-method name may be a prefix ``name_`` of another name (the file
    stems must parse).

    Parameters
    ----------
    name, inputs, draw, when, per_method, title, caption, category, paper
        As the attributes of ``Artefact``.

    Returns
    -------
    Artefact
        The declaration.

    Raises
    ------
    ValueError
        For a malformed or repeated name, or an input that is not a ``FoldFile`` or
        ``ExperimentTable`` (or names a method in a per-experiment artefact).
    """
    if not NAME.match(name):
        raise ValueError(f"artefact name {name!r} must be letters, digits and single underscores")
    if name in ARTEFACTS:
        raise ValueError(f"artefact {name!r} is declared twice")
    for other in ARTEFACTS.values():
        for prefix, is_per_method, stem in ((other.name, other.per_method, name), (name, per_method, other.name)):
            if is_per_method and stem.startswith(prefix + "_"):
                raise ValueError(f"artefact {stem!r} would be read as artefact {prefix!r} of a method")
    for role, spec in inputs.items():
        if not isinstance(spec, (FoldFile, ExperimentTable)):
            raise ValueError(f"artefact {name!r} input {role!r}: a FoldFile or ExperimentTable, got {spec!r}")
        if not per_method and "{method}" in getattr(spec, "pattern", ""):
            raise ValueError(f"artefact {name!r} input {role!r} names a method but the artefact is per experiment")
    artefact = Artefact(name=name, inputs=dict(inputs), draw=draw, when=when, per_method=per_method, title=title,
                        caption=caption, category=category, paper=paper)
    ARTEFACTS[name] = artefact
    return artefact


@dataclass(frozen=True, eq=False)
class ReportData:
    """Per-fold data of one method that a figure draws and only a stage can compute
    (module docstring).

    Attributes
    ----------
    name : str
        The folder of its files, ``results/{dataset}/fold{fold}/{name}/{method}.tsv``.
    algorithms : tuple of str
        The selection algorithms whose records it can be computed from.
    split : str
        The split it reads besides the selection record ("train" or "test").
    compute : callable
        ``compute(selection, data, context) -> str``: the TSV text, from the selection record,
        the split (``RankingData``) and ``context`` (``convention``, ``evaluation_ties``).
    """

    name: str
    algorithms: tuple
    split: str
    compute: Callable

    def file(self, folds: str = "all") -> FoldFile:
        """The input spec of a figure that reads this data (``FoldFile``)."""
        return FoldFile(f"{self.name}/{{method}}.tsv", folds)


#: name -> ReportData, in declaration order
REPORT_DATA: dict[str, ReportData] = {}


def declare_report_data(name: str, *, algorithms: tuple, split: str, compute: Callable) -> ReportData:
    """Add report data to ``REPORT_DATA`` (module docstring); a name must be new.

    Parameters
    ----------
    name, algorithms, split, compute
        As the attributes of ``ReportData``.

    Returns
    -------
    ReportData
        The declaration.

    Raises
    ------
    ValueError
        For a malformed or repeated name, or a split other than train, vali or test.
    """
    if not NAME.match(name) or name in REPORT_DATA:
        raise ValueError(f"report data {name!r} must be a new name of letters, digits and single underscores")
    if split not in ("train", "vali", "test"):
        raise ValueError(f"report data {name!r}: split must be train, vali or test; got {split!r}")
    REPORT_DATA[name] = ReportData(name=name, algorithms=tuple(algorithms), split=split, compute=compute)
    return REPORT_DATA[name]


# ----------------------------------------------------------------------------- conditions

def algorithms(*names: str) -> Callable:
    """A ``when`` condition: the method's algorithm is one of ``names``.

    Parameters
    ----------
    *names : str
        Selection algorithms.

    Returns
    -------
    callable
        ``when(method_config, selector_class) -> bool``.
    """
    return lambda method, cls: method["algorithm"] in names


def reads(scorer: str) -> Callable:
    """A ``when`` condition: the method's selector reads the per-fold score file ``scorer``.

    Parameters
    ----------
    scorer : str
        A scorer's name (a selector's ``requires``).

    Returns
    -------
    callable
        ``when(method_config, selector_class) -> bool``.
    """
    return lambda method, cls: scorer in getattr(cls, "requires", ())


# ----------------------------------------------------------------------------- lookup

def stems(methods: dict, selectors: dict) -> list[str]:
    """The artefact stems an experiment makes possible, in declaration order.

    Parameters
    ----------
    methods : dict
        The experiment's method names, in order, -> their configs (``{"algorithm": ...,
        "params": ...}``).
    selectors : dict
        Algorithm name -> selector class (``ltrfs.selection.SELECTORS``).

    Returns
    -------
    list of str
    """
    out = []
    for artefact in ARTEFACTS.values():
        passing = [name for name, method in methods.items()
                   if artefact.when(method, selectors[method["algorithm"]])]
        if artefact.per_method:
            out += [artefact.stem(name) for name in passing]
        elif passing:
            out.append(artefact.stem())
    return out


def parse(stem: str) -> tuple[Artefact, str | None]:
    """(artefact, method or None) of a file stem (``stem`` of ``Artefact``)."""
    if stem in ARTEFACTS and not ARTEFACTS[stem].per_method:
        return ARTEFACTS[stem], None
    for artefact in ARTEFACTS.values():
        if artefact.per_method and stem.startswith(artefact.name + "_") and len(stem) > len(artefact.name) + 1:
            return artefact, stem[len(artefact.name) + 1:]
    raise ValueError(f"no artefact is drawn as {stem!r}; declared: {', '.join(ARTEFACTS)}")


def stem_pattern(method_pattern: str) -> str:
    """A regular expression matching exactly the declared stems, the method part matching
    ``method_pattern`` (the workflow's wildcard constraint of the generic rule)."""
    fixed = [re.escape(a.name) for a in ARTEFACTS.values() if not a.per_method]
    per = [re.escape(a.name) for a in ARTEFACTS.values() if a.per_method]
    parts = fixed + ([f"(?:{'|'.join(per)})_{method_pattern}"] if per else [])
    return f"(?:{'|'.join(parts)})"


def input_paths(stem: str, *, results: str, dataset: str, experiment: str, folds: list) -> dict:
    """The input files of the artefact drawn as ``stem``.

    Parameters
    ----------
    stem : str
        The file stem after ``{dataset}_`` (``Artefact.stem``).
    results : str
        The results folder.
    dataset : str
        The dataset.
    experiment : str
        The experiment.
    folds : list of int
        The experiment's folds, in order.

    Returns
    -------
    dict
        Role -> path (first fold) or list of paths (every fold).
    """
    artefact, method = parse(stem)
    return {role: spec.resolve(results, dataset, experiment, method, list(folds))
            for role, spec in artefact.inputs.items()}


def title(stem: str, *, dataset: str, folds: list) -> str:
    """The title of the figure drawn as ``stem`` (the declaration's template filled in).

    Parameters
    ----------
    stem : str
        The file stem after ``{dataset}_``.
    dataset : str
        The dataset.
    folds : list of int
        The experiment's folds; ``{fold}`` is the first.

    Returns
    -------
    str
    """
    artefact, method = parse(stem)
    return artefact.title.format(dataset=dataset, method=method, fold=folds[0])


def draw(stem: str, inputs: dict, png, pdf, csv, context: dict) -> None:
    """Draw the artefact ``stem`` from its input files into png, pdf and csv.

    Parameters
    ----------
    stem : str
        The file stem after ``{dataset}_``.
    inputs : dict
        Role -> path(s), as ``input_paths`` gives them.
    png, pdf, csv : str or os.PathLike
        The files written (the CSV holds the numbers drawn).
    context : dict
        ``dataset``, ``experiment``, ``folds``, ``names`` and ``title``; ``method`` is added.

    Raises
    ------
    ValueError
        When an input role of the declaration is not given.
    """
    artefact, method = parse(stem)
    missing = set(artefact.inputs) - set(inputs)
    if missing:
        raise ValueError(f"artefact {stem!r}: inputs {', '.join(sorted(missing))} not given")
    artefact.draw(inputs, png, pdf, csv, {**context, "method": method})


# ----------------------------------------------------------------------------- the declarations

def _reports():
    """``ltrfs.results.figures.feature_reports``, imported when a report is drawn (heavy: matplotlib, pandas): the
    Snakefile's process and the report-data jobs read this registry and draw nothing."""
    from ltrfs.results.figures import feature_reports as reports

    return reports


# the computing functions live beside their methods; each is imported when its report data is computed
def _path_metrics(selection, test, c):
    """Greedy RankRLS: per-query test metrics of every path model."""
    from ltrfs.selection.greedy_rankrls import path_metrics

    return path_metrics(selection, test, convention=c["convention"], ties=c["evaluation_ties"])


def _class_densities(selection, train, c):
    """FS-ED: the class densities of the selected features."""
    from ltrfs.selection.fs_ed import class_densities_table

    return class_densities_table(selection, train)


def _convergence(selection, train, c):
    """FSMRank: the objective traces of its solvers."""
    from ltrfs.selection.fsmrank import convergence_table

    return convergence_table(selection, train)


PATHS = declare_report_data("paths", algorithms=("greedy_rankrls",), split="test", compute=_path_metrics)
DENSITIES = declare_report_data("densities", algorithms=("fs_ed",), split="train", compute=_class_densities)
CONVERGENCE = declare_report_data("convergence", algorithms=("fsmrank", "fsmsvm"), split="train", compute=_convergence)


def _by_fold(context: dict, paths: list) -> dict:
    folds = list(context["folds"])
    if len(folds) != len(paths):
        raise ValueError(f"{len(paths)} files for folds {folds}")
    return dict(zip(folds, paths))


GAS = "GAS (Geng et al. 2007)"
FSED = "FS-ED (Gupta & Rosso 2012)"
LEI = "Statistical selectors (Lei & Han 2017)"
GREEDY = "Greedy RankRLS (Pahikkala et al. 2010)"
FSM = "FSMRank (Lai et al. 2013)"

def _feature_alone(metric: str, when: Callable, caption: str, category: str, paper: str) -> Artefact:
    """Bars of one single-feature metric (a key of the single-feature table), fold mean."""
    return declare(
        f"importance_{metric.replace('@', '')}",
        inputs={"scores": FoldFile("scores/single_feature.npz")},
        draw=lambda i, png, pdf, csv, c: _reports().importance_figure(i["scores"], metric, png, pdf, csv,
                                                                   title=c["title"], names=c["names"]),
        when=when, per_method=False, title="{dataset}: " + f"{metric} of each feature alone, fold mean",
        caption=f"{metric} of each feature alone: every training query ranked by the feature's value (tied values "
                f"in expectation over their orders), mean over the folds ({caption}).",
        category=category, paper=paper)


_feature_alone("MAP", reads("single_feature"), "GAS Fig. 6", GAS, "Geng et al. 2007, Fig. 6")
_feature_alone("NDCG@10", algorithms("fsmrank", "fsmsvm"), "Lai et al. Fig. 4: few strong features on "
               "HP2004/NP2004, many close ones on MQ2008", FSM, "Lai et al. 2013, Fig. 4")

declare(
    "kendall",
    inputs={"scores": FoldFile("scores/kendall.npz")},
    draw=lambda i, png, pdf, csv, c: _reports().kendall_figure(i["scores"], png, pdf, csv, title=c["title"]),
    when=reads("kendall"), per_method=False,
    title="{dataset}: Kendall similarity, fold mean",
    caption="Kendall similarity of every pair of features (fraction of a query's document pairs both order "
            "the same way), mean over training queries and folds (GAS Fig. 7).",
    category=GAS, paper="Geng et al. 2007, Fig. 7")

declare(
    "densities",
    inputs={"densities": DENSITIES.file("first")},
    draw=lambda i, png, pdf, csv, c: _reports().fsed_figure(i["densities"], png, pdf, csv, title=c["title"]),
    when=algorithms("fs_ed"), per_method=True,
    title="{dataset} fold {fold}: {method}, density of each relevance class (training rows)",
    caption="Density of each relevance class (Gaussian KDE, Silverman bandwidth, training rows of the first "
            "fold) for the top and the last feature by psi; constant and all-zero features are skipped "
            "(FS-ED Fig. 3).",
    category=FSED, paper="Gupta & Rosso 2012, Fig. 3")

declare(
    "elimination",
    inputs={"selections": FoldFile("select/{method}.json")},
    draw=lambda i, png, pdf, csv, c: _reports().rf_curve_figure(_by_fold(c, i["selections"]), png, pdf, csv,
                                                             title=c["title"]),
    when=lambda m, cls: m["algorithm"] == "rf_importance" and (m.get("params") or {}).get("curve", True),
    per_method=True,
    title="{dataset}: {method} elimination curve",
    caption="Cross-validated error of the random forest while the least important 30% of the features are "
            "dropped per step, one line per fold (Lei & Han Table 2.1).",
    category=LEI, paper="Lei & Han 2017, Table 2.1")

declare(
    "importance_plot",
    inputs={"selection": FoldFile("select/{method}.json", "first")},
    draw=lambda i, png, pdf, csv, c: _reports().score_bars_figure(
        i["selection"], png, pdf, csv, names=c["names"], title=c["title"],
        label="importance (the method's score, normalised to sum 1)"),
    when=algorithms("rf_importance", "gbm_importance"), per_method=True,
    title="{dataset} fold {fold}: {method}, the 20 most important features",
    caption="The 20 features of largest importance in the first fold's model: the random forest's mean decrease "
            "in Gini impurity (or out-of-bag accuracy, importance: permutation), the boosted trees' total "
            "gain; normalised to sum 1 over all features (Lei & Han Fig. 3.1 and the boosting summary of "
            "section 2.3.3). The CSV ranks every feature.",
    category=LEI, paper="Lei & Han 2017, Fig. 3.1")

declare(
    "criterion",
    inputs={"selection": FoldFile("select/{method}.json", "first")},
    draw=lambda i, png, pdf, csv, c: _reports().criterion_path_figure(i["selection"], png, pdf, csv, title=c["title"]),
    when=algorithms("ordinal_cr"), per_method=True,
    title="{dataset} fold {fold}: {method}, BIC along the penalty path",
    caption="BIC of the L1 continuation-ratio model at each step of its penalty path (first fold's training rows; "
            "step 1 is the largest penalty), with the minimum and the chosen model (the sparsest within the "
            "configured tolerance of the minimum, as the report's 'more parsimonious model having a BIC close to "
            "the minimum'); dashed: the number of nonzero coefficients (Lei & Han Fig. 2.1).",
    category=LEI, paper="Lei & Han 2017, Fig. 2.1")

declare(
    "chosen_k",
    inputs={"table": ExperimentTable(), "compare": ExperimentTable("_compare")},
    draw=lambda i, png, pdf, csv, c: _reports().chosen_k_bars(i["table"], i["compare"], png, pdf, csv,
                                                           title=c["title"]),
    when=algorithms("fs_ed"), per_method=False,
    title="{dataset}: test NDCG@10 at the k chosen on vali",
    caption="Test NDCG@10 (mean over folds, bars ± std over folds) of every method at its k chosen on vali, per "
            "ranker; + marks p < 0.05 against all features (WAF) with the same ranker, * p < 0.05 against the "
            "other side of a compare pair (FS-ED vs FS-BFS); paired t-tests, test queries of all folds pooled "
            "(Gupta & Rosso Fig. 2).",
    category=FSED, paper="Gupta & Rosso 2012, Fig. 2")

declare(
    "path",
    inputs={"paths": PATHS.file(), "table": ExperimentTable()},
    draw=lambda i, png, pdf, csv, c: _reports().greedy_path_figure(_by_fold(c, i["paths"]), png, pdf, csv,
                                                                title=c["title"], table_csv=i["table"]),
    when=algorithms("greedy_rankrls"), per_method=True,
    title="{dataset}: {method}, test, fold mean",
    caption="Test MAP and MeanNDCG of the RankRLS model after each greedy step, one line per lambda, mean over "
            "the folds; dashed: every ranker of the experiment on all features (Pahikkala et al. Figs. 1-4).",
    category=GREEDY, paper="Pahikkala et al. 2010, Figs. 1-4")

declare(
    "convergence",
    inputs={"traces": CONVERGENCE.file("first")},
    draw=lambda i, png, pdf, csv, c: _reports().convergence_figure(i["traces"], png, pdf, csv, title=c["title"]),
    when=algorithms("fsmrank"), per_method=True,
    title="{dataset} fold {fold}: {method} objective",
    caption="FSMRank objective against seconds on the first fold's training split at the chosen lambdas: the "
            "accelerated proximal gradient (the fit's iterates, re-timed) and a projected subgradient method "
            "(Lai et al. Fig. 5).",
    category=FSM, paper="Lai et al. 2013, Fig. 5")

declare(
    "nonzero",
    inputs={"selections": FoldFile("select/{method}.json"), "models": FoldFile("select/{method}.model")},
    draw=lambda i, png, pdf, csv, c: _reports().nonzero_figure(_by_fold(c, i["selections"]), _by_fold(c, i["models"]),
                                                            png, pdf, csv, title=c["title"]),
    when=algorithms("fsmrank"), per_method=True,
    title="{dataset}: {method}, non-zero weights at the vali-chosen lambdas",
    caption="The number of non-zero weights of the FSMRank model (the features it uses) at the lambda1 x lambda2 "
            "chosen on vali, per fold, and their mean; dashed: all d features. The CSV gives the chosen lambdas "
            "(later papers compare the subset sizes of embedded selectors).",
    category=FSM, paper="Lai et al. 2013")

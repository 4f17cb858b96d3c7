"""The registry of the feature reports: every per-feature or per-method figure of the papers is
declared here once, and the workflow's generic rule ``feature_report`` (``workflow/rules/figures.smk``)
draws any of them.

A declaration (``FeatureReport``) names:

- ``name``: the file stem after the dataset, ``{dataset}_{name}`` for an experiment-level
  report, ``{dataset}_{name}_{method}`` for a per-method one (``per_method=True``); the files
  are ``results/figures/{experiment}/features/{stem}.png``, ``.pdf`` and ``.csv`` (the numbers
  drawn);
- ``inputs``: the files it reads, by role, as ``FoldFile`` (a file of every fold, or of the
  first fold, relative to ``results/{dataset}/fold{fold}/``, ``{method}`` filled in) or
  ``ExperimentTable`` (the experiment's table CSV). Only files written by the stage that owns
  the computation: a figure job reads and draws, it never recomputes;
- ``when``: which methods make it possible, ``when(method_config, selector_class) -> bool``
  (helpers ``algorithms(...)``, ``reads(...)``); an experiment-level report is drawn when
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

Adding a feature report: a drawing function, one ``declare(...)`` below, and its test; the workflow's
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
class FeatureReport:
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
            raise ValueError(f"feature report {self.name!r} is {'per method' if self.per_method else 'per experiment'}; "
                             f"got method {method!r}")
        return f"{self.name}_{method}" if self.per_method else self.name


#: name -> FeatureReport, in declaration order
FEATURE_REPORTS: dict[str, FeatureReport] = {}
NAME = re.compile(r"[a-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")


def declare(name: str, *, inputs: dict, draw: Callable, when: Callable, per_method: bool, title: str,
            caption: str, category: str, paper: str = "") -> FeatureReport:
    """Add a feature report to ``FEATURE_REPORTS`` (module docstring).

    A name must be new, and no per-method name may be a prefix ``name_`` of another name (the file
    stems must parse).

    Parameters
    ----------
    name, inputs, draw, when, per_method, title, caption, category, paper
        As the attributes of ``FeatureReport``.

    Returns
    -------
    FeatureReport
        The declaration.

    Raises
    ------
    ValueError
        For a malformed or repeated name, or an input that is not a ``FoldFile`` or
        ``ExperimentTable`` (or names a method in a per-experiment report).
    """
    if not NAME.match(name):
        raise ValueError(f"feature report name {name!r} must be letters, digits and single underscores")
    if name in FEATURE_REPORTS:
        raise ValueError(f"feature report {name!r} is declared twice")
    for other in FEATURE_REPORTS.values():
        for prefix, is_per_method, stem in ((other.name, other.per_method, name), (name, per_method, other.name)):
            if is_per_method and stem.startswith(prefix + "_"):
                raise ValueError(f"feature report {stem!r} would be read as feature report {prefix!r} of a method")
    for role, spec in inputs.items():
        if not isinstance(spec, (FoldFile, ExperimentTable)):
            raise ValueError(f"feature report {name!r} input {role!r}: a FoldFile or ExperimentTable, got {spec!r}")
        if not per_method and "{method}" in getattr(spec, "pattern", ""):
            raise ValueError(f"feature report {name!r} input {role!r} names a method but the feature report is per experiment")
    report = FeatureReport(name=name, inputs=dict(inputs), draw=draw, when=when, per_method=per_method, title=title,
                        caption=caption, category=category, paper=paper)
    FEATURE_REPORTS[name] = report
    return report


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


# ----------------------------------------------------------------------------- every figure

@dataclass(frozen=True, eq=False)
class Figure:
    """One kind of figure of a run: the rule whose job draws it, its files, its place in the
    Snakemake report and how it is drawn (module docstring).

    Attributes
    ----------
    name : str
        Its name (``FIGURES``).
    rule : str
        The rule whose job draws it.
    png : str
        Its path under the results folder, the rule's wildcards in braces; a ``{scope}`` in the
        file name makes it a folder of one PNG per scope.
    data : str
        The CSV of the numbers drawn, beside the PNG ("" when there is none).
    pdf : bool
        Whether a PDF is drawn too (beside the PNG).
    caption : str
        The report's caption, ``workflow/report/{caption}.rst``.
    category, subcategory : str
        Where the report lists it (wildcards in braces; subcategory "" for none).
    labels : dict
        The report's labels of each PNG (wildcards in braces).
    draw : callable
        ``draw(data, files)``: ``data`` what the job computed or read (a dict, per figure),
        ``files`` the ``png``, ``pdf`` and ``csv`` paths (``None`` where the figure has none).
    """

    name: str
    rule: str
    png: str
    data: str
    pdf: bool
    caption: str
    category: str
    subcategory: str
    labels: dict
    draw: Callable

    @property
    def per_scope(self) -> bool:
        """Whether it is a folder of one PNG per scope (``{scope}.png``)."""
        return self.png.endswith("/{scope}.png")

    def paths(self, results: str, **fields) -> dict:
        """``png``, ``pdf`` and ``csv`` under ``results``, the given fields filled in and the others
        left as wildcards (``{name}``).

        Parameters
        ----------
        results : str
            The results folder.
        **fields
            Values of some of the path's fields (e.g. ``run_name``).

        Returns
        -------
        dict
            ``png``, ``pdf`` and ``csv``: paths, or None where the figure has no such file.
        """
        fill = _Fill(fields)
        png = f"{results}/{self.png.format_map(fill)}"
        return {"png": png, "pdf": png[:-4] + ".pdf" if self.pdf else None,
                "csv": f"{results}/{self.data.format_map(fill)}" if self.data else None}


class _Fill(dict):
    """``str.format_map`` values that leave a field it does not have as ``{field}``."""

    def __missing__(self, key):
        return "{" + key + "}"


#: name -> Figure: every kind of figure a run draws, in declaration order
FIGURES: dict[str, Figure] = {}


def declare_figure(name: str, *, rule: str, png: str, caption: str, category: str, labels: dict, draw: Callable,
                   data: str = "", pdf: bool = False, subcategory: str = "") -> Figure:
    """Add a kind of figure to ``FIGURES`` (module docstring); a name must be new.

    Parameters
    ----------
    name, rule, png, caption, category, labels, draw, data, pdf, subcategory
        As the attributes of ``Figure``.

    Returns
    -------
    Figure
        The declaration.

    Raises
    ------
    ValueError
        For a malformed or repeated name, or a path that is not a PNG.
    """
    if not NAME.match(name) or name in FIGURES:
        raise ValueError(f"figure {name!r} must be a new name of letters, digits and single underscores")
    if not png.endswith(".png") or (data and not data.endswith(".csv")):
        raise ValueError(f"figure {name!r}: png must end in .png and data in .csv; got {png!r}, {data!r}")
    FIGURES[name] = Figure(name=name, rule=rule, png=png, data=data, pdf=pdf, caption=caption, category=category,
                           subcategory=subcategory, labels=dict(labels), draw=draw)
    return FIGURES[name]


def output_files(outputs, name: str) -> dict:
    """The ``png``, ``pdf`` and ``csv`` of the figure ``name`` among a job's named outputs
    (``figure_{name}``, ``figure_{name}_pdf``, ``figure_{name}_csv``; None where it has none).
    For a figure of one PNG per scope the output is its folder, and ``png`` the declared file
    name in it (``{scope}.png``).

    Parameters
    ----------
    outputs : mapping
        The job's named outputs (a dict, or Snakemake's ``snakemake.output``).
    name : str
        The figure (``FIGURES``).

    Returns
    -------
    dict
    """
    png = outputs.get(f"figure_{name}")
    if png is not None and FIGURES[name].per_scope:
        png = f"{png}/{FIGURES[name].png.rpartition('/')[2]}"
    return {"png": png, "pdf": outputs.get(f"figure_{name}_pdf"), "csv": outputs.get(f"figure_{name}_csv")}


def drawn_by(rule: str) -> list[Figure]:
    """The figures the rule ``rule`` draws, in declaration order.

    Parameters
    ----------
    rule : str
        A rule's name.

    Returns
    -------
    list of Figure
    """
    return [figure for figure in FIGURES.values() if figure.rule == rule]


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
    """The feature-report stems an experiment makes possible, in declaration order.

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
    for report in FEATURE_REPORTS.values():
        passing = [name for name, method in methods.items()
                   if report.when(method, selectors[method["algorithm"]])]
        if report.per_method:
            out += [report.stem(name) for name in passing]
        elif passing:
            out.append(report.stem())
    return out


def parse(stem: str) -> tuple[FeatureReport, str | None]:
    """(report, method or None) of a file stem (``stem`` of ``FeatureReport``)."""
    if stem in FEATURE_REPORTS and not FEATURE_REPORTS[stem].per_method:
        return FEATURE_REPORTS[stem], None
    for report in FEATURE_REPORTS.values():
        if report.per_method and stem.startswith(report.name + "_") and len(stem) > len(report.name) + 1:
            return report, stem[len(report.name) + 1:]
    raise ValueError(f"no feature report is drawn as {stem!r}; declared: {', '.join(FEATURE_REPORTS)}")


def stem_pattern(method_pattern: str) -> str:
    """A regular expression matching exactly the declared stems, the method part matching
    ``method_pattern`` (the workflow's wildcard constraint of the generic rule)."""
    fixed = [re.escape(a.name) for a in FEATURE_REPORTS.values() if not a.per_method]
    per = [re.escape(a.name) for a in FEATURE_REPORTS.values() if a.per_method]
    parts = fixed + ([f"(?:{'|'.join(per)})_{method_pattern}"] if per else [])
    return f"(?:{'|'.join(parts)})"


def input_paths(stem: str, *, results: str, dataset: str, experiment: str, folds: list) -> dict:
    """The input files of the feature report drawn as ``stem``.

    Parameters
    ----------
    stem : str
        The file stem after ``{dataset}_`` (``FeatureReport.stem``).
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
    report, method = parse(stem)
    return {role: spec.resolve(results, dataset, experiment, method, list(folds))
            for role, spec in report.inputs.items()}


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
    report, method = parse(stem)
    return report.title.format(dataset=dataset, method=method, fold=folds[0])


def draw(stem: str, inputs: dict, png, pdf, csv, context: dict) -> None:
    """Draw the feature report ``stem`` from its input files into png, pdf and csv.

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
    report, method = parse(stem)
    missing = set(report.inputs) - set(inputs)
    if missing:
        raise ValueError(f"feature report {stem!r}: inputs {', '.join(sorted(missing))} not given")
    report.draw(inputs, png, pdf, csv, {**context, "method": method})


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


def _curves():
    """``ltrfs.results.figures.curves``, imported when one is drawn (matplotlib)."""
    from ltrfs.results.figures import curves

    return curves


def _board():
    """``ltrfs.results.figures.board``, imported when one is drawn (matplotlib)."""
    from ltrfs.results.figures import board

    return board


EXPERIMENT_FOLDER = "figures/{experiment}"
LEADERBOARD_FOLDER = "leaderboard/{run_name}"

declare_figure(
    "metric_vs_k", rule="figure_metric_vs_k", png=f"{EXPERIMENT_FOLDER}/{{dataset}}_{{metric}}.png",
    data=f"{EXPERIMENT_FOLDER}/{{dataset}}_{{metric}}.csv", pdf=True, caption="figure", category="{experiment}",
    subcategory="Figures", labels={"dataset": "{dataset}", "figure": "{metric} against k"},
    draw=lambda d, f: _curves().metric_vs_k(d["table"], d["metric"], f["png"], f["pdf"], f["csv"], title=d["title"],
                                            baselines=d["baselines"], curves=d["curves"], comparison=d["comparison"],
                                            n_features=d["n_features"]))
declare_figure(
    "paper_figure", rule="figure_paper", png=f"{EXPERIMENT_FOLDER}/{{dataset}}_{{figure}}.png",
    data=f"{EXPERIMENT_FOLDER}/{{dataset}}_{{figure}}.csv", pdf=True, caption="paper_figure", category="{experiment}",
    subcategory="Figures", labels={"dataset": "{dataset}", "figure": "{figure}"},
    draw=lambda d, f: _curves().metric_panels(d["table"], d["ranker"], d["metrics"], f["png"], f["pdf"], f["csv"],
                                              **{k: d[k] for k in ("title", "caption", "baselines", "methods", "labels",
                                                                   "comparison", "n_features")}))
declare_figure(
    "feature_report", rule="feature_report", png=f"{EXPERIMENT_FOLDER}/features/{{dataset}}_{{stem}}.png",
    data=f"{EXPERIMENT_FOLDER}/features/{{dataset}}_{{stem}}.csv", pdf=True, caption="feature_report",
    category="{experiment}", subcategory="Feature reports", labels={"dataset": "{dataset}", "figure": "{stem}"},
    draw=lambda d, f: draw(d["stem"], d["inputs"], f["png"], f["pdf"], f["csv"], d["context"]))
declare_figure(
    "critical_difference", rule="leaderboard", png=f"{LEADERBOARD_FOLDER}/critical_difference/{{scope}}.png",
    caption="critical_difference", category="Leaderboard", labels={"figure": "critical-difference diagram: {scope}"},
    draw=lambda d, f: [_board().cd_diagrams(panels, f["png"].format(scope=scope), alpha=d["alpha"])
                       for scope, panels in d["diagrams"].items()])
declare_figure(
    "stability", rule="leaderboard", png=f"{LEADERBOARD_FOLDER}/stability.png", caption="stability",
    category="Leaderboard", labels={"figure": "stability across folds"},
    draw=lambda d, f: _board().stability_curves(d["stability"], f["png"]))
declare_figure(
    "accuracy_vs_cost", rule="leaderboard", png=f"{LEADERBOARD_FOLDER}/accuracy_vs_cost.png",
    data=f"{LEADERBOARD_FOLDER}/accuracy_vs_cost.csv", caption="accuracy_vs_cost", category="Leaderboard",
    labels={"figure": "accuracy against cost"},
    draw=lambda d, f: _board().accuracy_vs_cost(d["chosen"], d["cost"], d["metric"], f["png"], csv=f["csv"],
                                                baselines=d["baselines"]))
declare_figure(
    "planted_recovery", rule="leaderboard", png=f"{LEADERBOARD_FOLDER}/planted_recovery.png",
    data=f"{LEADERBOARD_FOLDER}/planted_recovery.csv", caption="planted_recovery", category="Leaderboard",
    labels={"figure": "planted features found"},
    draw=lambda d, f: _board().recovery_curves(d["recovery"], f["png"], csv=f["csv"]))


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

def _feature_alone(metric: str, when: Callable, caption: str, category: str, paper: str) -> FeatureReport:
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

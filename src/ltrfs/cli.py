"""The ``ltrfs`` command line: the workflow's operations on single files, for researchers who
work outside Snakemake (the way RankLib users do).

    ltrfs eval [--convention letor4] DATA SCORES [--per-query]
    ltrfs select --method NAME [--set key=value ...] TRAIN [--vali VALI] [--k 5,10 ...]
                 [--format json|ranklib] [--out FILE]
    ltrfs train --ranker NAME [--set key=value ...] TRAIN [--vali VALI] [--test TEST [--save-scores FILE]]
                [--features 3,7,12 | --selection FILE --k K] --out MODEL
    ltrfs params NAME
    ltrfs predict MODEL DATA
    ltrfs datasets

Data files are LETOR/SVMlight text (optionally .gz) or the workflow's .npz cache. Feature ids
are 1-based as in the data files.
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import logging
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import yaml

from ltrfs import __version__, io, metrics
from ltrfs.atomic_files import write_json, write_text
from ltrfs.docstrings import fill_doc
from ltrfs.names import unknown_name
from ltrfs.ranking_data import DataError
from ltrfs.checks import k_above_d
from ltrfs.datasets.registry import load_registry
from ltrfs.formats import load_models, no_subsets, predict, read_selection, save_models, selection_record, view_for_k
from ltrfs.metrics import CONVENTIONS
from ltrfs.params import describe, parameter_help
from ltrfs.pipeline.select import fit_selector
from ltrfs.pipeline.train import fit_best
from ltrfs.rankers import RANKERS, checked_grid
from ltrfs.selection import SELECTORS, make_selector
from ltrfs.user_errors import error_line
from ltrfs.yaml_numbers import yaml_value

#: docstring text written once for the docstrings below (``ltrfs.docstrings``)
_DOC = {
    "command_parameters": """
Parameters
----------
args : argparse.Namespace
    The parsed command line (``build_parser``).

Returns
-------
int
    Exit code 0.
""",
}


def _read(path, args, n_features=None):
    """A data file; ``n_features`` (else ``--n-features``) fixes the width of sparse text files."""
    n_features = n_features or args.n_features
    if str(path).endswith(".npz"):
        data = io.load_npz(path)
        if n_features and data.n_features != n_features:
            raise ValueError(f"{path}: {data.n_features} features, expected {n_features}")
        return data
    return io.read_letor(path, n_features=n_features, null_policy=args.null_policy)


def _read_scores(path, n_rows: int) -> np.ndarray:
    """One score per line of ``path`` (blank lines and ``#`` comments skipped); every error names
    the line as a text editor numbers it (1-based)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except UnicodeDecodeError:  # a missing file goes up as it is: main() words it (user_errors.os_error_text)
        raise DataError(f"{path}: not a text file of scores (not UTF-8)") from None
    scores, line_of = [], []
    for number, line in enumerate(lines, 1):
        fields = line.partition("#")[0].split()
        if not fields:
            continue
        if len(fields) > 1:
            raise DataError(f"{path}: line {number}: {len(fields)} values, expected one score per line")
        try:
            scores.append(float(fields[0]))
        except ValueError:
            raise DataError(f"{path}: line {number}: {fields[0]!r} is not a number") from None
        line_of.append(number)
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) != n_rows:
        raise DataError(f"{path}: {len(scores)} scores for {n_rows} rows of the data file")
    if not np.all(np.isfinite(scores)):
        raise DataError(f"{path}: line {line_of[int(np.flatnonzero(~np.isfinite(scores))[0])]} is not a finite number")
    return scores


@fill_doc(**_DOC)
def cmd_eval(args) -> int:
    """``ltrfs eval``: the metrics of a score file on a data file, printed to stdout.

    %(command_parameters)s
    """
    data = _read(args.data, args)
    scores = _read_scores(args.scores, data.n_rows)
    qm = metrics.evaluate(data.y, scores, data.query_ptr, convention=args.convention, max_k=10, ties=args.ties)
    sys.stdout.write(metrics.format_eval_score(data.query_ids, qm, per_query=args.per_query))
    _short_query_note(data, args.convention, args.data)
    return 0


def _short_query_note(data, convention: str, path) -> None:
    """One line on standard error when the convention scores the short queries' NDCG@10 0."""
    if note := metrics.short_query_note(data.query_ptr, convention, where=str(path)):
        print(f"ltrfs: note: {note} (--convention standard)", file=sys.stderr)


def _ks(values, n_features: int | None = None) -> list[int]:
    """The subset sizes of ``--k`` (repeatable, each ``5`` or ``5,10``), sorted, each once."""
    ks = set()
    for value in values or ():
        for part in str(value).split(","):
            if not part.strip().isdigit() or int(part) < 1:
                raise ValueError(f"--k expects whole numbers >= 1, as --k 5 or --k 5,10; got {value!r}")
            ks.add(int(part))
    if n_features is not None and (note := k_above_d(ks, n_features)):
        logging.getLogger("ltrfs").warning(f"--{note}")  # its subset keeps all the features
    return sorted(ks)


def parse_assignments(items) -> dict:
    """Parse ``NAME=VALUE`` assignments of the command line.

    Parameters
    ----------
    items : list of str
        E.g. ``["C=0.1", "metric=map", "C=[1,2]", "tol=1e-7"]``.

    Returns
    -------
    dict
        Name -> value, values read as YAML scalars or lists (``yaml_value``: ``1e-7``, ``.5``
        and ``5.`` are numbers).
    """
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set expects key=value, got {item!r}")
        try:
            out[key.strip()] = yaml_value(value)
        except yaml.YAMLError as exc:
            raise ValueError(f"--set {item!r}: not a YAML value ({str(exc).splitlines()[0]})") from None
    return out


def _needs_vali(selector, name: str) -> None:
    """A one-line error when the method, as set, chooses on validation data and --vali is missing."""
    need = selector.needs_validation()
    if need is not None:
        instead = " ".join(f"--set {key}={value}" if isinstance(value, (str, int, float)) else
                           f"--set '{key}={json.dumps(value)}'" for key, value in need[1].items())  # YAML flow
        raise ValueError(f"{name} needs --vali" + (f" (or {instead})" if instead else ""))


@fill_doc(**_DOC)
def cmd_select(args) -> int:
    """``ltrfs select``: fit a selector on a training file and write its selection record (or, with
    ``--format ranklib``, the feature file of one ``--k``).

    %(command_parameters)s
    """
    method = {"algorithm": args.method, "params": parse_assignments(args.set)}
    unfitted = make_selector(args.method, **method["params"])
    unfitted.validate_params()  # before reading any data
    if not args.vali:
        _needs_vali(unfitted, args.method)
    ks = _ks(args.k)
    if args.format == "ranklib" and not ks:
        raise ValueError("--format ranklib writes the features of a subset: give --k (one file per k)")
    if args.format == "ranklib" and len(ks) > 1 and not args.out:
        raise ValueError(f"--format ranklib with {len(ks)} values of --k writes one file per k: give --out")
    if ks and SELECTORS[args.method].projects:
        raise ValueError(no_subsets(args.method))
    train = _read(args.train, args)
    _ks(args.k, train.n_features)
    vali = _read(args.vali, args, train.n_features) if args.vali else None
    selector = fit_selector(method, train, vali, seed=args.seed, convention=args.convention, ties=args.ties)
    record = selection_record(args.method, method, selector, ks=ks)
    if args.format == "ranklib":  # RankLib's -feature file: one feature id a line, one file per k
        for k in ks:
            text = "".join(f"{f}\n" for f in record["subsets"][str(k)])
            if args.out:
                path = ranklib_path(args.out, k) if len(ks) > 1 else args.out
                write_text(path, text)
                if len(ks) > 1:
                    print(f"ltrfs: wrote the {k} features of k={k} to {path}", file=sys.stderr)
            else:
                sys.stdout.write(text)
    elif args.out:
        write_json(args.out, record)
    else:
        json.dump(record, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


def ranklib_path(out, k: int) -> Path:
    """The feature file of subset size k when ``select --format ranklib`` writes several.

    Parameters
    ----------
    out : str or os.PathLike
        The ``--out`` file, e.g. ``features.txt``.
    k : int
        The subset size.

    Returns
    -------
    Path
        ``features.k5.txt`` for k = 5: the suffix kept, ``.k5`` before it.
    """
    out = Path(out)
    return out.with_name(f"{out.stem}.k{k}{out.suffix}")


def feature_ids(value: str) -> list[int]:
    """The 1-based feature ids of ``--features``: ``3,7,12``, or a RankLib feature file.

    A RankLib ``-feature`` file (as ``ltrfs select --format ranklib`` writes) holds one id a line;
    blank lines and lines starting with ``#`` are skipped, and a line's first field is the id
    (RankLib's reader does the same).

    Parameters
    ----------
    value : str
        Comma-separated ids, or the path of a feature file.

    Returns
    -------
    list of int
        The ids, in the order given (not yet checked against the data's width).
    """
    if not re.fullmatch(r"[\d\s,]+", value) and Path(value).is_file():
        ids = []
        with open(value, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                fields = line.split()
                if not fields or fields[0].startswith("#"):
                    continue
                if not fields[0].isdigit():
                    raise DataError(f"{value}: line {number}: {fields[0][:40]!r} is not a feature id "
                                    "(a RankLib feature file holds one id a line)")
                ids.append(int(fields[0]))
        if not ids:
            raise DataError(f"{value}: no feature ids (a RankLib feature file holds one id a line)")
        return ids
    try:
        return [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--features expects comma-separated feature ids or a RankLib feature file, "
                         f"got {value!r}") from None


def _features(args, n_features: int, selection: dict | None) -> tuple[np.ndarray, np.ndarray | None]:
    """(features 0-based, projection or None) from --features or --selection/--k."""
    if args.features and selection is not None:
        raise ValueError("give either --features or --selection, not both")
    if args.features:
        ids = feature_ids(args.features)
        bad = [i for i in ids if not 1 <= i <= n_features]
        if bad:
            raise ValueError(f"--features: feature id {bad[0]} is outside 1..{n_features}")
        return np.asarray(sorted(set(ids)), dtype=np.int64) - 1, None
    if selection is not None:
        if args.k is None:
            raise ValueError("--selection needs --k")
        return view_for_k(selection, args.k)
    return np.arange(n_features), None


@fill_doc(**_DOC)
def cmd_train(args) -> int:
    """``ltrfs train``: fit a ranker on a feature subset (``--features`` or ``--selection``/``--k``),
    choosing a ``--set`` grid on ``--vali``, and write the model file.

    %(command_parameters)s
    """
    settings = parse_assignments(args.set)
    grid = {key: value for key, value in settings.items() if isinstance(value, list)}
    params = {key: value for key, value in settings.items() if not isinstance(value, list)}
    ranker = {"algorithm": args.ranker, "params": params}
    if grid:
        ranker["grid"] = grid
    points = checked_grid(ranker)  # every grid point's parameters, before reading any data
    if args.save_scores and not args.test:
        raise ValueError("--save-scores writes the scores of the --test file: give --test")
    selection = None
    if args.selection:
        selection = read_selection(args.selection)
    n_features = selection["n_features"] if selection else None
    train = _read(args.train, args, n_features)
    features, projection = _features(args, train.n_features, selection)
    width = len(features) if projection is None else projection.shape[1]
    vali = _read(args.vali, args, train.n_features) if args.vali else None
    test = _read(args.test, args, train.n_features) if args.test else None
    if vali is None and len(points) > 1:
        raise ValueError(f"{args.ranker}: the grid {', '.join(sorted(points[0]))} has {len(points)} points; "
                         f"give --vali to choose on, or fix them with --set")
    model, point, trials = fit_best(ranker, train.view(features, projection),
                                    None if vali is None else vali.view(features, projection),
                                    metric=args.metric, convention=args.convention, seed=args.seed,
                                    threads=args.threads, ties=args.ties)
    save_models(args.out, {width: {"ranker": args.ranker, "n_features": train.n_features,
                                   "features": features, "projection": projection, "params": {**params, **point},
                                   "estimator": model}})
    if vali is not None:
        for trial in trials:
            print(f"vali {args.metric} {trial['vali']:.4f}  {trial['params']}", file=sys.stderr)
    kind = "features" if projection is None else "projected features"
    print(f"ltrfs: trained {args.ranker} on {width} {kind} with {({**params, **point})}; wrote {args.out}",
          file=sys.stderr)
    if test is not None:
        _report_test(args, model, test.view(features, projection))
    return 0


#: how ``train --test`` ranks tied scores: in file order, as ``ltrfs eval`` and the official scripts
TEST_TIES = "file_order"


def _score_lines(scores) -> str:
    """One score a line, 9 significant digits: what ``predict`` prints and ``--save-scores`` writes."""
    return "".join(f"{s:.9g}\n" for s in scores)


def _report_test(args, model, test) -> None:
    """RankLib's ``-test``: the test file's Eval-Score table on stdout (what ``ltrfs eval`` prints for
    the model's scores), its ``--metric`` on stderr, and the scores in ``--save-scores``."""
    scores = np.asarray(model.predict(test.X), dtype=np.float64)
    if args.save_scores:
        write_text(args.save_scores, _score_lines(scores))  # as 'ltrfs predict' prints
    qm = metrics.evaluate(test.y, scores, test.query_ptr, convention=args.convention, max_k=10, ties=TEST_TIES)
    sys.stdout.write(metrics.format_eval_score(test.query_ids, qm))
    value = metrics.metric_per_query(test.y, scores, test.query_ptr, args.metric, args.convention, TEST_TIES).mean()
    saved = f"; wrote the scores to {args.save_scores}" if args.save_scores else ""
    print(f"ltrfs: test {args.metric} {value:.4f} on {test.n_queries} queries of {args.test} "
          f"({args.convention}, tied scores in file order){saved}", file=sys.stderr)
    _short_query_note(test, args.convention, args.test)


@fill_doc(**_DOC)
def cmd_predict(args) -> int:
    """``ltrfs predict``: the scores of a model file's model on a data file, printed to stdout.

    %(command_parameters)s
    """
    try:
        models = load_models(args.model, trust=args.trust_model)
    except DataError as exc:
        if "not an ltrfs model file" in str(exc) and _looks_like_data(args.model):
            raise DataError(f"{args.model} is a data file, not a model file: the model comes first "
                            "(ltrfs predict MODEL DATA)") from None
        raise
    if args.k is None and len(models) > 1:
        raise ValueError(f"{args.model} holds models for k in {sorted(models)}; choose one with --k")
    if args.k is not None and args.k not in models:
        raise ValueError(f"{args.model} has no model for k={args.k}; available: {', '.join(map(str, sorted(models)))}")
    model = models[args.k] if args.k is not None else next(iter(models.values()))
    scores = predict(model, _data_for_model(args, model["n_features"]))
    sys.stdout.write(_score_lines(scores))
    return 0


def _looks_like_data(path) -> bool:
    """Whether a file starts as LETOR/SVMlight text (a label, then ``qid:``) or is compressed data."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b" or head[:3] == b"BZh" or head[:6] == b"\xfd7zXZ\x00":
        return True
    first = next((line for line in head.splitlines() if line.strip() and not line.lstrip().startswith(b"#")), b"")
    return re.match(rb"\s*[-+]?\d+(\.\d*)?\s+qid:", first) is not None


def _data_for_model(args, d: int):
    """The data file of ``predict``, as wide as the model (``d`` features).

    A text file is read as it is; ids above d are an error, and a largest id below d a warning
    (sparse files may leave out zeros, so the missing columns are read as 0), an error with
    ``--strict-width``. An ``.npz`` file or ``--n-features`` fixes the width as before."""
    if str(args.data).endswith(".npz") or args.n_features:
        return _read(args.data, args, d)
    data = _read(args.data, args)
    if data.n_features > d:
        raise DataError(f"{args.data}: feature ids up to {data.n_features}, but the model reads {d} features")
    if data.n_features < d:
        what = (f"{args.data}: its largest feature id is {data.n_features}, the model reads {d} features: "
                f"features {data.n_features + 1}..{d} are read as 0")
        if args.strict_width:
            raise DataError(f"{what} (--strict-width)")
        logging.getLogger("ltrfs").warning(f"{what} (a sparse file may leave out zeros; --strict-width makes this "
                                           "an error)")
        data = dataclasses.replace(data, X=np.pad(data.X, ((0, 0), (0, d - data.n_features))))
    return data


@fill_doc(**_DOC)
def cmd_datasets(args) -> int:
    """``ltrfs datasets``: the registered datasets as a table on stdout.

    %(command_parameters)s
    """
    registry = args.registry
    if registry is None:
        here, checkout = Path("config/datasets.yaml"), Path(__file__).resolve().parents[2] / "config/datasets.yaml"
        registry = here if here.exists() or not checkout.exists() else checkout
    rows = [(name, f"{entry['n_features'] or '?'}", ",".join(map(str, entry["folds"])), entry["convention"],
             entry["checksum"].partition(":")[0] if entry["checksum"] else entry["checksum_status"],
             entry["description"]) for name, entry in load_registry(registry).items()]
    header = ("dataset", "features", "folds", "convention", "archive checksum", "description")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    return 0


def cmd_params(args) -> int:
    """The parameters of a method or ranker: name, default, allowed values (its declaration) and,
    on the next line, what it means (the first sentence of its docstring entry)."""
    found = [(kind, table[args.name]) for kind, table in (("method", SELECTORS), ("ranker", RANKERS))
             if args.name in table]
    if not found:
        raise ValueError(unknown_name("method or ranker", args.name, {*SELECTORS, *RANKERS}))
    for kind, cls in found:
        defaults = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()
                    if name != "self"}
        meaning = parameter_help(cls)
        print(f"{kind} {args.name} ({cls.__name__}): parameter, default, allowed values; below each, what it means")
        rows = [(name, repr(defaults.get(name)), describe(allowed)) for name, allowed in cls.parameters.items()]
        widths = [max((len(row[i]) for row in rows), default=0) for i in (0, 1)]
        indent = " " * (6 + widths[0] + widths[1])
        for name, default, allowed in rows:
            print(f"  {name:{widths[0]}s}  {default:{widths[1]}s}  {allowed}")
            if meaning.get(name):
                print(textwrap.fill(meaning[name], width=max(100, len(indent) + 40), initial_indent=indent,
                                    subsequent_indent=indent, break_on_hyphens=False))
    return 0


def _data_options(p) -> None:
    """The options of every subcommand that reads data files."""
    p.add_argument("--null-policy", choices=["min", "zero", "error"], default="min",
                   help="LETOR 3.0 NULL values: per-query minimum (default), zero, or an error")
    p.add_argument("--n-features", type=int, help="number of features of sparse text files "
                   "(default: the highest feature id present)")


def _common_options(p) -> None:
    """The options of the subcommands that fit (select, train)."""
    _data_options(p)
    p.add_argument("--convention", choices=sorted(CONVENTIONS), default="letor4",
                   help="metric convention (default letor4)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the method's or ranker's random choices (its random_state; default 0)")
    p.add_argument("--ties", choices=["expected", "file_order"], default="expected",
                   help="how selection and the vali choice rank tied values: expected over all orders "
                        "of the tied documents (default) or the file's order")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="a parameter (repeatable); a YAML list value is a grid chosen on --vali")


def _add_eval(sub) -> None:
    """The ``eval`` subcommand."""
    p = sub.add_parser("eval", help="evaluate a score file, Eval-Score table")
    p.add_argument("--convention", choices=sorted(CONVENTIONS), default="letor4",
                   help="metric convention (default letor4, as select and train)")
    p.add_argument("--per-query", action="store_true", help="one row per query before the averages")
    p.add_argument("--ties", choices=["file_order", "expected"], default="file_order",
                   help="tied scores in file order, as the official scripts (default), or the expected "
                        "value over all orders of the tied documents")
    p.add_argument("data", help="the judged file: LETOR/SVMlight text (optionally .gz) or an .npz of the workflow")
    p.add_argument("scores", help="one score per line, in the data file's row order")
    _data_options(p)
    p.set_defaults(func=cmd_eval)


def _add_select(sub) -> None:
    """The ``select`` subcommand."""
    p = sub.add_parser("select", help="run a feature-selection method, write JSON")
    p.add_argument("--method", required=True, metavar="METHOD",
                   help=f"the selection algorithm, one of: {', '.join(sorted(SELECTORS))}")
    p.add_argument("train", help="the training file the method selects on (LETOR/SVMlight text, optionally .gz, "
                                 "or an .npz of the workflow)")
    p.add_argument("--vali", help="a validation file, for the methods that choose on it (fs_ed, gas, fsmrank, "
                                  "greedy_rankrls, ...)")
    p.add_argument("--k", action="append", metavar="K",
                   help="also write the K-feature subset as subsets: {K: ids} (repeatable, or K1,K2,...)")
    p.add_argument("--format", choices=["json", "ranklib"], default="json",
                   help="json: the selection record (default); ranklib: RankLib's -feature file of each --k "
                        "(one 1-based feature id a line; several k: one file each, --out f.txt -> f.k5.txt, f.k10.txt)")
    p.add_argument("--out", help="output file (default: standard output; missing folders are created)")
    _common_options(p)
    p.set_defaults(func=cmd_select)


def build_parser() -> argparse.ArgumentParser:
    """The ``ltrfs`` argument parser, one subcommand per ``cmd_*`` function (docs/cli.md)."""
    parser = argparse.ArgumentParser(prog="ltrfs", description="Feature selection for learning to rank.")
    parser.add_argument("--version", action="version", version=f"ltrfs {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_eval(sub)
    _add_select(sub)

    p = sub.add_parser("train", help="train a ranker (grid chosen on --vali)")
    p.add_argument("--ranker", required=True, metavar="RANKER", help=f"one of: {', '.join(sorted(RANKERS))}")
    p.add_argument("train", help="the training file (LETOR/SVMlight text, optionally .gz, or an .npz of the workflow)")
    p.add_argument("--vali", help="a validation file: the grid of --set lists (or the ranker's default grid) is "
                                  "chosen on it, and rankers that stop early watch it")
    p.add_argument("--test", help="a test file: after training, print its Eval-Score table (as 'ltrfs eval') "
                                  "and its --metric")
    p.add_argument("--save-scores", metavar="FILE", help="write the --test file's scores, one a line (as 'ltrfs "
                                                         "predict')")
    p.add_argument("--features", help="comma-separated 1-based feature ids, or a RankLib feature file "
                                      "(one id a line, as 'ltrfs select --format ranklib' writes)")
    p.add_argument("--selection", help="a selection JSON from 'ltrfs select'")
    p.add_argument("--k", type=int, help="number of features of --selection")
    p.add_argument("--out", required=True, help="model file: JSON that anyone can load without running code "
                   "(docs/outputs.md#model-files); missing folders are created")
    p.add_argument("--metric", default="ndcg@10", help="vali metric choosing the grid point, also printed for --test")
    p.add_argument("--threads", type=int, default=1)
    _common_options(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("predict", help="print one score per line for a data file",
                       description="Print one score per line for a data file. Model files are JSON that runs no "
                       "code when loaded: a model from anyone loads as it is. Only models with no code-free form "
                       "(ranker own of gbm_importance) and the .pkl files of earlier ltrfs versions are pickles, which run code "
                       "when loaded: ltrfs signs the ones it writes with your key (~/.config/ltrfs/model.key) and "
                       "loads only those, unless --trust-model.")
    p.add_argument("model", help="a model file of 'ltrfs train' or of the workflow (models/{method}/{ranker}.model)")
    p.add_argument("--trust-model", action="store_true",
                   help="load a signed pickle not written with your key (a pickle runs code when loaded: "
                        "only for files from a source you trust); JSON model files need no trust")
    p.add_argument("data", help="the file to score (LETOR/SVMlight text, optionally .gz, or an .npz of the workflow)")
    p.add_argument("--k", type=int, help="which model of a workflow model file")
    p.add_argument("--strict-width", action="store_true",
                   help="refuse a text file whose largest feature id is below the model's width (default: a "
                        "warning, and the missing features read as 0, as a sparse file may leave out zeros)")
    _data_options(p)
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("params", help="the parameters of a method or ranker, their defaults and allowed values")
    p.add_argument("name", help="a method or ranker name (see --method / --ranker)")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("datasets", help="list the dataset registry")
    p.add_argument("--registry", help="a registry file (default: config/datasets.yaml here, else the one of "
                                      "this ltrfs checkout)")
    p.set_defaults(func=cmd_datasets)
    return parser


class _WarningLine(logging.Handler):
    """The package's warnings (logger ``ltrfs``, e.g. a vali choice at the edge of its grid) as one
    line ``ltrfs: warning: <what>`` each, on the standard error of the moment."""

    def emit(self, record) -> None:
        """Print one record."""
        print(f"ltrfs: warning: {record.getMessage()}", file=sys.stderr)


def main(argv=None) -> int:
    """Exit code 0, 2 for a problem of the input (one line ``ltrfs: error: <what>``), 1 for a
    failure of ltrfs itself (one line too; ``--debug`` shows the traceback)."""
    args = build_parser().parse_args(argv)
    logger = logging.getLogger("ltrfs")
    if not any(isinstance(h, _WarningLine) for h in logger.handlers):
        logger.addHandler(_WarningLine(logging.WARNING))
    try:
        return args.func(args)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except (ValueError, OSError, KeyError) as exc:
        if args.debug:
            raise
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(error_line(exc) if isinstance(exc, OSError) else f"ltrfs: error: {message}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback on request
        if args.debug:
            raise
        print(f"ltrfs: error: internal error ({type(exc).__name__}: {exc}); run again with --debug for the "
              "traceback and report it", file=sys.stderr)
        return 1

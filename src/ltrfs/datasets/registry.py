"""The dataset registry: ``config/datasets.yaml`` read, validated and completed with defaults.

The fields, their types and allowed values are declared once, in the JSON schema
``registry.schema.yaml`` beside this module; ``validate_entry`` checks it and then what a schema
cannot state (files that must exist, defaults derived from other fields, the generator's
parameters).

One YAML mapping ``name -> entry``. A user adds a dataset by adding an entry with a source
(``url:``/``urls:``, a local ``path:``, or just an ``archive:`` placed in a mirror folder), a
``layout:`` and optionally a ``checksum:``; everything else has a default. Fields:

==================  ==========================================================================
description         free text
homepage            where a human finds the data (used in "download it yourself" messages)
urls (or url)       list of URLs tried in order (http, https, ftp, file://)
archive             file name of the archive (the name looked up in a mirror folder);
                    default: the last component of ``path`` or of the first URL
format              zip | tar | tar.gz | tar.bz2 | tar.xz | rar | gz | file | dir;
                    default from the archive name (``file`` = one plain data file)
checksum            ``sha256:<hex>`` or ``md5:<hex>`` of the archive, or ``unpublished`` where
                    the publisher gives none (optional; either way the manifest records the
                    sha256 of the archive used). Shown by ``ltrfs datasets``.
path                a local folder (already extracted) or a local archive (relative to the
                    working directory; ``~`` and ``$VARS`` expanded)
files_sha256        {path relative to the data root (as in ``pattern``): sha256 hex},
                    verified after extraction
hash_newlines       raw | lf: ``lf`` hashes the files with CRLF turned into LF, so one digest
                    fits both line-ending variants of a text file (default raw)
extract             list of globs: extract only the members matching one (or inside a folder
                    matching one); ``*`` also matches ``/`` (default: everything)
layout              folds | split | train_test | single | synthetic  (required)
                      folds       official folds, each with train/vali/test files
                      split       one train/vali/test split (fold 1 only)
                      train_test  one train/test split; vali carved from train by query
                      single      one file; seeded query-level folds in the LETOR rotation
                      synthetic   the generator of ``ltrfs.datasets.synthetic``, then as single
pattern             path of a data file under the data root, with ``{fold}`` and ``{split}``;
                    default ``Fold{fold}/{split}.txt`` (folds), ``{split}.txt`` (split,
                    train_test), ``all.txt`` (single, synthetic). When the pattern is not found
                    at the top of the extracted tree, the unique folder below holding it is used.
splits              {train|vali|test: name in the file names}; default the same names
folds               fold numbers; default 1..5 (folds), [1] (split, train_test), 1..n_folds
n_folds             number of query subsets of the single/synthetic rotation (default 5, >= 3)
vali_fraction       train_test: fraction of training queries moved to vali (default 0.2)
n_features          number of features (None: inferred from the files)
documents, queries  rows and queries of the whole dataset (optional): with them a cluster run
                    sizes its jobs' requests before the data is downloaded (docs/cluster.md)
label_levels        R: labels must lie in 0..R-1 (None: not checked)
convention          metric convention: letor4 | letor3 | mslr | standard (default standard)
null_policy         how the reader treats ``NULL`` values (LETOR 3.0 Feature-null), default min
manual              true: licence forbids automatic download; ``instructions`` required
instructions        what to download and where from (manual datasets)
feature_names       file with one feature name per line, relative to the registry's folder
generator           keyword arguments of ``synthetic.generate`` (synthetic layout only)
stand_in            name of another entry run in this one's place when this one cannot be had
                    offline and the workflow runs with ``datasets_present_only`` (e.g. a
                    generated set of the same shape for a licensed one); never a silent swap:
                    the run prints it and the tables carry the stand-in's name
==================  ==========================================================================
"""
from __future__ import annotations

import functools
import os
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

import jsonschema
import yaml

from ltrfs.datasets import synthetic
from ltrfs.datasets.archive_spec import format_of, parse_checksum
from ltrfs.user_errors import os_error_text

SPLITS = ("train", "vali", "test")

_SCHEMA_PATH = Path(__file__).with_name("registry.schema.yaml")
_TYPE_WORDS = {"string": "text", "integer": "an integer", "number": "a number", "array": "a list",
               "object": "a mapping", "boolean": "true or false", "null": "empty"}


@functools.lru_cache(maxsize=1)
def _validator():
    schema = yaml.safe_load(_SCHEMA_PATH.read_text())
    # JSON's "integer" takes 5.0; fold numbers and counts must be written as integers
    types = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    return jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=types)(schema)


def _own_message(error):
    """The ``errorMessage`` of the deepest schema node on the failing keyword's path (walked
    from the root, through the schema's local ``$ref``s), else None."""
    root = _validator().schema
    node, found = root, None
    for key in error.absolute_schema_path:
        while isinstance(node, dict):
            found = node.get("errorMessage", found)
            if "$ref" not in node or key in node:
                break
            node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]  # the path goes on inside the $ref
        if key == "$ref" and isinstance(node, dict):
            continue
        if isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            break
    return found


def _message(error) -> str:
    """One line for the most relevant schema error: "dataset 'X': field: problem"."""
    path = list(error.absolute_path)
    own = _own_message(error)
    if not path:  # a bad dataset name (propertyNames), or the registry is not a mapping
        return f"dataset {error.instance!r}: {own}" if own else f"must map dataset names to entries; {error.message}"
    name = path[0]
    where = [str(p) for p in path[1:] if not isinstance(p, int)]  # list positions: the value is shown
    entry = _validator().schema["$defs"]["entry"]
    if error.validator == "required" and own is None:
        missing = next(f for f in error.validator_value if f not in error.instance)
        where, problem = [*where, missing], "missing required field"
        if missing == "layout":
            problem += f" (one of {', '.join(entry['properties']['layout']['enum'])})"
    elif error.validator == "additionalProperties" and where == []:
        extra = sorted(set(error.instance) - set(error.schema["properties"]))[0]
        where, problem = [extra], f"unknown field; valid fields: {', '.join(sorted(error.schema['properties']))}"
    elif error.validator == "enum":
        problem = f"unknown {where[-1]} {error.instance!r}; valid: {', '.join(map(str, error.validator_value))}"
    elif own is not None:
        problem = own.format(value=error.instance)
        field, _, rest = problem.partition(": ")
        if not where and rest and field in entry["properties"]:  # "urls: missing source: ..."
            where, problem = [field], rest
    elif error.validator == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        problem = "must be " + " or ".join(_TYPE_WORDS.get(t, t) for t in types)
    else:
        problem = error.message
    if len(where) > 1:  # files_sha256: <file>: problem
        problem = f"{': '.join(where[1:])}: {problem}"
    return f"dataset {name!r}: {where[0] + ': ' if where else ''}{problem}"


def check_schema(raw: dict) -> None:
    """Validate the registry mapping against ``registry.schema.yaml``.

    Parameters
    ----------
    raw : dict
        ``{name: entry}`` as read from the YAML file.

    Raises
    ------
    ValueError
        One line naming the dataset, the field and the allowed values. A wrong ``layout`` is
        told first: the rules of the other fields depend on it.
    """
    errors = list(_validator().iter_errors(raw))
    layout = [e for e in errors if list(e.absolute_path)[1:] == ["layout"]]
    error = jsonschema.exceptions.best_match(layout or errors)
    if error is not None:
        raise ValueError(_message(error))


def validate_entry(name: str, raw, base_dir=None) -> dict:
    """Check one registry entry and fill in its defaults.

    The schema first, then what depends on files and on other fields.

    Parameters
    ----------
    name : str
        The dataset's name.
    raw : dict
        The entry as read from the YAML file.
    base_dir : path, optional
        The registry file's folder: relative ``feature_names`` paths are resolved against it and
        must exist.

    Returns
    -------
    dict
        A new entry with every default filled in.

    Raises
    ------
    ValueError
        ``"dataset NAME: field: problem"``.
    """
    if isinstance(raw, dict):  # an empty field (`checksum:`) is an absent one
        raw = {key: value for key, value in raw.items() if value is not None}
    check_schema({name: raw})
    e = dict(raw)

    def bad(field, problem):
        return ValueError(f"dataset {name!r}: {field}: {problem}")

    layout = e["layout"]
    out: dict = {"name": str(name), "layout": layout, "description": e.get("description", ""),
                 "homepage": e.get("homepage")}

    # -- sources
    urls = e.get("urls", [e["url"]] if "url" in e else [])
    out["urls"] = [urls] if isinstance(urls, str) else list(urls)
    path = out["path"] = e.get("path")
    local = Path(os.path.expandvars(os.path.expanduser(path))) if path is not None else None
    archive = e.get("archive")
    if archive is None:
        if local is not None:
            archive = None if local.is_dir() or not local.name else local.name
        elif out["urls"]:
            candidate = PurePosixPath(unquote(urlparse(out["urls"][0]).path)).name
            if "." not in candidate.strip("."):
                raise bad("archive", f"required: the url {out['urls'][0]!r} does not end in a file name")
            archive = candidate
    out["archive"] = archive
    fmt = e.get("format")
    if fmt is None:
        fmt = "dir" if local is not None and local.is_dir() else (format_of(archive) if archive else None)
    out["format"] = fmt
    checksum = str(e.get("checksum") or "").strip()
    out["checksum"] = None if checksum in ("", "unpublished") else "{}:{}".format(*parse_checksum(checksum))
    out["checksum_status"] = ("pinned" if out["checksum"] else "generated" if layout == "synthetic"
                              else checksum or "not given")
    out["files_sha256"] = {k: v.lower() for k, v in (e.get("files_sha256") or {}).items()}
    out["hash_newlines"] = e.get("hash_newlines", "raw")
    extract = e.get("extract")
    out["extract"] = [extract] if isinstance(extract, str) else extract
    out["manual"] = e.get("manual", False)
    out["instructions"] = e.get("instructions")

    # -- file layout
    out["pattern"] = e.get("pattern", {"folds": "Fold{fold}/{split}.txt", "single": "all.txt",
                                       "synthetic": "all.txt"}.get(layout, "{split}.txt"))
    needed = {"folds": SPLITS, "split": SPLITS, "train_test": ("train", "test")}.get(layout, ())
    splits = e.get("splits") or {s: s for s in needed}
    out["splits"] = {s: splits[s] for s in needed}
    n_folds = e.get("n_folds", 5)
    folds = e.get("folds", {"folds": list(range(1, 6)), "split": [1], "train_test": [1]}.get(
        layout, list(range(1, n_folds + 1))))
    if layout in ("single", "synthetic") and max(folds) > n_folds:
        raise bad("folds", f"fold {max(folds)} exceeds n_folds = {n_folds}")
    out["folds"] = list(folds)
    out["n_folds"] = n_folds if layout in ("single", "synthetic") else None
    out["vali_fraction"] = float(e.get("vali_fraction", 0.2)) if layout == "train_test" else None

    # -- data properties
    out["n_features"] = e.get("n_features")
    out["documents"] = e.get("documents")
    out["queries"] = e.get("queries")
    out["label_levels"] = e.get("label_levels")
    out["convention"] = e.get("convention", "standard")
    out["null_policy"] = e.get("null_policy", "min")
    names = out["feature_names"] = e.get("feature_names")
    if names is not None:
        p = Path(names)
        if not p.is_absolute() and base_dir is not None:
            p = Path(base_dir) / p
        if (base_dir is not None or p.is_absolute()) and not p.is_file():
            raise bad("feature_names", f"{p}: no such file")
    out["generator"] = _generator(name, e, out) if layout == "synthetic" else None
    stand_in = out["stand_in"] = e.get("stand_in")
    if stand_in == name:
        raise bad("stand_in", f"{stand_in!r} must be the name of another dataset entry")
    return out


def _generator(name: str, e: dict, out: dict) -> dict:
    """The synthetic entry's generator arguments, checked against ``synthetic.generate``; fills
    ``n_features`` and ``label_levels`` from them (or checks that the entry's agree)."""
    gen = dict(e.get("generator") or {})
    valid = synthetic.generator_parameters()
    extra = sorted(set(gen) - set(valid))
    if extra:
        raise ValueError(f"dataset {name!r}: generator: unknown parameter {extra[0]!r}; valid: {', '.join(valid)}")
    if "seed" in gen:
        raise ValueError(f"dataset {name!r}: generator: seed comes from the workflow config, not the registry")
    params = {k: v for k, v in valid.items() if k != "seed"}
    params.update(gen)
    d = sum(int(params[k]) for k in ("n_informative", "n_redundant", "n_noise", "n_constant"))
    implied = {"n_features": (d, f"the generator's {d} features"),
               "label_levels": (int(params["n_levels"]), f"the generator's n_levels {params['n_levels']}")}
    for field, (value, what) in implied.items():
        if out[field] is None:
            out[field] = value
        elif out[field] != value:
            raise ValueError(f"dataset {name!r}: {field}: {out[field]} differs from {what}")
    return gen


def load_registry(path) -> dict[str, dict]:
    """Read and validate the registry YAML file.

    Parameters
    ----------
    path : path
        ``config/datasets.yaml`` or another registry file.

    Returns
    -------
    dict
        ``{name: entry}`` with defaults filled.

    Raises
    ------
    ValueError
        One line naming the dataset and the field.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"dataset registry {os_error_text(exc, path)}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"dataset registry {path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError(f"dataset registry {path}: must be a mapping of dataset name -> entry")
    try:
        registry = {str(name): validate_entry(str(name), entry, base_dir=path.parent) for name, entry in raw.items()}
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    for name, entry in registry.items():
        stand_in = entry["stand_in"]
        if stand_in is not None and (stand_in not in registry or registry[stand_in]["stand_in"] is not None):
            problem = "is not in the registry" if stand_in not in registry else "has a stand-in of its own"
            raise ValueError(f"{path}: dataset {name!r}: stand_in: {stand_in!r} {problem}")
    return registry


def dataset_entry(registry: dict, name: str) -> dict:
    """One entry of a loaded registry.

    Parameters
    ----------
    registry : dict
        ``load_registry``'s result.
    name : str
        A dataset name.

    Returns
    -------
    dict
        The entry of ``name``.

    Raises
    ------
    ValueError
        One line listing the known names, for an unknown one.
    """
    if name not in registry:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(sorted(registry))}")
    return registry[name]


def feature_names(entry: dict, root=None) -> list[str] | None:
    """The entry's feature names, one per line of its ``feature_names`` file.

    Parameters
    ----------
    entry : dict
        A validated registry entry.
    root : path, optional
        The registry's folder, against which a relative path is resolved (else the working
        directory).

    Returns
    -------
    list of str or None
        None when the entry has no ``feature_names``; the number of names must equal
        ``n_features`` when that is declared.
    """
    names = entry.get("feature_names")
    if not names:
        return None
    p = Path(names)
    if not p.is_absolute() and root is not None:
        p = Path(root) / p
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"dataset {entry.get('name', '?')!r}: feature_names: {os_error_text(exc, p)}") from None
    lines = [line.strip() for line in lines if line.strip()]
    n = entry.get("n_features")
    if n is not None and len(lines) != n:
        raise ValueError(f"dataset {entry.get('name', '?')!r}: feature_names: {p} has {len(lines)} names, n_features is {n}")
    return lines

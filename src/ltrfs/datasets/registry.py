"""The dataset registry: ``config/datasets.yaml`` read, validated and completed with defaults.

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
checksum            ``sha256:<hex>`` or ``md5:<hex>`` of the archive (optional)
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

import os
import re
import string
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

import yaml

LAYOUTS = ("folds", "split", "train_test", "single", "synthetic")
FORMATS = ("zip", "tar", "tar.gz", "tar.bz2", "tar.xz", "rar", "gz", "file", "dir")
CONVENTIONS = ("letor4", "letor3", "mslr", "standard")
NULL_POLICIES = ("min", "zero", "error")
SPLITS = ("train", "vali", "test")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")

FIELDS = {
    "description", "homepage", "urls", "url", "archive", "format", "checksum", "path",
    "files_sha256", "hash_newlines", "extract", "layout", "pattern", "splits", "folds", "n_folds",
    "vali_fraction", "n_features", "label_levels", "convention", "null_policy", "manual",
    "instructions", "feature_names", "generator", "stand_in",
}

_SUFFIXES = (  # longest first
    (".tar.gz", "tar.gz"), (".tgz", "tar.gz"), (".tar.bz2", "tar.bz2"), (".tbz2", "tar.bz2"),
    (".tar.xz", "tar.xz"), (".txz", "tar.xz"), (".tar", "tar"), (".zip", "zip"), (".rar", "rar"),
    (".gz", "gz"),
)
_HEX = re.compile(r"^[0-9a-f]+$")
_DIGEST_LEN = {"sha256": 64, "md5": 32}


def format_of(file_name: str) -> str:
    """The archive format implied by a file name (``file`` when no archive suffix matches)."""
    low = file_name.lower()
    for suffix, fmt in _SUFFIXES:
        if low.endswith(suffix):
            return fmt
    return "file"


def parse_checksum(value: str) -> tuple[str, str]:
    """``"sha256:<hex>"`` -> ``("sha256", "<hex>")``; raises ValueError when malformed."""
    algo, sep, digest = str(value).partition(":")
    algo, digest = algo.strip().lower(), digest.strip().lower()
    if not sep or algo not in _DIGEST_LEN:
        raise ValueError("must be 'sha256:<hex>' or 'md5:<hex>'")
    if len(digest) != _DIGEST_LEN[algo] or not _HEX.match(digest):
        raise ValueError(f"{algo} digest must be {_DIGEST_LEN[algo]} hex digits, got {digest!r}")
    return algo, digest


def _pattern_fields(pattern: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None}


def _relative_path_ok(text: str) -> bool:
    p = PurePosixPath(text)
    return bool(text) and not p.is_absolute() and ".." not in p.parts and "\\" not in text


def validate_entry(name: str, raw, base_dir=None) -> dict:
    """Check one registry entry and return a new dict with every default filled in.

    ``base_dir`` is the registry file's folder (relative ``feature_names`` paths are resolved
    against it and must exist). Raises ValueError("dataset NAME: field: problem").
    """
    def bad(field, problem):
        return ValueError(f"dataset {name!r}: {field}: {problem}")

    if not NAME_RE.match(str(name)):
        raise ValueError(f"dataset {name!r}: name must match {NAME_RE.pattern} (it is used in file paths)")
    if not isinstance(raw, dict):
        raise ValueError(f"dataset {name!r}: entry must be a mapping of fields, got {type(raw).__name__}")
    unknown = sorted(set(raw) - FIELDS)
    if unknown:
        raise bad(unknown[0], f"unknown field; valid fields: {', '.join(sorted(FIELDS))}")
    e = dict(raw)
    out: dict = {"name": str(name)}

    # -- layout
    if "layout" not in e:
        raise bad("layout", f"missing required field (one of {', '.join(LAYOUTS)})")
    layout = e["layout"]
    if layout not in LAYOUTS:
        raise bad("layout", f"unknown layout {layout!r}; valid: {', '.join(LAYOUTS)}")
    out["layout"] = layout
    for field in ("description", "homepage", "instructions"):
        if e.get(field) is not None and not isinstance(e[field], str):
            raise bad(field, "must be text")
    out["description"] = e.get("description", "")
    out["homepage"] = e.get("homepage")

    # -- sources
    if "url" in e and "urls" in e:
        raise bad("url", "give either url or urls, not both")
    urls = e.get("urls", [e["url"]] if "url" in e else [])
    if isinstance(urls, str):
        urls = [urls]
    if not isinstance(urls, list) or not all(isinstance(u, str) and u for u in urls):
        raise bad("urls", "must be a list of URL strings")
    for u in urls:
        if urlparse(u).scheme not in ("http", "https", "ftp", "file"):
            raise bad("urls", f"{u!r} is not an http(s), ftp or file:// URL")
    out["urls"] = list(urls)
    path = e.get("path")
    if path is not None and (not isinstance(path, str) or not path):
        raise bad("path", "must be a folder or archive path")
    out["path"] = path
    archive = e.get("archive")
    if archive is None:
        if path is not None:
            local = Path(os.path.expandvars(os.path.expanduser(path)))
            archive = None if local.is_dir() or not local.name else local.name
        elif urls:
            candidate = PurePosixPath(unquote(urlparse(urls[0]).path)).name
            if "." not in candidate.strip("."):
                raise bad("archive", f"required: the url {urls[0]!r} does not end in a file name")
            archive = candidate
    if archive is not None and (not isinstance(archive, str) or "/" in archive or archive in ("", ".", "..")):
        raise bad("archive", "must be a plain file name")
    out["archive"] = archive
    fmt = e.get("format")
    if fmt is None:
        if path is not None and Path(os.path.expandvars(os.path.expanduser(path))).is_dir():
            fmt = "dir"
        elif archive is not None:
            fmt = format_of(archive)
    if fmt is not None and fmt not in FORMATS:
        raise bad("format", f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    out["format"] = fmt
    out["checksum"] = None
    if e.get("checksum") is not None:
        try:
            algo, digest = parse_checksum(e["checksum"])
        except ValueError as exc:
            raise bad("checksum", str(exc)) from None
        out["checksum"] = f"{algo}:{digest}"
    files = e.get("files_sha256") or {}
    if not isinstance(files, dict):
        raise bad("files_sha256", "must map file paths to sha256 digests")
    for key, value in files.items():
        if not isinstance(key, str) or not _relative_path_ok(key):
            raise bad("files_sha256", f"{key!r} must be a relative path under the data root")
        if not isinstance(value, str) or len(value) != 64 or not _HEX.match(value.lower()):
            raise bad("files_sha256", f"{key}: {value!r} is not a sha256 hex digest")
    out["files_sha256"] = {k: v.lower() for k, v in files.items()}
    out["hash_newlines"] = e.get("hash_newlines", "raw")
    if out["hash_newlines"] not in ("raw", "lf"):
        raise bad("hash_newlines", "must be raw or lf")
    extract = e.get("extract")
    if extract is not None:
        if isinstance(extract, str):
            extract = [extract]
        if not isinstance(extract, list) or not extract or not all(isinstance(x, str) and _relative_path_ok(x) for x in extract):
            raise bad("extract", "must be a list of relative path globs inside the archive")
    out["extract"] = extract
    manual = e.get("manual", False)
    if not isinstance(manual, bool):
        raise bad("manual", "must be true or false")
    out["manual"] = manual
    out["instructions"] = e.get("instructions")
    if manual and not out["instructions"]:
        raise bad("instructions", "missing: a manual dataset must say what to download and from where")
    if layout == "synthetic":
        if urls or path is not None or archive is not None:
            raise bad("layout", "a synthetic dataset has no urls, path or archive")
    elif not (urls or path is not None or archive is not None):
        raise bad("urls", "missing source: give urls (or url), path, or archive (a file to find in a mirror folder)")

    # -- file layout
    default_pattern = {"folds": "Fold{fold}/{split}.txt", "split": "{split}.txt", "train_test": "{split}.txt",
                       "single": "all.txt", "synthetic": "all.txt"}[layout]
    pattern = e.get("pattern", default_pattern)
    if not isinstance(pattern, str) or not _relative_path_ok(pattern):
        raise bad("pattern", f"{pattern!r} must be a relative path inside the data")
    try:
        fields = _pattern_fields(pattern)
    except ValueError as exc:
        raise bad("pattern", f"{pattern!r}: {exc}") from None
    if fields - {"fold", "split"}:
        raise bad("pattern", f"{pattern!r}: only {{fold}} and {{split}} may appear")
    if layout in ("folds", "split", "train_test") and "split" not in fields:
        raise bad("pattern", f"{pattern!r} must contain {{split}} for layout {layout}")
    if layout == "folds" and "fold" not in fields:
        raise bad("pattern", f"{pattern!r} must contain {{fold}} for layout folds")
    if layout in ("single", "synthetic") and fields:
        raise bad("pattern", f"{pattern!r}: layout {layout} reads one file, without {{fold}} or {{split}}")
    out["pattern"] = pattern

    needed = {"folds": SPLITS, "split": SPLITS, "train_test": ("train", "test")}.get(layout, ())
    splits = e.get("splits")
    if splits is None:
        splits = {s: s for s in needed}
    if not isinstance(splits, dict) or not all(isinstance(v, str) and v for v in splits.values()):
        raise bad("splits", "must map train/vali/test to the names used in the file names")
    if layout in ("single", "synthetic") and splits:
        raise bad("splits", f"layout {layout} has no split files")
    if set(splits) != set(needed):
        raise bad("splits", f"layout {layout} needs exactly the keys {', '.join(needed)}, got {', '.join(splits) or 'none'}")
    out["splits"] = {s: splits[s] for s in needed}

    n_folds = e.get("n_folds", 5)
    if layout not in ("single", "synthetic") and "n_folds" in e:
        raise bad("n_folds", f"only for layouts single and synthetic, not {layout}")
    if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 3:
        raise bad("n_folds", "must be an integer >= 3")
    default_folds = {"folds": list(range(1, 6)), "split": [1], "train_test": [1]}.get(layout, list(range(1, n_folds + 1)))
    folds = e.get("folds", default_folds)
    if not isinstance(folds, list) or not folds or not all(isinstance(f, int) and not isinstance(f, bool) and f >= 1 for f in folds):
        raise bad("folds", "must be a non-empty list of positive fold numbers")
    if len(set(folds)) != len(folds):
        raise bad("folds", "repeated fold number")
    if layout in ("split", "train_test") and folds != [1]:
        raise bad("folds", f"layout {layout} has only fold 1")
    if layout in ("single", "synthetic") and max(folds) > n_folds:
        raise bad("folds", f"fold {max(folds)} exceeds n_folds = {n_folds}")
    out["folds"] = list(folds)
    out["n_folds"] = n_folds if layout in ("single", "synthetic") else None
    vf = e.get("vali_fraction", 0.2)
    if layout != "train_test" and "vali_fraction" in e:
        raise bad("vali_fraction", f"only for layout train_test, not {layout}")
    if isinstance(vf, bool) or not isinstance(vf, (int, float)) or not 0 < vf < 1:
        raise bad("vali_fraction", "must be a number strictly between 0 and 1")
    out["vali_fraction"] = float(vf) if layout == "train_test" else None

    # -- data properties
    for field, low in (("n_features", 1), ("label_levels", 2)):
        value = e.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise bad(field, f"must be an integer >= {low}")
        out[field] = value
    out["convention"] = e.get("convention", "standard")
    if out["convention"] not in CONVENTIONS:
        raise bad("convention", f"unknown convention {out['convention']!r}; valid: {', '.join(CONVENTIONS)}")
    out["null_policy"] = e.get("null_policy", "min")
    if out["null_policy"] not in NULL_POLICIES:
        raise bad("null_policy", f"unknown policy {out['null_policy']!r}; valid: {', '.join(NULL_POLICIES)}")
    names = e.get("feature_names")
    if names is not None:
        if not isinstance(names, str) or not names:
            raise bad("feature_names", "must be a file path")
        p = Path(names)
        if not p.is_absolute() and base_dir is not None:
            p = Path(base_dir) / p
        if (base_dir is not None or p.is_absolute()) and not p.is_file():
            raise bad("feature_names", f"file not found: {p}")
    out["feature_names"] = names

    # -- generator
    gen = e.get("generator")
    if layout != "synthetic":
        if gen is not None:
            raise bad("generator", "only for layout synthetic")
        out["generator"] = None
    else:
        gen = dict(gen or {})
        from ltrfs.datasets import synthetic

        valid = synthetic.generator_parameters()
        extra = sorted(set(gen) - set(valid))
        if extra:
            raise bad("generator", f"unknown parameter {extra[0]!r}; valid: {', '.join(valid)}")
        if "seed" in gen:
            raise bad("generator", "seed comes from the workflow config, not the registry")
        params = {k: v for k, v in valid.items() if k != "seed"}
        params.update(gen)
        d = sum(int(params[k]) for k in ("n_informative", "n_redundant", "n_noise", "n_constant"))
        if out["n_features"] is None:
            out["n_features"] = d
        elif out["n_features"] != d:
            raise bad("n_features", f"{out['n_features']} differs from the generator's {d} features")
        if out["label_levels"] is None:
            out["label_levels"] = int(params["n_levels"])
        elif out["label_levels"] != params["n_levels"]:
            raise bad("label_levels", f"{out['label_levels']} differs from the generator's n_levels {params['n_levels']}")
        out["generator"] = gen
    stand_in = e.get("stand_in")
    if stand_in is not None and (not isinstance(stand_in, str) or not NAME_RE.match(stand_in) or stand_in == name):
        raise bad("stand_in", f"{stand_in!r} must be the name of another dataset entry")
    out["stand_in"] = stand_in
    return out


def load_registry(path) -> dict[str, dict]:
    """Read and validate the registry YAML file; return ``{name: entry}`` with defaults filled.

    Any problem is a one-line ValueError naming the dataset and the field.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"dataset registry {path}: cannot read: {exc.strerror or exc}") from None
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
    """``registry[name]`` with a one-line error listing the known names."""
    if name not in registry:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(sorted(registry))}")
    return registry[name]


def feature_names(entry: dict, root=None) -> list[str] | None:
    """The entry's feature names (one per line of its ``feature_names`` file) or None.

    A relative path is resolved against ``root`` (the registry's folder), else the working
    directory. The number of names must equal ``n_features`` when that is declared.
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
        raise ValueError(f"dataset {entry.get('name', '?')!r}: feature_names: cannot read {p}: {exc.strerror or exc}") from None
    lines = [line.strip() for line in lines if line.strip()]
    n = entry.get("n_features")
    if n is not None and len(lines) != n:
        raise ValueError(f"dataset {entry.get('name', '?')!r}: feature_names: {p} has {len(lines)} names, n_features is {n}")
    return lines

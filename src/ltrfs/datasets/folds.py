"""Train/vali/test splits of a fetched dataset, one fold at a time.

* layout ``folds``: the official fold files, read as they are;
* layout ``split``: one official train/vali/test split (fold 1);
* layout ``train_test``: official train/test; vali = a seeded fraction of the training queries;
* layouts ``single`` and ``synthetic``: one file; its queries are shuffled with the seed and cut
  into n subsets S_1..S_n (sizes differ by at most one), and fold i uses the LETOR rotation:
  train S_i, S_{i+1}, ..., S_{i+n-3}; vali S_{i+n-2}; test S_{i+n-1} (indices mod n, 1-based),
  i.e. for n = 5 fold 1 trains on S1, S2, S3, validates on S4 and tests on S5. The partition
  depends on the seed only, never on the fold, so the test sets of the n folds partition the
  queries. Within a split, queries keep their file order (subset by subset).
"""
from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

import numpy as np

from ltrfs import io
from ltrfs.datasets.manifest import verify_files
from ltrfs.ranking_data import DataError, RankingData

MAX_DEPTH = 4
#: a plain text file larger than this is read in pieces of about this size, each ending where the
#: query changes, so that a job holds one piece of text at a time instead of all of it (the
#: generated stand-in of MSLR-WEB30K is one 6.5 GB file: its text and matrix together pass 8 GiB)
PIECE_BYTES = 1 << 28
_COMPRESSED_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")


def rotation(fold: int, n: int = 5) -> dict[str, list[int]]:
    """The 1-based subsets of ``fold`` in the LETOR rotation of ``n`` subsets.

    Parameters
    ----------
    fold : int
        1..n.
    n : int, default 5
        Number of subsets.

    Returns
    -------
    dict
        ``{"train": [...], "vali": [...], "test": [...]}``: ``rotation(1)`` =
        {"train": [1, 2, 3], "vali": [4], "test": [5]}; ``rotation(2)`` =
        {"train": [2, 3, 4], "vali": [5], "test": [1]}.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"rotation: n must be an integer >= 3, got {n!r}")
    if isinstance(fold, bool) or not isinstance(fold, (int, np.integer)) or not 1 <= fold <= n:
        raise ValueError(f"rotation: fold must be in 1..{n}, got {fold!r}")
    s = [(fold - 1 + j) % n + 1 for j in range(n)]
    return {"train": s[: n - 2], "vali": [s[n - 2]], "test": [s[n - 1]]}


def query_subsets(n_queries: int, n: int = 5, seed: int = 0) -> list[np.ndarray]:
    """Cut the queries into ``n`` seeded subsets whose sizes differ by at most one.

    Parameters
    ----------
    n_queries : int
        Number of queries (positions 0..n_queries-1).
    n : int, default 5
        Number of subsets.
    seed : int, default 0
        Seed of the shuffle.

    Returns
    -------
    list of ndarray
        The query positions of each subset, sorted (file order).
    """
    if n_queries < n:
        raise ValueError(f"cannot cut {n_queries} queries into {n} subsets")
    perm = np.random.default_rng(seed).permutation(n_queries)
    return [np.sort(part) for part in np.array_split(perm, n)]


def carve_validation(n_queries: int, fraction: float = 0.2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draw validation queries out of the training queries.

    Parameters
    ----------
    n_queries : int
        Number of training queries.
    fraction : float, default 0.2
        ``round(fraction * n_queries)`` queries (at least 1, at most n_queries - 1) go to vali.
    seed : int, default 0
        Seed of the draw.

    Returns
    -------
    train, vali : ndarray
        Query positions, each sorted (file order).
    """
    if n_queries < 2:
        raise ValueError(f"cannot carve a validation split out of {n_queries} query")
    if not 0 < fraction < 1:
        raise ValueError(f"vali_fraction must be in (0, 1), got {fraction!r}")
    n_vali = min(max(int(round(fraction * n_queries)), 1), n_queries - 1)
    perm = np.random.default_rng(seed).permutation(n_queries)
    return np.sort(perm[n_vali:]), np.sort(perm[:n_vali])


# ----------------------------------------------------------------------------- file locations

def _file_names(entry: dict, fold: int) -> dict[str, str]:
    """split key (train/vali/test, or "all") -> relative file path of ``fold``."""
    pattern = entry["pattern"]
    if entry["layout"] in ("single", "synthetic"):
        return {"all": pattern}
    return {key: pattern.format(fold=fold, split=name) for key, name in entry["splits"].items()}


def expected_files(entry: dict, root=None) -> list[Path]:
    """Every data file the entry needs (all folds).

    Parameters
    ----------
    entry : dict
        A validated registry entry.
    root : path, optional
        The data root; None gives the paths relative to it.

    Returns
    -------
    list of Path
    """
    seen, out = set(), []
    for fold in entry["folds"]:
        for rel in _file_names(entry, fold).values():
            if rel not in seen:
                seen.add(rel)
                out.append(Path(*PurePosixPath(rel).parts))
    return [Path(root) / p for p in out] if root is not None else out


def locate_data_root(entry: dict, base, *, what: str | None = None, skip=(), partial: bool = False) -> Path:
    """The folder under ``base`` that holds the entry's data files.

    ``base`` itself when the first file is there, else the unique subfolder (up to 4 levels down)
    where it is; all files of all folds must exist there (with ``partial``, all files of at least
    one fold: ``complete_folds``). Hidden folders and ``skip`` names are ignored.

    Parameters
    ----------
    entry : dict
        A validated registry entry.
    base : path
        Where to look.
    what : str, optional
        Names the dataset in messages.
    skip : tuple of str
        Folder names not to look in.
    partial : bool, default False
        Accept missing folds when another fold is complete (a fetch: the folds a run uses are
        checked when they are read, ``fold_files``).

    Returns
    -------
    Path

    Raises
    ------
    DataError
        One line, when nothing or more than one folder matches, or a file is missing.
    """
    base = Path(base)
    what = what or entry.get("name", "dataset")
    files = expected_files(entry)
    first = files[0]
    if (base / first).is_file():
        root = base
    else:
        found = []
        for dirpath, dirnames, _ in os.walk(base, followlinks=True):
            depth = len(Path(dirpath).relative_to(base).parts)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (depth == 0 and d in skip))
            if depth >= MAX_DEPTH:
                dirnames[:] = []
            if depth and (Path(dirpath) / first).is_file():
                found.append(Path(dirpath))
        if not found:
            raise DataError(f"{what}: {first.as_posix()} (pattern {entry['pattern']}) not found in {base} "
                            f"or its subfolders")
        if len(found) > 1:
            where = ", ".join(str(f.relative_to(base)) for f in found[:3])
            raise DataError(f"{what}: {first.as_posix()} found in several folders of {base} ({where}); "
                            "make the entry's pattern more specific")
        root = found[0]
    missing = [p.as_posix() for p in files if not (root / p).is_file()]
    if missing and not (partial and complete_folds(entry, root)):
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise DataError(f"{what}: {missing[0]}{more} missing in {root}{_fold_hint(entry, root)}")
    return root


def complete_folds(entry: dict, root) -> list[int]:
    """The folds of ``entry`` whose every file is in the data root ``root``.

    Parameters
    ----------
    entry, root : dict, path
        A validated registry entry and its data root.

    Returns
    -------
    list of int
        In the entry's order.
    """
    return [fold for fold in entry["folds"]
            if all((Path(root) / rel).is_file() for rel in _file_names(entry, fold).values())]


def _fold_hint(entry: dict, root: Path) -> str:
    """How to run the folds that are there, when some folds of a folds layout are complete."""
    complete = complete_folds(entry, root) if len(entry["folds"]) > 1 else []
    if not complete:
        return ""
    listed = ", ".join(map(str, complete))
    return (f"; to run only the complete fold{'s' * (len(complete) > 1)}, set `folds: [{listed}]` on the "
            "experiment in your config (or in the dataset's registry entry; see docs/datasets.md)")


def data_root(entry: dict, root) -> Path:
    """Where the data files of a fetched dataset are.

    Parameters
    ----------
    entry, root : dict, path
        A validated registry entry and the dataset folder.

    Returns
    -------
    Path
        The manifest's ``data_root`` when ``root/manifest.json`` exists, else the folder that
        :func:`locate_data_root` finds under ``root``.
    """
    root = Path(root)
    manifest = root / "manifest.json"
    if manifest.is_file():
        try:
            rel = json.loads(manifest.read_text())["data_root"]
        except (ValueError, KeyError, TypeError):
            raise DataError(f"{manifest}: unreadable manifest; delete it and fetch again") from None
        return root / rel
    return locate_data_root(entry, root)


def fold_files(entry: dict, root, fold: int) -> dict[str, Path]:
    """The data files of one fold.

    Parameters
    ----------
    entry, root : dict, path
        A validated registry entry and the dataset folder.
    fold : int
        A fold number of ``entry["folds"]``.

    Returns
    -------
    dict
        Split -> path (key ``all`` for single-file layouts).
    """
    _check_fold(entry, fold)
    base = data_root(entry, root)
    files = {key: base / Path(*PurePosixPath(rel).parts) for key, rel in _file_names(entry, fold).items()}
    missing = [path for path in files.values() if not path.is_file()]
    if missing:
        complete = complete_folds(entry, base)
        raise DataError(f"{entry.get('name', 'dataset')}: fold {fold} is incomplete ({missing[0]} missing); "
                        + (f"its complete folds are {complete}: set `folds: {complete}` on the experiment in "
                           "your config to run those" if complete else "no fold is complete"))
    return files


def _check_fold(entry: dict, fold) -> None:
    if fold not in entry["folds"]:
        raise ValueError(f"dataset {entry.get('name', '?')!r} has no fold {fold!r}; folds: {entry['folds']}")


# ----------------------------------------------------------------------------- reading

def _line_of_row(path: Path, row: int) -> str:
    """``path:line`` of data row ``row`` (0-based) of a plain text file, or ``path, data row N``."""
    try:
        with open(path, "rb") as fh:
            k = -1
            for lineno, line in enumerate(fh, 1):
                text = line.strip()
                if text and not text.startswith(b"#"):
                    k += 1
                    if k == row:
                        return f"{path}:{lineno}"
    except OSError:
        pass
    return f"{path}, data row {row + 1}"


def _qid_token(line: bytes) -> bytes | None:
    """The second token of a line (``qid:N`` on a data line); None for a blank or comment line."""
    head = line.split(b"#", 1)[0].split()
    return (head[1] if len(head) > 1 else b"") if head else None


def _next_query_start(fh, offset: int) -> int | None:
    """The offset of the first line after the one holding byte ``offset`` whose query differs
    from that of the data line before it; None at the end of the file (or in a line longer than
    16 MiB, such as a file with bare CR line ends)."""
    fh.seek(offset)
    skipped = fh.readline(1 << 24)
    if not skipped.endswith(b"\n"):
        return None
    pos, before = offset + len(skipped), None
    while True:
        line = fh.readline(1 << 24)
        if not line.endswith(b"\n"):
            return None
        qid = _qid_token(line)
        if qid is not None:
            if before is not None and qid != before:
                return pos
            before = qid
        pos += len(line)


def _pieces(path: Path, piece_bytes: int):
    """The text of a file in pieces of about ``piece_bytes``, each cut where the query changes,
    read one at a time: yields ``(first line number, bytes)``."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        start, line_no = 0, 1
        while start < size:
            cut = _next_query_start(fh, start + piece_bytes) if start + piece_bytes < size else None
            end = size if cut is None else cut
            fh.seek(start)
            raw = fh.read(end - start)
            lines = raw.count(b"\n")
            yield line_no, raw
            del raw
            line_no += lines
            start = end


def _in_pieces(path: Path, piece_bytes: int) -> bool:
    """Whether ``path`` is a plain (not compressed) file larger than ``piece_bytes``."""
    try:
        if path.stat().st_size <= piece_bytes or path.suffix.lower() in (".gz", ".bz2", ".xz"):
            return False
        with open(path, "rb") as fh:
            return not fh.read(6).startswith(_COMPRESSED_MAGIC)
    except OSError:
        return False  # the reader says what is wrong


def _join_pieces(path: Path, parts: list[RankingData]) -> RankingData:
    """One dataset of the pieces of one file, in order; a query in two pieces is an error."""
    d = max(p.n_features for p in parts)
    parts = [_pad(p, d) for p in parts]
    query_ids = np.concatenate([p.query_ids for p in parts])
    unique, first = np.unique(query_ids, return_index=True)
    if len(unique) < len(query_ids):
        again = np.setdiff1d(np.arange(len(query_ids)), first)[0]
        raise DataError(f"{path}: the rows of query {int(query_ids[again])} are not contiguous (the query "
                        f"appears again after other queries)")
    sizes = np.concatenate([np.diff(p.query_ptr) for p in parts])
    docids = None
    if any(p.docids is not None for p in parts):
        docids = np.concatenate([p.docids if p.docids is not None else np.full(p.n_rows, "") for p in parts])
    X = np.concatenate([p.X for p in parts])
    y = np.concatenate([p.y for p in parts])
    return RankingData(X, y, np.r_[0, np.cumsum(sizes)].astype(np.int64), query_ids, docids)


def _read_pieces(entry: dict, path: Path, n_features, piece_bytes: int) -> RankingData:
    """Read a large text file piece by piece (``_pieces``) and join the pieces; errors and
    warnings name ``path`` and its own lines."""
    parts = []
    for line_no, raw in _pieces(path, piece_bytes):
        data = io.parse_letor(raw, source=path, first_line=line_no, n_features=n_features,
                              null_policy=entry.get("null_policy", "min"))
        del raw
        _check_labels(entry, data, path, rows_before=sum(p.n_rows for p in parts))
        parts.append(data)
    return _join_pieces(path, parts)


def _read(entry: dict, path: Path, n_features, whole: bool = False) -> RankingData:
    """One file of a dataset, its labels checked against ``label_levels``; a large plain file
    in pieces (``PIECE_BYTES``) unless ``whole``."""
    if not whole and _in_pieces(path, PIECE_BYTES):
        return _read_pieces(entry, path, n_features, PIECE_BYTES)
    data = io.read_letor(path, n_features=n_features, null_policy=entry.get("null_policy", "min"))
    _check_labels(entry, data, path)
    return data


def _check_labels(entry: dict, data: RankingData, path: Path, rows_before: int = 0) -> None:
    """Every label of ``data`` (the rows of ``path`` after its first ``rows_before`` data rows)
    within the entry's ``label_levels``, or a DataError naming the line."""
    levels = entry.get("label_levels")
    if levels is not None:
        bad = np.flatnonzero((data.y < 0) | (data.y >= levels))
        if len(bad):
            r = int(bad[0])
            raise DataError(f"{_line_of_row(path, rows_before + r)}: label {int(data.y[r])} outside the declared "
                            f"levels 0..{levels - 1} of dataset {entry.get('name', '?')!r} (label_levels: {levels})")


def _pad(data: RankingData, d: int) -> RankingData:
    if data.n_features == d:
        return data
    X = np.zeros((data.n_rows, d), np.float32)
    X[:, : data.n_features] = data.X
    return RankingData(X, data.y, data.query_ptr, data.query_ids, data.docids)


def _read_splits(entry: dict, paths: dict[str, Path]) -> dict[str, RankingData]:
    n = entry.get("n_features")
    out = {key: _read(entry, path, n) for key, path in paths.items()}
    if n is None:  # inferred: the widest file decides, the narrower ones get zero columns
        d = max(data.n_features for data in out.values())
        out = {key: _pad(data, d) for key, data in out.items()}
    return out


def load_fold(entry: dict, root, fold: int, seed: int = 0) -> dict[str, RankingData]:
    """The ``train``, ``vali`` and ``test`` splits of ``fold`` of a fetched dataset.

    Features are read with the entry's ``n_features`` (an index above it is an error) and
    ``null_policy``. Files listed in ``root``'s manifest must still have the sha256 recorded there
    (``manifest.verify_files``).

    Parameters
    ----------
    entry : dict
        A validated registry entry (``registry.load_registry``).
    root : path
        The dataset folder (``resources/{name}``, with its manifest.json) or any folder holding
        the data files.
    fold : int
        A fold number of ``entry["folds"]``.
    seed : int, default 0
        Shuffles the queries of single-file datasets (layouts single/synthetic) into subsets, and
        draws the validation queries of train_test datasets; unused for official folds. Use the
        same seed for every fold of a dataset.

    Returns
    -------
    dict
        ``{"train": RankingData, "vali": RankingData, "test": RankingData}``.

    Raises
    ------
    DataError
        For labels outside 0..label_levels-1 (naming the file and line), a changed file, or a
        file the reader refuses.
    """
    _check_fold(entry, fold)
    paths = fold_files(entry, root, fold)
    verify_files(root, paths.values())
    layout = entry["layout"]
    if layout in ("folds", "split"):
        return _read_splits(entry, paths)
    if layout == "train_test":
        parts = _read_splits(entry, paths)
        train_idx, vali_idx = carve_validation(parts["train"].n_queries, entry.get("vali_fraction") or 0.2, seed)
        train = parts["train"]
        return {"train": train.subset_queries(train_idx), "vali": train.subset_queries(vali_idx),
                "test": parts["test"]}
    data = _read_splits(entry, paths)["all"]
    n = entry.get("n_folds") or 5
    try:
        subsets = query_subsets(data.n_queries, n, seed)
    except ValueError as exc:
        raise DataError(f"{paths['all']}: {exc}") from None
    rot = rotation(fold, n)
    return {split: data.subset_queries(np.concatenate([subsets[s - 1] for s in rot[split]]))
            for split in ("train", "vali", "test")}

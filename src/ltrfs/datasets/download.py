"""Fetch a registry dataset into ``resources/{name}``: download (or take from a mirror folder or
a local path), verify, extract, and write ``manifest.json`` last.

Layout of ``dest`` after ``fetch``::

    dest/<archive>       the downloaded archive (kept, so a rerun does not download again)
    dest/data/           the extracted tree (a symlink to the folder for a local ``path:`` folder)
    dest/manifest.json   written last: source used, archive digest, data root, sha256 and size
                         of every data file; the Snakemake output marker

Safety: downloads go to ``dest/.<archive>.part-*`` and are renamed only after the checksum
passed; extraction goes to ``dest/.tmp-extract-*`` and is renamed to ``dest/data`` only after
the per-file checks passed; ``fetch`` removes ``manifest.json`` before doing anything, so an
interrupted run leaves nothing a rerun trusts. Archive members with absolute paths, ``..``
components, links leaving the tree, device files or sparse files are refused. Archives are
unpacked as a stream and refused once they unpack to more than their limit (100 times their
size, at least 16 MiB, at most 64 GiB: :mod:`ltrfs.io.unpack`); a RAR tool runs with its output
files capped at that limit, and the files it wrote are added up afterwards.
"""
from __future__ import annotations

import fnmatch
import gzip
import hashlib
import http.client
import json
import logging
import lzma
import os
import shutil
import signal
import stat
import subprocess
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

from ltrfs import __version__
from ltrfs.atomic_files import full_disk_named
from ltrfs.datasets import synthetic
from ltrfs.datasets.folds import complete_folds, expected_files, locate_data_root
from ltrfs.datasets.archive_spec import format_of, parse_checksum
from ltrfs.datasets.manifest import CHUNK, MANIFEST, MANIFEST_FORMAT, file_digests, fingerprint, manifest_ok
from ltrfs.io import unpack
from ltrfs.ranking_data import DataError

log = logging.getLogger("ltrfs.datasets")

DATA_DIR = "data"
MARKER = ".ltrfs-extracted"
RAR_TOOLS = ("bsdtar", "unrar", "unrar-free", "7z", "7zz", "unar")
RAR_HINT = ("install one, e.g. on Debian/Ubuntu `apt-get install libarchive-tools` (bsdtar), "
            "`apt-get install unrar-free` or `apt-get install unar`; with conda "
            "`conda install -c conda-forge libarchive`; on macOS `brew install libarchive`")


class FetchError(DataError):
    """A dataset could not be fetched; the message is one line (a :class:`DataError`)."""


class ArchiveLimitError(FetchError, unpack.UnpackLimitError):
    """An archive unpacks to more than its limit (:mod:`ltrfs.io.unpack`); :func:`fetch` keeps
    the download, for a rerun with a raised limit."""


# ----------------------------------------------------------------------------- checksums

def verify_checksum(path, checksum: str | None, what: str, digests: dict | None = None) -> dict:
    """Check a file against a registry checksum.

    Parameters
    ----------
    path : path
        The file.
    checksum : str or None
        ``"sha256:<hex>"`` or ``"md5:<hex>"``; None: nothing to check.
    what : str
        Names the dataset in messages.
    digests : dict, optional
        Digests already computed (algorithm -> hex), not computed again.

    Returns
    -------
    dict
        The digests (always including sha256).

    Raises
    ------
    FetchError
        Naming the expected and the actual digest on a mismatch.
    """
    algos = {"sha256"}
    if checksum:
        algos.add(parse_checksum(checksum)[0])
    digests = dict(digests or {})
    missing = algos - set(digests)
    if missing:
        digests.update(file_digests(path, tuple(sorted(missing))))
    if checksum:
        algo, expected = parse_checksum(checksum)
        if digests[algo] != expected:
            raise FetchError(f"{what}: checksum mismatch for {path}: expected {algo}:{expected}, "
                             f"got {algo}:{digests[algo]}")
    return digests


# ----------------------------------------------------------------------------- extraction

def _safe_member(name: str, archive) -> PurePosixPath:
    """The normalised relative path of an archive member; FetchError when it could escape."""
    text = name.replace("\\", "/")
    p = PurePosixPath(text)
    if text.startswith("/") or (len(text) > 1 and text[1] == ":") or ".." in p.parts:
        raise FetchError(f"{archive}: refusing unsafe member path {name!r} (absolute or with '..')")
    parts = [x for x in p.parts if x not in (".", "")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def _selected(rel: PurePosixPath, members) -> bool:
    """True when ``members`` is empty or a glob of it matches ``rel`` or one of its parents
    (``*`` also matches ``/``, so ``*QueryLevelNorm/2004_td_dataset`` fits at any depth)."""
    if not members:
        return True
    parts = rel.parts
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        if any(fnmatch.fnmatchcase(sub, pat.rstrip("/")) for pat in members):
            return True
    return False


def _inside(base: Path, target: Path) -> bool:
    base = os.path.realpath(base)
    target = os.path.realpath(target)
    return target == base or target.startswith(base + os.sep)


def _extract_zip(archive: Path, out: Path, members) -> None:
    budget = unpack.Budget(archive, archive.stat().st_size)  # all members together
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            _safe_member(info.filename, archive.name)
            mode = (info.external_attr >> 16) & 0xFFFF
            if stat.S_ISLNK(mode):
                raise FetchError(f"{archive.name}: refusing symbolic link member {info.filename!r}")
        for info in infos:
            rel = _safe_member(info.filename, archive.name)
            if str(rel) == "." or not _selected(rel, members):
                continue
            target = out.joinpath(*rel.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as dst:
                unpack.copy(src, dst, budget)


def _extract_tar(archive: Path, out: Path, members) -> None:
    # one streaming pass over the unpacked tar stream, counted against the archive's limit:
    # skipped members count too, so a bomb is refused however it is laid out
    use_filter = hasattr(tarfile, "data_filter")
    with open(archive, "rb") as raw:
        cls = unpack.opener(archive.name, raw.read(6))
        raw.seek(0)
        budget = unpack.Budget(archive, os.fstat(raw.fileno()).st_size)
        with (cls(raw) if cls else raw) as src, \
                tarfile.open(fileobj=unpack.BudgetReader(src, budget), mode="r|") as tf:
            _extract_tar_members(archive, tf, out, members, use_filter)


def _extract_tar_members(archive: Path, tf, out: Path, members, use_filter: bool) -> None:
    for member in tf:
        rel = _safe_member(member.name, archive.name)
        if member.ischr() or member.isblk() or member.isfifo() or member.isdev():
            raise FetchError(f"{archive.name}: refusing device or fifo member {member.name!r}")
        if member.issparse():  # holes would unpack to more than the archive's limit counts
            raise FetchError(f"{archive.name}: refusing sparse member {member.name!r}")
        if member.issym() or member.islnk():
            link = member.linkname.replace("\\", "/")
            if member.issym():
                resolved = PurePosixPath(os.path.normpath(str(rel.parent / link))) if not link.startswith("/") else None
            else:
                resolved = PurePosixPath(os.path.normpath(link)) if not link.startswith("/") else None
            if resolved is None or resolved.parts[:1] == ("..",):
                raise FetchError(f"{archive.name}: refusing link {member.name!r} -> {member.linkname!r} leaving the archive")
        if str(rel) == "." or not _selected(rel, members):
            continue
        if use_filter:
            tf.extract(member, out, set_attrs=False, filter="data")
        else:  # pragma: no cover - Python without extraction filters
            tf.extract(member, out, set_attrs=False)


def rar_tool() -> tuple[str, str] | None:
    """The first RAR extractor on PATH among ``RAR_TOOLS``.

    Returns
    -------
    tuple of (str, str) or None
        ``(name, path)``, or None when there is none.
    """
    for name in RAR_TOOLS:
        path = shutil.which(name)
        if path:
            return name, path
    return None


def _file_size_cap(limit: int):
    """A ``preexec_fn`` that keeps an external extractor from writing a file larger than
    ``limit`` bytes (RLIMIT_FSIZE: the tool is stopped by SIGXFSZ), or None where there is none."""
    if resource is None or not hasattr(resource, "RLIMIT_FSIZE"):  # pragma: no cover - Windows
        return None

    def cap():
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    return cap


def _extract_rar(archive: Path, out: Path, members) -> None:
    found = rar_tool()
    if found is None:
        raise FetchError(f"cannot extract {archive.name}: no RAR extractor on PATH (looked for "
                         f"{', '.join(RAR_TOOLS)}); {RAR_HINT}")
    name, exe = found
    if name == "bsdtar":  # list first: refuse unsafe names before anything is written
        listing = subprocess.run([exe, "-tf", str(archive)], capture_output=True, text=True)
        if listing.returncode == 0:
            for line in listing.stdout.splitlines():
                if line:
                    _safe_member(line, archive.name)
        cmd = [exe, "-x", "-f", str(archive), "-C", str(out)]
    elif name in ("unrar", "unrar-free"):
        cmd = [exe, "x", "-o+", str(archive), str(out) + os.sep]
    elif name in ("7z", "7zz"):
        cmd = [exe, "x", "-y", f"-o{out}", str(archive)]
    else:
        cmd = [exe, "-q", "-f", "-D", "-o", str(out), str(archive)]
    log.info("extracting %s with %s", archive.name, name)
    budget = unpack.Budget(archive, archive.stat().st_size)
    result = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_file_size_cap(budget.limit))
    if result.returncode != 0:  # a file that reached the cap (the tool or its shell got SIGXFSZ)
        xfsz = getattr(signal, "SIGXFSZ", None)
        largest = max((p.stat().st_size for p in out.rglob("*") if p.is_file() and not p.is_symlink()), default=0)
        if largest >= budget.limit or (xfsz is not None and result.returncode in (-xfsz, 128 + xfsz)):
            budget.add(budget.limit + 1)
    if result.returncode != 0:
        lines = [x.strip() for x in (result.stderr or result.stdout or "").splitlines() if x.strip()]
        raise FetchError(f"cannot extract {archive.name}: {name} exited with status {result.returncode}"
                         + (f": {lines[-1]}" if lines else ""))
    for dirpath, dirnames, filenames in os.walk(out):
        for entry in dirnames + filenames:
            p = Path(dirpath) / entry
            if p.is_symlink() and not _inside(out, p):
                raise FetchError(f"{archive.name}: refusing link {p.relative_to(out)} pointing outside the archive")
            if entry in filenames and not p.is_symlink():
                budget.add(p.stat().st_size)  # the files together, after the fact
    if members:
        _prune(out, members)


def _prune(base: Path, members) -> None:
    """Delete what ``members`` does not select from the extracted tree ``base`` (bottom-up)."""
    for dirpath, dirnames, filenames in os.walk(base, topdown=False):
        here = Path(dirpath)
        for f in filenames:
            if not _selected(PurePosixPath(*(here / f).relative_to(base).parts), members):
                (here / f).unlink()
        for d in dirnames:
            p = here / d
            if p.is_symlink():
                if not _selected(PurePosixPath(*p.relative_to(base).parts), members):
                    p.unlink()
            elif not any(p.iterdir()) and not _selected(PurePosixPath(*p.relative_to(base).parts), members):
                p.rmdir()


def extract(archive, out_dir, fmt: str, members=None) -> None:
    """Extract an archive into an existing folder.

    Parameters
    ----------
    archive : path
        The archive.
    out_dir : path
        The existing folder to extract into.
    fmt : str
        zip, tar, tar.gz, tar.bz2, tar.xz, rar, gz (one gzip-compressed file, written without its
        .gz suffix) or file (copied). RAR needs an external tool (``RAR_TOOLS``).
    members : list of str, optional
        Path prefixes to keep (None: everything).

    Raises
    ------
    FetchError
        On unsafe members (absolute paths, ``..``, links leaving the tree, devices, sparse
        files), a damaged archive or a missing RAR tool; :class:`ArchiveLimitError` when the
        archive unpacks to more than its limit (:mod:`ltrfs.io.unpack`).
    """
    archive, out = Path(archive), Path(out_dir)
    try:
        if fmt == "zip":
            _extract_zip(archive, out, members)
        elif fmt in ("tar", "tar.gz", "tar.bz2", "tar.xz"):
            _extract_tar(archive, out, members)
        elif fmt == "rar":
            _extract_rar(archive, out, members)
        elif fmt == "gz":
            name = archive.name[:-3] if archive.name.lower().endswith(".gz") else archive.name + ".out"
            budget = unpack.Budget(archive, archive.stat().st_size)
            with gzip.open(archive, "rb") as src, open(out / name, "wb") as dst:
                unpack.copy(src, dst, budget)
        elif fmt == "file":
            shutil.copyfile(archive, out / archive.name)
        else:
            raise FetchError(f"{archive.name}: cannot extract format {fmt!r}")
    except unpack.UnpackLimitError as exc:
        raise ArchiveLimitError(str(exc)) from None
    except (zipfile.BadZipFile, tarfile.TarError, gzip.BadGzipFile, EOFError, lzma.LZMAError) as exc:
        raise FetchError(f"{archive}: damaged or not a {fmt} archive ({exc}); replace it with a complete copy "
                         "(or delete it to download it again)") from None


# ----------------------------------------------------------------------------- download

def download(url: str, target: Path, *, checksum: str | None, what: str, timeout: float = 60.0) -> dict:
    """Download ``url`` to ``target``, verified.

    The download goes to a temporary name beside ``target`` and is renamed once ``checksum``
    passed; nothing is left at ``target`` or beside it on failure.

    Parameters
    ----------
    url : str
        What to download.
    target : Path
        Where to put it.
    checksum : str or None
        ``"sha256:<hex>"`` or ``"md5:<hex>"``.
    what : str
        Names the dataset in messages.
    timeout : float, default 60.0
        Seconds a download may stall.

    Returns
    -------
    dict
        The digests of the file (algorithm -> hex).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    algos = {"sha256"} | ({parse_checksum(checksum)[0]} if checksum else set())
    hashers = {a: hashlib.new(a) for a in algos}
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.part-", dir=target.parent)
    fh = os.fdopen(fd, "wb")
    try:
        request = urllib.request.Request(url, headers={"User-Agent": f"ltrfs/{__version__}"})
        with fh, urllib.request.urlopen(request, timeout=timeout) as response:
            total = int(response.headers.get("Content-Length") or 0)
            done, last = 0, time.monotonic()
            while True:
                block = response.read(CHUNK)
                if not block:
                    break
                fh.write(block)
                for h in hashers.values():
                    h.update(block)
                done += len(block)
                if time.monotonic() - last > 10:
                    last = time.monotonic()
                    pct = f" ({100 * done / total:.0f}%)" if total else ""
                    log.info("%s: %.1f MB%s", target.name, done / 1e6, pct)
        if total and done != total:
            raise FetchError(f"{what}: download from {url} stopped at {done} of {total} bytes")
        digests = {a: h.hexdigest() for a, h in hashers.items()}
        verify_checksum(tmp, checksum, what, digests)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        return digests
    except BaseException:
        fh.close()
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_json_atomic(path: Path, obj) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(obj, indent=1, sort_keys=True) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


# ----------------------------------------------------------------------------- fetch

def _expected_description(entry: dict, limit: int = 6) -> str:
    """'files a, b, c' or 'files <pattern> for folds 1-5 (splits train, vali, test)'."""
    files = [p.as_posix() for p in expected_files(entry)]
    if len(files) <= limit:
        return "files " + ", ".join(files)
    folds = entry["folds"]
    span = f"{folds[0]}-{folds[-1]}" if folds == list(range(folds[0], folds[-1] + 1)) else ", ".join(map(str, folds))
    splits = f" and {{split}} = {', '.join(entry['splits'].values())}" if entry.get("splits") else ""
    return f"files {entry['pattern']} for {{fold}} = {span}{splits}"


def _check_files_sha256(name: str, entry: dict, root: Path) -> None:
    """Verify ``files_sha256`` (paths relative to the data root ``root``): every listed file
    there; a missing one only where it belongs to an incomplete fold (``complete_folds``)."""
    absent_folds = ({p.as_posix() for p in expected_files(entry)}
                    - {p.as_posix() for p in expected_files({**entry, "folds": complete_folds(entry, root)})})
    for rel, expected in entry.get("files_sha256", {}).items():
        p = root.joinpath(*PurePosixPath(rel).parts)
        if not p.is_file() and rel in absent_folds:
            continue
        if not p.is_file():
            raise FetchError(f"{name}: {rel} (listed in files_sha256) is missing from the extracted data")
        got = file_digests(p, ("sha256",), entry.get("hash_newlines", "raw"))["sha256"]
        if got != expected:
            mode = " (CRLF counted as LF)" if entry.get("hash_newlines") == "lf" else ""
            raise FetchError(f"{name}: {rel}: sha256 mismatch{mode}: expected {expected}, got {got}")


def _data_files(folder: Path, only=None) -> list[Path]:
    if only is not None:
        return sorted(only)
    out = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames.sort()
        out += [Path(dirpath) / f for f in sorted(filenames) if not (f == MARKER and Path(dirpath) == folder)]
    return out


def _finish(name: str, entry: dict, dest: Path, seed, source: dict, archive_info: dict | None,
            data_root: Path, files: list[Path]) -> Path:
    records = {}
    for p in files:
        rel = os.path.relpath(p, dest).replace(os.sep, "/")
        stat = p.stat()
        records[rel] = {"sha256": file_digests(p)["sha256"], "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    manifest = {
        "format": MANIFEST_FORMAT,
        "dataset": name,
        "fingerprint": fingerprint(entry, seed),
        "source": source,
        "archive": archive_info,
        "data_root": os.path.relpath(data_root, dest).replace(os.sep, "/"),
        "files": records,
    }
    if entry.get("layout") == "synthetic":
        manifest["seed"] = seed
    if entry.get("layout") == "folds":  # the folds a partial archive holds (fold_files checks the others)
        manifest["folds"] = complete_folds(entry, data_root)
    path = dest / MANIFEST
    _write_json_atomic(path, manifest)
    log.info("%s: %d files ready under %s", name, len(records), data_root)
    return path


def _install_tree(name: str, entry: dict, dest: Path, tmp: Path) -> Path:
    """Verify the extracted tree ``tmp`` and rename it to ``dest/data``; return the data root."""
    root = locate_data_root(entry, tmp, what=name, partial=True)
    _check_files_sha256(name, entry, root)
    rel = root.relative_to(tmp)
    os.chmod(tmp, 0o755)
    (tmp / MARKER).write_text("extracted by ltrfs.datasets.download.fetch; replaced by the next fetch\n")
    final = dest / DATA_DIR
    os.replace(tmp, final)
    return final / rel


def _by_hand_message(name: str, entry: dict, dest: Path, mirror=None) -> str:
    """One line: what to download (by hand) and where to put it."""
    where = str(Path(dest).resolve()) + (f" (or in the mirror folder {Path(mirror).resolve()})" if mirror else "")
    archive_name = entry.get("archive")
    wanted = (f"{archive_name} (or its extracted {_expected_description(entry)})" if archive_name
              else f"the {_expected_description(entry)}")
    if entry.get("manual"):
        return (f"{name} must be downloaded by hand: {' '.join(entry['instructions'].split())} "
                f"Put {wanted} in {where}")
    home = f" from {entry['homepage']}" if entry.get("homepage") else ""
    return f"{name}: no source to fetch from; download {wanted}{home} and put it in {where}"


def available(name: str, entry: dict, dest, mirror=None, seed: int = 0) -> tuple[bool, str]:
    """Whether dataset ``name`` can be had without the network.

    Nothing is downloaded, extracted or hashed: this looks, in :func:`fetch`'s order, for a
    complete manifest in ``dest``, data extracted into ``dest`` by hand (manual and archive-only
    entries), the archive in ``dest``, ``mirror/<archive>``, and the local ``path``; a synthetic
    entry is always available. A True answer does not promise that the checksums will pass.

    Parameters
    ----------
    name : str
        The dataset's registry name.
    entry : dict
        Its validated registry entry.
    dest : path
        The dataset folder (``resources/{name}``, as for :func:`fetch`).
    mirror : path, optional
        A mirror folder.
    seed : int, default 0
        The workflow seed.

    Returns
    -------
    ok : bool
    how : str
        One line: where the data would come from, or, when not available, that an entry with
        URLs would be downloaded (and from where), or what to download by hand and where to put
        it (the message ``fetch`` would fail with).
    """
    dest = Path(dest)
    if entry.get("layout") == "synthetic":
        return True, f"{name}: generated (synthetic, seed {seed})"
    if manifest_ok(dest, entry, seed):
        return True, f"{name}: already fetched ({dest / MANIFEST})"
    local_path = Path(os.path.expandvars(os.path.expanduser(entry["path"]))) if entry.get("path") else None
    by_hand = entry.get("manual") or (not entry.get("urls") and local_path is None)
    if by_hand and dest.is_dir():
        try:
            root = locate_data_root(entry, dest, what=name, skip=(DATA_DIR,), partial=True)
        except DataError:
            root = None
        if root is not None:
            return True, f"{name}: extracted files in {root}"
    archive_name = entry.get("archive")
    if archive_name and entry.get("format") != "dir":
        if (dest / archive_name).is_file():
            return True, f"{name}: archive {dest / archive_name}"
        if mirror is not None and (Path(mirror) / archive_name).is_file():
            return True, f"{name}: archive {Path(mirror) / archive_name} in the mirror folder"
    if local_path is not None and local_path.exists():
        return True, f"{name}: local path {local_path}"
    if entry.get("urls") and not entry.get("manual"):
        more = f" (or {len(entry['urls']) - 1} other url(s))" if len(entry["urls"]) > 1 else ""
        return False, f"{name}: not present locally; would be downloaded from {entry['urls'][0]}{more}"
    if local_path is not None:
        return False, _no_path(name, local_path)
    return False, _by_hand_message(name, entry, dest, mirror)


def _no_path(name: str, local_path) -> str:
    return f"{name}: path {local_path}: no such file or folder; correct the path of {name} in the dataset registry"


def fetch(name: str, entry: dict, dest, mirror=None, seed: int = 0, *, force: bool = False,
          keep_archive: bool = True, timeout: float = 60.0) -> Path:
    """Put dataset ``name`` under ``dest`` (see ``_fetch`` for the sources and checks).

    A full disk or quota while extracting or generating, which names no file, is re-raised naming
    ``dest`` (extraction and generation keep nothing half-written).

    Parameters
    ----------
    name : str
        The dataset's registry name (for messages).
    entry : dict
        Its validated registry entry.
    dest : path
        The dataset folder (``resources/{name}``).
    mirror : path, optional
        A folder that may hold the archive (taken instead of the network).
    seed : int, default 0
        Seed of a synthetic entry.
    force : bool, default False
        Fetch again even when a complete manifest for the same entry exists.
    keep_archive : bool, default True
        Keep a downloaded archive in ``dest`` (a rerun then does not download again).
    timeout : float, default 60.0
        Seconds a download may stall.

    Returns
    -------
    Path
        ``dest/manifest.json``, written last.

    Raises
    ------
    FetchError
        One line, when no source has the data or a check fails.
    """
    with full_disk_named(dest, f" while fetching {name}; nothing was kept"):
        return _fetch(name, entry, dest, mirror, seed, force=force, keep_archive=keep_archive, timeout=timeout)


def _fetch(name: str, entry: dict, dest, mirror=None, seed: int = 0, *, force: bool = False,
           keep_archive: bool = True, timeout: float = 60.0) -> Path:
    """Put dataset ``name`` (a validated registry entry) under ``dest`` and return the path of
    ``dest/manifest.json``, which is written last.

    Sources, first found wins: for manual entries and entries without urls or path, data
    already extracted into ``dest``; an archive already in ``dest`` (earlier download, or put
    there by hand); ``mirror/<archive>``; each URL of ``urls`` in order; the local ``path``
    (folder or archive). A synthetic entry is generated with ``seed``. The archive checksum
    and ``files_sha256`` are verified; a failed check raises FetchError (one line) and removes
    what was downloaded. An existing complete manifest for the same entry returns at once
    unless ``force``.
    """
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    manifest = dest / MANIFEST
    if not force and manifest_ok(dest, entry, seed):
        log.info("%s: already fetched (%s)", name, manifest)
        return manifest
    _clear_previous(name, dest)
    if entry["layout"] == "synthetic":
        return _generate(name, entry, dest, seed)

    if mirror is not None and not Path(mirror).is_dir():
        log.warning("%s: mirror folder %s does not exist; ignoring it", name, mirror)
    fmt = entry.get("format")
    checksum = entry.get("checksum")
    local_path = Path(os.path.expandvars(os.path.expanduser(entry["path"]))) if entry.get("path") else None
    by_hand = entry.get("manual") or (not entry.get("urls") and local_path is None)

    # 1. data extracted into dest by hand
    if by_hand:
        found = _extracted_by_hand(name, entry, dest, seed)
        if found is not None:
            return found

    # 2-4. an archive: in dest, in the mirror, or downloaded
    archive_path, source, digests, downloaded = None, None, None, False
    if entry.get("archive") and fmt != "dir":
        archive_path, source, digests, downloaded = _find_archive(name, entry, dest, mirror, timeout)

    # 5. a local path
    if archive_path is None and local_path is not None:
        if local_path.is_dir():
            return _link_local_folder(name, entry, dest, seed, local_path)
        if not local_path.is_file():
            raise FetchError(_no_path(name, local_path))
        archive_path = local_path
        digests = verify_checksum(archive_path, checksum, name)
        source = {"kind": "path", "location": str(local_path.resolve())}
        if fmt in (None, "dir"):
            fmt = format_of(local_path.name)

    # 6. nothing found
    if archive_path is None:
        raise FetchError(_by_hand_message(name, entry, dest, mirror))
    return _extract_and_finish(name, entry, dest, seed, archive_path, fmt, source, digests, downloaded,
                               keep_archive)


def _clear_previous(name: str, dest: Path) -> None:
    """Remove what an earlier fetch into ``dest`` left (manifest first, then the data tree and
    temporary files); FetchError when ``dest/data`` was not made by ltrfs."""
    (dest / MANIFEST).unlink(missing_ok=True)
    data_dir = dest / DATA_DIR
    if data_dir.exists() and not data_dir.is_symlink() and not (data_dir / MARKER).exists():
        raise FetchError(f"{name}: {data_dir} was not made by ltrfs and would be replaced; move it away "
                         f"(files downloaded by hand go directly in {dest})")
    for leftover in [data_dir, *dest.glob(".tmp-extract-*"), *dest.glob(".*.part-*"), *dest.glob(f".{MANIFEST}.*")]:
        if leftover.exists() or leftover.is_symlink():
            _remove(leftover)


def _generate(name: str, entry: dict, dest: Path, seed) -> Path:
    """Generate a synthetic entry with ``seed`` into ``dest/data``; the manifest's path."""
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-extract-", dir=dest))
    try:
        synthetic.generate(tmp, **(entry.get("generator") or {}), seed=seed)
        root = _install_tree(name, entry, dest, tmp)
    except BaseException:
        _remove(tmp)
        raise
    return _finish(name, entry, dest, seed, {"kind": "synthetic", "seed": seed}, None, root,
                   _data_files(dest / DATA_DIR))


def _extracted_by_hand(name: str, entry: dict, dest: Path, seed) -> Path | None:
    """The manifest's path when the data files were extracted into ``dest`` by hand, else None."""
    try:
        root = locate_data_root(entry, dest, what=name, skip=(DATA_DIR,), partial=True)
    except DataError:
        root = None
    if root is None:
        return None
    _check_files_sha256(name, entry, root)
    files = expected_files({**entry, "folds": complete_folds(entry, root)}, root)
    return _finish(name, entry, dest, seed, {"kind": "local files", "location": str(dest)}, None, root, files)


def _find_archive(name: str, entry: dict, dest: Path, mirror, timeout: float):
    """The entry's archive, verified: already in ``dest``, in the mirror, or downloaded from
    the first of its urls that works. ``(path, source, digests, downloaded)``; path None when
    none of these has it."""
    archive_name, checksum = entry.get("archive"), entry.get("checksum")
    cached = dest / archive_name
    if cached.is_file():
        try:
            digests = verify_checksum(cached, checksum, name)
        except FetchError:
            if entry.get("urls") and not entry.get("manual"):
                cached.unlink()  # an earlier download gone bad: a rerun downloads again
            raise
        return cached, {"kind": "cache", "location": str(cached)}, digests, False
    if mirror is not None and (Path(mirror) / archive_name).is_file():
        archive_path = Path(mirror) / archive_name
        digests = verify_checksum(archive_path, checksum, f"{name} (mirror)")
        return archive_path, {"kind": "mirror", "location": str(archive_path.resolve())}, digests, False
    if entry.get("urls") and not entry.get("manual"):
        url, digests = _download_first(name, entry["urls"], cached, checksum, timeout)
        return cached, {"kind": "url", "location": url}, digests, True
    return None, None, None, False


def _download_first(name: str, urls, target: Path, checksum, timeout: float) -> tuple[str, dict]:
    """Download to ``target`` from the first of ``urls`` that works: ``(url, digests)``;
    FetchError naming the last failure when none does."""
    errors = []
    for url in urls:
        log.info("%s: downloading %s", name, url)
        try:
            digests = download(url, target, checksum=checksum, what=name, timeout=timeout)
        except FetchError as exc:
            errors.append(str(exc))
            log.warning("%s", exc)
            continue
        except (OSError, ValueError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", None) or exc
            errors.append(f"{name}: cannot download {url}: {reason}")
            log.warning("%s", errors[-1])
            continue
        return url, digests
    more = f" (and {len(errors) - 1} more failed url(s))" if len(errors) > 1 else ""
    raise FetchError(errors[-1] + more)


def _link_local_folder(name: str, entry: dict, dest: Path, seed, local_path: Path) -> Path:
    """Link ``dest/data`` to a local ``path:`` folder holding the data files; the manifest's path."""
    root = locate_data_root(entry, local_path, what=name, partial=True)
    _check_files_sha256(name, entry, root)
    link = dest / DATA_DIR
    os.symlink(local_path.resolve(), link, target_is_directory=True)
    root = link / root.relative_to(local_path)
    return _finish(name, entry, dest, seed, {"kind": "path", "location": str(local_path.resolve())},
                   None, root, expected_files({**entry, "folds": complete_folds(entry, root)}, root))


def _extract_and_finish(name: str, entry: dict, dest: Path, seed, archive_path: Path, fmt, source: dict,
                        digests: dict, downloaded: bool, keep_archive: bool) -> Path:
    """Extract the verified archive into ``dest/data``, check its files and write the manifest;
    its path. A download whose content is bad is removed (the next run downloads again)."""
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-extract-", dir=dest))
    try:
        log.info("%s: extracting %s", name, archive_path.name)
        extract(archive_path, tmp, fmt or "file", entry.get("extract"))
        try:
            root = _install_tree(name, entry, dest, tmp)
        except DataError as exc:  # name the archive, not the temporary folder that is removed
            raise type(exc)(str(exc).replace(str(tmp), f"{archive_path} (extracted)")) from None
    except BaseException as exc:
        _remove(tmp)
        if downloaded and isinstance(exc, DataError) and not isinstance(exc, unpack.UnpackLimitError):
            # bad content: download again next time (past the unpack limit: kept, for a rerun
            # with a raised limit)
            archive_path.unlink(missing_ok=True)
        raise  # an interruption keeps the verified download for the rerun
    archive_info = {"name": archive_path.name, "size": archive_path.stat().st_size, **digests}
    result = _finish(name, entry, dest, seed, source, archive_info, root, _data_files(dest / DATA_DIR))
    if downloaded and not keep_archive:
        archive_path.unlink(missing_ok=True)
    return result

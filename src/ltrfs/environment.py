"""The library versions that made a results folder, kept beside it.

A number of this pipeline depends on the libraries that computed it (a solver's last digits, a
forest's ties, a default that changed): envs/requirements.lock pins them, and every run records
the versions it used in ``{results}/versions.json``. The first run of a folder writes
``made_with``; a later run with other versions adds them under ``also_run_with`` and says in one
line on the terminal that the files it remakes may differ from those it keeps
(``check_results_folder``, called when a run starts). The report shows the same versions
(rule ``environment``).
"""
from __future__ import annotations

import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from ltrfs.atomic_files import write_text

__all__ = ["LIBRARIES", "library_versions", "blas_kernel", "check_results_folder", "versions_markdown", "write_versions_page"]

#: the distributions whose versions can move a number of the pipeline, as pip names them
LIBRARIES = ("ltrfs", "numpy", "scipy", "scikit-learn", "xgboost-cpu", "xgboost", "lightgbm", "numba", "pandas",
             "matplotlib", "scikit-posthocs", "snakemake")


def library_versions() -> dict:
    """``{"python": "3.11.7", "ltrfs": "0.1.0", "ltrfs commit": "1607ab1f0c2e", "numpy": "2.4.6",
    ..., "blas": "openblas 0.3.30 SkylakeX"}`` of this interpreter, from package metadata (NumPy
    alone is imported, for ``blas_kernel``); a library that is not installed is left out, and the
    commit where ltrfs is not a git checkout (``+`` after it: the checkout had uncommitted
    changes)."""
    out = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        if name == "ltrfs" and (commit := _checkout_commit()):
            out["ltrfs commit"] = commit
    if kernel := blas_kernel():
        out["blas"] = kernel
    return out


def blas_kernel() -> str | None:
    """NumPy's BLAS and the kernel it chose for this CPU, e.g. ``"openblas 0.3.30 SkylakeX"``
    (``threadpoolctl``): the same library versions on a CPU without AVX-512 (kernel ``Haswell``)
    sum matrix products in another order, which moves the last bits of Pearson and information
    gain scores (docs/environment.md); None when NumPy shows no BLAS."""
    import numpy  # loads its BLAS, which threadpoolctl then reads
    from threadpoolctl import threadpool_info

    pools = [pool for pool in threadpool_info() if pool.get("user_api") == "blas"]
    # NumPy's own: the wheel's numpy.libs; SciPy's wheel brings another OpenBLAS (scipy.libs),
    # loaded or not depending on what ran first
    pools.sort(key=lambda pool: ("numpy" not in str(pool.get("filepath")), "scipy" in str(pool.get("filepath"))))
    for pool in pools[:1]:
        parts = [pool.get("internal_api"), pool.get("version"), pool.get("architecture")]
        return " ".join(str(part) for part in parts if part)
    return None


def _checkout_commit() -> str | None:
    """The commit of the git checkout this ltrfs runs from (``+`` when it has changes), or None."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def _differences(old: dict, new: dict) -> list[str]:
    return [f"{name} {old.get(name, 'absent')} -> {new.get(name, 'absent')}" for name in sorted({*old, *new})
            if old.get(name) != new.get(name)]


def check_results_folder(results, versions: dict | None = None) -> str | None:
    """Record this run's versions in ``{results}/versions.json``; the notice when they differ.

    Parameters
    ----------
    results : str or os.PathLike
        The run's results folder (``results_dir``).
    versions : dict or None, default None
        The versions to record (default: ``library_versions()``).

    Returns
    -------
    str or None
        One line, when the folder was made with other versions (``made_with``), naming the
        libraries that differ; None otherwise.
    """
    versions = library_versions() if versions is None else versions
    path = Path(results) / "versions.json"
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        write_text(path, json.dumps({"made_with": versions, "also_run_with": []}, indent=1) + "\n")
        return None
    except (ValueError, UnicodeDecodeError):
        record = None
    made_with = record.get("made_with") if isinstance(record, dict) else None
    if not isinstance(made_with, dict) or not isinstance(record.get("also_run_with", []), list):
        return (f"{path} is not a versions record of ltrfs; the versions of the files kept in {results} "
                "are not known (delete the file to start it anew)")
    changed = _differences(made_with, versions)
    if not changed:
        return None
    if versions not in record.setdefault("also_run_with", []):
        record["also_run_with"].append(versions)
        write_text(path, json.dumps(record, indent=1) + "\n")
    return (f"{results} was made with other library versions ({', '.join(changed)}): the files this run remakes may "
            f"differ from those it keeps; {path} lists both (envs/requirements.lock pins the versions)")


def versions_markdown(record: dict) -> str:
    """The versions record as a Markdown table (the report's environment page)."""
    runs = [("made the results", record["made_with"])]
    runs += [(f"later run {i}", v) for i, v in enumerate(record.get("also_run_with", []), 1)]
    names = sorted({name for _, v in runs for name in v},
                   key=lambda n: (n != "python", not n.startswith("ltrfs"), n))
    lines = ["| library | " + " | ".join(label for label, _ in runs) + " |",
             "|---|" + "---|" * len(runs)]
    lines += [f"| {name} | " + " | ".join(v.get(name, "-") for _, v in runs) + " |" for name in names]
    return "\n".join(lines) + "\n"


def write_versions_page(results, md_path, html_path) -> None:
    """The report's environment page: ``{results}/versions.json`` (``check_results_folder``) as a
    Markdown table and its HTML page; this interpreter's versions where the folder has no record.

    Parameters
    ----------
    results : str or os.PathLike
        The run's results folder.
    md_path, html_path : str or os.PathLike
        The files written.
    """
    from ltrfs.results.htmlpage import write_markdown  # imported on use: markdown is needed here only

    try:
        record = json.loads((Path(results) / "versions.json").read_text())
        versions_markdown(record)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        record = {"made_with": library_versions()}
    text = ("# Library versions\n\nThe versions of the libraries that made the results in this folder "
            f"(`{results}/versions.json`), and of any later run that remade part of them.\n\n"
            + versions_markdown(record))
    write_markdown(md_path, text, html_path, title="Library versions")

"""The pinned environment: envs/requirements.lock pins every dependency of pyproject.toml (its
extras too) at a version its specifier allows, with hashes, and envs/ltrfs.yaml (--use-conda)
pins the same versions, without the hashes. CI installs from the lock (.ci/run), so the lock is installed on every run."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]


def _pins(lines) -> dict:
    """name -> (version, number of hashes) of requirement lines ``name==version --hash=...``."""
    out = {}
    for line in lines:
        m = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            out[canonicalize_name(m[1])] = (m[2], line.count("--hash=sha256:"))
    return out


def _lock(name: str = "requirements.lock") -> dict:
    text = (REPO / "envs" / name).read_text().replace("\\\n", " ")
    return _pins(text.splitlines())


#: the extra pinned in a lock of its own (on top of requirements.lock), not in requirements.lock
EXTRA_LOCKS = {"neural": "neural.lock"}


def test_the_lock_pins_every_dependency_within_its_specifier_with_hashes():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = [(Requirement(r), "requirements.lock") for r in project["dependencies"]]
    wanted += [(Requirement(r), EXTRA_LOCKS.get(extra, "requirements.lock"))
               for extra, reqs in project["optional-dependencies"].items() for r in reqs]
    locks = {name: _lock(name) for name in {"requirements.lock", *EXTRA_LOCKS.values()}}
    assert len(locks["requirements.lock"]) > len(wanted)  # the dependencies' own dependencies too
    for req, where in wanted:
        name = canonicalize_name(req.name)
        assert name in locks[where], f"{req.name} is not in envs/{where}: run envs/update-lock.sh"
        assert req.specifier.contains(locks[where][name][0], prereleases=True), (req, locks[where][name][0])
    for lock in locks.values():
        assert all(n_hashes >= 1 for _, n_hashes in lock.values())
    # installed together: no package pinned twice, and torch's own requirements all pinned somewhere
    assert not set(locks["neural.lock"]) & set(locks["requirements.lock"])
    pinned = set(locks["neural.lock"]) | set(locks["requirements.lock"])
    assert {"filelock", "typing-extensions", "setuptools", "sympy", "networkx", "jinja2", "fsspec", "mpmath"} <= pinned
    # torch's CPU build is on PyTorch's index only: the lock names it, so a plain pip install -r finds it
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in (REPO / "envs/neural.lock").read_text().splitlines()


def test_the_conda_environment_pins_the_same_versions_and_stays_small():
    """Snakemake copies the env file's text into every output's metadata record: name==version
    lines only (the lock keeps the hashes), a few KB instead of the 150 KB it was with them."""
    text = (REPO / "envs/ltrfs.yaml").read_text()
    env = yaml.safe_load(text)
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "python=3.11" in env["dependencies"] and "pip" in env["dependencies"]
    assert {name: pin for name, (pin, _) in _pins(pip).items()} == {name: pin for name, (pin, _) in _lock().items()}
    assert "--hash" not in text and len(text) < 10_000


def test_the_neural_conda_environment_adds_the_neural_lock_from_pytorchs_cpu_index(tmp_path):
    """envs/ltrfs-neural.yaml (the neural methods' jobs under --use-conda): every pin of both locks,
    PyTorch's CPU build from its own index; both environment files are what envs/conda_envs.py
    writes from today's locks."""
    import importlib.util

    text = (REPO / "envs/ltrfs-neural.yaml").read_text()
    pip = next(d["pip"] for d in yaml.safe_load(text)["dependencies"] if isinstance(d, dict))
    assert pip[0] == "--extra-index-url https://download.pytorch.org/whl/cpu"
    want = {name: pin for lock in ("requirements.lock", "neural.lock") for name, (pin, _) in _lock(lock).items()}
    assert {name: pin for name, (pin, _) in _pins(pip[1:]).items()} == want and len(pip) == len(want) + 1
    assert "--hash" not in text and len(text) < 10_000
    spec = importlib.util.spec_from_file_location("conda_envs", REPO / "envs/conda_envs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    for name in ("ltrfs.yaml", "ltrfs-neural.yaml"):
        assert (tmp_path / name).read_bytes() == (REPO / "envs" / name).read_bytes(), "run python envs/conda_envs.py"


def test_a_results_folder_keeps_the_versions_that_made_it_and_says_when_a_run_differs(tmp_path):
    from ltrfs.environment import check_results_folder, library_versions, versions_markdown

    first = {"python": "3.11.7", "numpy": "2.4.6", "scikit-learn": "1.9.1"}
    assert check_results_folder(tmp_path, first) is None  # a new folder: recorded, nothing to say
    assert check_results_folder(tmp_path, first) is None  # the same versions again
    later = {**first, "scikit-learn": "1.10.0"}
    note = check_results_folder(tmp_path, later)
    assert "scikit-learn 1.9.1 -> 1.10.0" in note and "numpy" not in note and "\n" not in note
    assert check_results_folder(tmp_path, later) == note  # said on every run until the folder is remade
    record = json.loads((tmp_path / "versions.json").read_text())
    assert record == {"made_with": first, "also_run_with": [later]}
    table = versions_markdown(record)
    assert "| scikit-learn | 1.9.1 | 1.10.0 |" in table and table.index("| python") < table.index("| numpy")
    (tmp_path / "versions.json").write_text("[1, 2]")
    assert "is not a versions record of ltrfs" in check_results_folder(tmp_path, first)
    versions = library_versions()
    assert versions["numpy"] == np.__version__ and versions["ltrfs"]


def test_the_blas_kernel_is_numpys_whatever_was_loaded_first():
    """SciPy's wheel brings its own OpenBLAS: the recorded kernel is NumPy's whether SciPy's was
    loaded before or not (else a rerun would see a change and remake its environment page)."""
    import subprocess
    import sys

    code = "from ltrfs.environment import blas_kernel; print(blas_kernel())"
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    first = subprocess.run([sys.executable, "-c", "import scipy.linalg; " + code], capture_output=True, text=True,
                           check=True).stdout
    assert plain == first and plain.strip() != "None"

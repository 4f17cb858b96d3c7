#!/usr/bin/env bash
# Re-pin the environment: envs/requirements.lock (every package the workflow and the tests use,
# with versions and sha256 hashes, for Python 3.11 on Linux and macOS) from pyproject.toml and its
# extras, and envs/ltrfs.yaml (the conda environment of --use-conda: conda's Python and pip, then
# the same pins). Needs uv (pip install uv). Run it when pyproject.toml's dependencies change, and
# commit both files: the README's commands install from the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml --extra test --extra lightgbm --python-version 3.11 --generate-hashes \
    --no-header --quiet -o envs/requirements.lock
python3 - <<'PY'
import re
from pathlib import Path

lock = Path("envs/requirements.lock").read_text()
# one requirement a logical line: "name==version \ --hash=... \ --hash=..." joined
entries = [" ".join(part.split()) for part in re.split(r"\n(?=\S)", lock.replace("\\\n", " "))
           if part.strip() and not part.lstrip().startswith("#")]
# name==version only: Snakemake copies this file's text into the metadata record of every output
# (.snakemake/metadata), and with the hashes it was 150 KB a record; the hashes stay in the lock
entries = [re.sub(r"\s*#.*$", "", e).split()[0] for e in entries]
lines = [
    "# The conda environment of every rule (snakemake --use-conda): conda's Python and pip, then the",
    "# packages of envs/requirements.lock at the same versions (the lock keeps their hashes). Made by",
    "# envs/update-lock.sh; do not edit by hand. The workflow puts this checkout's src/ on PYTHONPATH.",
    "channels:", "  - conda-forge", "  - nodefaults", "dependencies:", "  - python=3.11", "  - pip", "  - pip:",
]
lines += [f"      - {e}" for e in entries]
Path("envs/ltrfs.yaml").write_text("\n".join(lines) + "\n")
PY
echo "envs/requirements.lock and envs/ltrfs.yaml written ($(grep -c '==' envs/requirements.lock) packages)"

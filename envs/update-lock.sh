#!/usr/bin/env bash
# Re-pin the environment: envs/requirements.lock (every package the workflow and the tests use,
# with versions and sha256 hashes, for Python 3.11 on Linux and macOS) from pyproject.toml and its
# extras, and envs/ltrfs.yaml and envs/ltrfs-neural.yaml (the conda environments of --use-conda:
# conda's Python and pip, then the same pins; envs/conda_envs.py). Needs uv (pip install uv). Run
# it when pyproject.toml's dependencies change, and commit the files: the README's commands
# install from the lock. envs/neural.lock is pinned by hand (its header says how).
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml --extra test --extra lightgbm --python-version 3.11 --generate-hashes \
    --no-header --quiet -o envs/requirements.lock
python3 envs/conda_envs.py
echo "envs/requirements.lock and the conda environments written ($(grep -c '==' envs/requirements.lock) packages)"

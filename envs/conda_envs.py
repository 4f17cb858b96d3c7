"""Write the conda environments of ``snakemake --use-conda`` from the locks (envs/update-lock.sh
runs it; run it alone after editing envs/neural.lock by hand).

- ``envs/ltrfs.yaml``: conda's Python 3.11 and pip, then every package of
  ``envs/requirements.lock`` at its version. Every rule's environment.
- ``envs/ltrfs-neural.yaml``: the same, plus ``envs/neural.lock`` (PyTorch's CPU build from
  PyTorch's own index, pytorch-tabnet, lassonet). The environment of the jobs of the neural
  methods (their select jobs, the ``mlp`` ranker's train jobs:
  ``ltrfs.pipeline.planning.environments``).

``name==version`` lines only: Snakemake copies an environment file's text into the metadata
record of every output it makes, and with the hashes a record was 150 KB; the locks keep them.
"""
from __future__ import annotations

import re
from pathlib import Path

ENVS = Path(__file__).resolve().parent
#: where pip finds PyTorch's CPU build (the wheels of PyPI are the CUDA build)
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def pins(lock: Path) -> list[str]:
    """The ``name==version`` of every requirement of a hashed lock file, in its order (its option
    lines, such as an index, left out)."""
    text = lock.read_text()
    entries = [" ".join(part.split()) for part in re.split(r"\n(?=\S)", text.replace("\\\n", " "))
               if part.strip() and not part.lstrip().startswith(("#", "-"))]
    return [re.sub(r"\s*#.*$", "", e).split()[0] for e in entries]


def environment(header: str, lines: list[str]) -> str:
    """A conda environment file: the header's comment lines, conda's Python and pip, then ``lines``
    for pip."""
    out = [f"# {line}" for line in header.splitlines()]
    out += ["channels:", "  - conda-forge", "  - nodefaults", "dependencies:", "  - python=3.11", "  - pip", "  - pip:"]
    return "\n".join(out + [f"      - {line}" for line in lines]) + "\n"


def main(out: Path = ENVS) -> None:
    """Write both environment files into ``out`` (default: envs/, beside the locks)."""
    base = pins(ENVS / "requirements.lock")
    (out / "ltrfs.yaml").write_text(environment(
        "The conda environment of every rule (snakemake --use-conda): conda's Python and pip, then the\n"
        "packages of envs/requirements.lock at the same versions (the lock keeps their hashes). Made by\n"
        "envs/update-lock.sh; do not edit by hand. The workflow puts this checkout's src/ on PYTHONPATH.", base))
    (out / "ltrfs-neural.yaml").write_text(environment(
        "The conda environment of the neural methods' jobs (snakemake --use-conda; docs/neural.md): that of\n"
        "envs/ltrfs.yaml plus envs/neural.lock (PyTorch's CPU build from its own index, pytorch-tabnet,\n"
        "lassonet). Made by envs/conda_envs.py; do not edit by hand.",
        [f"--extra-index-url {TORCH_CPU_INDEX}", *base, *pins(ENVS / "neural.lock")]))


if __name__ == "__main__":
    main()

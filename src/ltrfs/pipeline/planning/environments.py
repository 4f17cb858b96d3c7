"""The conda environment of a job under ``snakemake --use-conda`` (``envs/``, written by
``envs/conda_envs.py``): ``envs/ltrfs.yaml`` for every job, ``envs/ltrfs-neural.yaml`` (the same
packages plus PyTorch, pytorch-tabnet and lassonet) for the jobs that fit a neural method (the
select jobs of the neural selectors, the train jobs of the ``mlp`` ranker). Paths as a rule file
under ``workflow/rules/`` names them."""
from __future__ import annotations

from ltrfs.neural import NEURAL_METHODS

__all__ = ["BASE_ENV", "NEURAL_ENV", "conda_env"]

BASE_ENV = "../../envs/ltrfs.yaml"
NEURAL_ENV = "../../envs/ltrfs-neural.yaml"


def conda_env(algorithm: str) -> str:
    """The environment file of a job that fits ``algorithm`` (a selector's or a ranker's).

    Examples
    --------
    >>> conda_env("mlp"), conda_env("ranksvm")
    ('../../envs/ltrfs-neural.yaml', '../../envs/ltrfs.yaml')
    """
    return NEURAL_ENV if algorithm in NEURAL_METHODS else BASE_ENV

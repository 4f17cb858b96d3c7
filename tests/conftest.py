"""Shared fixtures: small ranking problems with planted structure, and the real MQ2008 data
from ../shared/data when it is there."""
from __future__ import annotations

import functools
import importlib.util
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from ltrfs.neural import INSTALL_HINT, NEURAL_METHODS, extra_installed
from ltrfs.ranking_data import RankingData

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
MQ2008_ZIP = SHARED_DATA / "MQ2008.zip"


#: set by .ci/run: a test of the neural extra fails, not skips, when the extra is missing
REQUIRE_EXTRAS = os.environ.get("LTRFS_REQUIRE_EXTRAS") == "1"


@functools.cache
def _neural_modules() -> frozenset[str]:
    """The modules of the neural methods' classes (``ltrfs.neural.lasso_net`` for ``lassonet``),
    read from the registries without importing them."""
    from ltrfs.rankers import RANKERS
    from ltrfs.selection import SELECTORS

    return frozenset(registry.module_of(name) for registry in (SELECTORS, RANKERS) for name in NEURAL_METHODS
                     if name in registry)


def _needs_torch(item) -> bool:
    """A test marked ``neural``, or one parametrised with a method of ``ltrfs.neural.NEURAL_METHODS``
    (its name, or a string ending in it after a space or a dot) or with its class's module."""
    if item.get_closest_marker("neural") is not None:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    # a method's name ("mlp"), an id naming it ("ranker mlp") or its module ("ltrfs.neural.lasso_net")
    return any(isinstance(v, str) and (v.replace(" ", ".").rsplit(".", 1)[-1] in NEURAL_METHODS
                                       or v in _neural_modules())
               for v in params.values())


def pytest_collection_modifyitems(config, items):
    """The tests of the neural extra skip, with the way to install it, where PyTorch is missing
    (PyTorch, pytorch-tabnet or lassonet; unless LTRFS_REQUIRE_EXTRAS=1, as in CI: then they run and fail). The SLURM test runs last:
    once it has installed SLURM's client tools, every later Snakemake start would wait 10 s for a
    controller that is down again (the SLURM executor plugin asks ``scontrol show config`` when
    it loads, to word its help text)."""
    if not extra_installed() and not REQUIRE_EXTRAS:
        skip = pytest.mark.skip(reason=f"the neural extra is not installed: {INSTALL_HINT}")
        for item in items:
            if _needs_torch(item):
                item.add_marker(skip)
    items.sort(key=lambda item: item.get_closest_marker("slurm") is not None)


def bench_script(name: str):
    """The module of ``bench/{name}.py`` (the bench scripts are no package), loaded anew."""
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def planted(n_queries=40, d=6, informative=(2,), seed=0, levels=3) -> RankingData:
    """Random queries of 5-30 documents; labels depend only on the ``informative`` features."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 31, n_queries)
    m = int(sizes.sum())
    X = rng.random((m, d))
    latent = X[:, list(informative)].sum(1) + 0.05 * rng.standard_normal(m)
    cuts = np.quantile(latent, np.linspace(0, 1, levels + 1)[1:-1] + 0.15)
    y = np.searchsorted(cuts, latent).astype(np.int32)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    return RankingData(X.astype(np.float32), y, ptr, np.arange(100, 100 + n_queries, dtype=np.int64))


@pytest.fixture()
def planted_fold(tmp_path) -> dict:
    """``train.npz`` and ``vali.npz`` of 30 planted queries, 6 features, features 1 and 4
    informative: split -> path."""
    from ltrfs import io

    paths = {}
    for split, seed in (("train", 1), ("vali", 2)):
        paths[split] = tmp_path / f"{split}.npz"
        io.save_npz(planted(n_queries=30, d=6, informative=(1, 4), seed=seed), paths[split])
    return paths


@pytest.fixture(scope="session")
def mq2008_dir(tmp_path_factory) -> Path:
    """The extracted MQ2008 folder, or a skip saying where the archive was looked for."""
    if not MQ2008_ZIP.exists():
        pytest.skip(f"real-data check skipped: {MQ2008_ZIP} is absent")
    root = tmp_path_factory.mktemp("mq2008")
    with zipfile.ZipFile(MQ2008_ZIP) as archive:
        archive.extractall(root)
    return root / "MQ2008"


@pytest.fixture(scope="module")
def synthetic_splits():
    """One synthetic dataset (same feature roles everywhere) split by queries into train, vali
    and test, each (X, y, qid, query_ptr): the neural rankers' quality checks."""
    from ltrfs.datasets.synthetic import make

    data, _ = make(n_queries=400, n_informative=6, n_redundant=2, n_noise=6, strength_max=0.7,
                   strength_min=0.5, seed=3)
    ptr = data.query_ptr

    def part(a, b):
        lo, hi = ptr[a], ptr[b]
        return data.X[lo:hi], data.y[lo:hi], data.qid[lo:hi], ptr[a:b + 1] - lo

    return part(0, 200), part(200, 260), part(260, 400)


def ndcg10(y, scores, ptr) -> float:
    """Mean NDCG@10 (letor4) over the queries of query_ptr ``ptr``."""
    from ltrfs.metrics import metric_per_query

    return float(metric_per_query(y, scores, ptr, "ndcg@10", "letor4").mean())


def ptr_of(sizes) -> np.ndarray:
    """query_ptr (q + 1,) of consecutive queries of the given sizes."""
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


def qid_of(sizes) -> np.ndarray:
    """Per-row query ids (arbitrary values, contiguous rows) of queries of the given sizes."""
    return np.repeat(np.arange(len(sizes)) * 5 + 11, sizes)


def random_problem(seed, n_queries=5, d=4, max_label=3):
    """(X (m, d) normal, y (m,) in 0..max_label, sizes (q,) in 1..11): a small random ranking problem."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=n_queries)
    X = rng.normal(size=(sizes.sum(), d))
    y = rng.integers(0, max_label + 1, size=sizes.sum())
    return X, y, sizes


@pytest.fixture
def drawn(monkeypatch):
    """The figures passed to ``ltrfs.results.figures.style.save``, kept open to be read (the figure tests)."""
    from ltrfs.results.figures import style  # matplotlib: only the figure tests pay for it

    figures = []
    monkeypatch.setattr(style, "save", lambda fig, png, pdf=None: figures.append(fig))
    yield figures
    for fig in figures:
        style.plt.close(fig)

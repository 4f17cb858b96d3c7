"""Benchmark datasets: the registry (``config/datasets.yaml``), fetching with verification,
fold building, and the synthetic generator.

Modules, each importing only those listed before it: ``formats`` (archive formats, checksums),
``manifest`` (a fetched dataset's manifest and file digests), ``folds`` (splits of a fetched
dataset), ``synthetic`` (the generator and stand-in archives), ``registry`` (entries of
``config/datasets.yaml``), ``download`` (``fetch``).

    registry = load_registry("config/datasets.yaml")
    fetch("MQ2008", registry["MQ2008"], "resources/MQ2008", mirror="../shared/data")
    splits = load_fold(registry["MQ2008"], "resources/MQ2008", fold=1)   # train / vali / test
"""
from ltrfs.datasets.download import FetchError, extract, fetch
from ltrfs.datasets.folds import carve_validation, fold_files, load_fold, query_subsets, rotation
from ltrfs.datasets.manifest import file_digests, read_manifest
from ltrfs.datasets.registry import dataset_entry, feature_names, load_registry, validate_entry
from ltrfs.datasets.synthetic import generate, make

__all__ = [
    "FetchError", "extract", "fetch", "file_digests", "read_manifest",
    "carve_validation", "fold_files", "load_fold", "query_subsets", "rotation",
    "dataset_entry", "feature_names", "load_registry", "validate_entry",
    "generate", "make",
]

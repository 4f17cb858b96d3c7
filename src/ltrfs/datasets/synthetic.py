"""A synthetic LETOR-like dataset with planted informative, redundant and noise features.

Model (per query q with n_q documents, n_q ~ round(LogNormal(log docs_median, docs_sigma))
clipped to [docs_min, docs_max]):

    latent relevance   u_qi = b_q + z_qi,      b_q ~ N(0, query_shift^2),  z_qi ~ N(0, 1)
    label              y_qi = #{r : u_qi > t_r},  thresholds t_1 < ... < t_{R-1} chosen so that
                       P(y >= 1) = relevant_fraction and P(y = r) / P(y = r - 1) = level_ratio
                       for r >= 2 (most documents irrelevant; queries with a low b_q often have
                       no relevant document at all, as in LETOR)
    informative f      v_f = s_f z + sqrt(1 - s_f^2) e,  strength s_f = corr(v_f, z) from
                       strength_max down to strength_min (linearly spaced)
    redundant g        v_g = sum_k w_gk v_k / sd + redundant_noise e   over 1..max_sources
                       informative sources k, weights w_gk > 0 summing to 1
    noise h            independent of everything (normal, uniform, exponential, zero-inflated
                       exponential, Poisson counts)
    constant c         0 on every row (like features 6-10 and 43 of MQ2008)

Every non-constant feature then goes through a monotone transform (identity, exp, logistic,
softplus) and a random per-query affine map a_qf v + c_qf (a_qf > 0), so ranks within a query
are those of v. With ``query_norm`` (default) each feature is min-max scaled to [0, 1] within
each query, like LETOR QueryLevelNorm (a constant column becomes 0). The columns are then
shuffled (seeded) so that position says nothing. Values are rounded to 6 decimals, the
precision written to the text file, so the in-memory data equal the file's.

The default size (300 queries, about 10k rows, 30 features) suits the offline default workflow.

Stand-ins of the real benchmark archives (``benchmark_files``, ``write_benchmark_archive``):
small archives with the real archive's name, folder layout, file names, line format (comments,
line endings, sparse or dense features, ``NULL`` values), feature count, label scale and
official fold rotation (DATASETS.md), filled from ``make``, for testing the registry entries of
data that cannot be downloaded. ``write_rar`` writes RAR 4 archives (stored) without any tool.
"""
from __future__ import annotations

import inspect
import io as _io
import json
import os
import struct
import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path
from statistics import NormalDist

import numpy as np

from ltrfs.datasets.folds import rotation
from ltrfs.datasets.archive_spec import format_of
from ltrfs.ranking_data import RankingData

DATA_FILE = "all.txt"
TRUTH_FILE = "truth.json"
TRANSFORMS = ("identity", "exp", "logistic", "softplus")
NOISE_KINDS = ("normal", "uniform", "exponential", "zero_inflated", "poisson")


def _check(params: dict) -> None:
    ints = {"n_queries": 1, "n_informative": 0, "n_redundant": 0, "n_noise": 0, "n_constant": 0,
            "n_levels": 2, "docs_min": 1, "docs_max": 1, "max_sources": 1}
    for name, low in ints.items():
        v = params[name]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"synthetic: {name} must be an integer >= {low}, got {v!r}")
    if params["n_redundant"] and not params["n_informative"]:
        raise ValueError("synthetic: n_redundant > 0 needs n_informative > 0 (redundant features copy informative ones)")
    if params["n_informative"] + params["n_redundant"] + params["n_noise"] + params["n_constant"] < 1:
        raise ValueError("synthetic: at least one feature is needed")
    if params["docs_min"] > params["docs_max"]:
        raise ValueError(f"synthetic: docs_min {params['docs_min']} exceeds docs_max {params['docs_max']}")
    for name, low, high in (("relevant_fraction", 0.0, 1.0), ("level_ratio", 0.0, 1.0),
                            ("strength_max", 0.0, 1.0), ("strength_min", 0.0, 1.0)):
        v = params[name]
        if not low < v < high and not (name.startswith("strength") and v == 1.0):
            raise ValueError(f"synthetic: {name} must be in ({low}, {high}), got {v!r}")
    fractions = params["label_fractions"]
    if fractions is not None:
        ok = isinstance(fractions, (list, tuple)) and len(fractions) == params["n_levels"] and all(
            isinstance(f, (int, float)) and not isinstance(f, bool) and f > 0 for f in fractions)
        if not ok or abs(sum(fractions) - 1.0) > 1e-6:
            raise ValueError(f"synthetic: label_fractions must be n_levels ({params['n_levels']}) positive numbers "
                             f"summing to 1, got {fractions!r}")
    if params["strength_min"] > params["strength_max"]:
        raise ValueError("synthetic: strength_min exceeds strength_max")
    for name in ("docs_median", "docs_sigma", "query_shift", "redundant_noise"):
        if not params[name] >= 0 or (name == "docs_median" and params[name] <= 0):
            raise ValueError(f"synthetic: {name} must be {'> 0' if name == 'docs_median' else '>= 0'}, got {params[name]!r}")


def _thresholds(n_levels: int, relevant_fraction: float, level_ratio: float, sd: float,
                label_fractions=None) -> np.ndarray:
    """t_1..t_{R-1} on u ~ N(0, sd^2) giving P(y>=1) = relevant_fraction, geometric level sizes;
    or, with ``label_fractions`` (R values summing to 1), P(y = r) = label_fractions[r]."""
    if label_fractions is not None:
        p = np.asarray(label_fractions, dtype=np.float64)
    else:
        w = level_ratio ** np.arange(n_levels - 1)
        p = np.r_[1 - relevant_fraction, relevant_fraction * w / w.sum()]
    cum = np.cumsum(p)[:-1]
    nd = NormalDist(0.0, sd)
    return np.array([nd.inv_cdf(min(max(c, 1e-12), 1 - 1e-12)) for c in cum])


def _transform(kind: str, v: np.ndarray) -> np.ndarray:
    if kind == "exp":
        return np.exp(0.7 * v)
    if kind == "logistic":
        return 1.0 / (1.0 + np.exp(-1.5 * v))
    if kind == "softplus":
        return np.logaddexp(0.0, 2.0 * v)
    return v


def _query_minmax(X: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    """Min-max scale each column to [0, 1] within each query; constant -> 0. X float64 (m, d)."""
    starts = ptr[:-1]
    sizes = np.diff(ptr)
    lo = np.repeat(np.minimum.reduceat(X, starts, axis=0), sizes, axis=0)
    hi = np.repeat(np.maximum.reduceat(X, starts, axis=0), sizes, axis=0)
    span = hi - lo
    return np.divide(X - lo, span, out=np.zeros_like(X), where=span > 0)


def _queries_and_labels(rng, n_queries, docs_median, docs_sigma, docs_min, docs_max, query_shift, n_levels,
                        relevant_fraction, level_ratio, label_fractions):
    """Query sizes and graded labels: ``(sizes, ptr, qrow, z, y, thresholds)``.

    ``z`` (m,) is the latent relevance every informative feature correlates with; a row's
    label is the number of thresholds below ``b[query] + z``.
    """
    sizes = np.rint(rng.lognormal(np.log(docs_median), docs_sigma, size=n_queries)).astype(np.int64)
    sizes = np.clip(sizes, docs_min, docs_max)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    qrow = np.repeat(np.arange(n_queries), sizes)
    b = rng.normal(0.0, query_shift, size=n_queries)
    z = rng.standard_normal(m)
    u = b[qrow] + z
    t = _thresholds(n_levels, relevant_fraction, level_ratio, float(np.sqrt(1.0 + query_shift ** 2)), label_fractions)
    y = np.searchsorted(t, u, side="left").astype(np.int32)  # number of thresholds below u
    return sizes, ptr, qrow, z, y, t


def _latent_columns(rng, z, n_informative, n_redundant, n_noise, strength_max, strength_min, max_sources,
                    redundant_noise):
    """Latent feature values before any transform, in role order (informative, redundant,
    noise): ``(cols, specs)``, one (m,) array and one truth record per feature."""
    m = len(z)
    strengths = np.linspace(strength_max, strength_min, n_informative) if n_informative else np.zeros(0)
    cols, specs = [], []
    informative_v = []
    for s in strengths:
        v = s * z + np.sqrt(max(0.0, 1.0 - s * s)) * rng.standard_normal(m)
        informative_v.append(v)
        cols.append(v)
        specs.append({"role": "informative", "strength": float(s)})
    for _ in range(n_redundant):
        k = int(rng.integers(1, min(max_sources, n_informative) + 1))
        src = np.sort(rng.choice(n_informative, size=k, replace=False))
        w = rng.dirichlet(np.full(k, 2.0)) if k > 1 else np.ones(1)
        mix = sum(wi * informative_v[j] for wi, j in zip(w, src))
        mix = mix / mix.std() if mix.std() > 0 else mix
        v = mix + redundant_noise * rng.standard_normal(m)
        cols.append(v)
        specs.append({"role": "redundant", "sources_index": src.tolist(), "weights": w.tolist(),
                      "noise": float(redundant_noise)})
    for i in range(n_noise):
        kind = NOISE_KINDS[i % len(NOISE_KINDS)]
        cols.append(_noise(rng, kind, m))
        specs.append({"role": "noise", "distribution": kind})
    return cols, specs


def _noise(rng, kind: str, m: int) -> np.ndarray:
    """m draws of the noise distribution ``kind`` (``NOISE_KINDS``)."""
    if kind == "normal":
        return rng.standard_normal(m)
    if kind == "uniform":
        return rng.uniform(0.0, 1.0, m)
    if kind == "exponential":
        return rng.exponential(1.0, m)
    if kind == "zero_inflated":
        return rng.exponential(1.0, m) * (rng.uniform(size=m) < 0.3)
    return rng.poisson(2.0, m).astype(np.float64)


def _feature_matrix(rng, cols, specs, qrow, ptr, n_constant, query_norm, shuffle):
    """X (m, d) float32 from the latent columns: monotone transforms and per-query affine maps
    (rank-preserving within a query), the constant columns, per-query min-max scaling, the
    column shuffle and the text precision. Returns ``(X, position)``: the feature id of
    role-order column j is ``position[j] + 1``. Appends the constant features' records to
    ``specs`` and records the transforms in them.

    Memory: ``cols`` (a list, emptied here) is transformed one column at a time, and each
    column is dropped from it once written to X, which is column-major (Fortran order) so that
    writing a column touches only its own pages: the peak is about the latent columns (m x d
    float64) and not three copies of them, which lets MSLR-WEB30K's stand-in (3.8 million rows)
    be generated in under 8 GiB. The values are those of a whole-matrix computation: every
    step is per column, the random draws come in the same order."""
    n_queries = len(ptr) - 1
    m = int(ptr[-1])
    n_var = len(cols)
    for j in range(n_var):
        kind = TRANSFORMS[int(rng.integers(len(TRANSFORMS)))] if specs[j]["role"] != "noise" else "identity"
        if kind != "identity":
            specs[j]["transform"] = kind
        scale = rng.lognormal(0.0, 0.5, n_queries)
        shift = rng.normal(0.0, 1.0, n_queries)
        v = scale[qrow] * _transform(kind, cols[j]) + shift[qrow]
        cols[j] = _query_minmax(v[:, None], ptr)[:, 0] if query_norm else v
    for _ in range(n_constant):
        specs.append({"role": "constant"})
    d = n_var + n_constant
    order = rng.permutation(d) if shuffle else np.arange(d)  # new column c holds old column order[c]
    position = np.empty(d, np.int64)
    position[order] = np.arange(d)
    X = np.empty((m, d), dtype=np.float32, order="F")
    for c, j in enumerate(order.tolist()):
        if j < n_var:
            X[:, c] = np.round(cols[j], 6) + 0.0  # the text precision; + 0.0 removes negative zeros
            cols[j] = None
        else:
            X[:, c] = 0.0
    return X, position


def _feature_records(specs, position):
    """The truth records by feature id, and the ids by role (informative ones strongest first)."""
    features = []
    for j, spec in enumerate(specs):
        spec = dict(spec)
        spec["id"] = int(position[j]) + 1
        if spec["role"] == "redundant":
            spec["sources"] = [int(position[k]) + 1 for k in spec.pop("sources_index")]
            spec["weights"] = [round(float(w), 6) for w in spec["weights"]]
        if "strength" in spec:
            spec["strength"] = round(spec["strength"], 6)
        features.append(spec)
    features.sort(key=lambda f: f["id"])
    by_role = {r: [f["id"] for f in features if f["role"] == r] for r in ("informative", "redundant", "noise", "constant")}
    by_role["informative"].sort(key=lambda i: -next(f["strength"] for f in features if f["id"] == i))
    return features, by_role


def make(*, n_queries: int = 300, n_informative: int = 8, n_redundant: int = 8, n_noise: int = 14,
         n_constant: int = 0, n_levels: int = 3, docs_median: float = 24.0, docs_sigma: float = 0.85,
         docs_min: int = 2, docs_max: int = 300, relevant_fraction: float = 0.3, level_ratio: float = 0.35,
         query_shift: float = 1.0, strength_max: float = 0.9, strength_min: float = 0.3,
         redundant_noise: float = 0.3, max_sources: int = 2, query_norm: bool = True, shuffle: bool = True,
         label_fractions: list | None = None, seed: int = 0) -> tuple[RankingData, dict]:
    """Generate the dataset in memory (the model is in the module docstring).

    Deterministic given the arguments: every random draw comes from one generator seeded with
    ``seed``.

    Parameters
    ----------
    n_queries : int, default 300
        Number of queries; ids 1..n_queries.
    n_informative, n_redundant, n_noise, n_constant : int, default 8, 8, 14, 0
        Number of features of each role.
    n_levels : int, default 3
        Label levels 0..n_levels-1.
    docs_median, docs_sigma, docs_min, docs_max : float, float, int, int
        Documents per query: round(LogNormal(log docs_median, docs_sigma)) clipped to
        [docs_min, docs_max] (defaults 24, 0.85, 2, 300).
    relevant_fraction, level_ratio : float, default 0.3, 0.35
        P(y >= 1), and P(y = r) / P(y = r - 1) for r >= 2.
    query_shift : float, default 1.0
        Standard deviation of the per-query shift b_q of the latent relevance.
    strength_max, strength_min : float, default 0.9, 0.3
        Correlation with the latent relevance of the strongest and the weakest informative feature.
    redundant_noise : float, default 0.3
        Noise added to each redundant mixture.
    max_sources : int, default 2
        Informative sources of a redundant feature, at most.
    query_norm : bool, default True
        Min-max scale each feature within each query (LETOR QueryLevelNorm).
    shuffle : bool, default True
        Shuffle the columns so that position says nothing.
    label_fractions : list of float, optional
        The fraction of every label level, instead of ``relevant_fraction`` and ``level_ratio``.
    seed : int, default 0
        Seed of the generator.

    Returns
    -------
    data : RankingData
        Docids ``S<qid>-<i>`` (i from 1).
    truth : dict
        What ``generate`` writes to truth.json: every feature id (1-based) with its role and
        parameters, the label counts and the thresholds.
    """
    params = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in locals().items()}
    _check(params)
    rng = np.random.default_rng(seed)  # one stream, drawn from in this order by the helpers below
    sizes, ptr, qrow, z, y, t = _queries_and_labels(
        rng, n_queries, docs_median, docs_sigma, docs_min, docs_max, query_shift, n_levels, relevant_fraction,
        level_ratio, label_fractions)
    m = int(ptr[-1])
    cols, specs = _latent_columns(rng, z, n_informative, n_redundant, n_noise, strength_max, strength_min,
                                  max_sources, redundant_noise)
    X, position = _feature_matrix(rng, cols, specs, qrow, ptr, n_constant, query_norm, shuffle)
    del cols, z
    d = X.shape[1]
    features, by_role = _feature_records(specs, position)

    qids = np.arange(1, n_queries + 1, dtype=np.int64)
    within = np.arange(m) - ptr[qrow] + 1
    docids = np.array([f"S{q}-{i}" for q, i in zip(qids[qrow].tolist(), within.tolist())])
    data = RankingData(X=np.ascontiguousarray(X), y=y, query_ptr=ptr, query_ids=qids, docids=docids)

    rel_per_query = np.add.reduceat((y > 0).astype(np.int64), ptr[:-1])
    truth = {
        "generator": "ltrfs.datasets.synthetic",
        "format": 1,
        "params": params,
        "n_queries": int(n_queries),
        "n_rows": m,
        "n_features": int(d),
        "label_counts": np.bincount(y, minlength=n_levels).tolist(),
        "queries_without_relevant": int(np.sum(rel_per_query == 0)),
        "docs_per_query": {"min": int(sizes.min()), "median": float(np.median(sizes)), "max": int(sizes.max())},
        "thresholds": [round(float(v), 6) for v in t],
        "informative": by_role["informative"],
        "redundant": sorted(by_role["redundant"]),
        "noise": sorted(by_role["noise"]),
        "constant": sorted(by_role["constant"]),
        "features": features,
    }
    return data, truth


def text_mb(**params) -> float:
    """About how many MB of text ``generate`` writes for these parameters.

    Expected rows times about 13 bytes per value ("12:-3.141593 "): what the workflow sizes a
    generating job's memory by.

    Parameters
    ----------
    **params
        Parameters of :func:`make`.

    Returns
    -------
    float
    """
    p = {**generator_parameters(), **params}
    docs = min(max(p["docs_median"] * np.exp(p["docs_sigma"] ** 2 / 2), p["docs_min"]), p["docs_max"])
    d = p["n_informative"] + p["n_redundant"] + p["n_noise"] + p["n_constant"]
    return float(p["n_queries"] * docs * (13.0 * d + 30.0) / 1e6)


def generator_parameters() -> dict:
    """The parameters of ``make``/``generate`` (the registry's ``generator:`` keys).

    Returns
    -------
    dict
        Parameter name -> default.
    """
    return {k: p.default for k, p in inspect.signature(make).parameters.items()}


def letor_chunks(data: RankingData, chunk_rows: int = 20000):
    """The LETOR text of ``data`` in pieces, so that a large set is written in bounded memory.

    Parameters
    ----------
    data : RankingData
        The dataset.
    chunk_rows : int, default 20000
        Lines per piece.

    Yields
    ------
    str
        ``label qid:Q 1:v ... d:v #docid = ...`` lines, values with 6 decimals.
    """
    d = data.n_features
    fmt = "%d qid:%d " + " ".join(f"{j}:%.6f" for j in range(1, d + 1))
    if data.docids is not None:
        fmt += " #docid = %s"
    qid = data.qid
    for r0 in range(0, data.n_rows, chunk_rows):
        r1 = min(r0 + chunk_rows, data.n_rows)
        cols = [data.y[r0:r1].tolist(), qid[r0:r1].tolist(), *data.X[r0:r1].astype(np.float64).T.tolist()]
        if data.docids is not None:
            cols.append(data.docids[r0:r1].tolist())
        yield "".join(fmt % row + "\n" for row in zip(*cols))


def format_letor(data: RankingData) -> str:
    """The LETOR text of ``data`` as one string (``letor_chunks`` joined).

    Parameters
    ----------
    data : RankingData

    Returns
    -------
    str
    """
    return "".join(letor_chunks(data))


def _write_atomic(path: Path, text) -> None:
    """Write ``text`` (a string or an iterable of strings) to ``path`` through a temporary file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines([text] if isinstance(text, str) else text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def generate(out_dir, **params) -> dict:
    """Write ``out_dir/all.txt`` and ``out_dir/truth.json``, atomically.

    ``all.txt`` is LETOR text with comments ``docid = S<q>-<i>``. Identical parameters give
    byte-identical files.

    Parameters
    ----------
    out_dir : path
        The folder (made when missing).
    **params
        Parameters of :func:`make` (defaults: 300 queries, 8 informative, 8 redundant, 14 noise
        features, 3 label levels, seed 0).

    Returns
    -------
    dict
        The truth dict written to truth.json.

    Raises
    ------
    ValueError
        For an unknown parameter.
    """
    unknown = sorted(set(params) - set(generator_parameters()))
    if unknown:
        raise ValueError(f"synthetic: unknown parameter {unknown[0]!r}; valid: {', '.join(generator_parameters())}")
    data, truth = make(**params)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write_atomic(out / DATA_FILE, letor_chunks(data))
    _write_atomic(out / TRUTH_FILE, json.dumps(truth, indent=1, sort_keys=True) + "\n")
    return truth


generate.__signature__ = inspect.Signature(
    [inspect.Parameter("out_dir", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + list(inspect.signature(make).parameters.values()),
    return_annotation=dict,
)


# ============================================================================ benchmark archives
#
# Small archives laid out and written like the real benchmark archives (DATASETS.md), so that
# the registry entries, fetch and load_fold are tested on the real layouts without the real
# data. The layout facts below are written down here independently of config/datasets.yaml on
# purpose: a wrong pattern, feature count or label scale in the registry then fails the tests.
# Feature values come from ``make`` (the planted-feature model); every file of a subset holds
# every label level at least once.

LETOR_SPLITS = ("train", "vali", "test")
RAW_SPLITS = {"train": "trainingset", "vali": "validationset", "test": "testset"}
GOV_COLLECTIONS = ("2003_hp_dataset", "2003_np_dataset", "2003_td_dataset",
                   "2004_hp_dataset", "2004_np_dataset", "2004_td_dataset")
OHSUMED_ZERO_FEATURES = (5, 6, 7, 20, 21, 22, 35, 36, 37)  # written "0" in QueryLevelNorm
YAHOO_SETS = {1: {"max_id": 699, "n_ids": 519}, 2: {"max_id": 700, "n_ids": 596}}

#: archive key -> facts of the real archive: file name, format, top folder, features, labels
BENCHMARKS = {
    "MQ2007": {"style": "letor4", "archive": "MQ2007.rar", "top": "MQ2007", "n_features": 46, "levels": 3},
    "MQ2008": {"style": "letor4", "archive": "MQ2008.zip", "top": "MQ2008", "n_features": 46, "levels": 3},
    "OHSUMED": {"style": "letor3", "archive": "OHSUMED.zip", "top": "OHSUMED", "n_features": 45, "levels": 3},
    "Gov": {"style": "letor3", "archive": "Gov.rar", "top": "Gov", "n_features": 64, "levels": 2,
            "collections": GOV_COLLECTIONS},
    "MSLR-WEB10K": {"style": "mslr", "archive": "MSLR-WEB10K.zip", "top": None, "n_features": 136, "levels": 5},
    "MSLR-WEB30K": {"style": "mslr", "archive": "MSLR-WEB30K.zip", "top": None, "n_features": 136, "levels": 5},
    "Yahoo": {"style": "yahoo", "archive": "ltrc_yahoo.tar.bz2", "top": None, "n_features": 700, "levels": 5,
              "sets": YAHOO_SETS},
}

#: registry dataset name -> (archive key, facts of the dataset's files)
BENCHMARK_DATASETS = {
    "MQ2007": ("MQ2007", {"n_features": 46, "levels": 3}),
    "MQ2008": ("MQ2008", {"n_features": 46, "levels": 3}),
    "OHSUMED": ("OHSUMED", {"n_features": 45, "levels": 3}),
    "OHSUMED_min": ("OHSUMED", {"n_features": 45, "levels": 3}),
    "OHSUMED_null": ("OHSUMED", {"n_features": 45, "levels": 3}),
    **{f"{c[5:7].upper()}{c[:4]}": ("Gov", {"n_features": 64, "levels": 2}) for c in GOV_COLLECTIONS},
    "MSLR-WEB10K": ("MSLR-WEB10K", {"n_features": 136, "levels": 5}),
    "MSLR-WEB30K": ("MSLR-WEB30K", {"n_features": 136, "levels": 5}),
    "Yahoo-set1": ("Yahoo", {"n_features": 699, "levels": 5, "n_ids": 519}),
    "Yahoo-set2": ("Yahoo", {"n_features": 700, "levels": 5, "n_ids": 596}),
}


def _fold_texts(subsets: list[bytes], names=LETOR_SPLITS) -> dict[str, bytes]:
    """``Fold{i}/{name}.txt`` -> bytes in the official LETOR rotation of 5 subsets
    (Fold1: train S1,S2,S3, vali S4, test S5; Fold2: train S2,S3,S4, vali S5, test S1; ...)."""
    out = {}
    for fold in range(1, len(subsets) + 1):
        rot = rotation(fold, len(subsets))
        for split, name in zip(LETOR_SPLITS, names):
            out[f"Fold{fold}/{name}.txt"] = b"".join(subsets[s - 1] for s in rot[split])
    return out


def _subset_data(rng_seed: int, n_features: int, levels: int, n_queries: int, query_norm: bool,
                 n_subsets: int = 5) -> list[RankingData]:
    """``n_subsets`` query subsets generated by ``make``; each holds every label level."""
    n_inf = max(1, n_features // 5)
    n_red = max(0, n_features // 5)
    n_const = min(2, max(0, n_features - n_inf - n_red - 1))
    data, _ = make(n_queries=n_subsets * n_queries, n_informative=n_inf, n_redundant=n_red,
                   n_noise=n_features - n_inf - n_red - n_const, n_constant=n_const, n_levels=levels,
                   docs_median=8.0, docs_sigma=0.3, docs_min=levels, docs_max=20, relevant_fraction=0.5,
                   level_ratio=0.7, query_norm=query_norm, seed=rng_seed)
    out = []
    for s in range(n_subsets):
        part = data.subset_queries(np.arange(s * n_queries, (s + 1) * n_queries))
        y = part.y.copy()
        y[:levels] = np.arange(levels)  # the first query has >= levels documents (docs_min)
        out.append(RankingData(part.X, y, part.query_ptr, part.query_ids, part.docids))
    return out


def _join(lines: list[str], newline: str) -> bytes:
    return (newline.join(lines) + newline).encode("ascii")


def _letor4_subset(data: RankingData, rng, qid_base: int) -> bytes:
    """LETOR 4.0: ``2 qid:10032 1:0.056537 ... 46:0.000000 #docid = GX029-35-5894638 inc = 1
    prob = 0.0137634`` (features with 6 decimals, inc and prob with up to 15 and 6 significant
    digits), CRLF line endings."""
    lines = []
    for i in range(data.n_rows):
        vals = " ".join(f"{j}:{v:.6f}" for j, v in enumerate(data.X[i].astype(np.float64).tolist(), 1))
        inc = "1" if rng.random() < 0.3 else f"{rng.uniform(0.0008, 0.05):.15g}"
        doc = f"GX{rng.integers(0, 272):03d}-{rng.integers(0, 100):02d}-{rng.integers(10**5, 2 * 10**7)}"
        lines.append(f"{int(data.y[i])} qid:{qid_base + int(data.qid[i])} {vals} "
                     f"#docid = {doc} inc = {inc} prob = {rng.uniform(0.005, 1):.6g}")
    return _join(lines, "\r\n")


def _letor3_value(v: float) -> str:
    return f"{v:.6f}"


def _letor3_subsets(data_list, rng, qid_base: int, zero_cols=(), gov: bool = False):
    """(QueryLevelNorm, Feature-null, Feature-min) texts of each subset, LETOR 3.0 style:
    ``0 qid:1 1:0.666667 ... #docid = 57950`` (OHSUMED; Gov docids ``G21-63-2483329``), CRLF.
    Feature-null writes ``NULL`` where a raw value is missing; Feature-min the query minimum of
    the feature's present values there (0 when the whole query lacks it)."""
    norm, null, mins = [], [], []
    for data in data_list:
        m, d = data.X.shape
        raw = np.round(data.X.astype(np.float64) * rng.uniform(1, 40, d) + rng.uniform(0, 5, d), 4)
        missing = np.zeros((m, d), bool)
        for j in rng.choice(d, size=min(4, d), replace=False):
            missing[:, j] = rng.random(m) < 0.25
        filled = raw.copy()
        ptr = data.query_ptr
        for a, b in zip(ptr[:-1], ptr[1:]):
            for j in np.flatnonzero(missing[a:b].any(axis=0)):
                present = raw[a:b, j][~missing[a:b, j]]
                filled[a:b, j][missing[a:b, j]] = present.min() if len(present) else 0.0
        n_l, u_l, f_l = [], [], []
        for i in range(m):
            q = qid_base + int(data.qid[i])
            doc = (f"G{rng.integers(0, 50):02d}-{rng.integers(0, 100):02d}-{rng.integers(10**5, 4 * 10**6)}"
                   if gov else str(int(rng.integers(1, 400000))))
            head, tail = f"{int(data.y[i])} qid:{q}", f"#docid = {doc}"
            x = data.X[i].astype(np.float64)
            n_l.append(" ".join([head] + [f"{j + 1}:" + ("0" if j + 1 in zero_cols else _letor3_value(x[j]))
                                          for j in range(d)] + [tail]))
            u_l.append(" ".join([head] + [f"{j + 1}:" + ("NULL" if missing[i, j] else _letor3_value(raw[i, j]))
                                          for j in range(d)] + [tail]))
            f_l.append(" ".join([head] + [f"{j + 1}:{_letor3_value(filled[i, j])}" for j in range(d)] + [tail]))
        norm.append(_join(n_l, "\r\n"))
        null.append(_join(u_l, "\r\n"))
        mins.append(_join(f_l, "\r\n"))
    return norm, null, mins


def _mslr_subset(data: RankingData, int_cols: np.ndarray, scale: np.ndarray, qid_base: int) -> bytes:
    """MSLR: ``2 qid:1 1:3 2:0 ... 16:6.931275 ... 122:-24.041386 ... 136:0 `` (integers as
    integers, other values with 6 decimals, a space before the LF line end, no comment)."""
    lines = []
    X = data.X.astype(np.float64) * scale
    for i in range(data.n_rows):
        parts = [f"{int(data.y[i])} qid:{qid_base + int(data.qid[i])}"]
        for j in range(data.n_features):
            v = X[i, j]
            parts.append(f"{j + 1}:{int(round(v))}" if int_cols[j] or v == 0 else f"{j + 1}:{v:.6f}")
        lines.append(" ".join(parts) + " ")
    return _join(lines, "\n")


def _yahoo_split(rng, ids: np.ndarray, n_queries: int, qid_start: int, levels: int) -> bytes:
    """Yahoo! C14: ``0 qid:1 10:0.89028 11:0.75088 ...``: sparse (only present features, ids
    ascending), 5 decimals, no comment, LF. Every id of ``ids`` occurs at least once."""
    sizes = rng.integers(levels, 12, n_queries)
    m = int(sizes.sum())
    present = rng.random((m, len(ids))) < 0.3
    present[np.arange(len(ids)) % m, np.arange(len(ids))] = True
    y = rng.integers(0, levels, m)
    y[:levels] = np.arange(levels)
    vals = np.round(rng.uniform(0.00001, 1.0, (m, len(ids))), 5)
    vals[vals == 0] = 0.00001
    lines, row = [], 0
    for q in range(n_queries):
        for _ in range(int(sizes[q])):
            cols = np.flatnonzero(present[row])
            lines.append(" ".join([f"{int(y[row])} qid:{qid_start + q}"]
                                  + [f"{int(ids[c])}:{vals[row, c]:.5f}" for c in cols]))
            row += 1
    return _join(lines, "\n")


def benchmark_files(key: str, *, seed: int = 0, queries_per_subset: int = 3) -> dict[str, bytes]:
    """The files of a small archive laid out like a real benchmark archive.

    Parameters
    ----------
    key : str
        A key of ``BENCHMARKS``.
    seed : int, default 0
        Seed of the feature values and labels.
    queries_per_subset : int, default 3
        Queries in each subset (fold part).

    Returns
    -------
    dict
        Archive member path -> bytes; deterministic given the arguments.
    """
    if key not in BENCHMARKS:
        raise ValueError(f"unknown benchmark archive {key!r}; known: {', '.join(BENCHMARKS)}")
    spec = BENCHMARKS[key]
    rng = np.random.default_rng([seed, sum(key.encode())])
    d, levels, top = spec["n_features"], spec["levels"], spec["top"]
    prefix = f"{top}/" if top else ""
    files: dict[str, bytes] = {}
    if spec["style"] == "letor4":
        subsets = _subset_data(seed, d, levels, queries_per_subset, True)
        texts = [_letor4_subset(s, rng, 10000 + 1000 * k) for k, s in enumerate(subsets)]
        files = {prefix + p: b for p, b in _fold_texts(texts).items()}
    elif spec["style"] == "letor3":
        for k, coll in enumerate(spec.get("collections", [None])):
            subsets = _subset_data(seed + k, d, levels, queries_per_subset, True)
            zero = OHSUMED_ZERO_FEATURES if key == "OHSUMED" else ()
            for s in subsets:
                s.X[:, [j - 1 for j in zero]] = 0.0
            norm, null, mins = _letor3_subsets(subsets, rng, 1, zero, gov=key == "Gov")
            where = f"/{coll}" if coll else ""
            for folder, texts, names in (("QueryLevelNorm", norm, LETOR_SPLITS),
                                         ("Feature-null", null, tuple(RAW_SPLITS.values())),
                                         ("Feature-min", mins, tuple(RAW_SPLITS.values()))):
                for p, b in _fold_texts(texts, names).items():
                    files[f"{prefix}{folder}{where}/{p}"] = b
    elif spec["style"] == "mslr":
        subsets = _subset_data(seed, d, levels, queries_per_subset, False)
        int_cols = np.zeros(d, bool)
        int_cols[:15] = True
        int_cols[-6:] = True
        scale = np.where(int_cols, 50.0, rng.uniform(0.5, 30, d))
        scale[105:125] *= -1  # features 106-125 (language-model scores) are negative in MSLR
        texts = []
        for k, s in enumerate(subsets):
            X = np.abs(s.X.astype(np.float64))
            texts.append(_mslr_subset(RankingData(X.astype(np.float32), s.y, s.query_ptr, s.query_ids, None),
                                      int_cols, scale, 1 + 100 * k))
        files = {prefix + p: b for p, b in _fold_texts(texts).items()}
    else:  # yahoo
        qid = 1
        for number, facts in spec["sets"].items():
            ids = np.sort(rng.choice(np.arange(1, facts["max_id"]), size=facts["n_ids"] - 1, replace=False))
            ids = np.r_[ids, facts["max_id"]]
            for split, n_q in (("train", 3 * queries_per_subset), ("valid", queries_per_subset),
                               ("test", queries_per_subset)):
                files[f"{prefix}set{number}.{split}.txt"] = _yahoo_split(rng, ids, n_q, qid, levels)
                qid += n_q
        files[f"{prefix}readme.txt"] = (b"Yahoo! Learning to Rank Challenge data (stand-in generated by "
                                        b"ltrfs.datasets.synthetic for tests)\n")
    return files


def _rar_block(head_type: int, flags: int, body: bytes) -> bytes:
    head = struct.pack("<BHH", head_type, flags, 7 + len(body)) + body
    return struct.pack("<H", zlib.crc32(head) & 0xFFFF) + head


def write_rar(path, files: dict[str, bytes]) -> Path:
    """Write ``files`` as a RAR 2.9/4.x archive with the "store" method (no compression).

    Names use backslashes and the host OS is Win32, as archives packed on Windows (the LETOR
    ones were). Written from the published RAR 4 format description (marker block, main header
    0x73, file headers 0x74 with CRC32 of the data, end block 0x7B); readers such as bsdtar
    (libarchive), unrar-free, unrar and 7-Zip extract it. No RAR tool is needed.

    Parameters
    ----------
    path, files : path, dict
        The archive to write, and its members (member path -> bytes).

    Returns
    -------
    Path
    """
    dos_time = (2009 - 1980) << 25 | 1 << 21 | 1 << 16
    dirs = set()
    for name in files:
        parts = name.split("/")[:-1]
        dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    blocks = [b"Rar!\x1a\x07\x00", _rar_block(0x73, 0, bytes(6))]
    for name in sorted(dirs):
        raw = name.replace("/", "\\").encode()
        body = struct.pack("<IIBIIBBHI", 0, 0, 2, 0, dos_time, 20, 0x30, len(raw), 0x10) + raw
        blocks.append(_rar_block(0x74, 0x8000 | 0x00E0, body))
    for name, data in files.items():
        raw = name.replace("/", "\\").encode()
        body = struct.pack("<IIBIIBBHI", len(data), len(data), 2, zlib.crc32(data), dos_time, 20, 0x30,
                           len(raw), 0x20) + raw
        blocks += [_rar_block(0x74, 0x8000, body), data]
    blocks.append(_rar_block(0x7B, 0x4000, b""))
    path = Path(path)
    path.write_bytes(b"".join(blocks))
    return path


def write_archive(path, files: dict[str, bytes], fmt: str | None = None) -> Path:
    """Write ``files`` as an archive; the same files give the same archive bytes.

    Entries are written in sorted order with fixed dates.

    Parameters
    ----------
    path, files : path, dict
        The archive to write, and its members (member path -> bytes).
    fmt : str, optional
        zip, rar, tar, tar.gz, tar.bz2 or tar.xz; default: from the file name.

    Returns
    -------
    Path
    """
    path = Path(path)
    fmt = fmt or format_of(path.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "rar":
        return write_rar(path, dict(sorted(files.items())))
    if fmt == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(files):
                info = zipfile.ZipInfo(name, date_time=(2009, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zf.writestr(info, files[name])
        return path
    if fmt in ("tar", "tar.gz", "tar.bz2", "tar.xz"):
        mode = "w" if fmt == "tar" else "w:" + fmt.split(".")[1]
        with tarfile.open(path, mode) as tf:
            for name in sorted(files):
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(files[name]), 1230768000, 0o644
                tf.addfile(info, _io.BytesIO(files[name]))
        return path
    raise ValueError(f"write_archive: cannot write format {fmt!r} (zip, rar, tar, tar.gz, tar.bz2, tar.xz)")


def write_benchmark_archive(key: str, out_dir, *, seed: int = 0, fmt: str | None = None,
                            queries_per_subset: int = 3) -> Path:
    """Write the stand-in of a real benchmark archive under its real name.

    Parameters
    ----------
    key : str
        A key of ``BENCHMARKS``.
    out_dir : path
        Where to write (e.g. ``Gov.rar``, ``ltrc_yahoo.tar.bz2``).
    seed : int, default 0
        Seed of the content.
    fmt : str, optional
        Another format instead of the real one (the name's suffix changes accordingly, e.g.
        ``Gov.zip``).
    queries_per_subset : int, default 3
        Queries in each subset.

    Returns
    -------
    Path
        The archive's path.
    """
    spec = BENCHMARKS[key]
    name = spec["archive"]
    if fmt is not None:
        real = format_of(name)
        name = name[: len(name) - len(real)] + fmt if real != fmt else name
    files = benchmark_files(key, seed=seed, queries_per_subset=queries_per_subset)
    return write_archive(Path(out_dir) / name, files, fmt)

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

The look-alike benchmark archives the tests use (real layouts filled from ``make``) are in
``tests/lookalike_archives.py``.
"""
from __future__ import annotations

import inspect
import json
import os
import tempfile
from pathlib import Path
from statistics import NormalDist

import numpy as np

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
    d = p["n_informative"] + p["n_redundant"] + p["n_noise"] + p["n_constant"]
    return letor_text_mb(p["n_queries"] * mean_docs(**p), d)


def letor_text_mb(rows: float, n_features: int) -> float:
    """About how many MB of LETOR text rows of features take: 13 bytes a value ("12:-3.141593 ")
    and 30 a row (label, qid, comment).

    Parameters
    ----------
    rows : float
    n_features : int

    Returns
    -------
    float
    """
    return float(rows * (13.0 * n_features + 30.0) / 1e6)


def mean_docs(**params) -> float:
    """Documents per query ``generate`` makes on average for ``make``'s parameters (lognormal, clipped)."""
    p = {**generator_parameters(), **params}
    return float(min(max(p["docs_median"] * np.exp(p["docs_sigma"] ** 2 / 2), p["docs_min"]), p["docs_max"]))


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

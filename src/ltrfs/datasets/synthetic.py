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
"""
from __future__ import annotations

import inspect
import json
import os
import tempfile
from pathlib import Path
from statistics import NormalDist

import numpy as np

from ltrfs.data import RankingData

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
    if params["strength_min"] > params["strength_max"]:
        raise ValueError("synthetic: strength_min exceeds strength_max")
    for name in ("docs_median", "docs_sigma", "query_shift", "redundant_noise"):
        if not params[name] >= 0 or (name == "docs_median" and params[name] <= 0):
            raise ValueError(f"synthetic: {name} must be {'> 0' if name == 'docs_median' else '>= 0'}, got {params[name]!r}")


def _thresholds(n_levels: int, relevant_fraction: float, level_ratio: float, sd: float) -> np.ndarray:
    """t_1..t_{R-1} on u ~ N(0, sd^2) giving P(y>=1) = relevant_fraction, geometric level sizes."""
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


def make(*, n_queries: int = 300, n_informative: int = 8, n_redundant: int = 8, n_noise: int = 14,
         n_constant: int = 0, n_levels: int = 3, docs_median: float = 24.0, docs_sigma: float = 0.85,
         docs_min: int = 2, docs_max: int = 300, relevant_fraction: float = 0.3, level_ratio: float = 0.35,
         query_shift: float = 1.0, strength_max: float = 0.9, strength_min: float = 0.3,
         redundant_noise: float = 0.3, max_sources: int = 2, query_norm: bool = True, shuffle: bool = True,
         seed: int = 0) -> tuple[RankingData, dict]:
    """Generate the dataset in memory: ``(RankingData, truth)``; see the module docstring.

    Query ids are 1..n_queries, docids ``S<qid>-<i>`` (i from 1). ``truth`` is what
    ``generate`` writes to truth.json: every feature id (1-based) with its role and parameters.
    Deterministic given the arguments.
    """
    params = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in locals().items()}
    _check(params)
    rng = np.random.default_rng(seed)

    # -- queries and labels
    sizes = np.rint(rng.lognormal(np.log(docs_median), docs_sigma, size=n_queries)).astype(np.int64)
    sizes = np.clip(sizes, docs_min, docs_max)
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    m = int(ptr[-1])
    qrow = np.repeat(np.arange(n_queries), sizes)
    b = rng.normal(0.0, query_shift, size=n_queries)
    z = rng.standard_normal(m)
    u = b[qrow] + z
    t = _thresholds(n_levels, relevant_fraction, level_ratio, float(np.sqrt(1.0 + query_shift ** 2)))
    y = np.searchsorted(t, u, side="left").astype(np.int32)  # number of thresholds below u

    # -- latent feature values (before transform), in role order
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
        if kind == "normal":
            v = rng.standard_normal(m)
        elif kind == "uniform":
            v = rng.uniform(0.0, 1.0, m)
        elif kind == "exponential":
            v = rng.exponential(1.0, m)
        elif kind == "zero_inflated":
            v = rng.exponential(1.0, m) * (rng.uniform(size=m) < 0.3)
        else:
            v = rng.poisson(2.0, m).astype(np.float64)
        cols.append(v)
        specs.append({"role": "noise", "distribution": kind})
    n_var = len(cols)

    # -- monotone transforms and per-query affine maps (rank-preserving within a query)
    X = np.zeros((m, n_var + n_constant), dtype=np.float64)
    for j, v in enumerate(cols):
        kind = TRANSFORMS[int(rng.integers(len(TRANSFORMS)))] if specs[j]["role"] != "noise" else "identity"
        if kind != "identity":
            specs[j]["transform"] = kind
        scale = rng.lognormal(0.0, 0.5, n_queries)
        shift = rng.normal(0.0, 1.0, n_queries)
        X[:, j] = scale[qrow] * _transform(kind, v) + shift[qrow]
    for _ in range(n_constant):
        specs.append({"role": "constant"})
    if query_norm:
        X = _query_minmax(X, ptr)
    X[:, n_var:] = 0.0

    # -- shuffle columns; feature id of role-order column j is position[j] + 1
    d = X.shape[1]
    order = rng.permutation(d) if shuffle else np.arange(d)  # new column c holds old column order[c]
    position = np.empty(d, np.int64)
    position[order] = np.arange(d)
    X = X[:, order]
    X = np.round(X, 6) + 0.0  # the text precision; + 0.0 removes negative zeros

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

    qids = np.arange(1, n_queries + 1, dtype=np.int64)
    within = np.arange(m) - ptr[qrow] + 1
    docids = np.array([f"S{q}-{i}" for q, i in zip(qids[qrow].tolist(), within.tolist())])
    data = RankingData(X=X.astype(np.float32), y=y, query_ptr=ptr, query_ids=qids, docids=docids)

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


def generator_parameters() -> dict:
    """Parameter name -> default of ``make``/``generate`` (the registry's ``generator:`` keys)."""
    return {k: p.default for k, p in inspect.signature(make).parameters.items()}


def format_letor(data: RankingData) -> str:
    """The LETOR text of ``data``: ``label qid:Q 1:v ... d:v #docid = ...``, values with 6 decimals."""
    d = data.n_features
    fmt = "%d qid:%d " + " ".join(f"{j}:%.6f" for j in range(1, d + 1))
    qid = data.qid.tolist()
    y = data.y.tolist()
    X = data.X.astype(np.float64).tolist()
    if data.docids is None:
        lines = [fmt % (y[i], qid[i], *X[i]) for i in range(len(y))]
    else:
        fmt += " #docid = %s"
        docs = data.docids.tolist()
        lines = [fmt % (y[i], qid[i], *X[i], docs[i]) for i in range(len(y))]
    return "\n".join(lines) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def generate(out_dir, **params) -> dict:
    """Write ``out_dir/all.txt`` (LETOR text, comments ``docid = S<q>-<i>``) and
    ``out_dir/truth.json``; return the truth dict. Parameters are those of ``make``
    (defaults: 300 queries, 8 informative, 8 redundant, 14 noise features, 3 label levels,
    seed 0). Byte-identical output for identical parameters. Files are written atomically.
    """
    unknown = sorted(set(params) - set(generator_parameters()))
    if unknown:
        raise ValueError(f"synthetic: unknown parameter {unknown[0]!r}; valid: {', '.join(generator_parameters())}")
    data, truth = make(**params)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _write_atomic(out / DATA_FILE, format_letor(data))
    _write_atomic(out / TRUTH_FILE, json.dumps(truth, indent=1, sort_keys=True) + "\n")
    return truth


generate.__signature__ = inspect.Signature(
    [inspect.Parameter("out_dir", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + list(inspect.signature(make).parameters.values()),
    return_annotation=dict,
)

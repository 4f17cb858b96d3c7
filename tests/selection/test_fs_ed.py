"""FS-ED: Silverman bandwidths, class KDEs, Jensen-Shannon divergences, the label-distance
weighting, chunked scoring and the selector (SPEC section 3, FS-ED)."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from conftest import planted
from ltrfs import scoring
from ltrfs.checks import NeedsValidation
from ltrfs.ranking_data import DataError
from ltrfs.datasets import synthetic
from ltrfs.io import read_letor
from ltrfs.scoring import divergence as dv
from ltrfs.selection.fs_ed import FSED


def naive_divergence(Xt, yt, Xv, points="vali", grid_size=512):
    """Oracle: every class density summed over all training rows (O(M x points)) with numpy."""
    labels = np.unique(yt)
    out = []
    for f in range(Xt.shape[1]):
        x, xv = Xt[:, f].astype(float), Xv[:, f].astype(float)
        if x.min() == x.max():
            out.append(0.0)
            continue
        hs = dv.class_bandwidths(x, yt)
        if points == "vali":
            pts = xv
        else:
            pts = np.linspace(min(x.min(), xv.min()), max(x.max(), xv.max()), grid_size)
        probs = []
        for r in labels:
            z = (pts[:, None] - x[yt == r][None, :]) / hs[int(r)]
            k = np.exp(-0.5 * z * z).sum(1)
            probs.append(k / k.sum())
        d = 0.0
        for a in range(len(labels)):
            for b in range(a + 1, len(labels)):
                d += (labels[b] - labels[a]) * dv.js_divergence(probs[a], probs[b])
        out.append(d)
    return np.array(out)


def mixed_columns(rng, m, y=None):
    """Five feature shapes: shifted normal, exponential, rounded uniform (ties), zero-inflated
    (IQR 0 in some classes), Poisson counts."""
    shift = 0 if y is None else y
    cols = [rng.normal(size=m) + 0.5 * shift, rng.exponential(size=m), np.round(rng.uniform(size=m), 2),
            (rng.uniform(size=m) < 0.3) * rng.exponential(size=m) * (1 + shift), rng.poisson(2, size=m)]
    return np.column_stack(cols).astype(np.float32)


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    yt = rng.integers(0, 3, 1500)
    return mixed_columns(rng, 1500, yt), yt, mixed_columns(rng, 500)


# ----------------------------------------------------------------------------- bandwidth and KDE

def test_silverman_bandwidth_hand_cases():
    # 1..10: std (ddof 1) = sqrt(55/6) = 3.028 < IQR/1.34 = (7.75 - 3.25)/1.34 = 3.358
    assert dv.silverman_bandwidth(np.arange(1, 11)) == pytest.approx(0.9 * math.sqrt(55 / 6) * 10 ** -0.2, rel=1e-14)
    # an outlier: IQR/1.34 = (3 - 1)/1.34 = 1.493 < std = 44.06
    assert dv.silverman_bandwidth([0, 1, 2, 3, 100]) == pytest.approx(0.9 * 2 / 1.34 * 5 ** -0.2, rel=1e-14)
    # IQR 0 (mostly zeros) falls back to the std
    x = np.r_[np.zeros(8), 1.0, 3.0]
    assert dv.silverman_bandwidth(x) == pytest.approx(0.9 * x.std(ddof=1) * 10 ** -0.2, rel=1e-14)
    assert dv.silverman_bandwidth(np.full(7, 2.5)) == 0.0


def test_class_bandwidth_fallback_for_a_constant_class():
    x = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 5.0, 5.0])
    y = np.array([0, 0, 0, 0, 1, 1, 1])
    hs = dv.class_bandwidths(x, y)
    assert hs[0] == pytest.approx(dv.silverman_bandwidth(x[:4]), rel=1e-14)
    # class 1 is constant: A from all rows, std = sqrt(26/6) = 2.08 < IQR/1.34 = (5 - 1.5)/1.34
    # = 2.61, with the class's own M_1 = 3
    assert hs[1] == pytest.approx(0.9 * math.sqrt(26 / 6) * 3 ** -0.2, rel=1e-14)
    assert dv.class_bandwidths(np.ones(4), [0, 1, 0, 1]) == {0: 0.0, 1: 0.0}


def test_kde_matches_scipy_gaussian_kde_and_the_direct_sum():
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(size=150), rng.normal(4, 0.5, size=50)]
    h = dv.silverman_bandwidth(x)
    pts = np.r_[np.linspace(-5, 9, 57), x[:5]]  # unsorted, with sample values
    ours = dv.kde(x, pts, h)
    ref = stats.gaussian_kde(x, bw_method=h / x.std(ddof=1))(pts)  # kernel sd = factor * std = h
    direct = np.exp(-0.5 * ((pts[:, None] - x[None, :]) / h) ** 2).sum(1) / (x.size * h * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(ours, direct, rtol=1e-12, atol=1e-300)


# ----------------------------------------------------------------------------- JS divergence

def test_js_properties():
    rng = np.random.default_rng(2)
    p, q = rng.random(30), rng.random(30)
    assert dv.js_divergence(p, p) == 0.0
    assert dv.js_divergence(p, q) == pytest.approx(dv.js_divergence(q, p), abs=1e-15)
    assert 0 < dv.js_divergence(p, q) < 1
    assert dv.js_divergence([1, 2, 0, 0], [0, 0, 3, 1]) == pytest.approx(1.0, abs=1e-15)  # bits
    # against scipy's Jensen-Shannon distance (sqrt of the divergence), base 2
    from scipy.spatial.distance import jensenshannon
    assert dv.js_divergence(p, q) == pytest.approx(jensenshannon(p, q, base=2) ** 2, rel=1e-12)


def test_js_of_two_kdes_matches_numerical_integration():
    """Grid mode on a fine grid (4001 points) reproduces the continuous JS of the two class KDEs,
    integrated with quad. The grid spans +-12 bandwidths beyond the data (tail mass < 1e-32) and
    the Riemann sum of this smooth integrand converges fast: tolerance 1e-6 bits."""
    rng = np.random.default_rng(3)
    x0, x1 = rng.normal(0, 1, 60), rng.normal(1.5, 0.7, 40)
    x = np.r_[x0, x1].astype(np.float32)
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    hs = dv.class_bandwidths(x, y)
    x0, x1 = x[:60].astype(float), x[60:].astype(float)
    lo, hi = x.min() - 12 * max(hs.values()), x.max() + 12 * max(hs.values())
    Xv = np.array([[lo], [hi]], np.float32)  # only widens the grid's range
    lo, hi = float(Xv[0, 0]), float(Xv[1, 0])

    def integrand(t):
        p, q = dv.kde(x0, [t], hs[0])[0], dv.kde(x1, [t], hs[1])[0]
        a = 0.5 * (p + q)
        return 0.5 * ((p * math.log2(p / a) if p > 0 else 0.0) + (q * math.log2(q / a) if q > 0 else 0.0))

    want = integrate.quad(integrand, lo, hi, limit=500, epsabs=1e-11, points=np.sort(x.astype(float)))[0]
    got = dv.expected_divergence(x[:, None], y, Xv, points="grid", grid_size=4001)[0]
    assert 0.2 < want < 0.9
    assert got == pytest.approx(want, abs=1e-6)


def test_two_single_rows_hand_case():
    """Class 0 = {0}, class 1 = {1}: both constant, so h = 0.9 * A * 1 with A from all rows
    (std 0.707 > IQR/1.34 = 0.5/1.34). At vali points {0, 1}: p = (1, e)/(1 + e),
    q = (e, 1)/(1 + e) with e = exp(-1/(2 h^2)), a = (1/2, 1/2), so JS = 1 - H2(1/(1 + e))."""
    h = 0.9 * 0.5 / 1.34
    e = math.exp(-0.5 / h ** 2)
    p0 = 1 / (1 + e)
    want = 1 + p0 * math.log2(p0) + (1 - p0) * math.log2(1 - p0)
    got = dv.expected_divergence(np.array([[0.0], [1.0]]), [0, 1], np.array([[0.0], [1.0]]))[0]
    assert got == pytest.approx(want, rel=1e-13)


def test_label_distance_weighting_three_classes():
    rng = np.random.default_rng(4)
    centres = {0: 0.0, 1: 50.0, 2: 100.0}

    def make(assign):  # rows of each label drawn around centres[assign[label]]
        y = np.repeat([0, 1, 2], 40)
        x = np.array([centres[assign[int(r)]] for r in y]) + rng.normal(0, 1, y.size)
        return x[:, None], y

    pts = np.r_[rng.normal(0, 1, 30), rng.normal(50, 1, 30), rng.normal(100, 1, 30)][:, None]
    # three disjoint classes: every JS is 1 bit -> d = (1-0) + (2-0) + (2-1) = 4
    x, y = make({0: 0, 1: 1, 2: 2})
    assert dv.expected_divergence(x, y, pts)[0] == pytest.approx(4.0, abs=1e-12)
    # classes 0 and 1 drawn from one distribution (JS ~ 0), class 2 apart -> d ~ 2 + 1 = 3
    x, y = make({0: 0, 1: 0, 2: 2})
    d = dv.expected_divergence(x, y, pts)[0]
    assert 3.0 < d < 3.2
    # the weights are label differences: the pairs (0,1), (0,2), (1,2) weigh 1, 2, 1
    x0, x1, x2 = (x[y == r, 0] for r in (0, 1, 2))
    hs = dv.class_bandwidths(x[:, 0], y)
    pr = [dv.kde(xr, pts[:, 0], hs[r]) for r, xr in enumerate((x0, x1, x2))]
    js = {(a, b): dv.js_divergence(pr[a], pr[b]) for a, b in ((0, 1), (0, 2), (1, 2))}
    assert d == pytest.approx(js[0, 1] + 2 * js[0, 2] + js[1, 2], rel=1e-12)
    assert js[0, 2] == pytest.approx(1.0, abs=1e-12)
    # labels absent from train contribute nothing; {0, 2} alone: one pair of weight 2
    keep = y != 1
    x, y2 = make({0: 0, 1: 1, 2: 2})
    assert dv.expected_divergence(x[keep], y2[keep], pts)[0] == pytest.approx(2.0, abs=1e-12)
    # one class only, or a constant feature: no divergence
    assert dv.expected_divergence(x[y2 == 0], y2[y2 == 0], pts)[0] == 0.0
    assert dv.expected_divergence(np.ones((120, 1)), y2, pts)[0] == 0.0


# ----------------------------------------------------------------------------- exact, approx, chunks

def test_exact_matches_the_full_sum(small):
    Xt, yt, Xv = small
    np.testing.assert_allclose(dv.expected_divergence(Xt, yt, Xv), naive_divergence(Xt, yt, Xv), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(dv.expected_divergence(Xt, yt, Xv, points="grid", grid_size=300),
                               naive_divergence(Xt, yt, Xv, "grid", 300), rtol=1e-10, atol=1e-14)


def test_features_argument_and_threads(small):
    Xt, yt, Xv = small
    whole = dv.expected_divergence(Xt, yt, Xv)
    assert np.array_equal(dv.expected_divergence(Xt, yt, Xv, features=[4, 1]), whole[[4, 1]])
    assert np.array_equal(dv.expected_divergence(Xt, yt, Xv, features=slice(1, 3)), whole[1:3])
    assert np.array_equal(dv.expected_divergence(Xt, yt, Xv, n_threads=2), whole)
    assert dv.expected_divergence(Xt, yt, Xv, features=[]).shape == (0,)


@pytest.mark.parametrize("points", ["vali", "grid"])
def test_approx_within_1e3_of_exact(small, points):
    Xt, yt, Xv = small
    exact = dv.expected_divergence(Xt, yt, Xv, points=points)
    approx = dv.expected_divergence(Xt, yt, Xv, points=points, approx=True)
    assert np.abs(approx - exact).max() < 1e-3
    assert np.abs(approx - exact).max() > 0  # it is a different computation


def test_approx_far_class_falls_back_to_exact():
    """A class far in the tail of every point (binned values vanish) is evaluated exactly."""
    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(0, 1, 200), rng.normal(30, 0.01, 50)][:, None]
    y = np.r_[np.zeros(200, int), np.ones(50, int)]
    pts = rng.normal(0, 1, (100, 1))
    exact = dv.expected_divergence(x, y, pts)[0]
    assert dv.expected_divergence(x, y, pts, approx=True)[0] == pytest.approx(exact, abs=1e-3)
    assert 0.5 < exact < 1.0  # class 1 concentrates on the largest points, still overlapping class 0


def test_synthetic_approx_and_auto():
    data, _ = synthetic.make(n_queries=120, n_levels=5, seed=7)
    tr, va = data.subset_queries(np.arange(90)), data.subset_queries(np.arange(90, 120))
    exact = dv.expected_divergence(tr.X, tr.y, va.X)
    approx = dv.expected_divergence(tr.X, tr.y, va.X, approx=True)
    assert np.abs(approx - exact).max() < 1e-3
    assert np.array_equal(dv.expected_divergence(tr.X, tr.y, va.X, approx="auto"), exact)  # small: exact


def test_scorer_chunks_equal_whole_and_merge_checks():
    data = planted(n_queries=30, d=7, informative=(1, 4), seed=2)
    tr, va = data.subset_queries(np.arange(20)), data.subset_queries(np.arange(20, 30))
    whole = dv.scorer(tr, va, "letor4")
    assert whole["divergence"].shape == (7,) and str(whole["points"]) == "vali"
    chunks = [dv.scorer_chunk(tr, va, "letor4", c, 3) for c in range(3)]
    assert [c["features"].tolist() for c in chunks] == [[0, 1, 2], [3, 4], [5, 6]]
    assert np.isnan(chunks[1]["divergence"][[0, 1, 2, 5, 6]]).all()
    assert np.array_equal(dv.merge_chunks(chunks[::-1])["divergence"], whole["divergence"])
    with pytest.raises(ValueError, match=r"feature 4 \(column 3\) is covered by no chunk \(2 features missing\)"):
        dv.merge_chunks([chunks[0], chunks[2]])
    with pytest.raises(ValueError, match=r"feature 6 \(column 5\) is covered twice \(chunks 2 and 3\)"):
        dv.merge_chunks(chunks + [chunks[2]])
    with pytest.raises(ValueError, match="needs the validation split"):
        dv.scorer(tr, None, "letor4")
    with pytest.raises(ValueError, match=r"chunk 3 is outside 0\.\.2"):
        dv.scorer_chunk(tr, va, "letor4", 3, 3)
    # more chunks than features: empty chunks merge fine
    many = [dv.scorer_chunk(tr, va, "letor4", c, 9) for c in range(9)]
    assert np.array_equal(dv.merge_chunks(many)["divergence"], whole["divergence"])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"X_vali": None}, ValueError, "points='vali' needs X_vali"),
    ({"features": [0, 9]}, ValueError, r"column index 9 is outside 0\.\.4"),
    ({"points": "train"}, ValueError, "points must be one of vali, grid"),
    ({"approx": "fast"}, ValueError, "approx must be True, False or 'auto'"),
    ({"n_threads": 0}, ValueError, "n_threads must be an integer >= 1"),
    ({"y_train": np.full(1500, 0.5)}, ValueError, "y_train must hold integer relevance labels"),
])
def test_input_errors(small, kwargs, error, message):
    Xt, yt, Xv = small
    args = {"X_train": Xt, "y_train": yt, "X_vali": Xv, **kwargs}
    with pytest.raises(error, match=message):
        dv.expected_divergence(**args)


def test_nan_is_a_data_error(small):
    Xt, yt, Xv = small
    Xt = Xt.copy()
    Xt[7, 3] = np.nan
    with pytest.raises(DataError, match=r"X_train: feature 4 \(column 3\) has NaN or infinite values"):
        dv.expected_divergence(Xt, yt, Xv)
    assert dv.expected_divergence(Xt, yt, Xv, features=[0]).shape == (1,)  # other columns are fine


def test_class_densities_for_the_figure():
    rng = np.random.default_rng(6)
    x = np.r_[rng.normal(0, 1, 300), rng.normal(3, 0.5, 100), np.full(20, 1.0)]
    y = np.r_[np.zeros(300, int), np.ones(100, int), np.full(20, 2)]
    pts = dv.density_points(x, y, 801)
    dens = dv.class_densities(x, y, pts)
    assert sorted(dens) == [0, 1, 2]
    for r, curve in dens.items():
        assert curve.shape == (801,)
        assert np.trapezoid(curve, pts) == pytest.approx(1.0, rel=1e-12)
    assert pts[np.argmax(dens[1])] == pytest.approx(3.0, abs=0.3)
    assert pts[np.argmax(dens[2])] == pytest.approx(1.0, abs=0.05)  # constant class: pooled-spread kernel
    assert np.array_equal(dv.class_densities(x, y, 801)[1], dens[1])
    with pytest.raises(ValueError, match="points must be sorted ascending"):
        dv.class_densities(x, y, pts[::-1])


# ----------------------------------------------------------------------------- the selector

def split(data, n_train):
    return data.subset_queries(np.arange(n_train)), data.subset_queries(np.arange(n_train, data.n_queries))


def test_fs_ed_finds_planted_features():
    """Planted informative + redundant features (16 of 30) fill the top 16: precision@16 >= 0.9
    (observed 1.0 on seeds 0-3); and the top 8 hold no noise feature."""
    data, truth = synthetic.make(n_queries=200, seed=0)
    tr, va = split(data, 150)
    sel = FSED().fit(tr.X, tr.y, tr.qid, X_val=va.X, y_val=va.y, qid_val=va.qid)
    useful = np.r_[truth["informative"], truth["redundant"]] - 1
    noise = np.array(truth["noise"]) - 1
    assert np.isin(sel.ranking_[:16], useful).mean() >= 0.9
    assert not np.isin(sel.ranking_[:8], noise).any()
    assert sel.scores_ == pytest.approx(sel.s_ + sel.d_)
    assert sel.chosen_ == {}
    assert sel.support(5).tolist() == sel.ranking_[:5].tolist()


def test_fs_ed_reads_precomputed_scores_and_scales():
    data = planted(n_queries=30, d=4, seed=3)
    tr, va = split(data, 20)
    table = {k: v.copy() for k, v in scoring.single_feature_table(tr.X, tr.y, tr.query_ptr).items()}
    table["ndcg@10"][:] = [0.5, 0.2, 0.4, 0.1]
    table["convention"] = np.array("letor4")
    table["ties"] = np.array("expected")
    div = {"divergence": np.array([0.0, 0.4, 0.1, 0.3]), "points": np.array("vali")}
    pre = {"single_feature": table, "divergence": div}
    sel = FSED().fit(tr.X, tr.y, tr.qid, precomputed=pre)  # no X_val needed
    assert sel.scores_.tolist() == pytest.approx([0.5, 0.6, 0.5, 0.4])
    assert sel.ranking_.tolist() == [1, 0, 2, 3]  # tie 0.5: lower index first
    assert sel.s_.tolist() == [0.5, 0.2, 0.4, 0.1] and sel.d_.tolist() == [0.0, 0.4, 0.1, 0.3]
    mm = FSED(scale="minmax").fit(tr.X, tr.y, tr.qid, precomputed=pre)
    assert mm.scores_ == pytest.approx([1 + 0, 0.25 + 1, 0.75 + 0.25, 0 + 0.75])
    # a cached divergence on other points is recomputed (grid mode needs no X_val)
    grid = FSED(points="grid").fit(tr.X, tr.y, tr.qid, precomputed=pre)
    assert grid.d_ == pytest.approx(dv.expected_divergence(tr.X, tr.y, None, points="grid"))
    # computed without precomputed: equal to the scorer
    own = FSED().fit(tr.X, tr.y, tr.qid, X_val=va.X)
    assert np.array_equal(own.d_, dv.scorer(tr, va, "letor4")["divergence"])
    bad = {"divergence": {"divergence": np.array([0.1, np.nan, 0.2, 0.3])}}
    with pytest.raises(ValueError, match="no value for feature 2 .*merge_chunks"):
        FSED().fit(tr.X, tr.y, tr.qid, X_val=va.X, precomputed=bad)
    with pytest.raises(ValueError, match=r"^fs_ed: points='vali' compares the class densities at the validation "
                                         r"rows: pass X_val to fit, or set points='grid'$") as caught:
        FSED().fit(tr.X, tr.y, tr.qid)
    assert isinstance(caught.value, NeedsValidation)


@pytest.mark.parametrize("params, message", [
    ({"metric": "ndcg@11"}, r"^fs_ed: metric must be one of p@1, .*, meanndcg \(any case\); got 'ndcg@11'$"),
    ({"points": "test"}, "^fs_ed: points must be one of vali, grid; got 'test'$"),
    ({"scale": "zscore"}, "^fs_ed: scale must be one of none, minmax; got 'zscore'$"),
    ({"convention": "trec"}, r"^fs_ed: convention must be a metric convention \(letor3, letor4, mslr, standard or lyu2024\); got 'trec'$"),
    ({"approx": "yes"}, "^fs_ed: approx must be true or false or auto; got 'yes'$"),
    ({"n_jobs": -1}, "n_jobs must be an integer >= 1"),
])
def test_fs_ed_parameter_errors(params, message):
    with pytest.raises(ValueError, match=message):
        FSED(**params).validate_params()


def test_mq2008_fold1(mq2008_dir):
    tr = read_letor(mq2008_dir / "Fold1" / "train.txt")
    va = read_letor(mq2008_dir / "Fold1" / "vali.txt")
    exact = dv.expected_divergence(tr.X, tr.y, va.X, n_threads=2)
    approx = dv.expected_divergence(tr.X, tr.y, va.X, approx=True, n_threads=2)
    assert np.abs(approx - exact).max() < 1e-3
    constant = np.flatnonzero(tr.X.min(0) == tr.X.max(0))
    assert constant.size and np.all(exact[constant] == 0.0)
    assert np.all(exact >= 0) and exact.max() < 3  # 3 labels: at most 1 + 2 + 1 = 4


def test_js_with_a_subnormal_probability():
    """(a + b) / 2 underflows to 0 for a subnormal b: the divergence must stay finite (it raised
    ZeroDivisionError inside the compiled code on a 5-level set with tiny classes)."""
    from ltrfs.scoring.divergence import _js

    tiny = 5e-324
    p, q, counts = np.array([1.0, 0.0]), np.array([1.0 - tiny, tiny]), np.ones(2)
    assert _js(p, q, counts) == pytest.approx(0.0, abs=1e-12)
    assert _js(np.array([1.0, 0.0]), np.array([0.0, 1.0]), counts) == pytest.approx(1.0)

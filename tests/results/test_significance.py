"""Our comparisons (ltrfs.results.significance): paired differences with intervals, non-inferiority, Holm,
every pair of many systems; hand-computed values and constructed cases with known answers."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ltrfs.results.significance import bayesian_signed_rank, holm, paired_difference, pairwise


def test_paired_difference_by_hand():
    """d = (0.05, -0.02, 0.04, 0.01): mean 0.02, sd sqrt(0.001), se sqrt(0.001)/2, 3 degrees of freedom."""
    d = paired_difference([0.5, 0.6, 0.7, 0.8], [0.45, 0.62, 0.66, 0.79], margin=0.05)
    se = math.sqrt(0.001) / 2
    t3 = stats.t(3)
    assert d.mean == pytest.approx(0.02) and d.n == 4
    assert (d.low, d.high) == pytest.approx((0.02 - t3.ppf(0.975) * se, 0.02 + t3.ppf(0.975) * se))
    assert d.p == pytest.approx(2 * t3.sf(0.02 / se))
    assert d.p_noninferior == pytest.approx(t3.sf((0.02 + 0.05) / se))  # H0: mean <= -0.05


def test_constant_differences_have_an_answer():
    same = paired_difference([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], margin=0.01)
    assert (same.mean, same.low, same.high, same.p, same.p_noninferior) == (0.0, 0.0, 0.0, 1.0, 0.0)
    lower = paired_difference([0.1, 0.2, 0.3], [0.15, 0.25, 0.35], margin=0.01)  # always 0.05 below
    assert (lower.p, lower.p_noninferior) == (0.0, 1.0)
    assert paired_difference([0.1, 0.2], [0.105, 0.205], margin=0.01).p_noninferior == 0.0  # within the margin
    rounding = paired_difference([0.1, 0.2], [0.105, 0.205])  # -0.005 twice, to rounding: constant
    assert rounding.low == rounding.high == rounding.mean and rounding.p == 0.0


def test_bad_input_is_one_line():
    with pytest.raises(ValueError, match="equal length >= 2"):
        paired_difference([0.1], [0.2])
    with pytest.raises(ValueError, match="finite"):
        paired_difference([0.1, np.nan], [0.2, 0.3])
    with pytest.raises(ValueError, match="margin must be >= 0"):
        paired_difference([0.1, 0.2], [0.2, 0.3], margin=-0.1)
    with pytest.raises(ValueError, match="every system needs a value"):
        pairwise(pd.DataFrame({"a": [0.1, np.nan], "b": [0.2, 0.3]}))


def test_holm_by_hand():
    """Sorted p 0.01, 0.02, 0.03, 0.04 of four tests: 0.04, 0.06, 0.06 (made monotone), 0.06."""
    assert holm([0.03, 0.01, 0.04, 0.02]) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]
    out = holm([np.nan, 0.01, np.nan])
    assert np.isnan(out[[0, 2]]).all() and out[1] == 0.01  # a family of one test
    assert holm([np.nan]).shape == (1,) and np.isnan(holm([np.nan])[0])


def test_identical_systems_are_never_separated_and_a_planted_better_one_is():
    """300 queries, systems a and b identical, c = a + 0.03 + noise: a-b never differs (p 1), c
    differs from both after Holm; the interval of c - a holds the planted 0.03."""
    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, 300)
    values = pd.DataFrame({"a": a, "b": a.copy(), "c": np.clip(a + 0.03 + rng.normal(0, 0.05, 300), -1, 2)})
    pairs = pairwise(values).set_index(["a", "b"])
    assert pairs.loc[("a", "b"), "p_holm"] == 1.0 and pairs.loc[("a", "b"), "mean"] == 0.0
    assert pairs.loc[("a", "c"), "p_holm"] < 1e-6 and pairs.loc[("b", "c"), "p_holm"] < 1e-6
    assert pairs.loc[("a", "c"), "low"] < -0.03 + 0.01 and pairs.loc[("a", "c"), "high"] > -0.03 - 0.01
    assert (pairs.p_holm >= pairs.p).all() and (pairs.n == 300).all()


def test_not_significantly_below_is_not_as_good_as():
    """Ten queries, a loses 0.02 on average with a spread of 0.1: the two-sided test cannot tell
    (p > 0.05), and neither can the non-inferiority test at a 0.01 margin (p > 0.05): no claim
    either way. With 2,000 queries of the same kind the loss is shown, and no non-inferiority."""
    rng = np.random.default_rng(3)
    b = rng.uniform(0.2, 0.8, 10)
    noise = rng.normal(0, 0.1, 10)
    a = b - 0.02 + noise - noise.mean()  # mean loss exactly 0.02
    small = paired_difference(a, b, margin=0.01)
    assert small.mean == pytest.approx(-0.02) and small.p > 0.05 and small.p_noninferior > 0.05
    b = rng.uniform(0.2, 0.8, 2000)
    noise = rng.normal(0, 0.1, 2000)
    large = paired_difference(b - 0.02 + noise - noise.mean(), b, margin=0.01)
    assert large.p < 1e-6 and large.p_noninferior > 0.5


def _naive_signed_rank(w, z, rope):
    """The Bayesian signed-rank test's three probabilities of one posterior sample w, pair by pair."""
    left = right = 0.0
    for i in range(len(z)):
        for j in range(len(z)):
            mean = (z[i] + z[j]) / 2
            share = 0.5 if abs(mean) == rope else 1.0
            right += w[i] * w[j] * share * (mean >= rope)
            left += w[i] * w[j] * share * (mean <= -rope)
    return left, 1 - left - right, right


def test_bayesian_signed_rank_against_a_pair_by_pair_oracle():
    """The vectorised test equals the pair-by-pair sums over the same posterior samples."""
    d = np.array([0.012, -0.004, 0.03, 0.01, -0.02])  # 0.01 sits on the rope's edge
    samples, rope = 2000, 0.01
    w = np.random.default_rng(7).dirichlet(np.r_[0.5, np.ones(d.size)], size=samples)
    z = np.r_[0.0, d]
    winners = np.bincount([np.argmax(_naive_signed_rank(row, z, rope)) for row in w], minlength=3) / samples
    assert bayesian_signed_rank(d, rope=rope, samples=samples, seed=7) == pytest.approx(tuple(winners))


def test_bayesian_signed_rank_known_answers():
    """Equal systems are practically equivalent; a planted loss beyond the rope on every dataset is
    found; one dataset cannot say much; the same seed gives the same answer."""
    assert bayesian_signed_rank(np.zeros(4), rope=0.01) == (0.0, 1.0, 0.0)
    assert bayesian_signed_rank(np.full(6, -0.05), rope=0.01)[0] > 0.99
    assert bayesian_signed_rank(np.full(6, 0.05), rope=0.01)[2] > 0.99
    one = bayesian_signed_rank([-0.05], rope=0.01)
    assert max(one) < 0.9 and one[1] > 0  # the prior's pseudo-dataset at 0 still weighs
    mixed = [0.03, -0.03, 0.02, -0.02]
    assert bayesian_signed_rank(mixed, rope=0.01, seed=3) == bayesian_signed_rank(mixed, rope=0.01, seed=3)
    assert sum(bayesian_signed_rank(mixed, rope=0.01)) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="finite"):
        bayesian_signed_rank([np.nan, 0.1], rope=0.01)

"""The compiled products of ``ltrfs.rankers.data_matrix`` against plain Python sums."""
import numpy as np
import pytest

from ltrfs.rankers.data_matrix import matvec, matvec_columns, rmatvec, scores_of


def _row_sums(X, w):
    """X @ w, each row summed over j = 0..d-1 in order in float64 (the kernels' contract)."""
    out = np.empty(X.shape[0])
    for i, row in enumerate(X):
        acc = 0.0
        for x, v in zip(row.tolist(), w.tolist()):
            acc += x * v
        out[i] = acc
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [1, 3, 4, 5, 8, 11])
def test_matvec_sums_each_row_in_order(m, dtype):
    """Rows in blocks of four and the rest one by one: every row bit for bit the in-order sum."""
    rng = np.random.default_rng(m)
    X = (rng.standard_normal((m, 17)) * 10.0 ** rng.integers(-6, 6, size=(m, 17))).astype(dtype)
    w = rng.standard_normal(17) * 10.0 ** rng.integers(-6, 6, size=17)
    out = np.full(m, np.nan)
    matvec(X, w, out)
    assert np.array_equal(out, _row_sums(X, w))
    assert np.array_equal(scores_of(X, w), out) or dtype == np.float64  # float64 X: BLAS's order


def test_rmatvec_skips_zero_weights_and_sums_rows_in_order():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((9, 5)).astype(np.float32)
    c = rng.standard_normal(9)
    c[[1, 4]] = 0.0
    out = np.full(5, np.nan)
    rmatvec(X, c, out)
    assert np.array_equal(out, _row_sums(X.T, c))


@pytest.mark.parametrize("m", [1, 5, 33])
def test_matvec_columns_is_matvec_of_the_columns_bit_for_bit(m):
    """X[:, cols] @ w from the transposed copy, column by column: every row the same in-order
    sum as ``matvec`` of the gathered columns, zero weights (either sign) skipped exactly."""
    rng = np.random.default_rng(m)
    X = (rng.standard_normal((m, 12)) * 10.0 ** rng.integers(-6, 6, size=(m, 12))).astype(np.float32)
    X[:, 3] = 0.0
    cols = np.array([7, 0, 3, 11, 5], dtype=np.int64)  # any order: the sum follows cols
    w = rng.standard_normal(5) * 10.0 ** rng.integers(-6, 6, size=5)
    w[1], w[4] = 0.0, -0.0
    out, expected = np.full(m, np.nan), np.full(m, np.nan)
    matvec_columns(np.ascontiguousarray(X.T), cols, w, out)
    matvec(np.ascontiguousarray(X[:, cols]), w, expected)
    assert np.array_equal(out, expected) and np.array_equal(out, _row_sums(X[:, cols], w))
    assert not np.signbit(out[np.flatnonzero(out == 0)]).any()  # a sum from +0.0 never turns -0.0

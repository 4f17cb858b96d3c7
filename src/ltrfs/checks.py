"""Input checks shared by rankers and selectors: one-line ``ValueError`` messages at the edge.

Inputs of every estimator (``fit(X, y, qid, X_val=None, y_val=None, qid_val=None)``):

    X    (m, d) finite numbers within float32's range, one row per query-document pair
    y    (m,) integer relevance labels (integer-valued floats are accepted)
    qid  (m,) query id of every row (no NaN or inf); the rows of one query must be contiguous

Feature values beyond float32's range (about 3.4e38, the range of the data files) are refused
(``check_magnitude``): squares and sums of such values overflow even in float64 (a value of
1e200 made correlations NaN and ranked the feature last without a word). Float32 input whose
values exceed ``WIDEN_ABOVE`` (1e15) is computed in float64: a difference or a sum of squares
of such values can overflow float32 (±3e38 made a method fail with an IndexError or report a
degenerate grid).

The checks depend only on NumPy and the dataset module, so that selectors and rankers both
import them without importing each other.
"""
from __future__ import annotations

import numpy as np

from ltrfs.ranking_data import query_ptr_from_qid


FLOAT32_MAX = float(np.finfo(np.float32).max)
#: float32 X with a value larger than this (in magnitude) is widened to float64: the squares of
#: such values summed over 10**8 rows stay within float32's range
WIDEN_ABOVE = 1e15


def check_magnitude(X, what: str = "X") -> np.ndarray:
    """X refused when not finite or beyond float32's range, and widened to float64 where float32
    could overflow (one pass over X: its largest and smallest value).

    Parameters
    ----------
    X : ndarray, shape (m, d)
        Features (numeric).
    what : str, default "X"
        The argument's name in error messages.

    Returns
    -------
    ndarray
        ``X`` itself, or a float64 copy of a float32 ``X`` whose largest magnitude exceeds
        ``WIDEN_ABOVE``.

    Raises
    ------
    ValueError
        One line: X does not hold numbers, or the first NaN or inf, or the first value beyond
        float32's range (row and feature column).

    Examples
    --------
    >>> import numpy as np
    >>> check_magnitude(np.array([[3e38, 1.0]], dtype=np.float32)).dtype
    dtype('float64')
    >>> check_magnitude(np.array([[1e39, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: X holds 1e+39 at row 0, feature column 0: beyond float32's range (about 3.4e+38) in which ltrfs computes; rescale the feature
    >>> check_magnitude(np.array([[1.0, 2.0], [np.nan, 3.0]]), "X_val")
    Traceback (most recent call last):
    ...
    ValueError: X_val contains NaN or inf (first at row 1, feature column 0); clean the data first
    """
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold numbers; got dtype {X.dtype}")
    if X.dtype.kind != "f" or X.size == 0:
        return X
    with np.errstate(invalid="ignore"):
        top = max(float(np.max(X)), -float(np.min(X)))
    if not np.isfinite(top):  # a NaN propagates through max and min, an inf is the extreme
        _refuse_not_finite(X, what)
    if top > FLOAT32_MAX:
        row, col = np.argwhere(np.abs(X) > FLOAT32_MAX)[0]
        raise ValueError(f"{what} holds {X[row, col]:.6g} at row {row}, feature column {col}: beyond float32's "
                         f"range (about {FLOAT32_MAX:.2g}) in which ltrfs computes; rescale the feature")
    if X.dtype == np.float32 and top > WIDEN_ABOVE:
        return X.astype(np.float64)
    return X


def check_qid_values(qid, what: str = "qid") -> np.ndarray:
    """``qid`` as an array, refused in one line when a float id is NaN or infinite.

    Parameters
    ----------
    qid : array_like, shape (m,)
        Query ids.
    what : str, default "qid"
        The argument's name in error messages.

    Returns
    -------
    ndarray
        The ids.

    Raises
    ------
    ValueError
        For a NaN or infinite id, with its row (NaN would make every row a query of its own).
    """
    qid = np.asarray(qid)
    if qid.dtype.kind in "fc" and qid.size and not np.isfinite(qid).all():
        row = int(np.flatnonzero(~np.isfinite(qid))[0])
        raise ValueError(f"{what} holds {qid[row].item()!r} at row {row}; query ids must be finite "
                         "(integers or strings)")
    return qid


class NeedsValidation(ValueError):
    """A method was asked to choose something on validation data, and ``fit`` got none.

    The message speaks to Python users (``X_val``, ``c=None``); ``ltrfs select`` asks the method's
    ``needs_validation()`` before reading data and says ``"<method> needs --vali (or --set ...)"``.
    """


def check_X(X, what: str = "X", *, n_features: int | None = None, dtype=np.float64) -> np.ndarray:
    """X as a C-contiguous (m, d) array of ``dtype`` with finite values and at least one row.

    Parameters
    ----------
    X : array_like or scipy sparse matrix, shape (m, d)
        Features, one row per query-document pair; a sparse matrix is densified.
    what : str, default "X"
        The argument's name in error messages.
    n_features : int, optional
        When given, the number of columns X must have (the width seen in ``fit``).
    dtype : numpy dtype, default float64
        The dtype of the returned array.

    Returns
    -------
    ndarray, shape (m, d)
        C-contiguous, of ``dtype``, every value finite.

    Raises
    ------
    ValueError
        One line naming ``what`` and the problem (not 2-D, not numeric, empty, wrong width,
        NaN or inf with its first position).
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy.sparse, e.g. from load_svmlight_file
        X = X.toarray()
    try:
        X = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{what} is not a numeric array: {exc}") from None
    if X.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (rows x features); got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{what} must hold numbers; got dtype {X.dtype}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what} is empty (shape {X.shape})")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{what} has {X.shape[1]} features but the model was fitted with {n_features}")
    X = np.ascontiguousarray(X, dtype=dtype)
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        _refuse_not_finite(X, what)
    return X


def _refuse_not_finite(X: np.ndarray, what: str) -> None:
    """The one-line ValueError naming the first NaN or inf of X (which must hold one)."""
    row, col = np.argwhere(~np.isfinite(X))[0]
    raise ValueError(f"{what} contains NaN or inf (first at row {row}, feature column {col}); "
                     "clean the data first")


def check_labels(y, m: int, what: str = "y") -> np.ndarray:
    """Relevance labels as int64, one per row.

    Parameters
    ----------
    y : array_like, shape (m,)
        Integer relevance labels; integer-valued floats are accepted.
    m : int
        The number of rows of X.
    what : str, default "y"
        The argument's name in error messages.

    Returns
    -------
    ndarray of int64, shape (m,)

    Raises
    ------
    ValueError
        One line: not 1-D, not m labels, not numeric or a non-integer value (with its row).
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one label per row); got shape {y.shape}")
    if len(y) != m:
        raise ValueError(f"{what} has {len(y)} labels but X has {m} rows")
    if y.dtype.kind in "biu":
        return y.astype(np.int64)
    if y.dtype.kind != "f":
        raise ValueError(f"{what} must hold integer relevance labels; got dtype {y.dtype}")
    bad = ~np.isfinite(y) | (y != np.round(y))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} must hold integer relevance labels; row {i} has {y[i].item()!r}")
    return y.astype(np.int64)


def check_qid(qid, m: int, what: str = "qid") -> np.ndarray:
    """The query layout of per-row query ids whose queries are contiguous.

    Parameters
    ----------
    qid : array_like, shape (m,)
        The query id of every row; the rows of a query must be contiguous.
    m : int
        The number of rows of X.
    what : str, default "qid"
        The argument's name in error messages.

    Returns
    -------
    query_ptr : ndarray of int64, shape (q + 1,)
        Row offsets of the queries.

    Raises
    ------
    ValueError
        One line: not 1-D, not m entries, NaN or infinite ids, or a query whose rows are not
        contiguous (with the rows where its runs start).
    """
    qid = check_qid_values(qid, what)
    if qid.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one query id per row); got shape {qid.shape}")
    if len(qid) != m:
        raise ValueError(f"{what} has {len(qid)} entries but X has {m} rows")
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    ids = qid[starts]
    uniq, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        bad = uniq[counts > 1][0].item()
        rows = starts[ids == bad][:2]
        raise ValueError(f"{what}: the rows of query {bad!r} are not contiguous (runs start at rows "
                         f"{rows[0]} and {rows[1]}); sort the rows by query first")
    query_ptr, _ = query_ptr_from_qid(qid)
    return query_ptr


def check_fit_inputs(X, y, qid, *, prefix: str = "", dtype=np.float64):
    """Validate one (X, y, qid) triple with :func:`check_X`, :func:`check_labels` and
    :func:`check_qid`.

    Parameters
    ----------
    X, y, qid : array_like
        Features (m, d), labels (m,) and query ids (m,).
    prefix : str, default ""
        Names the split in messages (``"X_val"`` etc. when prefix is ``"_val"``).
    dtype : numpy dtype, default float64
        The dtype of the returned X.

    Returns
    -------
    X : ndarray, shape (m, d)
    y : ndarray of int64, shape (m,)
    query_ptr : ndarray of int64, shape (q + 1,)
    """
    X = check_X(X, f"X{prefix}", dtype=dtype)
    y = check_labels(y, X.shape[0], f"y{prefix}")
    query_ptr = check_qid(qid, X.shape[0], f"qid{prefix}")
    return X, y, query_ptr


def check_validation_split(n_features: int, X_val, y_val, qid_val, *, dtype=np.float64):
    """Validate an optional validation split.

    Parameters
    ----------
    n_features : int
        The width of the training X; X_val must have as many columns.
    X_val, y_val, qid_val : array_like or None
        The validation split: all three or none.
    dtype : numpy dtype, default float64
        The dtype of the returned X_val.

    Returns
    -------
    tuple or None
        None when no split is given, else ``(X_val, y_val int64, query_ptr_val int64)``.

    Raises
    ------
    ValueError
        One line, for a partial split or a width other than ``n_features``.
    """
    given = [v is not None for v in (X_val, y_val, qid_val)]
    if any(given) and not all(given):
        raise ValueError("give all of X_val, y_val and qid_val, or none of them")
    if not any(given):
        return None
    Xv, yv, ptr_v = check_fit_inputs(X_val, y_val, qid_val, prefix="_val", dtype=dtype)
    if Xv.shape[1] != n_features:
        raise ValueError(f"X_val has {Xv.shape[1]} features but X has {n_features}")
    return Xv, yv, ptr_v


def k_above_d(ks, d: int) -> str | None:
    """The one line for subset sizes above the number of features, which keep all of them.

    One rule everywhere (``ltrfs select --k``, ``ltrfs train --selection --k``, the workflow's k
    grid, ``FeatureSelector``): a k above d keeps all d features, and this line says so.

    Parameters
    ----------
    ks : iterable of int
        Subset sizes.
    d : int
        The number of features (or of a projection's new features).

    Returns
    -------
    str or None
        ``"k 50, 100 exceed the 46 features: all 46 are kept"``; None when no k exceeds d.

    Examples
    --------
    >>> k_above_d([5, 50], 46)
    'k 50 exceeds the 46 features: all 46 are kept'
    >>> k_above_d([5, 10], 46) is None
    True
    """
    above = sorted({int(k) for k in ks if k > d})
    if not above:
        return None
    verb = "exceeds" if len(above) == 1 else "exceed"
    return f"k {', '.join(map(str, above))} {verb} the {d} features: all {d} are kept"

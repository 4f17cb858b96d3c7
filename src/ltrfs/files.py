"""Reading the pipeline's own files (tables, run files, selections, benchmarks) with one-line
errors: a file that is missing, truncated, not in its format or without the columns or keys
its reader needs is a ``DataError`` that names it and says how to rebuild it, not a pandas or
json traceback from deep inside."""
from __future__ import annotations

import json
from pathlib import Path

from ltrfs.ranking_data import DataError

REBUILD = "delete it and run the workflow again to rebuild it"


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_csv(path, columns=(), **kwargs):
    """``pandas.read_csv(path, **kwargs)`` (a CSV, or a TSV with ``sep="\\t"``) that has every
    one of ``columns``."""
    import pandas as pd

    try:
        frame = pd.read_csv(path, **kwargs)
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise DataError(f"{path}: not a readable table ({_first_line(exc)}); {REBUILD}") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: not a table of this pipeline (no column {', '.join(map(str, missing))}); {REBUILD}")
    return frame


def read_json(path, keys=(), what: str = "a file of this pipeline", remedy: str = REBUILD) -> dict:
    """The JSON object in ``path``, which has every one of ``keys``; a problem is a one-line
    DataError "<path>: not <what> (<why>); <remedy>" (defaults: the pipeline's own files)."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not {what} (not JSON: {_first_line(exc)}); {remedy}") from None
    if not isinstance(obj, dict):
        raise DataError(f"{path}: not {what} (not a JSON object); {remedy}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise DataError(f"{path}: not {what} (no key {', '.join(missing)}); {remedy}")
    return obj


def read_npz(path, keys=()) -> dict:
    """The arrays of the ``.npz`` file ``path`` (no pickled objects), which has every one of
    ``keys``."""
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {key: z[key] for key in z.files}
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
        raise DataError(f"{path}: not a readable .npz file ({_first_line(exc)}); {REBUILD}") from None
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise DataError(f"{path}: not a file of this pipeline (no array {', '.join(missing)}); {REBUILD}")
    return arrays

"""Stage score (``workflow/rules/score.smk``): the per-feature scores of a fold that the
methods read (``scores/{scorer}.npz``, ``ltrfs.scoring``), computed in one job or in feature
chunks merged by a last job (config ``chunks``)."""
from __future__ import annotations

import logging
import time

from ltrfs import io, scoring
from ltrfs.formats import load_scores, save_scores
from ltrfs.tuning import SELECTION_TIES

__all__ = ["score", "merge_scores"]

log = logging.getLogger("ltrfs")

def score(scorer: str, train_path, vali_path, out_path, convention: str, *, threads: int = 1,
          chunk: tuple[int, int] | None = None, ties: str = SELECTION_TIES) -> None:
    """Compute a per-feature scorer on a fold, or on a slice of its features, and cache it as ``.npz``.

    Parameters
    ----------
    scorer : str
        The scorer's name (``ltrfs.scoring``).
    train_path, vali_path : str or os.PathLike
        The fold's ``.npz`` splits.
    out_path : str or os.PathLike
        The score file written (``ltrfs.formats.save_scores``).
    convention : str
        The metric convention.
    threads : int, default 1
        Threads of a threaded scorer.
    chunk : (int, int) or None, default None
        ``(i, n)``: only the i-th of n feature slices (0-based i).
    ties : str, default "expected"
        How single-feature rankings order tied values.
    """
    start = time.perf_counter()
    table = scoring.compute(scorer, io.load_npz(train_path), convention, io.load_npz(vali_path),
                            n_threads=threads, chunk=chunk, ties=ties)
    save_scores(table, out_path)
    log.info("scorer %s%s: %.2f s", scorer, f" chunk {chunk[0] + 1} of {chunk[1]}" if chunk else "",
             time.perf_counter() - start)


def merge_scores(scorer: str, chunk_paths, out_path) -> None:
    """Merge the chunk files of a chunked scorer into its per-fold score file.

    Parameters
    ----------
    scorer : str
        The scorer's name.
    chunk_paths : sequence of str or os.PathLike
        The chunk files, in chunk order.
    out_path : str or os.PathLike
        The score file written.
    """
    save_scores(scoring.merge(scorer, list(load_scores(dict(enumerate(chunk_paths))).values())), out_path)

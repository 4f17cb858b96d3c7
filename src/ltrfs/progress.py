"""Progress lines of long loops in a job's log, and durations for humans."""
from __future__ import annotations

import logging
import time


class Progress:
    """Progress lines for a long loop of ``total`` steps, in the job's log (``tail -f`` it)::

        RF elimination curve: 12 of 55 forests (22%), 41 s elapsed, about 2.5 min left

    Call ``step(note=...)`` after each step; a line is logged at most every ``every`` seconds,
    and always for the last step. What is left is estimated linearly from the time so far.

    Parameters
    ----------
    what : str
        The loop's name at the start of each line.
    total : int
        Number of steps.
    unit : str, default "steps"
        What a step is, in the lines.
    every : float, default 10.0
        Seconds between lines, at least.
    """

    def __init__(self, what: str, total: int, unit: str = "steps", every: float = 10.0):
        self.what, self.total, self.unit, self.every = what, max(int(total), 1), unit, every
        self.log = logging.getLogger("ltrfs.progress")
        self._clock = time.perf_counter
        self.start = self.last = self._clock()
        self.done = 0

    def step(self, note: str = "") -> None:
        """Count one step done (``note`` is appended to the line), and log a line when one is due."""
        self.done += 1
        now = self._clock()
        if now - self.last < self.every and self.done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        left = elapsed * max(self.total - self.done, 0) / self.done
        self.log.info("%s: %d of %d %s (%d%%), %s elapsed, about %s left%s", self.what, self.done, self.total,
                      self.unit, round(100 * self.done / self.total), duration(elapsed), duration(left),
                      f" ({note})" if note else "")


def duration(seconds: float) -> str:
    """A duration for humans: ``"41 s"``, ``"2.5 min"``, ``"1.2 h"``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

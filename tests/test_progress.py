"""Progress lines of long jobs (ltrfs.progress.Progress): counts, percentages and the linear
estimate of what is left, on a fake clock."""
from __future__ import annotations

import logging

from ltrfs.progress import Progress, duration


def test_progress_logs_at_most_every_interval_and_always_the_last_step(caplog):
    clock = iter([0.0, 3.0, 12.0, 14.0, 40.0]).__next__  # start, then one reading per step
    progress = Progress("RF elimination curve", 4, unit="forests", every=10.0)
    progress._clock = clock
    progress.start = progress.last = clock()
    with caplog.at_level(logging.INFO, logger="ltrfs.progress"):
        for i in range(4):
            progress.step(note=f"size {i}")
    lines = [r.getMessage() for r in caplog.records]
    # step 1 at 3 s: too soon; step 2 at 12 s: 12 s for 2 steps -> 12 s left; step 3 at 14 s: too
    # soon after 12 s; step 4 (the last) at 40 s: logged, nothing left
    assert lines == ["RF elimination curve: 2 of 4 forests (50%), 12 s elapsed, about 12 s left (size 1)",
                     "RF elimination curve: 4 of 4 forests (100%), 40 s elapsed, about 0 s left (size 3)"]


def test_duration_units():
    assert [duration(s) for s in (41.4, 150, 5399, 7200)] == ["41 s", "2.5 min", "90.0 min", "2.0 h"]

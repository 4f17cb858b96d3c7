"""What a workflow job's log says when the job ends with an exception (ltrfs.util.log_to):
one line for a problem of the input or of the machine, the traceback for a bug."""
import subprocess
import sys

import pytest

RAISE = {
    "a damaged file": "from ltrfs.data import DataError; raise DataError('x.npz: not a readable .npz file')",
    "a full disk": "import errno; raise OSError(errno.ENOSPC, 'No space left on device', 'results/x.npz')",
    "no permission": "import errno; raise OSError(errno.EACCES, 'Permission denied', 'results/x.npz')",
    "a bug": "raise KeyError('n_features')",
    "an unnamed OS error": "import errno; raise OSError(errno.ENOSPC, 'No space left on device')",
}
ONE_LINE = {
    "a damaged file": "ltrfs: error: x.npz: not a readable .npz file",
    "a full disk": "ltrfs: error: results/x.npz: no space left on device",
    "no permission": "ltrfs: error: results/x.npz: permission denied",
}


@pytest.mark.parametrize("case", sorted(RAISE))
def test_the_log_holds_one_line_for_the_user_and_the_traceback_for_a_bug(tmp_path, case):
    log = tmp_path / "job.log"
    code = f"from ltrfs.util import log_to; log_to({str(log)!r}); {RAISE[case]}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    text = log.read_text()
    assert result.returncode == 1
    if case in ONE_LINE:
        assert text.rstrip().endswith(" CRITICAL " + ONE_LINE[case]) and "Traceback" not in text
        assert result.stderr.strip() == ONE_LINE[case]
    else:  # a bug, or an OS error that names no file: the traceback, to find where
        assert "Traceback (most recent call last)" in text and "Traceback" in result.stderr

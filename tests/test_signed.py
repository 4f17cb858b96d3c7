"""Model files cannot run a stranger's code (ltrfs.signed): the models with no code-free form
(tests/test_model_files.py) and the model files of earlier versions are pickles, and only those
signed with the user's key are unpickled; crafted, foreign, empty and truncated files are
one-line errors."""
import os
import pickle
import subprocess
import sys

import pytest

from ltrfs import signed
from ltrfs.formats import MODEL_FORMAT, load_models, save_models
from ltrfs.ranking_data import DataError


@pytest.fixture(autouse=True)
def own_key(tmp_path, monkeypatch):
    monkeypatch.delenv("LTRFS_MODEL_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def save_pickle(path, models):
    """A signed model pickle, as ltrfs writes for a model with no code-free form."""
    signed.dump(path, {"format": MODEL_FORMAT, "models": models})


class Payload:
    """Unpickling this runs a command that leaves a file behind."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_round_trip_and_a_private_key(tmp_path):
    save_models(tmp_path / "m.pkl", {5: {"ranker": "x", "estimator": [1, 2]}})  # no code-free form: a pickle
    assert load_models(tmp_path / "m.pkl") == {5: {"ranker": "x", "estimator": [1, 2]}}
    assert (signed.key_path().stat().st_mode & 0o777) == 0o600
    assert (tmp_path / "m.pkl").read_bytes().startswith(signed.MAGIC)


def test_crafted_files_are_refused_without_running_anything(tmp_path):
    marker = tmp_path / "ran"
    plain = tmp_path / "plain.pkl"  # a bare pickle, as any tool writes it
    plain.write_bytes(pickle.dumps(Payload(marker)))
    with pytest.raises(DataError, match="not an ltrfs model file"):
        load_models(plain)
    payload = pickle.dumps({"format": 1, "models": Payload(marker)})
    forged = tmp_path / "forged.pkl"  # our header, someone else's signature
    forged.write_bytes(signed.MAGIC + f"{'0' * 64} {len(payload)}\n".encode() + payload)
    with pytest.raises(DataError, match="not written with your ltrfs key .* load it with --trust-model"):
        load_models(forged)
    assert not marker.exists()


def test_another_users_file_needs_trust(tmp_path, monkeypatch):
    monkeypatch.setenv("LTRFS_MODEL_KEY", "11" * 32)
    save_pickle(tmp_path / "theirs.pkl", {3: {"ranker": "y"}})
    monkeypatch.delenv("LTRFS_MODEL_KEY")
    with pytest.raises(DataError, match="not written with your ltrfs key"):
        load_models(tmp_path / "theirs.pkl")
    assert load_models(tmp_path / "theirs.pkl", trust=True) == {3: {"ranker": "y"}}


@pytest.mark.parametrize("cut,what", [(0, "empty file"), (10, "not an ltrfs model file"),
                                      (-5, r"truncated or damaged model file \(\d+ of \d+ bytes\)")])
def test_empty_and_truncated_files(tmp_path, cut, what):
    save_pickle(tmp_path / "m.pkl", {5: {"ranker": "x"}})
    raw = (tmp_path / "m.pkl").read_bytes()
    (tmp_path / "m.pkl").write_bytes(raw[:cut])
    with pytest.raises(DataError, match=what):
        load_models(tmp_path / "m.pkl")


def test_cli_refuses_a_crafted_model_in_one_line(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "bad.pkl").write_bytes(pickle.dumps(Payload(marker)))
    (tmp_path / "d.txt").write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "ltrfs", "predict", str(tmp_path / "bad.pkl"), str(tmp_path / "d.txt")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and out.stderr.startswith(f"ltrfs: error: {tmp_path / 'bad.pkl'}: not an ltrfs")
    assert out.stderr.count("\n") == 1 and not marker.exists()
    helptext = subprocess.run([sys.executable, "-m", "ltrfs", "predict", "--help"], capture_output=True, text=True,
                              env=env).stdout
    assert "--trust-model" in helptext and "run code when loaded" in " ".join(helptext.split())
    assert "JSON that runs no code when loaded" in " ".join(helptext.split())

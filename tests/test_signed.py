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


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_key_file_others_may_read_is_refused_like_ssh(tmp_path, mode):
    save_pickle(tmp_path / "m.pkl", {5: {"ranker": "x"}})  # makes the key, mode 600
    path = signed.key_path()
    path.chmod(mode)
    for attempt in (lambda: load_models(tmp_path / "m.pkl"), lambda: save_pickle(tmp_path / "n.pkl", {})):
        with pytest.raises(DataError) as exc:
            attempt()
        msg = str(exc.value)
        assert msg.startswith(f"{path}: your model key can be read or written by others (mode {mode:o})")
        assert msg.endswith(f"run `chmod 600 {path}`") and "\n" not in msg
    assert not (tmp_path / "n.pkl").exists()
    path.chmod(0o600)
    assert load_models(tmp_path / "m.pkl") == {5: {"ranker": "x"}}


@pytest.mark.parametrize("content", [b"not hex at all\n", b"ab" * 16 + b"\n", b"ab" * 40 + b"\n", b"\xff\xfe" * 40, b""])
def test_a_malformed_key_file_is_one_line_naming_it(tmp_path, content):
    path = signed.key_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(DataError) as exc:
        save_pickle(tmp_path / "m.pkl", {})
    msg = str(exc.value)
    assert msg.startswith(f"{path}: not an ltrfs model key (expected one line of 64 hex digits); delete it")
    assert "\n" not in msg


@pytest.mark.parametrize("value", ["not-hex", "abc", "ab" * 8, "zz" * 32])
def test_a_model_key_variable_that_is_not_hex_is_one_line(tmp_path, monkeypatch, value):
    monkeypatch.setenv("LTRFS_MODEL_KEY", value)
    with pytest.raises(DataError, match=r"^LTRFS_MODEL_KEY: not a key \(expected an even number of hex digits, "
                                        r"at least 32, such as") as exc:
        save_pickle(tmp_path / "m.pkl", {})
    assert "\n" not in str(exc.value)
    monkeypatch.setenv("LTRFS_MODEL_KEY", "  " + "C3" * 16 + "\n")  # case and surrounding space do not matter
    save_pickle(tmp_path / "m.pkl", {1: {"ranker": "z"}})
    assert load_models(tmp_path / "m.pkl") == {1: {"ranker": "z"}}


def test_cli_refuses_a_readable_key_file_in_one_line_with_exit_2(tmp_path):
    save_pickle(tmp_path / "m.pkl", {1: {"ranker": "x"}})
    signed.key_path().chmod(0o644)
    (tmp_path / "d.txt").write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("LTRFS_MODEL_KEY", None)
    out = subprocess.run([sys.executable, "-m", "ltrfs", "predict", str(tmp_path / "m.pkl"), str(tmp_path / "d.txt")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"ltrfs: error: {signed.key_path()}: your model key can be read")
    assert f"chmod 600 {signed.key_path()}" in out.stderr

"""The wording of user errors shared by every reader: a missing file, a bad line of a score file."""
import pytest

from ltrfs import formats, io, signed
from ltrfs.cli import main
from ltrfs.datasets.registry import feature_names, load_registry
from ltrfs.user_errors import error_line

# every reader a user's path reaches, called on a path that does not exist
READERS = {
    "formats.read_csv": lambda p: formats.read_csv(p),
    "formats.read_json": lambda p: formats.read_json(p),
    "formats.read_npz": lambda p: formats.read_npz(p),
    "io.read_letor": lambda p: io.read_letor(p),
    "io.load_npz": lambda p: io.load_npz(p),
    "signed.load": lambda p: signed.load(p, trust=True),
    "registry.feature_names": lambda p: feature_names({"name": "mine", "feature_names": str(p)}),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_missing_file_is_told_in_one_wording_by_every_reader(tmp_path, reader):
    path = tmp_path / "nope" / "missing.txt"
    with pytest.raises(ValueError) as exc:
        READERS[reader](path)
    assert str(exc.value).endswith(f"{path}: no such file")


def test_the_registry_and_an_os_error_say_no_such_file_too(tmp_path):
    path = tmp_path / "reg.yaml"
    with pytest.raises(ValueError) as exc:
        load_registry(path)
    assert str(exc.value) == f"dataset registry {path}: no such file"
    missing = FileNotFoundError(2, "No such file or directory", "a/b.txt")
    assert error_line(missing) == "ltrfs: error: a/b.txt: no such file"
    assert error_line(PermissionError(13, "Permission denied", "a/b.txt")) == "ltrfs: error: a/b.txt: permission denied"


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.txt"  # four rows, two queries
    path.write_text("1 qid:1 1:0.5 2:0.1\n0 qid:1 1:0.2 2:0.3\n2 qid:2 1:0.9 2:0.4\n0 qid:2 1:0.1 2:0.2\n")
    return path


def _eval(capsys, data_file, scores) -> str:
    code = main(["eval", "--convention", "letor4", str(data_file), str(scores)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    return err.strip()


@pytest.mark.parametrize("text, message", [
    ("0.1\n0.2\nx\n0.4\n", "line 3: 'x' is not a number"),
    ("0.1\n0.2\n0.3 0.5\n0.4\n", "line 3: 2 values, expected one score per line"),
    ("0.1\n0.2\nnan\n0.4\n", "line 3 is not a finite number"),
    ("# scores\n0.1\n\n0.2\ninf\n0.4\n", "line 5 is not a finite number"),  # comments and blank lines are counted
    ("0.1\n0.2\n", "2 scores for 4 rows of the data file"),
])
def test_a_bad_score_names_its_line_as_an_editor_numbers_it(tmp_path, capsys, data_file, text, message):
    scores = tmp_path / "scores.txt"
    scores.write_text(text)
    assert _eval(capsys, data_file, scores) == f"ltrfs: error: {scores}: {message}"


def test_a_missing_score_file_is_told_as_any_missing_file(tmp_path, capsys, data_file):
    missing = tmp_path / "bad" / "nope_scores.txt"
    assert _eval(capsys, data_file, missing) == f"ltrfs: error: {missing}: no such file"


def test_a_good_score_file_with_a_comment_and_a_blank_line_is_read(tmp_path, capsys, data_file):
    scores = tmp_path / "scores.txt"
    scores.write_text("# model m\n0.1\n0.2\n\n0.3\n0.4\n")
    assert main(["eval", "--convention", "letor4", str(data_file), str(scores)]) == 0
    assert "Average" in capsys.readouterr().out

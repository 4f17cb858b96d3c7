"""The command line round trip: select -> train -> predict -> eval on a small file."""
import json

import numpy as np
import pytest

from conftest import planted
from ltrfs import io, metrics
from ltrfs.cli import main


@pytest.fixture
def files(tmp_path):
    train, vali = planted(n_queries=50, d=6, informative=(1, 4), seed=2), planted(n_queries=20, d=6, informative=(1, 4), seed=3)
    paths = {"train": tmp_path / "train.txt", "vali": tmp_path / "vali.txt"}
    io.write_letor(train, paths["train"])
    io.write_letor(vali, paths["vali"])
    return paths


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_select_train_predict_eval_round_trip(files, tmp_path, capsys):
    sel = tmp_path / "sel.json"
    assert run(capsys, "select", "--method", "importance", "--set", "metric=map", files["train"], "--out", sel)[0] == 0
    record = json.loads(sel.read_text())
    assert record["params"]["metric"] == "map" and record["n_features"] == 6
    assert set(record["ranking"][:2]) == {2, 5}  # the planted features, 1-based
    model = tmp_path / "m.pkl"
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=[0.01,1]", files["train"],
                       "--vali", files["vali"], "--selection", sel, "--k", 2, "--out", model)
    assert code == 0, err
    code, out, _ = run(capsys, "predict", model, files["vali"])
    scores = np.array(out.split(), dtype=float)
    vali = io.read_letor(files["vali"])
    assert scores.shape == (vali.n_rows,)
    score_file = tmp_path / "scores.txt"
    score_file.write_text(out)
    code, out, _ = run(capsys, "eval", "--convention", "letor4", files["vali"], score_file)
    assert code == 0
    qm = metrics.evaluate(vali.y, scores, vali.query_ptr, "letor4")
    assert out == metrics.format_eval_score(vali.query_ids, qm)
    average = [line for line in out.splitlines() if line.startswith("Average")]
    assert float(average[1].split("\t")[10]) == pytest.approx(qm.ndcg[:, 9].mean(), abs=5e-5)
    # the selected model ranks far better than the reversed scores
    assert qm.ndcg[:, 9].mean() > metrics.evaluate(vali.y, -scores, vali.query_ptr, "letor4").ndcg[:, 9].mean() + 0.2


def test_train_with_explicit_features_and_per_query_eval(files, tmp_path, capsys):
    model = tmp_path / "m.pkl"
    assert run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.5", files["train"], "--features", "2,5",
               "--out", model)[0] == 0
    code, out, _ = run(capsys, "predict", model, files["train"])
    score_file = tmp_path / "s.txt"
    score_file.write_text(out)
    code, out, _ = run(capsys, "eval", "--convention", "mslr", "--per-query", files["train"], score_file)
    assert code == 0
    rows = [line for line in out.splitlines() if line[:1].isdigit()]
    assert len(rows) == 2 * 50


@pytest.mark.parametrize("argv, message", [
    (["select", "--method", "gas", "{train}"], "unknown method 'gas'; valid: importance, random, waf"),
    (["train", "--ranker", "svm", "{train}", "--out", "{tmp}/m"], "unknown ranker 'svm'"),
    (["train", "--ranker", "ranksvm", "{train}", "--features", "2,9", "--out", "{tmp}/m"],
     "--features: feature id 9 is outside 1..6"),
    (["select", "--method", "waf", "{tmp}/missing.txt"], "missing.txt"),
    (["eval", "--convention", "letor4", "{train}", "{tmp}/short.txt"], "scores for"),
    (["select", "--method", "importance", "{bad}"], "bad.txt:2:"),
])
def test_errors_are_one_line(files, tmp_path, capsys, argv, message):
    (tmp_path / "short.txt").write_text("1\n2\n")
    (tmp_path / "bad.txt").write_text("1 qid:1 1:0.5\n2 qid:1 1:abc\n")
    argv = [a.format(train=files["train"], tmp=tmp_path, bad=tmp_path / "bad.txt") for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("ltrfs: error: ") and message in err and err.count("\n") == 1

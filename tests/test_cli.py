"""The command line round trip: select -> train -> predict -> eval on a small file."""
import json

import numpy as np
import pytest

from conftest import planted
from ltrfs import io, metrics
from ltrfs.cli import main
from ltrfs.rankers import RANKERS


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
    model = tmp_path / "m.model"
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
    model = tmp_path / "m.model"
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
    (["select", "--method", "gasx", "{train}"], "unknown method 'gasx'; valid: chi, fs_bfs, fs_ed, fsmrank, fsmsvm, gas, gas_e"),
    (["train", "--ranker", "svm", "{train}", "--out", "{tmp}/m"], "unknown ranker 'svm'"),
    (["train", "--ranker", "ranksvm", "{train}", "--features", "2,9", "--out", "{tmp}/m"],
     "--features: feature id 9 is outside 1..6"),
    (["select", "--method", "waf", "{tmp}/missing.txt"], "missing.txt"),
    (["eval", "--convention", "letor4", "{train}", "{tmp}/short.txt"], "scores for"),
    (["select", "--method", "importance", "{bad}"], "bad.txt:2:"),
    (["eval", "--convention", "letor4", "{train}", "{tmp}"], "{tmp}: is a directory"),
    (["predict", "{tmp}/missing.model", "{train}"], "{tmp}/missing.model: no such file"),
])
def test_errors_are_one_line(files, tmp_path, capsys, argv, message):
    (tmp_path / "short.txt").write_text("1\n2\n")
    (tmp_path / "bad.txt").write_text("1 qid:1 1:0.5\n2 qid:1 1:abc\n")
    argv = [a.format(train=files["train"], tmp=tmp_path, bad=tmp_path / "bad.txt") for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    message = message.format(tmp=tmp_path)
    assert err.startswith("ltrfs: error: ") and message in err and err.count("\n") == 1


def test_a_bug_is_one_line_with_exit_1_and_debug_shows_the_traceback(files, capsys, monkeypatch):
    import ltrfs.cli

    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setattr(ltrfs.cli, "cmd_eval", broken)
    code, _, err = run(capsys, "eval", "--convention", "letor4", files["train"], files["train"])
    assert code == 1 and err == ("ltrfs: error: internal error (RuntimeError: boom); run again with --debug for "
                                 "the traceback and report it\n")
    with pytest.raises(RuntimeError, match="boom"):
        main(["--debug", "eval", "--convention", "letor4", str(files["train"]), str(files["train"])])


def test_help_lists_methods_and_rankers_and_datasets_runs_anywhere(capsys, monkeypatch, tmp_path):
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    assert "fs_ed" in capsys.readouterr().out.replace("\n", " ")
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    assert "lambdamart" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)  # not the checkout: its registry all the same
    code, out, _ = run(capsys, "datasets")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:5] == ["dataset", "features", "folds", "convention", "archive"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["MQ2008"][1:5] == ["46", "1,2,3,4,5", "letor4", "unpublished"]
    assert rows["MSLR-WEB10K"][4] == "sha256" and rows["MQ2007"][4] == "md5" and rows["synthetic"][4] == "generated"


def test_fixed_parameter_is_not_replaced_by_the_default_grid(files, tmp_path, capsys):
    from ltrfs.formats import load_models
    from ltrfs.rankers import ranker_grid

    assert ranker_grid({"algorithm": "ranksvm", "params": {"C": 1.0}}) == [{}]
    assert len(ranker_grid({"algorithm": "ranksvm"})) == 20
    model = tmp_path / "m.model"
    assert run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.5", files["train"], "--vali", files["vali"],
               "--out", model)[0] == 0
    record = load_models(model)[6]
    assert record["params"] == {"C": 0.5} and record["estimator"].C == 0.5


def test_train_without_vali_needs_a_single_grid_point(files, tmp_path, capsys):
    from ltrfs.formats import load_models

    code, _, err = run(capsys, "train", "--ranker", "ranksvm", files["train"], "--out", tmp_path / "m.model")
    assert code == 2 and "has 20 points; give --vali" in err
    model = tmp_path / "l.model"
    assert run(capsys, "train", "--ranker", "lambdamart", "--set", "n_estimators=30", files["train"],
               "--out", model)[0] == 0
    booster = load_models(model)[6]["estimator"]
    assert booster.best_iteration_ == 29  # no early stopping on the training data


def test_predict_pads_sparse_files_to_the_model_width(files, tmp_path, capsys):
    from ltrfs.formats import load_models

    model = tmp_path / "m.model"
    run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.1", files["train"], "--out", model)
    dense = io.read_letor(files["vali"])
    sparse = tmp_path / "sparse.txt"  # feature 6 left out of every line, as SVMlight allows
    sparse.write_text("".join(f"{y} qid:{q} " + " ".join(f"{j + 1}:{x[j]:.9g}" for j in range(5)) + "\n"
                              for y, q, x in zip(dense.y, dense.qid, dense.X)))
    code, out, err = run(capsys, "predict", model, sparse)
    assert code == 0, err
    dense.X[:, 5] = 0
    want = dense.X.astype(np.float64) @ load_models(model)[6]["estimator"].coef_
    np.testing.assert_allclose(np.array(out.split(), dtype=float), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("make_file, argv, message", [
    (lambda p: p.write_text("1 qid:1 1:0.5\n"), ["predict", "{f}", "{train}"], "not an ltrfs model file"),
    (lambda p: p.write_text("1 qid:1 1:0.5\n"), ["train", "--ranker", "ranksvm", "{train}", "--selection", "{f}",
                                                  "--k", "2", "--out", "{tmp}/m"], "not a selection file"),
    (lambda p: p.write_text("{}"), ["train", "--ranker", "ranksvm", "{train}", "--selection", "{f}",
                                    "--k", "2", "--out", "{tmp}/m"], "not a selection file"),
    (lambda p: None, ["train", "--ranker", "ranksvm", "--set", "C=abc", "{train}", "--out", "{tmp}/m"],
     "C must be a finite number > 0; got 'abc'"),
    (lambda p: None, ["train", "--ranker", "ranksvm", "--set", "C=[]", "{train}", "--vali", "{train}",
                      "--out", "{tmp}/m"], "grid 'C' must be a non-empty list"),
])
def test_bad_model_selection_and_parameter_files(files, tmp_path, capsys, make_file, argv, message):
    f = tmp_path / "f.bin"
    make_file(f)
    code, _, err = run(capsys, *[a.format(f=f, train=files["train"], tmp=tmp_path) for a in argv])
    assert code == 2 and message in err and err.count("\n") == 1


def test_predict_names_the_available_k(files, tmp_path, capsys):
    model = tmp_path / "m.model"
    run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.1", files["train"], "--out", model)
    code, _, err = run(capsys, "predict", model, files["vali"], "--k", 3)
    assert code == 2 and "has no model for k=3; available: 6" in err


@pytest.mark.parametrize("ranker", sorted(RANKERS))
def test_bare_train_uses_the_default_grid_for_every_ranker(files, tmp_path, capsys, ranker):
    """``ltrfs train --ranker NAME TRAIN --vali VALI`` works for every ranker with its default
    grid (chosen on vali) and ``ltrfs predict`` scores every row; the planted features make the
    model clearly better than file order."""
    model = tmp_path / "m.model"
    code, _, err = run(capsys, "train", "--ranker", ranker, files["train"], "--vali", files["vali"], "--out", model)
    assert code == 0, err
    code, out, err = run(capsys, "predict", model, files["vali"])
    assert code == 0, err
    vali = io.read_letor(files["vali"])
    scores = np.array(out.split(), dtype=float)
    ours = metrics.metric_per_query(vali.y, scores, vali.query_ptr, "ndcg@5").mean()
    order = metrics.metric_per_query(vali.y, np.zeros(vali.n_rows), vali.query_ptr, "ndcg@5").mean()
    assert ours > order + 0.15, (ours, order)


def test_projection_selection_round_trip(files, tmp_path, capsys):
    """FS-BFS hands rankers projected features: ``ltrfs train --selection fs_bfs.json --k 2``
    trains on X[:, union of the first 2 subsets] @ P, and ``ltrfs predict`` applies the same map."""
    from ltrfs.formats import load_models, view_for_k

    sel = tmp_path / "bfs.json"
    code, _, err = run(capsys, "select", "--method", "fs_bfs", "--set", "k=3", "--set", "max_size=2",
                       files["train"], "--out", sel)
    assert code == 0, err
    record = json.loads(sel.read_text())
    assert len(record["projection"]) == 3
    features, projection = view_for_k(record, 2)
    assert projection.shape == (len(features), 2)
    groups = record["projection"][:2]
    assert sorted(features + 1) == sorted(f for g in groups for f in g["features"])
    model_path = tmp_path / "m.model"
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=1.0", files["train"],
                       "--selection", sel, "--k", 2, "--out", model_path)
    assert code == 0, err
    code, out, _ = run(capsys, "predict", model_path, files["vali"])
    vali = io.read_letor(files["vali"])
    model = load_models(model_path)[2]
    expected = model["estimator"].predict((vali.X[:, features].astype(float) @ projection).astype(np.float32))
    np.testing.assert_allclose(np.array(out.split(), dtype=float), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="k=4 is outside 1..3"):
        view_for_k(record, 4)


def test_eval_ties_option(files, tmp_path, capsys):
    """Default: tied scores in file order (the official scripts); --ties expected: the mean over
    all orders of the tied documents; select and train record the tie rule they used."""
    vali = io.read_letor(files["vali"])
    score_file = tmp_path / "zeros.txt"
    score_file.write_text("0\n" * vali.n_rows)
    averages = {}
    for ties in ("file_order", "expected"):
        code, out, _ = run(capsys, "eval", "--convention", "letor4", "--ties", ties, files["vali"], score_file)
        assert code == 0
        averages[ties] = float(out.split("\n\n")[0].splitlines()[-1].split("\t")[-1])  # MAP
        want = metrics.metric_per_query(vali.y, np.zeros(vali.n_rows), vali.query_ptr, "map", "letor4", ties=ties)
        assert averages[ties] == pytest.approx(want.mean(), abs=5e-5)
    assert averages["file_order"] != averages["expected"]
    sel = tmp_path / "sel.json"
    assert run(capsys, "select", "--method", "importance", "--ties", "file_order", files["train"], "--out", sel)[0] == 0
    assert json.loads(sel.read_text())["params"]["ties"] == "file_order"


@pytest.mark.parametrize("argv, message", [
    (["train", "--ranker", "lambdamart", "--set", "max_leaves=1", "/no/such/train.txt", "--out", "/tmp/never.model"],
     "lambdamart: max_leaves must be an integer >= 2; got 1"),
    (["train", "--ranker", "ranksvm", "--set", "C=[1,0]", "/no/such/train.txt", "--out", "/tmp/never.model"],
     "ranksvm: C must be a finite number > 0; got 0"),
    (["select", "--method", "gas", "--set", "t_vali=0", "/no/such/train.txt"], "gas: t_vali must be an integer >= 1; got 0"),
])
def test_a_bad_parameter_is_reported_before_any_data_is_read(capsys, argv, message):
    """The parameters are checked from their declaration first: the missing data file is not
    what the user hears about."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and err == f"ltrfs: error: {message}\n"


def test_params_lists_each_parameter_with_its_default_and_allowed_values(capsys):
    code, out, _ = run(capsys, "params", "lambdamart")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "ranker lambdamart (LambdaMART): parameter, default, allowed values"
    rows = {line.split()[0]: line for line in lines[1:]}
    assert rows["max_leaves"].split(None, 2)[1:] == ["10", "an integer >= 2"]
    assert rows["subsample"].split(None, 2)[1:] == ["1.0", "a number in (0, 1]"]
    assert set(rows) == set(__import__("ltrfs.rankers", fromlist=["RANKERS"]).RANKERS["lambdamart"].parameters)
    code, _, err = run(capsys, "params", "svm")
    assert code == 2 and err.startswith("ltrfs: error: unknown method or ranker 'svm'; valid: adarank_map")


@pytest.mark.parametrize("argv", [
    ["select", "--method", "importance", "{train}", "--out", "{out}/sel.json"],
    ["train", "--ranker", "ranksvm", "--set", "C=1", "{train}", "--out", "{out}/model.model"],
])
def test_a_full_disk_is_one_line_naming_the_file_and_leaves_nothing(files, tmp_path, argv):
    """A write that fails half-way (here the file-size limit of the process, as a full disk
    would) is one line naming the output, exit 2, and neither the output nor a temporary file
    is left for a rerun to trust."""
    import resource
    import subprocess
    import sys

    out = tmp_path / "out"
    args = [a.format(train=files["train"], out=out) for a in argv]
    result = subprocess.run([sys.executable, "-m", "ltrfs", *args], capture_output=True, text=True,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200)))
    target = args[-1]
    assert result.returncode == 2 and result.stderr == f"ltrfs: error: {target}: file too large; nothing was written\n"
    assert list(out.iterdir()) == []

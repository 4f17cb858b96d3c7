"""The command line round trip: select -> train -> predict -> eval on a small file."""
import json
from pathlib import Path

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
    (["select", "--method", "gasx", "{train}"], "unknown method 'gasx' (did you mean 'gas'?); valid: chi, concrete_autoencoder, fenchelrank, fs_bfs, fs_ed, fsmrank, fsmsvm, g_l2x, gas, gas_e"),
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
    assert code == 0
    assert err == (f"ltrfs: warning: {sparse}: its largest feature id is 5, the model reads 6 features: features "
                   "6..6 are read as 0 (a sparse file may leave out zeros; --strict-width makes this an error)\n")
    dense.X[:, 5] = 0
    want = dense.X.astype(np.float64) @ load_models(model)[6]["estimator"].coef_
    np.testing.assert_allclose(np.array(out.split(), dtype=float), want, rtol=1e-6, atol=1e-9)
    code, out, err = run(capsys, "predict", "--strict-width", model, sparse)
    assert code == 2 and out == "" and err == (f"ltrfs: error: {sparse}: its largest feature id is 5, the model "
                                               "reads 6 features: features 6..6 are read as 0 (--strict-width)\n")
    code, out, err = run(capsys, "predict", "--strict-width", model, files["vali"])  # the full width: silent
    assert code == 0 and err == "" and len(out.splitlines()) == len(dense.y)
    wide = tmp_path / "wide.txt"
    wide.write_text("0 qid:1 1:0.5 9:1\n")
    code, _, err = run(capsys, "predict", model, wide)
    assert code == 2 and err == f"ltrfs: error: {wide}: feature ids up to 9, but the model reads 6 features\n"


def test_predict_with_its_arguments_swapped_says_so(files, tmp_path, capsys):
    model = tmp_path / "m.model"
    run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.1", files["train"], "--out", model)
    code, _, err = run(capsys, "predict", files["vali"], model)
    assert code == 2 and err == (f"ltrfs: error: {files['vali']} is a data file, not a model file: the model comes "
                                 "first (ltrfs predict MODEL DATA)\n")


@pytest.mark.parametrize("make_file, argv, message", [
    (lambda p: p.write_text("1 qid:1 1:0.5\n"), ["predict", "{f}", "{train}"], "is a data file, not a model file"),
    (lambda p: p.write_text("hello\n"), ["predict", "{f}", "{train}"], "not an ltrfs model file"),
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
    assert all(np.array_equal(a, b) for a, b in zip(view_for_k(record, 4), view_for_k(record, 3)))  # k > 3: all 3


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


def test_params_lists_each_parameter_with_its_default_allowed_values_and_meaning(capsys):
    from ltrfs.params import parameter_help

    code, out, _ = run(capsys, "params", "lambdamart")
    lines = out.splitlines()
    assert code == 0 and lines[0] == ("ranker lambdamart (LambdaMART): parameter, default, allowed values; "
                                      "below each, what it means")
    rows = {line.split()[0]: i for i, line in enumerate(lines) if i and not line.startswith("    ")}
    assert lines[rows["max_leaves"]].split(None, 2)[1:] == ["10", "an integer >= 2"]
    assert lines[rows["max_leaves"] + 1].strip() == "leaves per tree (leaf-wise growth, no depth limit)"
    assert lines[rows["subsample"]].split(None, 2)[1:] == ["1.0", "a number in (0, 1]"]
    assert lines[rows["subsample"] + 1].strip() == "row subsampling per tree (randomness -> random_state)"
    assert set(rows) == set(RANKERS["lambdamart"].parameters)
    # the meaning is the first sentence of the parameter's docstring entry
    assert parameter_help(RANKERS["lambdamart"])["min_child_weight"] == "minimum hessian sum in a leaf"
    code, _, err = run(capsys, "params", "svm")
    assert code == 2 and err.startswith("ltrfs: error: unknown method or ranker 'svm' (did you mean 'svmmap'?); valid: adarank_map")


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


def test_train_test_prints_the_test_metrics_and_saves_the_scores(files, tmp_path, capsys):
    """``ltrfs train ... --test T`` (RankLib's -train -validate -test): after training, stdout is
    the test file's Eval-Score table, exactly what ``ltrfs predict | ltrfs eval`` gives; stderr
    names the --metric's value; --save-scores holds what ``ltrfs predict`` prints."""
    model, saved = tmp_path / "m.model", tmp_path / "test_scores.txt"
    code, out, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=[0.01,1]", files["train"],
                         "--vali", files["vali"], "--test", files["vali"], "--save-scores", saved, "--out", model)
    assert code == 0, err
    _, predicted, _ = run(capsys, "predict", model, files["vali"])
    assert saved.read_text() == predicted
    _, evaluated, _ = run(capsys, "eval", files["vali"], saved)
    assert out == evaluated
    vali = io.read_letor(files["vali"])
    scores = np.array(predicted.split(), dtype=float)
    want = metrics.metric_per_query(vali.y, scores, vali.query_ptr, "ndcg@10", "letor4", ties="file_order").mean()
    assert f"ltrfs: test ndcg@10 {want:.4f} on {vali.n_queries} queries of {files['vali']} (letor4, tied scores in file order); " \
           f"wrote the scores to {saved}\n" in err
    average = [line for line in out.splitlines() if line.startswith("Average")]
    assert float(average[1].split("\t")[10]) == pytest.approx(want, abs=5e-5)
    # --save-scores needs --test, told before any data is read
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "/no/such/train.txt", "--save-scores", saved,
                       "--out", model)
    assert code == 2 and err == "ltrfs: error: --save-scores writes the scores of the --test file: give --test\n"


def test_eval_defaults_to_letor4(files, tmp_path, capsys):
    scores = tmp_path / "s.txt"
    scores.write_text("".join(f"{v}\n" for v in io.read_letor(files["vali"]).X[:, 1]))
    outputs = [run(capsys, "eval", *extra, files["vali"], scores) for extra in ([], ["--convention", "letor4"],
                                                                              ["--convention", "letor3"])]
    assert outputs[0][0] == 0 and outputs[0] == outputs[1]
    assert outputs[0][1] != outputs[2][1]  # letor3 counts NDCG otherwise: the default is not letor3


def test_select_k_writes_subsets_and_a_ranklib_feature_file(files, tmp_path, capsys):
    """``--k 2 --k 4`` and ``--k 2,4`` alike write subsets {"2": ..., "4": ...}: a prefix method's
    first K ids, WAF's every feature; ``--format ranklib`` writes one K's ids, one a line."""
    records = []
    for ks in (["--k", "2", "--k", "4"], ["--k", "2,4"], ["--k", "4,2", "--k", "2"]):
        out = tmp_path / f"sel{len(records)}.json"
        code, _, err = run(capsys, "select", "--method", "importance", files["train"], *ks, "--out", out)
        assert code == 0, err
        records.append({k: v for k, v in json.loads(out.read_text()).items() if k != "seconds"})
    assert records[0] == records[1] == records[2]
    record = records[0]
    assert record["subsets"] == {"2": sorted(record["ranking"][:2]), "4": sorted(record["ranking"][:4])}
    assert set(record["subsets"]["2"]) == {2, 5}  # the planted features
    feature_file = tmp_path / "features.txt"
    code, _, err = run(capsys, "select", "--method", "importance", files["train"], "--k", "4", "--format", "ranklib",
                       "--out", feature_file)
    assert code == 0, err
    assert feature_file.read_text() == "".join(f"{f}\n" for f in sorted(record["ranking"][:4]))
    # the subset trains the same model as --selection/--k and as --features
    from ltrfs.formats import features_for_k

    assert (features_for_k(record, 4) + 1).tolist() == [int(x) for x in feature_file.read_text().split()]
    code, out, _ = run(capsys, "select", "--method", "waf", files["train"], "--k", "3", "--format", "ranklib")
    assert code == 0 and out == "1\n2\n3\n4\n5\n6\n"  # WAF keeps every feature


def test_k_above_the_features_keeps_all_of_them_and_says_so(files, tmp_path, capsys):
    """One rule: 'select --k 7' on 6 features writes subset 7 = all 6 features, with one line;
    'train --selection --k 9' trains on all 6, with one line; the k-subsets below d are as before."""
    sel = tmp_path / "sel.json"
    code, _, err = run(capsys, "select", "--method", "importance", files["train"], "--k", "3,7", "--out", sel)
    assert code == 0 and err == "ltrfs: warning: --k 7 exceeds the 6 features: all 6 are kept\n", err
    record = json.loads(sel.read_text())
    assert record["subsets"]["7"] == [1, 2, 3, 4, 5, 6] and len(record["subsets"]["3"]) == 3
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=1", files["train"], "--selection", sel,
                       "--k", "9", "--out", tmp_path / "m.model")
    assert code == 0 and err.startswith("ltrfs: warning: k 9 exceeds the 6 features: all 6 are kept\n"), err
    assert "on 6 features" in err


def test_ranklib_feature_files_round_trip_into_train(files, tmp_path, capsys):
    """RankLib habits: 'select --k 2,4 --format ranklib --out f.txt' writes f.k2.txt and f.k4.txt,
    and 'train --features f.k4.txt' trains the model that '--features <the same ids>' trains."""
    out = tmp_path / "features.txt"
    code, _, err = run(capsys, "select", "--method", "importance", files["train"], "--k", "2,4", "--format", "ranklib",
                       "--out", out)
    assert code == 0 and "wrote the 4 features of k=4 to" in err, err
    assert not out.exists()
    ids = {k: [int(line) for line in (tmp_path / f"features.k{k}.txt").read_text().split()] for k in (2, 4)}
    assert set(ids[2]) == {2, 5} and set(ids[2]) < set(ids[4]) and len(ids[4]) == 4
    scores = {}
    for how, value in (("file", tmp_path / "features.k4.txt"), ("list", ",".join(map(str, ids[4])))):
        model = tmp_path / f"{how}.model"
        code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=1", files["train"], "--features", value,
                           "--out", model)
        assert code == 0, err
        code, scores[how], err = run(capsys, "predict", model, files["vali"])
        assert code == 0, err
    assert scores["file"] == scores["list"] and len(scores["file"].splitlines()) > 10
    # RankLib's own files may carry comments and a second field; a bad line names the file and line
    handmade = tmp_path / "handmade.txt"
    handmade.write_text("# my features\n\n2\tBM25\n5\n")
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=1", files["train"], "--features", handmade,
                       "--out", tmp_path / "h.model")
    assert code == 0 and "on 2 features" in err, err
    handmade.write_text("2\nfive\n")
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", files["train"], "--features", handmade,
                       "--out", tmp_path / "h.model")
    assert code == 2 and err == (f"ltrfs: error: {handmade}: line 2: 'five' is not a feature id (a RankLib feature "
                                 "file holds one id a line)\n")


@pytest.mark.parametrize("argv, message", [
    (["select", "--method", "fs_bfs", "/no/such/train.txt", "--k", "2"],
     "fs_bfs: --k writes feature subsets, but fs_bfs projects: its k features are weighted sums of the data's "
     "features, not a subset (train on them with 'ltrfs train --selection FILE --k K')"),
    (["select", "--method", "importance", "/no/such/train.txt", "--k", "2,3", "--format", "ranklib"],
     "--format ranklib with 2 values of --k writes one file per k: give --out"),
    (["select", "--method", "importance", "/no/such/train.txt", "--format", "ranklib"],
     "--format ranklib writes the features of a subset: give --k (one file per k)"),
    (["select", "--method", "importance", "/no/such/train.txt", "--k", "5,x"],
     "--k expects whole numbers >= 1, as --k 5 or --k 5,10; got '5,x'"),
    (["select", "--method", "importance", "/no/such/train.txt", "--k", "0"],
     "--k expects whole numbers >= 1, as --k 5 or --k 5,10; got '0'"),
    (["select", "--method", "fs_ed", "{train}"], "fs_ed needs --vali (or --set points=grid)"),
    (["select", "--method", "gas_e", "{train}"], "gas_e needs --vali (or --set c=0.01)"),
    (["select", "--method", "lambdamart_shap", "{train}"], "lambdamart_shap needs --vali (or --set explain=train "
     """--set 'ranker_params={"early_stopping_rounds": null}')"""),
    (["select", "--method", "permutation", "{train}"], "permutation needs --vali"),
    (["select", "--method", "l1_logistic", "--set", "tol=1e-7", "--set", "cv=[", "{train}"],
     "--set 'cv=[': not a YAML value"),
])
def test_select_errors_in_the_command_line_words(files, capsys, argv, message):
    code, _, err = run(capsys, *[a.format(train=files["train"]) for a in argv])
    assert code == 2 and err.startswith(f"ltrfs: error: {message}") and err.count("\n") == 1, err


@pytest.mark.parametrize("text, value", [("1e-7", 1e-7), ("1E-7", 1e-7), (".5", 0.5), ("5.", 5.0), ("-.5", -0.5),
                                         ("1.0e-7", 1e-7), ("+2E3", 2000.0), ("[1e-3, .5]", [1e-3, 0.5]),
                                         ("10", 10), ("map", "map"), ("1se", "1se")])
def test_set_reads_numbers_as_people_write_them(text, value):
    from ltrfs.cli import parse_assignments

    parsed = parse_assignments([f"x={text}"])["x"]
    assert parsed == value and type(parsed) is type(value)


def test_set_tol_1e_7_reaches_the_method(files, tmp_path, capsys):
    """YAML 1.1 reads 1e-7 as text: once the error 'tol must be a finite number > 0 or None; got
    '1e-7''; now the number."""
    sel = tmp_path / "sel.json"
    code, _, err = run(capsys, "select", "--method", "l1_logistic", "--set", "tol=1e-7", "--set", "relevant_min=1",
                       "--set", "cv=3", "--set", "n_lambdas=5", files["train"], "--out", sel)
    assert code == 0, err
    assert json.loads(sel.read_text())["params"]["tol"] == 1e-7


@pytest.mark.filterwarnings("ignore:L1 path")
def test_l1_logistic_folds_are_fixed_whatever_the_seed_as_documented(files, tmp_path, capsys):
    """l1_logistic's CV folds are GroupKFold's fixed deal (docs/methods.md, ``ltrfs params``): on all
    rows with the default solver, --seed 0 and --seed 1 select the same; the seed draws the
    sample_size rows."""
    def select(*extra):
        out = tmp_path / "sel.json"
        code, _, err = run(capsys, "select", "--method", "l1_logistic", "--set", "relevant_min=1", "--set", "cv=3",
                           "--set", "n_lambdas=8", *extra, files["train"], "--out", out)
        assert code == 0, err
        record = json.loads(out.read_text())
        return record["ranking"], record["chosen"]

    assert select("--seed", "0") == select("--seed", "1")
    sampled = [select("--seed", s, "--set", "sample_size=150")[1]["cv_logloss"] for s in ("0", "1")]
    assert sampled[0] != sampled[1]
    code, out, _ = run(capsys, "params", "l1_logistic")
    text = " ".join(out.split())
    assert "Cross-validation folds, grouped by query and fixed whatever the seed" in text
    assert "Seed of the row sample (sample_size) and of liblinear/saga, not of the CV folds" in text
    methods_doc = (Path(__file__).resolve().parents[1] / "docs/methods.md").read_text()
    assert "The folds are fixed, not drawn as" in methods_doc


def test_a_grid_choice_at_its_edge_is_a_warning_line(files, tmp_path, capsys):
    """RankSVM picks the largest C of this grid on the planted vali file: one warning line names
    the parameter and the edge; a choice inside the grid warns nothing."""
    from ltrfs.formats import load_models

    model = tmp_path / "m.model"
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=[0.01,0.1,1]", files["train"],
                       "--vali", files["vali"], "--out", model)
    assert code == 0 and load_models(model)[6]["params"]["C"] == 1
    assert [line for line in err.splitlines() if "warning" in line] == [
        "ltrfs: warning: ranksvm: C = 1 chosen on vali is the largest value of its grid (0.01 .. 1, 3 values); "
        "the best C may lie beyond it: widen the grid"]
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=[0.01,1,100]", files["train"],
                       "--vali", files["vali"], "--out", model)
    assert code == 0 and load_models(model)[6]["params"]["C"] == 1 and "warning" not in err


def test_every_positional_argument_and_vali_has_help():
    from ltrfs.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in subparsers.items():
        for action in sub._actions:
            if not action.option_strings or "--vali" in action.option_strings:
                assert action.help, (name, action.dest)


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(ranking=[0] + r["ranking"][1:]), "ranking holds feature id 0, outside 1..6"),
    (lambda r: r.update(ranking=[-5] + r["ranking"][1:]), "ranking holds feature id -5, outside 1..6"),
    (lambda r: r.update(ranking=[1.5] + r["ranking"][1:]), "ranking holds 1.5, not an integer feature id"),
    (lambda r: r.update(ranking=[True] + r["ranking"][1:]), "ranking holds True, not an integer feature id"),
    (lambda r: r.update(ranking=[r["ranking"][1]] + r["ranking"][1:]), "ranking holds feature id"),
    (lambda r: r.update(ranking=[7] + r["ranking"][1:]), "ranking holds feature id 7, outside 1..6"),
    (lambda r: r.update(ranking=[]), "ranking is empty"),
    (lambda r: r.update(ranking="1,2"), "ranking is not a list of feature ids"),
    (lambda r: r.update(n_features=0), "n_features 0 is not a positive integer"),
    (lambda r: r.update(n_features=6.0), "n_features 6.0 is not a positive integer"),
    (lambda r: r.update(subsets={"2": [0, 3]}), "subset 2 holds feature id 0, outside 1..6"),
    (lambda r: r.update(subsets={"2": [3, 3]}), "subset 2 holds feature id 3 twice"),
    (lambda r: r.update(subsets={"x": [3]}), "subsets has the key 'x', not a k >= 1"),
    (lambda r: r.update(subsets={"0": [3]}), "subsets has the key '0', not a k >= 1"),
    (lambda r: r.update(subsets={"9": [1, 2, 3]}), "subset 9 holds 3 features, not all 6"),
    (lambda r: r.update(constant_features=[9]), "constant_features holds feature id 9, outside 1..6"),
])
def test_a_selection_with_bad_feature_ids_is_refused_in_one_line(files, tmp_path, capsys, change, message):
    sel = tmp_path / "sel.json"
    code, _, err = run(capsys, "select", "--method", "pearson", files["train"], "--out", sel)
    assert code == 0, err
    record = json.loads(sel.read_text())
    change(record)
    sel.write_text(json.dumps(record))
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.1", files["train"], "--selection", sel,
                       "--k", "2", "--out", tmp_path / "m.model")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"ltrfs: error: {sel}: bad selection file: {message}")
    assert not (tmp_path / "m.model").exists()


@pytest.mark.parametrize("change, message", [
    (lambda g: g[0].update(features=[0, 2]), "projection group 1: features holds feature id 0, outside 1..6"),
    (lambda g: g[1].update(features=[2, 2], weights=[1.0, 1.0]), "projection group 2: features holds feature id 2 twice"),
    (lambda g: g[0].update(weights=[float("nan")] * len(g[0]["features"])), "projection group 1: weights are not"),
    (lambda g: g[0].update(weights=g[0]["weights"][:-1]), "projection group 1: weights are not"),
    (lambda g: g.clear(), "projection is not a list of feature groups"),
])
def test_a_projection_with_bad_groups_is_refused_in_one_line(files, tmp_path, capsys, change, message):
    sel = tmp_path / "bfs.json"
    code, _, err = run(capsys, "select", "--method", "fs_bfs", "--set", "k=3", "--set", "max_size=2",
                       files["train"], "--out", sel)
    assert code == 0, err
    record = json.loads(sel.read_text())
    change(record["projection"])
    sel.write_text(json.dumps(record))
    code, _, err = run(capsys, "train", "--ranker", "ranksvm", "--set", "C=0.1", files["train"], "--selection", sel,
                       "--k", "2", "--out", tmp_path / "m.model")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"ltrfs: error: {sel}: bad selection file: {message}")


def test_eval_says_when_the_convention_zeroes_short_queries(tmp_path, capsys):
    """letor4 scores NDCG@10 of a query with fewer than 10 documents 0: 'eval' says how many
    queries that is, and how to compute them; under standard it says nothing."""
    data = tmp_path / "d.txt"
    data.write_text("".join(f"{i % 3} qid:1 1:{i}\n" for i in range(3)) + "".join(f"{i % 3} qid:2 1:{i}\n"
                                                                                for i in range(12)))
    scores = tmp_path / "s.txt"
    scores.write_text("".join(f"{i}\n" for i in list(range(3)) + list(range(12))))
    code, out, err = run(capsys, "eval", data, scores)
    assert code == 0 and "NDCG@10" in out
    assert err == (f"ltrfs: note: 1 of 2 queries of {data} have fewer than 10 documents: letor4 scores their "
                   "NDCG@10 0 (the LETOR and MSLR scripts' rule); the convention standard computes it on their "
                   "documents (--convention standard)\n")
    code, _, err = run(capsys, "eval", "--convention", "standard", data, scores)
    assert code == 0 and err == ""

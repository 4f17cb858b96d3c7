"""One fit per feature subset (ltrfs.pipeline.shared_fits): a train job reads the fit another
method's job made of the same ranker on the same features, which is what it would have fitted
itself; a ranker that draws random numbers is never shared; a damaged fit is fitted again."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ltrfs import io
from ltrfs.formats import load_models, predict
from ltrfs.pipeline.select import select
from ltrfs.pipeline.shared_fits import SharedFits, data_digest
from ltrfs.pipeline.train import TrainFiles, TrainJob, train, uses_seed
from ltrfs.rankers import make_ranker

RANKSVM = {"algorithm": "ranksvm", "grid": {"C": [0.01, 1.0]}}
LAMBDAMART = {"algorithm": "lambdamart", "params": {"n_estimators": 30, "early_stopping_rounds": 5}}


@pytest.fixture()
def fold(planted_fold):
    return planted_fold


def job(ranker, seed, shared=None):
    return TrainJob(ranker_name="r", ranker=ranker, ks=[2, 6], metric="ndcg@10", convention="letor4", seed=seed,
                    shared_fits=shared)


def run(fold, tmp_path, name, method, ranker, seed, shared):
    select(name, method, fold["train"], fold["vali"], {}, tmp_path / f"{name}.json", seed=seed, convention="letor4")
    train(job(ranker, seed, shared), TrainFiles(selection=tmp_path / f"{name}.json", train=fold["train"],
                                                vali=fold["vali"], model=tmp_path / f"{name}.model",
                                                info=tmp_path / f"{name}.json.info"))
    return load_models(tmp_path / f"{name}.model"), json.loads((tmp_path / f"{name}.json.info").read_text())


@pytest.mark.parametrize("ranker", [RANKSVM, LAMBDAMART], ids=["ranksvm", "lambdamart"])
def test_a_second_method_reads_the_fit_and_it_is_its_own(fold, tmp_path, ranker):
    """waf and a method whose selection is every feature share k = 6 (every feature, in order)
    but not k = 2; the shared model predicts exactly what the method's own fit predicts."""
    shared = tmp_path / "fits"
    _, first = run(fold, tmp_path, "all", {"algorithm": "waf"}, ranker, seed=1, shared=shared)
    models, second = run(fold, tmp_path, "imp", {"algorithm": "pearson"}, ranker, seed=2, shared=shared)
    own, alone = run(fold, tmp_path, "imp_alone", {"algorithm": "pearson"}, ranker, seed=2, shared=None)
    assert "shared" not in first["k"]["6"] and second["k"]["6"]["shared"] is True
    assert "shared" not in second["k"]["2"]  # two features: waf has no such fit
    assert second["k"]["6"]["trials"] == first["k"]["6"]["trials"] and second["k"] .keys() == alone["k"].keys()
    vali = io.load_npz(fold["vali"])
    for k in (2, 6):
        np.testing.assert_array_equal(predict(models[k], vali), predict(own[k], vali))
    assert len(list(shared.glob("*.model"))) == 2  # waf's k = 6 and pearson's k = 2 (its run alone keeps none)


def test_a_ranker_that_draws_random_numbers_is_not_shared(fold, tmp_path):
    sampled = {**LAMBDAMART, "params": {**LAMBDAMART["params"], "subsample": 0.7}}
    shared = tmp_path / "fits"
    run(fold, tmp_path, "all", {"algorithm": "waf"}, sampled, seed=1, shared=shared)
    _, info = run(fold, tmp_path, "imp", {"algorithm": "pearson"}, sampled, seed=2, shared=shared)
    assert "shared" not in info["k"]["6"]


def test_uses_seed():
    assert not uses_seed(RANKSVM) and not uses_seed(LAMBDAMART)
    assert not uses_seed({"algorithm": "lambdamart", "params": {"params": {"lambdarank_truncation_level": 13}}})
    assert uses_seed({"algorithm": "lambdamart", "grid": {"subsample": [1.0, 0.5]}})
    assert uses_seed({"algorithm": "lambdamart", "params": {"params": {"colsample_bytree": 0.8}}})
    assert make_ranker("random_forest").uses_seed()


def test_keys_name_what_decides_a_fit(fold):
    train_data, vali = io.load_npz(fold["train"]), io.load_npz(fold["vali"])
    digest = data_digest(train_data, vali)
    assert digest == data_digest(io.load_npz(fold["train"]), io.load_npz(fold["vali"])) != data_digest(vali, train_data)
    fits = SharedFits("unused", digest)
    base = dict(metric="ndcg@10", convention="letor4", ties="expected", threads=1, seed=None)
    key = fits.key(RANKSVM, np.array([0, 3]), **base)
    assert key == fits.key(RANKSVM, [0, 3], **base)
    assert len({key, fits.key(RANKSVM, [3, 0], **base), fits.key(LAMBDAMART, [0, 3], **base),
                fits.key(RANKSVM, [0, 3], **{**base, "metric": "map"}), fits.key(RANKSVM, [0, 3], **{**base, "seed": 4}),
                SharedFits("unused", "other").key(RANKSVM, [0, 3], **base)}) == 6


def test_a_damaged_fit_is_fitted_again(fold, tmp_path, caplog):
    shared = tmp_path / "fits"
    run(fold, tmp_path, "all", {"algorithm": "waf"}, RANKSVM, seed=1, shared=shared)
    for path in shared.glob("*.model"):
        path.write_text('{"format": "ltrfs-model", "version": 2, "models": {"0": {"n_features": 6}}}\n')
    _, info = run(fold, tmp_path, "imp", {"algorithm": "pearson"}, RANKSVM, seed=2, shared=shared)
    assert "shared" not in info["k"]["6"] and "cannot be read" in caplog.text and "fitted again" in caplog.text

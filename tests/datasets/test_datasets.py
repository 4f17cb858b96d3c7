"""Dataset registry, fetch (download / mirror / path, verification, safe extraction), folds."""
from __future__ import annotations

import gzip
import hashlib
import io as pyio
import json
import os
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml

from ltrfs.ranking_data import DataError
from ltrfs.datasets import download, folds, manifest
from ltrfs.datasets.download import FetchError, fetch
from ltrfs.datasets.folds import load_fold, rotation
from ltrfs.datasets.registry import feature_names, load_registry, validate_entry

REPO = Path(__file__).resolve().parents[2]
REGISTRY_FILE = REPO / "config" / "datasets.yaml"
MQ2008_ZIP = REPO.parent / "shared" / "data" / "MQ2008.zip"
MQ2008_SHA256 = {  # /work/shared/data/README.md (LF line endings)
    "Fold1/train.txt": "9b98c14e9536f2a18c59670714c99defc63e74359c56cba219a61db248f27123",
    "Fold1/vali.txt": "a239850bc6fe960ad08c2b7b0d99db90fe976dd93a15358e98036591b4e7a2ac",
    "Fold1/test.txt": "c68c52feb1ecae7f17b64c8e2fda2098302681bbd4ea5fad8c73a1d32a1cf2b2",
    "Fold2/train.txt": "96528d299fc07c54d8a6c7a539142be5cde1b75b15b7da875508b874e73bce91",
    "Fold2/vali.txt": "c68c52feb1ecae7f17b64c8e2fda2098302681bbd4ea5fad8c73a1d32a1cf2b2",
    "Fold2/test.txt": "cbd42504549a2388f6c0aefdb506f22074225b574c7a5df10194174c9b00e4e0",
    "Fold3/train.txt": "3886fb46484c2f55f78ce992886614dd65974f89897db18cf1127d0af259685b",
    "Fold3/vali.txt": "cbd42504549a2388f6c0aefdb506f22074225b574c7a5df10194174c9b00e4e0",
    "Fold3/test.txt": "055ac792cb8f7d5a029090b8acbfb6c57323339d1371251bf2465ac182aa8605",
    "Fold4/train.txt": "46bf4d68615328ec7933b28881129df08b8a23a4b12cb0c0a1652b48eab08b50",
    "Fold4/vali.txt": "055ac792cb8f7d5a029090b8acbfb6c57323339d1371251bf2465ac182aa8605",
    "Fold4/test.txt": "a03fe2b6e76479de60fecdb37d560a40a4e899b0cd685553d2da31ea205af1ab",
    "Fold5/train.txt": "d672fe2403743defa8642b44fa88a1d389ed9ada5a93aaece412ac563da22834",
    "Fold5/vali.txt": "a03fe2b6e76479de60fecdb37d560a40a4e899b0cd685553d2da31ea205af1ab",
    "Fold5/test.txt": "a239850bc6fe960ad08c2b7b0d99db90fe976dd93a15358e98036591b4e7a2ac",
}


# ----------------------------------------------------------------------------- helpers

def letor_lines(qids, rows_per_query=3, d=4, seed=0, label_max=2) -> str:
    """LETOR text with the given query ids; labels cycle 0..label_max, values seeded."""
    rng = np.random.default_rng(seed)
    out = []
    for q in qids:
        for i in range(rows_per_query):
            vals = " ".join(f"{j}:{v:.4f}" for j, v in enumerate(rng.random(d), 1))
            out.append(f"{(q + i) % (label_max + 1)} qid:{q} {vals} #docid = D{q}-{i}")
    return "\n".join(out) + "\n"


def folds_tree(root: Path, top="Toy", n_folds=5, subset_size=4, d=4) -> dict[str, bytes]:
    """Official-style folds: 5 subsets of queries rotated as in LETOR. Returns {relpath: bytes}."""
    subsets = [list(range(100 + 10 * s, 100 + 10 * s + subset_size)) for s in range(n_folds)]
    text = {s + 1: letor_lines(q, d=d, seed=s) for s, q in enumerate(subsets)}
    files = {}
    for fold in range(1, n_folds + 1):
        rot = rotation(fold, n_folds)
        for split in ("train", "vali", "test"):
            rel = f"{top}/Fold{fold}/{split}.txt" if top else f"Fold{fold}/{split}.txt"
            files[rel] = "".join(text[s] for s in rot[split]).encode()
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return files


def make_zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    return path


def make_targz(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for rel, data in files.items():
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            tf.addfile(info, pyio.BytesIO(data))
    return path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry(**fields) -> dict:
    fields.setdefault("layout", "folds")
    return validate_entry(fields.pop("name", "toy"), fields)


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def toy(tmp_path):
    """A toy 5-fold dataset: the files, a zip and a tar.gz of them, in tmp_path/src."""
    src = tmp_path / "src"
    files = folds_tree(src / "tree")
    return {"files": files, "zip": make_zip(src / "toy.zip", files),
            "targz": make_targz(src / "toy.tar.gz", files), "tree": src / "tree"}


# ----------------------------------------------------------------------------- registry

def test_registry_file_has_every_dataset():
    reg = load_registry(REGISTRY_FILE)
    wanted = {"MQ2008", "MQ2007", "OHSUMED", "OHSUMED_min", "OHSUMED_null", "TD2003", "TD2004",
              "HP2003", "HP2004", "NP2003", "NP2004", "MSLR-WEB10K", "MSLR-WEB30K", "Istella-S",
              "Yahoo-set1", "Yahoo-set2", "synthetic"}
    assert wanted <= set(reg)
    mq = reg["MQ2008"]
    assert (mq["n_features"], mq["label_levels"], mq["convention"], mq["folds"]) == (46, 3, "letor4", [1, 2, 3, 4, 5])
    assert mq["files_sha256"]["MQ2008/Fold1/train.txt"] == MQ2008_SHA256["Fold1/train.txt"]
    assert reg["MQ2007"]["checksum"] == "md5:7be1640ae95c6408dab0ae7207bdc706" and reg["MQ2007"]["format"] == "rar"
    assert reg["OHSUMED_min"]["splits"] == {"train": "trainingset", "vali": "validationset", "test": "testset"}
    assert reg["OHSUMED_null"]["null_policy"] == "min"
    assert {reg[n]["n_features"] for n in ("TD2003", "TD2004", "HP2003", "HP2004", "NP2003", "NP2004")} == {64}
    assert reg["MSLR-WEB10K"]["checksum"].startswith("sha256:2902142e") and reg["MSLR-WEB10K"]["convention"] == "mslr"
    assert reg["Yahoo-set2"]["manual"] and reg["Yahoo-set2"]["splits"]["vali"] == "valid"
    standin = reg[reg["Yahoo-set2"]["stand_in"]]  # set 2's shape: 700 features, 5 levels, one split
    assert (standin["n_features"], standin["label_levels"], standin["folds"]) == (700, 5, [1])
    assert standin["generator"]["n_constant"] == 700 - 596 and standin["stand_in"] is None
    for name, queries in (("MSLR-WEB10K", 10000), ("MSLR-WEB30K", 31531)):  # MSLR's shape, generated
        standin = reg[reg[name]["stand_in"]]
        assert standin["layout"] == "synthetic" and standin["generator"]["n_queries"] == queries
        assert (standin["n_features"], standin["label_levels"], standin["convention"]) == (136, 5, "mslr")
        assert standin["feature_names"] == reg[name]["feature_names"] and standin["folds"] == [1, 2, 3, 4, 5]
        g = standin["generator"]
        assert g["n_informative"] + g["n_redundant"] + g["n_noise"] == 136 and not g["query_norm"]
    assert reg["Istella-S"]["layout"] == "split" and reg["Istella-S"]["folds"] == [1]
    assert reg["synthetic"]["n_features"] == 30 and reg["synthetic"]["folds"] == [1, 2, 3, 4, 5]


def test_mslr_feature_names():
    reg = load_registry(REGISTRY_FILE)
    names = feature_names(reg["MSLR-WEB10K"], REGISTRY_FILE.parent)
    assert len(names) == 136 and len(set(names)) == 136
    assert names[0] == "covered query term number (body)"
    assert names[4] == "covered query term number (whole document)"
    assert names[107] == "BM25 (title)"            # X108 in Lei & Han's tables
    assert names[122] == "LMIR.JM (title)"          # X123
    assert names[129] == "PageRank" and names[135] == "url dwell time"
    letor4 = feature_names(reg["MQ2008"], REGISTRY_FILE.parent)
    assert letor4 == feature_names(reg["MQ2007"], REGISTRY_FILE.parent) and len(set(letor4)) == 46
    assert letor4[5] == "IDF (body)" and letor4[20] == "BM25 (body)" and letor4[40] == "PageRank"
    ohsumed = feature_names(reg["OHSUMED"], REGISTRY_FILE.parent)  # LETOR 3.0: 15 per field
    assert len(set(ohsumed)) == 45 and ohsumed == feature_names(reg["OHSUMED_null"], REGISTRY_FILE.parent)
    assert ohsumed[10] == "BM25 (title)" and ohsumed[25] == "BM25 (abstract)" and ohsumed[44] == "LMIR.ABS (title + abstract)"
    gov = feature_names(reg["TD2003"], REGISTRY_FILE.parent)
    assert len(set(gov)) == 64 and all(feature_names(reg[n], REGISTRY_FILE.parent) == gov
                                       for n in ("TD2004", "HP2003", "HP2004", "NP2003", "NP2004"))
    assert gov[20] == "BM25 (body)" and gov[51] == "PageRank" and gov[63] == "LMIR.JM (extracted title)"


def test_defaults_of_a_minimal_user_entry(tmp_path):
    e = validate_entry("mine", {"path": str(tmp_path), "layout": "folds"})
    assert e["pattern"] == "Fold{fold}/{split}.txt" and e["folds"] == [1, 2, 3, 4, 5]
    assert e["splits"] == {"train": "train", "vali": "vali", "test": "test"}
    assert (e["format"], e["archive"], e["convention"], e["null_policy"]) == ("dir", None, "standard", "min")
    e = validate_entry("web", {"url": "https://example.org/x/data.tar.gz", "layout": "single"})
    assert (e["urls"], e["archive"], e["format"], e["folds"], e["pattern"]) == (
        ["https://example.org/x/data.tar.gz"], "data.tar.gz", "tar.gz", [1, 2, 3, 4, 5], "all.txt")
    e = validate_entry("tt", {"archive": "d.zip", "layout": "train_test"})
    assert e["splits"] == {"train": "train", "test": "test"} and e["vali_fraction"] == 0.2 and e["folds"] == [1]


@pytest.mark.parametrize("fields, message", [
    ({"url": "https://e.org/a.zip", "layout": "folds", "colour": 1}, "dataset 'bad': colour: unknown field"),
    ({"url": "https://e.org/a.zip"}, "dataset 'bad': layout: missing required field"),
    ({"url": "https://e.org/a.zip", "layout": "letor"}, "dataset 'bad': layout: unknown layout 'letor'"),
    ({"layout": "folds"}, "dataset 'bad': urls: missing source"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "checksum": "sha1:abc"}, "dataset 'bad': checksum: must be"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "checksum": "sha256:abc"}, "checksum: must be 'sha256:<64 hex digits>', 'md5:<32 hex digits>' or 'unpublished'; got 'sha256:abc'"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "pattern": "{split}.txt"}, "pattern: '{split}.txt' must contain {fold}"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "pattern": "../F{fold}/{split}"}, "dataset 'bad': pattern:"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "pattern": "F{fold}/{part}.txt"}, "only {fold} and {split}"),
    ({"url": "https://e.org/a.zip", "layout": "split", "folds": [1, 2]}, "folds: layout split has only fold 1"),
    ({"url": "https://e.org/a.zip", "layout": "folds", "splits": {"train": "a", "test": "b"}}, "splits: layout folds needs"),
    ({"url": "https://e.org/shares/x/root/content", "layout": "folds"}, "archive: required"),
    ({"url": "mailto:x@e.org", "layout": "folds"}, "url: 'mailto:x@e.org' is not an http(s), ftp or file:// URL"),
    ({"urls": ["https://e.org/a.zip", "ftp:/x"], "layout": "folds"}, "urls: 'ftp:/x' is not an http(s)"),
    ({"urls": [], "layout": "folds"}, "urls: missing source"),
    ({"layout": "single", "archive": "a.txt", "n_folds": 5.0}, "n_folds: must be an integer >= 3"),
    ({"layout": "folds", "archive": "a.zip", "folds": [1.0, 2.0]}, "folds: must be a non-empty list of distinct positive"),
    ({"layout": "folds", "archive": "a.zip", "n_features": 46.0}, "n_features: must be an integer >= 1"),
    ({"layout": "folds", "archive": "a.zip", "manual": True, "instructions": ""}, "instructions: must say what to download"),
    ({"layout": "synthetc"}, "layout: unknown layout 'synthetc'; valid: folds, split"),
    ({"layout": "singel", "archive": "a.txt", "n_folds": 4}, "layout: unknown layout 'singel'"),
    ({"layout": "folds", "archive": "a.zip", "extract": 5}, "extract: must be a relative path glob inside the archive"),
    ({"layout": "train_test", "archive": "a.zip", "splits": {"train": "a", "test": "b", "vali": "c"}},
     "splits: layout train_test needs exactly the keys train, test"),
    ({"url": "https://e.org/a.zip", "urls": ["https://e.org/a.zip"], "layout": "folds"}, "url: give either url or urls"),
    ({"archive": "a.zip", "layout": "folds", "n_folds": 3}, "n_folds: only for layouts single and synthetic"),
    ({"archive": "a.zip", "layout": "folds", "vali_fraction": 0.3}, "vali_fraction: only for layout train_test"),
    ({"archive": "a.zip", "layout": "train_test", "vali_fraction": 1}, "vali_fraction: must be a number strictly between 0 and 1"),
    ({"archive": "a.zip", "layout": "single", "pattern": "F{fold}.txt"}, "pattern: 'F{fold}.txt': this layout reads one file"),
    ({"archive": "a.zip", "layout": "single", "splits": {"train": "t"}}, "splits: this layout has no split files"),
    ({"layout": "synthetic", "archive": "a.zip"}, "archive: a synthetic dataset has no urls, path or archive"),
    ({"archive": "a.zip", "layout": "folds", "folds": [1, 1]}, "folds: must be a non-empty list of distinct positive fold numbers"),
    ({"archive": "a.zip", "layout": "folds", "files_sha256": {"/etc/x": "0" * 64}}, "files_sha256: '/etc/x' must be a relative path"),
    ({"archive": "a/b.zip", "layout": "folds"}, "archive: must be a plain file name"),
    ({"archive": "a.zip", "layout": "folds", "manual": "yes"}, "manual: must be true or false"),
    ({"archive": "a.zip", "layout": "folds", "checksum": "unpublished", "hash_newlines": "crlf"}, "hash_newlines: unknown hash_newlines 'crlf'; valid: raw, lf"),
    ({"archive": "a.zip", "layout": "folds", "manual": True}, "instructions: missing"),
    ({"archive": "a.zip", "layout": "folds", "convention": "trec"}, "convention: unknown convention 'trec'"),
    ({"archive": "a.zip", "layout": "folds", "n_features": 0}, "n_features: must be an integer >= 1"),
    ({"archive": "a.zip", "layout": "folds", "files_sha256": {"F/a.txt": "xyz"}}, "files_sha256: F/a.txt"),
    ({"archive": "a.zip", "layout": "folds", "generator": {}}, "generator: only for layout synthetic"),
    ({"layout": "synthetic", "generator": {"n_docs": 3}}, "generator: unknown parameter 'n_docs'"),
    ({"layout": "synthetic", "generator": {"seed": 3}}, "generator: seed comes from the workflow config"),
    ({"layout": "synthetic", "n_features": 12}, "n_features: 12 differs from the generator's 30"),
    ({"layout": "single", "archive": "a.txt", "folds": [6]}, "folds: fold 6 exceeds n_folds = 5"),
    ({"archive": "a.zip", "layout": "folds", "stand_in": "bad"}, "stand_in: 'bad' must be the name of another"),
    ({"archive": "a.zip", "layout": "folds", "stand_in": ["x"]}, "stand_in: ['x'] must be the name of another"),
])
def test_validation_errors_name_dataset_and_field(fields, message):
    with pytest.raises(ValueError) as exc:
        validate_entry("bad", fields)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_load_registry_errors_name_the_file(tmp_path):
    p = tmp_path / "reg.yaml"
    p.write_text(yaml.safe_dump({"ok": {"archive": "a.zip", "layout": "folds"},
                                 "broken": {"archive": "a.zip", "layout": "folds", "feature_names": "nope.txt"}}))
    with pytest.raises(ValueError, match=r"reg\.yaml: dataset 'broken': feature_names: .*: no such file"):
        load_registry(p)
    p.write_text(yaml.safe_dump({"ok": {"archive": "a.zip", "layout": "folds", "stand_in": "gone"}}))
    with pytest.raises(ValueError, match=r"reg\.yaml: dataset 'ok': stand_in: 'gone' is not in the registry"):
        load_registry(p)
    p.write_text(yaml.safe_dump({"a": {"archive": "a.zip", "layout": "folds", "stand_in": "b"},
                                 "b": {"archive": "b.zip", "layout": "folds", "stand_in": "a"}}))
    with pytest.raises(ValueError, match=r"dataset 'a': stand_in: 'b' has a stand-in of its own"):
        load_registry(p)
    p.write_text("a: [1,\n")
    with pytest.raises(ValueError, match=r"reg\.yaml line \d+: invalid YAML"):
        load_registry(p)
    p.write_text("- 1\n")
    with pytest.raises(ValueError, match="must be a mapping"):
        load_registry(p)


# ----------------------------------------------------------------------------- folds

@pytest.mark.parametrize("fold, expected", [
    (1, ([1, 2, 3], [4], [5])), (2, ([2, 3, 4], [5], [1])), (3, ([3, 4, 5], [1], [2])),
    (4, ([4, 5, 1], [2], [3])), (5, ([5, 1, 2], [3], [4])),
])
def test_rotation(fold, expected):
    assert rotation(fold) == {"train": expected[0], "vali": expected[1], "test": expected[2]}


def test_rotation_other_n_and_errors():
    assert rotation(3, n=3) == {"train": [3], "vali": [1], "test": [2]}
    assert rotation(1, n=6) == {"train": [1, 2, 3, 4], "vali": [5], "test": [6]}
    with pytest.raises(ValueError, match="fold must be in 1..5"):
        rotation(6)
    with pytest.raises(ValueError, match="n must be an integer >= 3"):
        rotation(1, n=2)


def test_single_file_folds_rotate_seeded_subsets(tmp_path):
    qids = list(range(1, 24))  # 23 queries -> subsets of 5, 5, 5, 4, 4
    (tmp_path / "all.txt").write_text(letor_lines(qids, rows_per_query=2))
    e = entry(layout="single", archive="all.txt", n_features=4, label_levels=3)
    subsets = folds.query_subsets(23, 5, seed=42)
    assert sorted(len(s) for s in subsets) == [4, 4, 5, 5, 5]
    assert sorted(np.concatenate(subsets).tolist()) == list(range(23))
    sid = [set((np.asarray(s) + 1).tolist()) for s in subsets]  # query positions -> qids 1..23
    tests = []
    for fold in range(1, 6):
        parts = load_fold(e, tmp_path, fold, seed=42)
        got = {k: set(v.query_ids.tolist()) for k, v in parts.items()}
        rot = rotation(fold)
        assert got["train"] == set().union(*(sid[s - 1] for s in rot["train"]))
        assert got["vali"] == sid[rot["vali"][0] - 1] and got["test"] == sid[rot["test"][0] - 1]
        assert not (got["train"] & got["vali"]) and not (got["train"] & got["test"]) and not (got["vali"] & got["test"])
        assert got["train"] | got["vali"] | got["test"] == set(qids)
        assert parts["train"].n_rows == 2 * len(got["train"])
        # within a split, queries of one subset keep file order
        first = parts["train"].query_ids[: len(sid[rot["train"][0] - 1])]
        assert first.tolist() == sorted(first.tolist())
        tests.append(got["test"])
    assert sorted(q for t in tests for q in t) == qids  # the test sets partition the queries
    # fold 2 validates on what fold 1 tests on
    assert set(load_fold(e, tmp_path, 2, seed=42)["vali"].query_ids.tolist()) == tests[0]
    other = load_fold(e, tmp_path, 1, seed=43)["test"].query_ids.tolist()
    assert set(other) != tests[0]


def test_train_test_validation_carved_by_query(tmp_path):
    (tmp_path / "train.txt").write_text(letor_lines(range(1, 41), rows_per_query=3))
    (tmp_path / "test.txt").write_text(letor_lines(range(50, 60)))
    e = entry(layout="train_test", archive="x.zip", vali_fraction=0.25)
    parts = load_fold(e, tmp_path, 1, seed=5)
    tr, va, te = (set(parts[k].query_ids.tolist()) for k in ("train", "vali", "test"))
    assert len(va) == 10 and len(tr) == 30 and tr | va == set(range(1, 41)) and not tr & va
    assert te == set(range(50, 60))
    assert parts["vali"].query_ids.tolist() == sorted(va)  # file order kept
    assert parts["vali"].n_rows == 30 and parts["train"].n_rows == 90
    again = load_fold(e, tmp_path, 1, seed=5)["vali"].query_ids
    np.testing.assert_array_equal(again, parts["vali"].query_ids)
    train_idx, vali_idx = folds.carve_validation(40, 0.25, seed=5)
    assert (np.asarray(sorted(va)) - 1).tolist() == vali_idx.tolist()
    assert folds.carve_validation(3, 0.01, 0)[1].size == 1  # at least one query


def test_split_layout_names_and_bad_fold(tmp_path):
    for split, q in (("train", [1, 2]), ("valid", [3]), ("test", [4])):
        (tmp_path / f"set2.{split}.txt").write_text(letor_lines(q, d=3))
    e = entry(layout="split", archive="y.tar.bz2", pattern="set2.{split}.txt",
              splits={"train": "train", "vali": "valid", "test": "test"}, n_features=5)
    parts = load_fold(e, tmp_path, 1)
    assert [parts[k].query_ids.tolist() for k in ("train", "vali", "test")] == [[1, 2], [3], [4]]
    assert parts["train"].n_features == 5  # declared width; absent features are 0
    assert np.all(parts["train"].X[:, 3:] == 0)
    with pytest.raises(ValueError, match="has no fold 2"):
        load_fold(e, tmp_path, 2)


def test_labels_and_width_checked(tmp_path):
    folds_tree(tmp_path, top=None)
    e = entry(archive="t.zip", n_features=4, label_levels=2)
    with pytest.raises(DataError) as exc:
        load_fold(e, tmp_path, 1)
    msg = str(exc.value)
    assert "Fold1/train.txt:" in msg and "label 2 outside the declared levels 0..1" in msg
    line = int(msg.split("train.txt:")[1].split(":")[0])
    assert (tmp_path / "Fold1/train.txt").read_text().splitlines()[line - 1].startswith("2 ")
    with pytest.raises(DataError, match="train.txt"):
        load_fold(entry(archive="t.zip", n_features=3), tmp_path, 1)
    # n_features not declared: inferred, the narrower splits padded with zeros
    (tmp_path / "Fold1/test.txt").write_text("1 qid:7 1:0.5 2:0.25\n0 qid:7 1:0.1\n")
    parts = load_fold(entry(archive="t.zip"), tmp_path, 1)
    assert parts["train"].n_features == 4 and parts["test"].n_features == 4
    np.testing.assert_array_equal(parts["test"].X, np.float32([[0.5, 0.25, 0, 0], [0.1, 0, 0, 0]]))


def test_data_root_found_below_and_ambiguity(tmp_path):
    folds_tree(tmp_path / "a" / "wrapper")
    e = entry(archive="t.zip", pattern="Toy/Fold{fold}/{split}.txt")
    assert folds.locate_data_root(e, tmp_path) == tmp_path / "a" / "wrapper"
    folds_tree(tmp_path / "b")
    with pytest.raises(DataError, match="found in several folders"):
        folds.locate_data_root(e, tmp_path)
    (tmp_path / "b/Toy/Fold3/vali.txt").unlink()
    with pytest.raises(DataError, match=r"Toy/Fold3/vali.txt missing in"):
        folds.locate_data_root(e, tmp_path / "b")
    with pytest.raises(DataError, match="not found in"):
        folds.locate_data_root(entry(archive="t.zip", pattern="X/Fold{fold}/{split}.txt"), tmp_path)


def test_missing_folds_say_how_to_run_the_complete_ones(tmp_path, capsys):
    """Only Fold1 of a folds layout: the message names what is missing and how to run fold 1
    alone (``folds: [1]`` in the registry entry); with that, the data is found and ``ltrfs
    datasets`` lists fold 1 only."""
    import yaml

    from ltrfs.cli import main

    folds_tree(tmp_path / "data", top=None)
    (tmp_path / "data/Fold3/vali.txt").unlink()
    with pytest.raises(DataError, match=r"Fold3/vali.txt missing in .*; to run only the complete folds, "
                                        r"set `folds: \[1, 2, 4, 5\]`"):
        folds.locate_data_root(entry(path=str(tmp_path / "data")), tmp_path / "data")
    for fold in (2, 3, 4, 5):
        for split in ("train", "vali", "test"):
            (tmp_path / f"data/Fold{fold}/{split}.txt").unlink(missing_ok=True)
    with pytest.raises(DataError) as exc:
        folds.locate_data_root(entry(name="mine", path=str(tmp_path / "data")), tmp_path / "data", what="mine")
    assert str(exc.value) == (f"mine: Fold2/train.txt (and 11 more) missing in {tmp_path / 'data'}; to run only the "
                              "complete fold, set `folds: [1]` on the experiment in your config (or in the dataset's "
                              "registry entry; see docs/datasets.md)")
    restricted = entry(path=str(tmp_path / "data"), folds=[1])
    assert folds.locate_data_root(restricted, tmp_path / "data") == tmp_path / "data"
    (tmp_path / "data/Fold1/test.txt").unlink()  # no complete fold: no advice
    with pytest.raises(DataError, match=r"Fold1/test.txt \(and 12 more\) missing in [^;]*$"):
        folds.locate_data_root(entry(path=str(tmp_path / "data")), tmp_path / "data")
    registry = tmp_path / "datasets.yaml"
    registry.write_text(yaml.safe_dump({"mine": {"path": str(tmp_path / "data"), "layout": "folds", "folds": [1]},
                                        "all5": {"path": str(tmp_path / "data"), "layout": "folds"}}))
    assert main(["datasets", "--registry", str(registry)]) == 0
    rows = {line.split()[0]: line.split()[2] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows == {"mine": "1", "all5": "1,2,3,4,5"}


# ----------------------------------------------------------------------------- fetch

def toy_entry(toy, **fields):
    files = {rel[len("Toy/"):]: sha256(data) for rel, data in toy["files"].items() if "Fold1" in rel}
    fields.setdefault("files_sha256", files)
    fields.setdefault("pattern", "Fold{fold}/{split}.txt")
    fields.setdefault("n_features", 4)
    fields.setdefault("label_levels", 3)
    return entry(**fields)


def test_fetch_from_file_url_zip(toy, tmp_path):
    digest = sha256(toy["zip"].read_bytes())
    e = toy_entry(toy, urls=[toy["zip"].as_uri()], checksum=f"sha256:{digest}")
    dest = tmp_path / "resources" / "toy"
    manifest_path = fetch("toy", e, dest)
    assert manifest_path == dest / "manifest.json"
    m = json.loads(manifest_path.read_text())
    assert m["source"] == {"kind": "url", "location": toy["zip"].as_uri()}
    assert m["archive"]["sha256"] == digest and m["archive"]["size"] == toy["zip"].stat().st_size
    assert m["data_root"] == "data/Toy"
    assert set(m["files"]) == {f"data/{rel}" for rel in toy["files"]}
    for rel, data in toy["files"].items():
        assert m["files"][f"data/{rel}"] == {"sha256": sha256(data), "size": len(data),
                                             "mtime_ns": (dest / "data" / rel).stat().st_mtime_ns}
        assert (dest / "data" / rel).read_bytes() == data
    assert (dest / "toy.zip").read_bytes() == toy["zip"].read_bytes()  # archive kept
    assert not list(dest.glob(".*part*")) and not list(dest.glob(".tmp-*"))
    parts = load_fold(e, dest, 3)
    assert parts["test"].query_ids.tolist() == [110, 111, 112, 113]  # fold 3 tests on S2
    # a second call trusts the manifest and does nothing
    before = manifest_path.stat().st_mtime_ns
    fetch("toy", e, dest)
    assert manifest_path.stat().st_mtime_ns == before


def test_fetch_from_mirror_targz_with_md5(toy, tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy.tar.gz").write_bytes(toy["targz"].read_bytes())
    md5 = hashlib.md5(toy["targz"].read_bytes()).hexdigest()
    e = toy_entry(toy, urls=["file:///nonexistent/toy.tar.gz"], archive="toy.tar.gz", checksum=f"md5:{md5}")
    dest = tmp_path / "res"
    m = json.loads(fetch("toy", e, dest, mirror=mirror).read_text())
    assert m["source"]["kind"] == "mirror" and m["archive"]["md5"] == md5
    assert len(m["files"]) == 15
    assert not (dest / "toy.tar.gz").exists()  # the mirror copy is used in place
    assert load_fold(e, dest, 1)["train"].n_queries == 12


def test_fetch_tries_urls_in_order(toy, tmp_path):
    e = toy_entry(toy, urls=[(tmp_path / "missing.zip").as_uri(), toy["zip"].as_uri()], archive="toy.zip")
    m = json.loads(fetch("toy", e, tmp_path / "res").read_text())
    assert m["source"]["location"] == toy["zip"].as_uri()
    e = toy_entry(toy, urls=[(tmp_path / "missing.zip").as_uri()], archive="toy.zip")
    with pytest.raises(FetchError, match="toy: cannot download file://"):
        fetch("toy", e, tmp_path / "res2")


def test_checksum_mismatch_leaves_nothing_trusted(toy, tmp_path):
    actual = sha256(toy["zip"].read_bytes())
    wrong = "0" * 64
    e = toy_entry(toy, urls=[toy["zip"].as_uri()], checksum=f"sha256:{wrong}")
    dest = tmp_path / "res"
    with pytest.raises(FetchError) as exc:
        fetch("toy", e, dest)
    msg = str(exc.value)
    assert f"expected sha256:{wrong}" in msg and f"got sha256:{actual}" in msg and "\n" not in msg
    assert listing(dest) == []  # no manifest, no archive, no partial download
    # a mirror copy with a bad digest is refused too, and left alone
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy.zip").write_bytes(toy["zip"].read_bytes())
    with pytest.raises(FetchError, match="mirror"):
        fetch("toy", e, dest, mirror=mirror)
    assert (mirror / "toy.zip").exists() and listing(dest) == []


def test_file_sha256_mismatch_removes_download(toy, tmp_path):
    e = toy_entry(toy, urls=[toy["zip"].as_uri()], files_sha256={"Fold1/train.txt": "1" * 64})
    dest = tmp_path / "res"
    with pytest.raises(FetchError, match=r"toy: Fold1/train.txt: sha256 mismatch: expected 1{64}, got [0-9a-f]{64}"):
        fetch("toy", e, dest)
    assert listing(dest) == []
    e = toy_entry(toy, urls=[toy["zip"].as_uri()], files_sha256={"Fold9/x.txt": "1" * 64})
    with pytest.raises(FetchError, match="Fold9/x.txt .listed in files_sha256. is missing"):
        fetch("toy", e, dest)


def test_newline_insensitive_file_digest(tmp_path):
    lf, crlf = tmp_path / "lf.txt", tmp_path / "crlf.txt"
    text = "".join(f"{i} qid:1 1:0.{i}\n" for i in range(2000))  # crosses chunk borders below
    lf.write_bytes(text.encode())
    crlf.write_bytes(text.replace("\n", "\r\n").encode())
    old = manifest.CHUNK
    try:
        manifest.CHUNK = 7  # force '\r' and '\n' into different blocks
        a = manifest.file_digests(crlf, newlines="lf")["sha256"]
    finally:
        manifest.CHUNK = old
    assert a == manifest.file_digests(lf)["sha256"] == sha256(text.encode())
    assert manifest.file_digests(crlf)["sha256"] == sha256(text.replace("\n", "\r\n").encode())


def test_interrupted_extraction_is_redone(toy, tmp_path, monkeypatch):
    e = toy_entry(toy, urls=[toy["zip"].as_uri()])
    dest = tmp_path / "res"
    real = download.extract

    def crash(archive, out, fmt, members=None):
        real(archive, out, fmt, members)
        raise KeyboardInterrupt

    monkeypatch.setattr(download, "extract", crash)
    with pytest.raises(KeyboardInterrupt):
        fetch("toy", e, dest)
    assert listing(dest) == ["toy.zip"]  # verified download kept; no data, no manifest
    monkeypatch.setattr(download, "extract", real)
    m = json.loads(fetch("toy", e, dest).read_text())
    assert m["source"]["kind"] == "cache" and len(m["files"]) == 15


def test_foreign_data_folder_is_not_replaced(toy, tmp_path):
    dest = tmp_path / "res"
    (dest / "data").mkdir(parents=True)
    (dest / "data" / "mine.txt").write_text("keep")
    with pytest.raises(FetchError, match="was not made by ltrfs"):
        fetch("toy", toy_entry(toy, urls=[toy["zip"].as_uri()]), dest)
    assert (dest / "data" / "mine.txt").read_text() == "keep"


def test_fetch_from_local_folder_and_archive(toy, tmp_path):
    e = toy_entry(toy, path=str(toy["tree"]))
    dest = tmp_path / "res"
    m = json.loads(fetch("toy", e, dest).read_text())
    assert (dest / "data").is_symlink() and m["source"]["kind"] == "path"
    assert m["data_root"] == "data/Toy" and len(m["files"]) == 15
    assert load_fold(e, dest, 5)["vali"].query_ids.tolist() == [120, 121, 122, 123]
    e = toy_entry(toy, path=str(toy["targz"]))
    m = json.loads(fetch("toy", e, tmp_path / "res2").read_text())
    assert m["source"]["kind"] == "path" and m["archive"]["name"] == "toy.tar.gz"
    with pytest.raises(FetchError, match=r": no such file or folder; correct the path of .* in the dataset registry"):
        fetch("toy", toy_entry(toy, path=str(tmp_path / "nope.zip")), tmp_path / "res3")


def test_an_archive_of_some_folds_runs_those_and_names_the_others(toy, tmp_path):
    """An archive holding Folds 1 and 2 of a five-fold entry whose files_sha256 lists every fold
    (MQ2008's case with a partial copy): the fetch verifies the two folds there and records them;
    reading fold 3 stops in one line naming the folds to set on the experiment (the one place);
    a file that is there but altered still stops the fetch."""
    every = {rel[len("Toy/"):]: sha256(data) for rel, data in toy["files"].items()}
    part = {rel: data for rel, data in toy["files"].items() if "Fold1" in rel or "Fold2" in rel}
    e = toy_entry(toy, path=str(make_zip(tmp_path / "part.zip", part)), files_sha256=every)
    m = json.loads(fetch("toy", e, tmp_path / "res").read_text())
    assert m["folds"] == [1, 2] and len(m["files"]) == 6
    assert load_fold(e, tmp_path / "res", 2)["test"].query_ids.tolist() == sorted(
        load_fold(e, tmp_path / "res", 2)["test"].query_ids.tolist())
    with pytest.raises(DataError) as exc:
        load_fold(e, tmp_path / "res", 3)
    assert str(exc.value).startswith("toy: fold 3 is incomplete (") and str(exc.value).endswith(
        "missing); its complete folds are [1, 2]: set `folds: [1, 2]` on the experiment in your config to run those")
    bad = dict(part, **{"Toy/Fold2/vali.txt": part["Toy/Fold2/vali.txt"] + b"\n"})
    with pytest.raises(FetchError, match=r"toy: Fold2/vali.txt: sha256 mismatch"):
        fetch("toy", toy_entry(toy, path=str(make_zip(tmp_path / "bad.zip", bad)), files_sha256=every), tmp_path / "r2")
    with pytest.raises(DataError, match=r"Fold1/train.txt .*not found"):  # no fold at all: nothing to run
        fetch("toy", toy_entry(toy, path=str(make_zip(tmp_path / "none.zip", {"Toy/x.txt": b"1"})),
                               files_sha256=every), tmp_path / "r3")


def test_extract_filter_keeps_selected_members(toy, tmp_path):
    files = dict(toy["files"])
    files["Other/big.txt"] = b"x"
    archive = make_zip(tmp_path / "two.zip", files)
    e = toy_entry(toy, path=str(archive), extract=["*Toy/Fold1", "*Toy/Fold2"], pattern="Fold{fold}/{split}.txt",
                  folds=[1, 2])
    dest = tmp_path / "res"
    fetch("toy", e, dest)
    assert sorted(p.name for p in (dest / "data").iterdir() if not p.name.startswith(".")) == ["Toy"]
    assert sorted(p.name for p in (dest / "data" / "Toy").iterdir()) == ["Fold1", "Fold2"]
    tree = tmp_path / "tree2"
    for rel, data in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    download._prune(tree, ["*Toy/Fold3"])  # the RAR path: extract all, then prune
    assert listing(tree) == ["Toy", "Toy/Fold3", "Toy/Fold3/test.txt", "Toy/Fold3/train.txt",
                                      "Toy/Fold3/vali.txt"]


def test_manual_dataset_names_files_and_folder(tmp_path):
    e = entry(layout="split", manual=True, archive="ltrc_yahoo.tar.bz2", pattern="set1.{split}.txt",
              splits={"train": "train", "vali": "valid", "test": "test"},
              instructions="request the data at https://webscope.example and download ltrc_yahoo.tar.bz2.")
    dest = tmp_path / "resources" / "Yahoo-set1"
    with pytest.raises(FetchError) as exc:
        fetch("Yahoo-set1", e, dest, mirror=tmp_path / "mirror")
    msg = str(exc.value)
    assert msg.startswith("Yahoo-set1 must be downloaded by hand: request the data at https://webscope.example")
    assert "Put ltrc_yahoo.tar.bz2 (or its extracted files set1.train.txt, set1.valid.txt, set1.test.txt) in " in msg
    assert str(dest.resolve()) in msg and str((tmp_path / "mirror").resolve()) in msg and "\n" not in msg
    assert not (dest / "manifest.json").exists()
    # the user extracts the files into the folder: fetch takes them as they are
    for split, q in (("train", [1, 2]), ("valid", [3]), ("test", [4])):
        (dest / f"set1.{split}.txt").write_text(letor_lines(q))
    m = json.loads(fetch("Yahoo-set1", e, dest).read_text())
    assert m["source"]["kind"] == "local files" and m["data_root"] == "."
    assert sorted(m["files"]) == ["set1.test.txt", "set1.train.txt", "set1.valid.txt"]
    assert load_fold(e, dest, 1)["vali"].query_ids.tolist() == [3]


def test_archive_without_url_message(tmp_path):
    reg = load_registry(REGISTRY_FILE)
    with pytest.raises(FetchError) as exc:
        fetch("OHSUMED", reg["OHSUMED"], tmp_path / "OHSUMED")
    msg = str(exc.value)
    assert msg.startswith("OHSUMED: no source to fetch from; download OHSUMED.zip")
    assert ("OHSUMED.zip (or its extracted files QueryLevelNorm/Fold{fold}/{split}.txt for {fold} = 1-5 and "
            "{split} = train, vali, test) from https://www.microsoft.com/en-us/research/project/letor") in msg
    assert msg.endswith(f"put it in {(tmp_path / 'OHSUMED').resolve()}")


@pytest.mark.parametrize("member", ["../evil.txt", "/abs/evil.txt", "Toy/../../evil.txt"])
def test_zip_path_traversal_refused(tmp_path, member):
    archive = make_zip(tmp_path / "bad.zip", {"Toy/Fold1/train.txt": b"1 qid:1 1:1\n", member: b"gotcha"})
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError, match="refusing unsafe member path"):
        download.extract(archive, out, "zip")
    assert listing(out) == [] and not (tmp_path / "evil.txt").exists()


def test_tar_traversal_and_links_refused(tmp_path):
    def tar_with(member: tarfile.TarInfo, data: bytes = b"") -> Path:
        path = tmp_path / "bad.tar.gz"
        with tarfile.open(path, "w:gz") as tf:
            tf.addfile(member, pyio.BytesIO(data) if data else None)
        return path

    out = tmp_path / "out"
    out.mkdir()
    info = tarfile.TarInfo("../evil.txt")
    info.size = 3
    with pytest.raises(FetchError, match="refusing unsafe member path '../evil.txt'"):
        download.extract(tar_with(info, b"abc"), out, "tar.gz")
    link = tarfile.TarInfo("Toy/passwd")
    link.type, link.linkname = tarfile.SYMTYPE, "../../../etc/passwd"
    with pytest.raises(FetchError, match="refusing link 'Toy/passwd'"):
        download.extract(tar_with(link), out, "tar.gz")
    link.linkname = "/etc/passwd"
    with pytest.raises(FetchError, match="refusing link"):
        download.extract(tar_with(link), out, "tar.gz")
    assert listing(out) == [] and not (tmp_path / "evil.txt").exists()


def test_zip_symlink_member_refused(tmp_path):
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("Toy/link")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError, match="refusing symbolic link member 'Toy/link'"):
        download.extract(path, out, "zip")


def test_damaged_archive_is_one_line_error(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError, match="bad.zip: damaged or not a zip archive"):
        download.extract(bad, out, "zip")


def test_missing_rar_tool_message(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    rar = tmp_path / "MQ2007.rar"
    rar.write_bytes(b"Rar!\x1a\x07\x00")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError) as exc:
        download.extract(rar, out, "rar")
    msg = str(exc.value)
    assert msg.startswith("cannot extract MQ2007.rar: no RAR extractor on PATH (looked for bsdtar, unrar")
    assert "apt-get install libarchive-tools" in msg and "apt-get install unrar-free" in msg and "\n" not in msg


def test_rar_through_a_tool(tmp_path, monkeypatch):
    """The external-tool path, with a stand-in 'bsdtar' that unpacks a zip (no RAR tool here)."""
    files = {"MQ/Fold1/train.txt": b"0 qid:1 1:1\n"}
    fake = make_zip(tmp_path / "d.rar", files)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "bsdtar"
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import sys, zipfile\n"
        "a = sys.argv[1:]\n"
        "z = zipfile.ZipFile(a[1] if a[0] == '-tf' else a[a.index('-f') + 1])\n"
        "if a[0] == '-tf':\n"
        "    print('\\n'.join(z.namelist()))\n"
        "else:\n"
        "    z.extractall(a[a.index('-C') + 1])\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "out"
    out.mkdir()
    download.extract(fake, out, "rar")
    assert (out / "MQ/Fold1/train.txt").read_bytes() == files["MQ/Fold1/train.txt"]
    evil = make_zip(tmp_path / "e.rar", {"../x.txt": b"1"})
    out2 = tmp_path / "out2"
    out2.mkdir()
    with pytest.raises(FetchError, match="refusing unsafe member path"):
        download.extract(evil, out2, "rar")
    assert listing(out2) == []


def test_fetch_synthetic_entry(tmp_path):
    reg = load_registry(REGISTRY_FILE)
    from ltrfs.datasets import synthetic

    dest = tmp_path / "synthetic-tiny"
    m = json.loads(fetch("synthetic-tiny", reg["synthetic-tiny"], dest, seed=4).read_text())
    assert m["source"] == {"kind": "synthetic", "seed": 4} and sorted(m["files"]) == ["data/all.txt", "data/truth.json"]
    ref = tmp_path / "ref"
    synthetic.generate(ref, **reg["synthetic-tiny"]["generator"], seed=4)
    assert (dest / "data/all.txt").read_bytes() == (ref / "all.txt").read_bytes()
    parts = load_fold(reg["synthetic-tiny"], dest, 1, seed=9)
    assert parts["train"].n_features == 12
    assert sum(p.n_queries for p in parts.values()) == 60
    # another seed is another dataset: the manifest no longer matches, fetch regenerates
    fetch("synthetic-tiny", reg["synthetic-tiny"], dest, seed=5)
    assert (dest / "data/all.txt").read_bytes() != (ref / "all.txt").read_bytes()


# ----------------------------------------------------------------------------- real data

@pytest.fixture(scope="module")
def mq2008(tmp_path_factory):
    if not MQ2008_ZIP.exists():
        pytest.skip(f"real-data check skipped: {MQ2008_ZIP} is absent")
    reg = load_registry(REGISTRY_FILE)
    dest = tmp_path_factory.mktemp("resources") / "MQ2008"
    fetch("MQ2008", reg["MQ2008"], dest, mirror=MQ2008_ZIP.parent)
    return reg["MQ2008"], dest


def test_mq2008_through_the_mirror(mq2008):
    e, dest = mq2008
    m = json.loads((dest / "manifest.json").read_text())
    assert m["source"]["kind"] == "mirror"
    assert m["archive"]["sha256"] == "783bc62f0f87b06d3f98d73257d61ff3ba3e3bc1a5cc7f095ab2a4c6a99d469a"
    got = {rel[len("data/MQ2008/"):]: info["sha256"] for rel, info in m["files"].items()
           if rel.startswith("data/MQ2008/Fold")}
    assert got == MQ2008_SHA256  # all 15 fold files, with the digests of data/README.md
    parts = load_fold(e, dest, 1)
    assert [parts[s].n_queries for s in ("train", "vali", "test")] == [471, 157, 156]
    assert [parts[s].n_rows for s in ("train", "vali", "test")] == [9630, 2707, 2874]
    assert parts["train"].n_features == 46 and parts["train"].y.max() == 2
    fold2 = load_fold(e, dest, 2)
    for attr in ("X", "y", "query_ptr", "query_ids", "docids"):
        np.testing.assert_array_equal(getattr(fold2["vali"], attr), getattr(parts["test"], attr))
    tests = [load_fold(e, dest, f)["test"] for f in range(1, 6)]
    ids = np.concatenate([t.query_ids for t in tests])
    assert len(ids) == len(set(ids.tolist())) == 784 and sum(t.n_rows for t in tests) == 15211


OHSUMED_ZIP = REPO.parent / "shared" / "data" / "OHSUMED.zip"


def test_ohsumed_through_the_mirror_is_verified_file_by_file(tmp_path):
    """OHSUMED (LETOR 3.0 QueryLevelNorm) is pinned per fold file like MQ2008: the mirror's
    archive verifies, the row counts and labels are those of data/README.md, and a fold file
    changed in a repacked archive is refused with a message naming it."""
    import re
    import zipfile

    if not OHSUMED_ZIP.exists():
        pytest.skip(f"real-data check skipped: {OHSUMED_ZIP} is absent")
    readme = (OHSUMED_ZIP.parent / "README.md").read_text()
    want = {f"QueryLevelNorm/Fold{f}/{s}.txt": h for f, s, h in
            re.findall(r"\| (\d) \| (train|vali|test) \| \d+ \| \d+ \| [^|]+\| `([0-9a-f]{64})` \|", readme)}
    reg = load_registry(REGISTRY_FILE)
    e = reg["OHSUMED"]
    assert e["files_sha256"] == want and len(want) == 15
    dest = tmp_path / "OHSUMED"
    fetch("OHSUMED", e, dest, mirror=OHSUMED_ZIP.parent)
    parts = load_fold(e, dest, 1)
    assert [parts[s].n_rows for s in ("train", "vali", "test")] == [9219, 3538, 3383]
    assert [parts[s].n_queries for s in ("train", "vali", "test")] == [63, 21, 22]
    assert parts["train"].n_features == 45 and np.bincount(parts["train"].y).tolist() == [6052, 1765, 1402]
    # a repacked archive with one label changed in Fold1/test.txt
    bad_dir = tmp_path / "mirror"
    bad_dir.mkdir()
    with zipfile.ZipFile(OHSUMED_ZIP) as src, zipfile.ZipFile(bad_dir / "OHSUMED.zip", "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("QueryLevelNorm/Fold1/test.txt"):
                data = (b"1" if data[:1] == b"0" else b"0") + data[1:]
            dst.writestr(info, data)
    with pytest.raises(FetchError, match=r"OHSUMED: QueryLevelNorm/Fold1/test.txt: sha256 mismatch"):
        fetch("OHSUMED", e, tmp_path / "OHSUMED-bad", mirror=bad_dir)


def test_data_files_are_checked_against_their_manifest(tmp_path):
    from ltrfs.ranking_data import DataError
    from ltrfs.datasets.manifest import MANIFEST, verify_files

    data = tmp_path / "data"
    data.mkdir()
    a, b = data / "a.txt", data / "b.txt"
    a.write_bytes(b"0 qid:1 1:0.5\n")
    b.write_bytes(b"1 qid:1 1:0.25\n")
    records = {f"data/{p.name}": {"sha256": hashlib.sha256(p.read_bytes()).hexdigest(), "size": p.stat().st_size,
                                  "mtime_ns": p.stat().st_mtime_ns} for p in (a, b)}
    (tmp_path / MANIFEST).write_text(json.dumps({"files": records, "data_root": "data"}))
    verify_files(tmp_path, [a, b, data / "unlisted.txt"])   # untouched; an unlisted file is not checked
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 10**9))
    verify_files(tmp_path, [a])                             # touched, same content: hashed, accepted
    a.write_bytes(b"1 qid:1 1:0.5\n")                       # one label flipped, same size
    with pytest.raises(DataError, match=f"{a}: changed since it was fetched .* delete {tmp_path} and run again"):
        verify_files(tmp_path, [a])
    b.write_bytes(b"1 qid:1 1:0.2\n")                       # shorter
    with pytest.raises(DataError, match=f"{b}: changed since it was fetched"):
        verify_files(tmp_path, [b])
    verify_files(tmp_path / "elsewhere", [a])               # no manifest (a local path:): nothing to check


def test_every_shipped_entry_says_whether_its_archive_checksum_is_published():
    """The registry pins a published archive checksum, or says 'unpublished'; `ltrfs datasets`
    shows which (the manifest records the sha256 of the archive used either way)."""
    reg = load_registry(REGISTRY_FILE)
    status = {name: e["checksum_status"] for name, e in reg.items()}
    assert "not given" not in status.values(), status
    assert status["MSLR-WEB10K"] == "pinned" and status["MQ2007"] == "pinned"
    assert status["MQ2008"] == status["OHSUMED"] == status["TD2003"] == status["Yahoo-set1"] == "unpublished"
    assert reg["MQ2008"]["checksum"] is None and reg["MQ2007"]["checksum"].startswith("md5:")
    assert status["synthetic"] == "generated"


@pytest.mark.parametrize("fields", [
    {"url": "HTTPS://E.ORG/A.ZIP", "layout": "folds"},                       # a URL scheme in capitals
    {"archive": "a.zip", "layout": "folds", "pattern": "Fold{fold:02d}/{split}.txt"},  # a format spec
    {"archive": "a.zip", "layout": "folds", "checksum": None, "path": None, "stand_in": None},  # empty fields
    {"archive": "a.txt", "layout": "single", "splits": {}},
    {"archive": "a.zip", "layout": "folds", "checksum": "SHA256: " + "A" * 64},
])
def test_entries_the_registry_accepts(fields):
    entry = validate_entry("ok", fields)
    assert entry["layout"] == fields["layout"] and entry["path"] is None


# ----------------------------------------------------------------------------- decompression bombs

class _Newlines(pyio.RawIOBase):
    """``size`` newlines, read as a stream (the bomb's content is never held in memory)."""

    def __init__(self, size):
        self.left = size

    def readable(self):
        return True

    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = b"\n" * n
        self.left -= n
        return n


BOMB = 64 * 2 ** 20  # past the 16 MiB floor; each archive below is far smaller than BOMB / 100


def _bomb_archive(path: Path, fmt: str) -> Path:
    good = b"1 qid:1 1:0.5\n"
    if fmt == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            zf.writestr("Toy/Fold1/train.txt", good)
            with zf.open("Toy/pad.txt", "w") as dst:
                src = _Newlines(BOMB)
                while chunk := src.read(2 ** 20):
                    dst.write(chunk)
    elif fmt == "gz":
        with gzip.open(path, "wb", compresslevel=9) as dst:
            src = _Newlines(BOMB)
            while chunk := src.read(2 ** 20):
                dst.write(chunk)
    else:
        with tarfile.open(path, "w:" + fmt.split(".")[1]) as tf:
            for name, size, src in (("Toy/Fold1/train.txt", len(good), pyio.BytesIO(good)),
                                    ("Toy/pad.txt", BOMB, _Newlines(BOMB))):
                info = tarfile.TarInfo(name)
                info.size = size
                tf.addfile(info, src)
    return path


def _tree_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("fmt, members", [("zip", None), ("tar.gz", None), ("tar.bz2", None), ("tar.xz", None),
                                          ("tar.gz", ["Toy/Fold1"]), ("gz", None)])
def test_an_archive_that_unpacks_past_its_limit_is_refused(tmp_path, fmt, members):
    archive = _bomb_archive(tmp_path / f"bomb.{fmt}", fmt)
    assert 100 * archive.stat().st_size < 16 * 2 ** 20
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError) as exc:  # members=["Toy/Fold1"]: the skipped member counts too
        download.extract(archive, out, fmt, members)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"{archive}: unpacks to more than 16 MiB")
    assert "LTRFS_UNPACK_LIMIT=" in msg
    assert _tree_bytes(out) <= 16 * 2 ** 20  # nothing past the limit was written


def test_a_raised_unpack_limit_lets_a_large_archive_through(tmp_path, monkeypatch):
    archive = _bomb_archive(tmp_path / "big.tar.gz", "tar.gz")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("LTRFS_UNPACK_LIMIT", "65M")
    with pytest.raises(FetchError, match="big.tar.gz: unpacks to more than 16 MiB"):  # the ratio binds
        download.extract(archive, out, "tar.gz")
    monkeypatch.setenv("LTRFS_UNPACK_RATIO", "1e6")
    download.extract(archive, out, "tar.gz")
    assert (out / "Toy" / "pad.txt").stat().st_size == BOMB


def test_fetch_keeps_a_download_refused_by_the_unpack_limit(toy, tmp_path):
    bomb = _bomb_archive(tmp_path / "toy.zip", "zip")
    e = toy_entry(toy, urls=[bomb.as_uri()], archive="toy.zip")
    dest = tmp_path / "res"
    with pytest.raises(DataError, match=r"toy\.zip: unpacks to more than 16 MiB") as exc:
        fetch("toy", e, dest)
    assert "\n" not in str(exc.value)
    assert (dest / "toy.zip").exists()  # a rerun with a raised limit need not download it again
    assert not (dest / "manifest.json").exists() and not list(dest.glob(".tmp-extract-*"))


@pytest.mark.parametrize("script, what", [
    ('head -c 40000000 /dev/zero > "$5/big.txt"', "one file past the limit: stopped by RLIMIT_FSIZE"),
    ('for i in 1 2 3; do head -c 10000000 /dev/zero > "$5/part$i.txt"; done', "files adding up past it"),
])
def test_a_rar_tool_is_held_to_the_unpack_limit(tmp_path, monkeypatch, script, what):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "unar"  # called as: unar -q -f -D -o <out> <archive>
    tool.write_text(f"#!/bin/sh\n{script}\n")
    tool.chmod(0o755)
    monkeypatch.setattr(download, "rar_tool", lambda: ("unar", str(tool)))
    rar = tmp_path / "small.rar"
    rar.write_bytes(b"Rar!\x1a\x07\x00" + bytes(1000))
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(FetchError, match=r"small\.rar: unpacks to more than 16 MiB"):
        download.extract(rar, out, "rar")
    assert max((p.stat().st_size for p in out.iterdir()), default=0) <= 16 * 2 ** 20

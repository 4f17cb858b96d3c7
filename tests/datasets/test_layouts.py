"""The registry entries of the datasets that cannot be downloaded here (MQ2007, LETOR 3.0
OHSUMED and Gov, MSLR, Yahoo!) against generated archives in their real layouts and formats.

``lookalike_archives.benchmark_files`` writes each real archive's tree (names, folders,
line format, label scale, feature count) from facts kept apart from ``config/datasets.yaml``;
the tests fetch every registry entry from a mirror folder holding those archives and load every
fold. A wrong pattern, split name, archive name, ``n_features`` or ``label_levels`` in the
registry fails here. Checksums and per-file digests of the entries pin the real data, so they
are dropped for the generated stand-ins (they are tested in test_datasets.py).
"""
from __future__ import annotations

import re
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

import lookalike_archives
from ltrfs.datasets import download
from ltrfs.ranking_data import DataError
from ltrfs.datasets.download import FetchError, available, fetch
from ltrfs.datasets.folds import load_fold
from ltrfs.datasets.registry import load_registry

REPO = Path(__file__).resolve().parents[2]
REGISTRY = load_registry(REPO / "config" / "datasets.yaml")
DATASETS = sorted(lookalike_archives.BENCHMARK_DATASETS)
RAR_READER = download.rar_tool()
QPS = 2  # queries per subset of the generated archives


def stand_in(entry: dict, rar: bool) -> dict:
    """The entry without the pins of the real data; a .rar entry read from the zip variant of
    its archive when ``rar`` is False (no RAR extractor installed)."""
    e = dict(entry, checksum=None, files_sha256={})
    if entry["format"] == "rar" and not rar:
        e.update(archive=entry["archive"][:-4] + ".zip", format="zip")
    return e


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """A mirror folder with every generated archive under its real name (plus a zip variant
    of each .rar, used when no RAR extractor is installed)."""
    folder = tmp_path_factory.mktemp("mirror")
    for key, spec in lookalike_archives.BENCHMARKS.items():
        lookalike_archives.write_benchmark_archive(key, folder, seed=3, queries_per_subset=QPS)
        if spec["archive"].endswith(".rar"):
            lookalike_archives.write_benchmark_archive(key, folder, seed=3, fmt="zip", queries_per_subset=QPS)
    return folder


@pytest.fixture(scope="module")
def fetched(mirror, tmp_path_factory):
    """name -> (entry used, {fold: splits}), fetched lazily once per module."""
    base = tmp_path_factory.mktemp("resources")
    cache = {}

    def get(name):
        if name not in cache:
            entry = stand_in(REGISTRY[name], RAR_READER is not None)
            dest = base / name
            fetch(name, entry, dest, mirror=mirror)
            cache[name] = entry, {f: load_fold(entry, dest, f) for f in entry["folds"]}
        return cache[name]
    return get


def check_dataset(name: str, entry: dict, splits_by_fold: dict) -> None:
    """Assert the loaded folds of ``name`` show the real dataset's facts."""
    _, facts = lookalike_archives.BENCHMARK_DATASETS[name]
    d, levels = facts["n_features"], facts["levels"]
    assert entry["n_features"] == d, f"{name}: registry n_features {entry['n_features']}, real {d}"
    assert entry["label_levels"] == levels, f"{name}: registry label_levels {entry['label_levels']}, real {levels}"
    for fold, parts in splits_by_fold.items():
        assert set(parts) == {"train", "vali", "test"}
        for split, data in parts.items():
            assert data.X.shape[1] == d, f"{name} fold {fold} {split}: {data.X.shape[1]} features, expected {d}"
            assert set(np.unique(data.y).tolist()) == set(range(entry["label_levels"])), \
                f"{name} fold {fold} {split}: labels {sorted(set(data.y.tolist()))}"
            assert np.isfinite(data.X).all()
        q = {s: set(p.query_ids.tolist()) for s, p in parts.items()}
        assert not (q["train"] & q["vali"]) and not (q["train"] & q["test"]) and not (q["vali"] & q["test"])
    if "n_ids" in facts:  # Yahoo: sparse ids; the declared width is the largest id
        X = np.concatenate([p.X for p in splits_by_fold[1].values()])
        used = np.flatnonzero((X != 0).any(axis=0))
        assert len(used) == facts["n_ids"] and used[-1] + 1 == d


def same(a, b) -> bool:
    return (np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
            and np.array_equal(a.query_ids, b.query_ids) and np.array_equal(a.query_ptr, b.query_ptr))


# ----------------------------------------------------------------------------- coverage

def test_every_unreachable_registry_dataset_has_a_stand_in():
    archives = {spec["archive"] for spec in lookalike_archives.BENCHMARKS.values()}
    covered = {n for n, e in REGISTRY.items() if e["archive"] in archives}
    assert covered == set(DATASETS)
    for name in DATASETS:
        key, _ = lookalike_archives.BENCHMARK_DATASETS[name]
        assert REGISTRY[name]["archive"] == lookalike_archives.BENCHMARKS[key]["archive"], name


# ----------------------------------------------------------------------------- the file formats

def lines_of(key: str, member_end: str) -> list[bytes]:
    files = lookalike_archives.benchmark_files(key, seed=1, queries_per_subset=QPS)
    name = next(n for n in sorted(files) if n.endswith(member_end))
    return files[name].split(b"\n")[:-1]


LETOR4_LINE = re.compile(rb"^[0-2] qid:\d+ " + b" ".join(rb"%d:\d\.\d{6}" % j for j in range(1, 47))
                         + rb" #docid = GX\d{3}-\d{2}-\d+ inc = (1|0\.\d{1,20}) prob = 0\.\d{1,8}\r?$")
OHSUMED_LINE = re.compile(rb"^[0-2] qid:\d+ 1:\d\.\d{6} .* 5:0 6:0 7:0 .* 45:\d\.\d{6} #docid = \d+\r?$")


def test_letor4_lines():
    lines = lines_of("MQ2007", "MQ2007/Fold1/train.txt")
    assert all(x.endswith(b"\r") for x in lines)
    assert all(LETOR4_LINE.match(x) for x in lines), lines[0]


def test_letor3_lines_and_null():
    norm = lines_of("OHSUMED", "OHSUMED/QueryLevelNorm/Fold1/test.txt")
    assert all(OHSUMED_LINE.match(x) and x.endswith(b"\r") for x in norm)
    null = lines_of("OHSUMED", "OHSUMED/Feature-null/Fold1/testset.txt")
    assert any(b":NULL " in x for x in null) and all(x.endswith(b"\r") for x in null)
    mins = lines_of("OHSUMED", "OHSUMED/Feature-min/Fold1/testset.txt")
    assert not any(b"NULL" in x for x in mins) and len(mins) == len(null)
    gov = lines_of("Gov", "Gov/QueryLevelNorm/2004_td_dataset/Fold3/vali.txt")
    assert all(re.match(rb"^[01] qid:\d+ 1:\S+ .* 64:\S+ #docid = G\d\d-\d\d-\d+\r$", x) for x in gov)


def test_mslr_and_yahoo_lines():
    mslr = lines_of("MSLR-WEB10K", "Fold2/vali.txt")
    assert all(re.match(rb"^[0-4] qid:\d+ 1:\d+ (\d+:-?[0-9.]+ ){134}136:\d+ $", x) for x in mslr), mslr[0]
    assert any(b" 122:-" in x for x in mslr)
    for number, facts in lookalike_archives.YAHOO_SETS.items():
        rows = lines_of("Yahoo", f"set{number}.train.txt")
        assert all(re.match(rb"^[0-4] qid:\d+( \d+:\d\.\d{5})+$", x) for x in rows)
        ids = {int(t.split(b":")[0]) for x in rows for t in x.split()[2:]}
        assert max(ids) == facts["max_id"]
    files = lookalike_archives.benchmark_files("Yahoo")
    for number, facts in lookalike_archives.YAHOO_SETS.items():
        ids = {int(t.split(b":")[0]) for s in ("train", "valid", "test")
               for x in files[f"set{number}.{s}.txt"].split(b"\n") if x for t in x.split()[2:]}
        assert len(ids) == facts["n_ids"] and max(ids) == facts["max_id"]


@pytest.mark.parametrize("key, top", [("MQ2008", "MQ2008/"), ("OHSUMED", "OHSUMED/QueryLevelNorm/")])
def test_stand_in_matches_the_real_archive_where_we_have_it(key, top):
    """Same member names and line format as the real archives of ../shared/data (LF there)."""
    real = REPO.parent / "shared" / "data" / f"{key}.zip"
    if not real.exists():
        pytest.skip(f"{real} absent: the real-archive comparison needs the development mirror")
    with zipfile.ZipFile(real) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
        real_lines = zf.read(f"{top}Fold1/test.txt").split(b"\n")[:-1]
    ours = {n for n in lookalike_archives.benchmark_files(key, queries_per_subset=QPS) if n.startswith(top)}
    assert names == ours
    pattern = LETOR4_LINE if key == "MQ2008" else OHSUMED_LINE
    assert real_lines and all(pattern.match(x) for x in real_lines)


def test_generated_archives_are_deterministic(tmp_path):
    a = lookalike_archives.write_benchmark_archive("OHSUMED", tmp_path / "a", seed=2, queries_per_subset=QPS)
    b = lookalike_archives.write_benchmark_archive("OHSUMED", tmp_path / "b", seed=2, queries_per_subset=QPS)
    assert a.name == "OHSUMED.zip" and a.read_bytes() == b.read_bytes()
    with zipfile.ZipFile(a) as zf:  # the rotation, byte for byte: Fold{k+1} vali = Fold{k} test
        for k in range(1, 5):
            assert zf.read(f"OHSUMED/QueryLevelNorm/Fold{k + 1}/vali.txt") == zf.read(f"OHSUMED/QueryLevelNorm/Fold{k}/test.txt")
            assert zf.read(f"OHSUMED/Feature-null/Fold{k + 1}/validationset.txt") == zf.read(f"OHSUMED/Feature-null/Fold{k}/testset.txt")
        assert zf.read("OHSUMED/QueryLevelNorm/Fold1/vali.txt") == zf.read("OHSUMED/QueryLevelNorm/Fold5/test.txt")
    assert sorted(zipfile.ZipFile(a).namelist())[0] == "OHSUMED/Feature-min/Fold1/testset.txt"
    y = lookalike_archives.write_benchmark_archive("Yahoo", tmp_path / "a", queries_per_subset=QPS)
    assert y.name == "ltrc_yahoo.tar.bz2"
    assert sorted(tarfile.open(y).getnames()) == ["readme.txt"] + [
        f"set{n}.{s}.txt" for n in (1, 2) for s in ("test", "train", "valid")]
    g = lookalike_archives.write_benchmark_archive("Gov", tmp_path / "a", queries_per_subset=QPS)
    assert g.name == "Gov.rar" and g.read_bytes()[:7] == b"Rar!\x1a\x07\x00"


# ----------------------------------------------------------------------------- registry entries

@pytest.mark.parametrize("name", DATASETS)
def test_registry_entry_loads_its_real_layout(name, fetched):
    entry, splits = fetched(name)
    check_dataset(name, entry, splits)


@pytest.mark.parametrize("name", [n for n in DATASETS if REGISTRY[n]["layout"] == "folds"])
def test_official_rotation(name, fetched):
    """Fold k validates on the set fold k-1 tests on (S4 -> S5 -> S1 ...); the five test sets
    partition the queries; train + vali + test is the whole data in every fold."""
    entry, splits = fetched(name)
    folds = entry["folds"]
    assert folds == [1, 2, 3, 4, 5]
    for k in folds:
        prev = folds[k - 2]  # fold 1 follows fold 5
        assert same(splits[k]["vali"], splits[prev]["test"]), f"{name}: fold {k} vali != fold {prev} test"
    tests = [q for k in folds for q in splits[k]["test"].query_ids.tolist()]
    assert len(tests) == len(set(tests))
    for k in folds:
        everything = set().union(*(set(p.query_ids.tolist()) for p in splits[k].values()))
        assert everything == set(tests)
        assert splits[k]["train"].n_queries == 3 * splits[k]["test"].n_queries


def test_feature_null_read_as_feature_min(fetched):
    """LETOR 3.0: reading Feature-null with null_policy min gives the Feature-min values."""
    _, null = fetched("OHSUMED_null")
    _, mins = fetched("OHSUMED_min")
    for k in null:
        for split in ("train", "vali", "test"):
            assert same(null[k][split], mins[k][split])


def test_yahoo_sets_are_extracted_alone(fetched):
    entry, _ = fetched("Yahoo-set1")
    assert entry["extract"] == ["*set1.*"]
    assert REGISTRY["Yahoo-set2"]["extract"] == ["*set2.*"]


# ----------------------------------------------------------------------------- wrong entries fail

WRONG = [
    ("MQ2007", {"pattern": "MQ2007/fold{fold}/{split}.txt"}),
    ("MQ2007", {"n_features": 45}),
    ("MQ2007", {"n_features": 47}),
    ("MQ2007", {"label_levels": 2}),
    ("MQ2007", {"label_levels": 5}),
    ("OHSUMED_min", {"splits": {"train": "train", "vali": "vali", "test": "test"}}),
    ("OHSUMED", {"pattern": "QueryLevelNorm/Fold{fold}/{split}.TXT"}),
    ("TD2004", {"pattern": "QueryLevelNorm/2004_hp_dataset/Fold{fold}/{split}.txt",
                "extract": ["*QueryLevelNorm/2004_hp_dataset"]}),  # another collection: loads, data differ
    ("HP2003", {"label_levels": 3}),
    ("MSLR-WEB10K", {"n_features": 46}),
    ("MSLR-WEB30K", {"label_levels": 3}),
    ("Yahoo-set1", {"n_features": 700}),
    ("Yahoo-set2", {"n_features": 699}),
    ("Yahoo-set1", {"pattern": "set1.{split}.txt", "splits": {"train": "train", "vali": "vali", "test": "test"}}),
    ("Yahoo-set2", {"archive": "yahoo.tar.bz2"}),
]


@pytest.mark.parametrize("name, change", WRONG, ids=[f"{n}-{'-'.join(c)}" for n, c in WRONG])
def test_a_wrong_entry_fails(name, change, mirror, tmp_path):
    from ltrfs.datasets.registry import validate_entry

    raw = {k: v for k, v in REGISTRY[name].items() if v is not None and k not in ("name", "n_folds", "vali_fraction", "checksum_status")}
    raw.pop("generator", None)
    raw.update(change)
    entry = stand_in(validate_entry(name, raw), RAR_READER is not None)
    if name == "TD2004":  # a pattern pointing at another collection loads: the data differ
        fetch(name, entry, tmp_path / name, mirror=mirror)
        got = load_fold(entry, tmp_path / name, 1)["test"]
        right = stand_in(REGISTRY[name], RAR_READER is not None)
        fetch(name, right, tmp_path / "right", mirror=mirror)
        assert not same(got, load_fold(right, tmp_path / "right", 1)["test"])
        return
    with pytest.raises((AssertionError, DataError)):
        fetch(name, entry, tmp_path / name, mirror=mirror)
        check_dataset(name, entry, {f: load_fold(entry, tmp_path / name, f) for f in entry["folds"]})


def test_wrong_pattern_message_names_the_archive(mirror, tmp_path):
    entry = stand_in(dict(REGISTRY["MSLR-WEB30K"], pattern="Fold{fold}/{split}.tsv"), True)
    with pytest.raises(DataError) as exc:
        fetch("MSLR-WEB30K", entry, tmp_path / "M", mirror=mirror)
    assert str(exc.value) == (f"MSLR-WEB30K: Fold1/train.tsv (pattern Fold{{fold}}/{{split}}.tsv) not found in "
                              f"{mirror / 'MSLR-WEB30K.zip'} (extracted) or its subfolders")
    assert sorted(p.name for p in (tmp_path / "M").iterdir()) == []


def test_label_outside_levels_names_file_and_line(tmp_path):
    files = lookalike_archives.benchmark_files("Gov", queries_per_subset=QPS)
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    entry = stand_in(REGISTRY["NP2003"], True)
    bad = tmp_path / "Gov/QueryLevelNorm/2003_np_dataset/Fold1/vali.txt"
    lines = bad.read_bytes().split(b"\r\n")
    lines[4] = b"2" + lines[4][1:]
    bad.write_bytes(b"\r\n".join(lines))
    with pytest.raises(DataError) as exc:
        load_fold(entry, tmp_path / "Gov", 1)
    msg = str(exc.value)
    assert msg.startswith(f"{bad}:5: label 2 outside the declared levels 0..1 of dataset 'NP2003'")
    assert "\n" not in msg


# ----------------------------------------------------------------------------- RAR

def rar_members():
    return {"MQ2007/Fold1/train.txt": b"2 qid:1 1:0.5 #docid = GX000-00-0000000 inc = 1 prob = 0.5\r\n" * 300,
            "MQ2007/Fold1/vali.txt": b"0 qid:2 1:0.25\r\n",
            "MQ2007/read me.txt": bytes(range(256))}


@pytest.mark.parametrize("tool", download.RAR_TOOLS)
def test_rar_fixture_extracts_with_each_installed_tool(tool, tmp_path, monkeypatch):
    """The generated .rar (RAR 4 format, stored, Windows-style names) through a real extractor."""
    import shutil

    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"no {tool} on PATH: the RAR path is tested with the extractors installed "
                    f"(e.g. `apt-get install libarchive-tools unrar-free`)")
    monkeypatch.setattr(download, "rar_tool", lambda: (tool, exe))
    rar = lookalike_archives.write_rar(tmp_path / "x.rar", rar_members())
    out = tmp_path / "out"
    out.mkdir()
    download.extract(rar, out, "rar", ["*Fold1"])
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()} == {
        k: v for k, v in rar_members().items() if "Fold1" in k}


def test_rar_datasets_fetched_from_real_rar(mirror, tmp_path):
    if RAR_READER is None:
        pytest.skip(f"no RAR extractor on PATH (looked for {', '.join(download.RAR_TOOLS)}); "
                    "the .rar entries were checked through the zip variant of their archives")
    for name in ("MQ2007", "TD2003"):
        entry = stand_in(REGISTRY[name], True)
        assert entry["format"] == "rar"
        m = fetch(name, entry, tmp_path / name, mirror=mirror)
        assert '"kind": "mirror"' in m.read_text() and REGISTRY[name]["archive"] in m.read_text()
        check_dataset(name, entry, {1: load_fold(entry, tmp_path / name, 1)})


def test_rar_without_tool_names_the_tools(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert download.rar_tool() is None
    entry = stand_in(REGISTRY["HP2004"], True)
    with pytest.raises(FetchError) as exc:
        fetch("HP2004", entry, tmp_path / "HP2004", mirror=mirror)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith("cannot extract Gov.rar: no RAR extractor on PATH (looked for bsdtar, unrar, unrar-free, 7z, 7zz, unar)")
    assert "apt-get install libarchive-tools" in msg and "unrar-free" in msg and "unar" in msg
    assert not (tmp_path / "HP2004" / "manifest.json").exists()


# ----------------------------------------------------------------------------- available()

def test_available_synthetic_and_network(tmp_path):
    ok, msg = available("synthetic", REGISTRY["synthetic"], tmp_path / "synthetic")
    assert ok and "synthetic" in msg
    ok, msg = available("MQ2007", REGISTRY["MQ2007"], tmp_path / "MQ2007", mirror=tmp_path)
    assert not ok and "\n" not in msg
    assert msg == ("MQ2007: not present locally; would be downloaded from "
                   "http://www.bigdatalab.ac.cn/benchmark/upload/download_source/"
                   "7b6dbbe2-842c-11e4-a536-bcaec51b9163_MQ2007.rar")
    assert not list(tmp_path.iterdir())  # nothing created, nothing downloaded


def test_available_from_mirror_cache_and_manifest(mirror, tmp_path):
    entry = stand_in(REGISTRY["MSLR-WEB10K"], True)
    dest = tmp_path / "MSLR-WEB10K"
    ok, msg = available("MSLR-WEB10K", entry, dest, mirror=mirror)
    assert ok and msg == f"MSLR-WEB10K: archive {mirror / 'MSLR-WEB10K.zip'} in the mirror folder"
    assert not dest.exists()
    fetch("MSLR-WEB10K", entry, dest, mirror=mirror)
    ok, msg = available("MSLR-WEB10K", entry, dest)
    assert ok and msg == f"MSLR-WEB10K: already fetched ({dest / 'manifest.json'})"
    (dest / "manifest.json").unlink()
    (dest / "MSLR-WEB10K.zip").write_bytes((mirror / "MSLR-WEB10K.zip").read_bytes())
    ok, msg = available("MSLR-WEB10K", entry, dest)
    assert ok and msg == f"MSLR-WEB10K: archive {dest / 'MSLR-WEB10K.zip'}"


def test_available_manual_and_archive_only(mirror, tmp_path):
    dest = tmp_path / "Yahoo-set2"
    ok, msg = available("Yahoo-set2", REGISTRY["Yahoo-set2"], dest, mirror=tmp_path / "empty")
    assert not ok and "\n" not in msg
    assert msg.startswith("Yahoo-set2 must be downloaded by hand: the Yahoo! Learning to Rank Challenge data")
    assert f"Put ltrc_yahoo.tar.bz2 (or its extracted files set2.train.txt, set2.valid.txt, set2.test.txt) in {dest}" in msg
    with pytest.raises(FetchError) as exc:  # the same words as fetch
        fetch("Yahoo-set2", REGISTRY["Yahoo-set2"], dest, mirror=tmp_path / "empty")
    assert str(exc.value) == msg
    ok, msg = available("Yahoo-set2", REGISTRY["Yahoo-set2"], dest, mirror=mirror)
    assert ok and "ltrc_yahoo.tar.bz2 in the mirror folder" in msg
    # files extracted by hand into resources/<name>/
    with tarfile.open(mirror / "ltrc_yahoo.tar.bz2") as tf:
        tf.extractall(dest / "ltrc_yahoo", filter="data")
    ok, msg = available("Yahoo-set2", REGISTRY["Yahoo-set2"], dest)
    assert ok and msg == f"Yahoo-set2: extracted files in {dest / 'ltrc_yahoo'}"
    ok, msg = available("OHSUMED", REGISTRY["OHSUMED"], tmp_path / "OHSUMED")
    assert not ok and msg.startswith("OHSUMED: no source to fetch from; download OHSUMED.zip")
    assert msg.endswith(f"and put it in {tmp_path / 'OHSUMED'}")


def test_available_local_path(tmp_path):
    from ltrfs.datasets.registry import validate_entry

    folder = tmp_path / "mine"
    entry = validate_entry("mine", {"path": str(folder), "layout": "single"})
    ok, msg = available("mine", entry, tmp_path / "res")
    assert not ok and msg == f"mine: path {folder}: no such file or folder; correct the path of mine in the dataset registry"
    folder.mkdir()
    ok, msg = available("mine", entry, tmp_path / "res")
    assert ok and msg == f"mine: local path {folder}"

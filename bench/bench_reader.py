"""Speed of ltrfs.io.read_letor against scikit-learn's load_svmlight_file, and of the .npz cache.

    python bench/bench_reader.py [path/to/MQ2008/Fold1/train.txt] [--rows 200000] [--features 136]
                                 [--repeats 5] [--skip-synthetic]

Without a path, MQ2008 Fold1 train is extracted from /work/shared/data/MQ2008.zip (or the
archive named by $LTRFS_MQ2008_ZIP) into a temporary directory; if neither exists, the real-data
part is skipped with a message. For each file it prints the best of ``--repeats`` runs of:
our parser, ``load_svmlight_file(f, query_id=True)`` and ``load_npz`` of our cache, and the
ratios (goals: sklearn / ours >= 1.0x; parse / load_npz >= 20x). The Numba compile time (cold,
in a subprocess with an empty cache directory) and the first call in this process are printed
separately; they are not part of the speed measurement.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

DEFAULT_ZIP = Path(os.environ.get("LTRFS_MQ2008_ZIP", "/work/shared/data/MQ2008.zip"))
MEMBER = "MQ2008/Fold1/train.txt"


def best_of(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def cold_compile_seconds(path: Path) -> float:
    """First read_letor call in a fresh interpreter with an empty Numba cache (= compile time)."""
    code = ("import time, sys\nfrom ltrfs.io import read_letor\nt = time.perf_counter()\n"
            "read_letor(sys.argv[1])\nprint(time.perf_counter() - t)\n")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code, str(path)], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def bench_file(label: str, path: Path, repeats: int, sklearn_repeats: int) -> None:
    from sklearn.datasets import load_svmlight_file

    from ltrfs.io import load_npz, read_letor, save_npz

    size_mb = path.stat().st_size / 1e6
    t0 = time.perf_counter()
    data = read_letor(path)
    first = time.perf_counter() - t0
    print(f"\n== {label}: {path} ({size_mb:.1f} MB, {data.n_rows} rows x {data.n_features} "
          f"features, {data.n_queries} queries)")
    print(f"first read_letor call in this process (Numba cache load): {first:.3f} s")

    ours = best_of(lambda: read_letor(path), repeats)
    ref = best_of(lambda: load_svmlight_file(str(path), query_id=True), sklearn_repeats)
    X, y, q = load_svmlight_file(str(path), query_id=True)
    same = (np.array_equal(X.toarray().astype(np.float32), data.X) and np.array_equal(y, data.y)
            and np.array_equal(q, data.qid))
    del X, y, q
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.npz"
        t0 = time.perf_counter()
        save_npz(data, cache)
        save_t = time.perf_counter() - t0
        load_npz(cache)
        load = best_of(lambda: load_npz(cache), repeats)
        cache_mb = cache.stat().st_size / 1e6

    print(f"read_letor (ours)              best of {repeats}: {ours * 1e3:9.1f} ms "
          f"({size_mb / ours:7.1f} MB/s)")
    print(f"load_svmlight_file (sklearn)   best of {sklearn_repeats}: {ref * 1e3:9.1f} ms "
          f"({size_mb / ref:7.1f} MB/s)")
    print(f"load_npz (ours, {cache_mb:.1f} MB cache) best of {repeats}: {load * 1e3:9.2f} ms "
          f"(save_npz {save_t * 1e3:.1f} ms)")
    print(f"same X/y/qid as sklearn: {same}")
    print(f"RATIO sklearn / ours  = {ref / ours:6.1f}x   (goal >= 1.0x)")
    print(f"RATIO parse / load_npz = {ours / load:6.1f}x   (goal >= 20x)")


def synthetic_file(tmp: Path, rows: int, features: int, seed: int = 0) -> Path:
    """A LETOR-like dense file written once with write_letor: 30% zeros, 40% values in [0, 1]
    with 6 decimals, 30% integer counts; queries of 1..200 documents."""
    from ltrfs.ranking_data import RankingData
    from ltrfs.io import write_letor

    rng = np.random.default_rng(seed)
    kind = rng.random((rows, features))
    X = np.round(rng.random((rows, features)), 6)
    counts = rng.integers(1, 1000, size=(rows, features))
    X = np.where(kind < 0.3, 0.0, np.where(kind < 0.7, X, counts)).astype(np.float32)
    sizes = []
    while sum(sizes) < rows:
        sizes.append(int(rng.integers(1, 201)))
    sizes[-1] -= sum(sizes) - rows
    sizes = [s for s in sizes if s > 0]
    data = RankingData(X=X, y=rng.integers(0, 5, rows).astype(np.int32),
                       query_ptr=np.r_[0, np.cumsum(sizes)].astype(np.int64),
                       query_ids=np.arange(1, len(sizes) + 1, dtype=np.int64))
    path = tmp / f"synthetic_{rows}x{features}.txt"
    write_letor(data, path)  # compile outside the timing
    t0 = time.perf_counter()
    write_letor(data, path)
    secs = time.perf_counter() - t0
    print(f"\nwrote {path.name} with write_letor in {secs:.2f} s "
          f"({path.stat().st_size / 1e6 / secs:.0f} MB/s)")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", help="MQ2008 Fold1 train.txt (default: from the zip)")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--features", type=int, default=136)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sklearn-repeats-synthetic", type=int, default=None,
                    help="runs of sklearn on the synthetic file (default: --repeats)")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        real = None
        if args.path:
            real = Path(args.path)
            if not real.exists():
                print(f"{real} is absent: real-data benchmark skipped")
                real = None
        elif DEFAULT_ZIP.exists():
            with zipfile.ZipFile(DEFAULT_ZIP) as zf:
                zf.extract(MEMBER, tmp)
            real = tmp / MEMBER
        else:
            print(f"{DEFAULT_ZIP} is absent: real-data benchmark skipped (pass a path to run it)")

        probe = real
        if probe is None:
            probe = tmp / "probe.txt"
            probe.write_text("1 qid:1 1:0.5 2:1 # d\n0 qid:1 1:0.25\n")
        print(f"Numba compile of the reader (cold cache, fresh process): "
              f"{cold_compile_seconds(probe):.2f} s")

        if real is not None:
            bench_file("MQ2008 Fold1 train", real, args.repeats, args.repeats)
        if not args.skip_synthetic:
            path = synthetic_file(tmp, args.rows, args.features)
            bench_file(f"synthetic {args.rows} x {args.features}", path, args.repeats,
                       args.sklearn_repeats_synthetic or args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

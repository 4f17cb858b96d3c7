"""bench/bench_neural_variants.py: every setting it measures is one the selectors accept, and
without the extra it says so in one line and exits 0."""
import pytest

from conftest import bench_script
from ltrfs.selection import make_selector


@pytest.fixture(scope="module")
def bench():
    return bench_script("bench_neural_variants")


@pytest.mark.neural
def test_every_setting_is_valid(bench):
    labels = [label for settings in bench.SETTINGS.values() for label, _ in settings]
    assert len(labels) == len(set(labels)) == 7
    for method, settings in bench.SETTINGS.items():
        for _, params in settings:
            make_selector(method, **params).validate_params()  # raises on an unknown or bad parameter


def test_without_the_extra_it_says_so(bench, monkeypatch, capsys):
    monkeypatch.setattr("ltrfs.neural.extra_installed", lambda: False)
    assert bench.main([]) == 0
    assert capsys.readouterr().out.strip().startswith("bench_neural_variants: the neural extra is not installed")

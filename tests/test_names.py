"""The lazy registries (ltrfs.names.LazyRegistry): a job that uses one method imports its module only."""
import subprocess
import sys

import pytest

from ltrfs.rankers import RANKERS
from ltrfs.selection import SELECTORS


def test_every_registered_method_name_is_its_class_name():
    """The registry writes each name beside its class's path (tests/rankers/test_rankers.py checks the rankers')."""
    assert [cls.name for cls in SELECTORS.values()] == list(SELECTORS)


def test_asking_for_one_selector_imports_its_module_and_no_other():
    code = ("import sys; from ltrfs.selection import SELECTORS; from ltrfs.rankers import RANKERS; "
            "before = {m for m in sys.modules if m.startswith(('ltrfs.selection.', 'ltrfs.rankers.'))}; "
            "SELECTORS['gas_e']; "
            "after = {m for m in sys.modules if m.startswith(('ltrfs.selection.', 'ltrfs.rankers.'))}; "
            "print(sorted(before)); print(sorted(after - before))")
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "['ltrfs.rankers.base', 'ltrfs.selection.base']"
    assert "'ltrfs.selection.gas'" in lines[1] and "ltrfs.selection.fs_bfs" not in lines[1]


def test_a_ranker_class_is_reached_by_its_class_name_and_an_unknown_one_is_not():
    import ltrfs.rankers as rankers

    assert rankers.RankSVM is RANKERS["ranksvm"]
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchRanker'"):
        rankers.NoSuchRanker
    with pytest.raises(KeyError):
        SELECTORS["no_such_method"]


def test_the_neural_methods_are_the_registries_entries_of_the_neural_package():
    """ltrfs.neural.NEURAL_METHODS (what needs the extra: left out without it, its own conda
    environment) is every selector and ranker whose class lives in ltrfs.neural, and the neural
    selector family is those selectors: a new neural method added to a registry alone fails here."""
    from ltrfs.neural import NEURAL_METHODS
    from ltrfs.rankers import RANKERS
    from ltrfs.selection import SELECTOR_FAMILIES, SELECTORS

    in_package = {name for registry in (SELECTORS, RANKERS) for name in registry
                  if registry.module_of(name).startswith("ltrfs.neural.")}
    assert NEURAL_METHODS == in_package
    assert set(SELECTOR_FAMILIES["neural"]) == in_package & set(SELECTORS)

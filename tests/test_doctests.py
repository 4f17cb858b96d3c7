"""The Examples sections of the docstrings run as doctests (every selector and ranker class has
one; its fit on a tiny NumPy-made data set takes well under a second).

Each module's examples run in one test, so that a failing one names its module; the modules are
those of the registered selectors and rankers plus ``EXTRA_MODULES``. Printed values are integers,
shapes or rounded floats (two or three decimals), so that they do not depend on the BLAS build.
The README's ``pytest`` runs this file with the rest of the suite.
"""
from __future__ import annotations

import doctest
import importlib

import pytest

from ltrfs.rankers import RANKERS
from ltrfs.selection import SELECTORS

ESTIMATORS = {**{f"selector {n}": c for n, c in SELECTORS.items()},
              **{f"ranker {n}": c for n, c in RANKERS.items()}}
#: modules with examples beside those of the registered classes
EXTRA_MODULES = ("ltrfs.docstrings", "ltrfs.examples", "ltrfs.metrics", "ltrfs.selection", "ltrfs.selection.base",
                 "ltrfs.selection.statistical", "ltrfs.rankers", "ltrfs.scoring.discrete",
                 "ltrfs.scoring.pairwise", "ltrfs.scoring.kendall", "ltrfs.scoring.divergence",
                 "ltrfs.scoring.single_feature", "ltrfs.scoring.spearman", "ltrfs.sklearn", "ltrfs.tuning",
                 "ltrfs.params", "ltrfs.pipeline.select", "ltrfs.ranking_data", "ltrfs.names", "ltrfs.yaml_numbers", "ltrfs.results.figures.style",
                 "ltrfs.neural.masks", "ltrfs.neural.selector", "ltrfs.results.tables", "ltrfs.results.significance", "ltrfs.results.leaderboard", "ltrfs.results.paper_layout")
MODULES = sorted({cls.__module__ for cls in ESTIMATORS.values()} | set(EXTRA_MODULES))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("module", MODULES)
def test_examples_run(module):
    mod = importlib.import_module(module)
    tests = [t for t in doctest.DocTestFinder().find(mod, module) if t.examples]
    assert tests, f"{module} has no doctest examples"
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


@pytest.mark.parametrize("what", sorted(ESTIMATORS))
def test_every_selector_and_ranker_has_a_runnable_example(what):
    doc = ESTIMATORS[what].__doc__ or ""
    assert "Examples\n    --------" in doc and ">>> " in doc, f"{what}: no Examples with a doctest"
    sections = ("Attributes", "References")
    if ESTIMATORS[what].parameters:  # a class without hyperparameters has no Parameters section
        sections = ("Parameters", *sections)
    for section in sections:
        assert f"{section}\n    ---" in doc, f"{what}: no {section} section"

"""ltrfs.params: the constraint kinds, the messages, and that every selector and ranker
declares each constructor parameter once and is checked from that declaration."""
import inspect

import numpy as np
import pytest

from ltrfs.params import (Boolean, Integer, ListOf, Mapping, Metric, Options, Real, Text, accepts,
                          check_value, describe)
from ltrfs.rankers import RANKERS
from ltrfs.selection import SELECTORS

ESTIMATORS = {**{f"method {k}": v for k, v in SELECTORS.items()}, **{f"ranker {k}": v for k, v in RANKERS.items()}}


@pytest.mark.parametrize("constraint, good, bad", [
    (Integer(1), [1, 7, np.int64(3)], [0, -1, 1.0, True, np.bool_(True), "1", None]),
    (Integer(0, 2), [0, 1, 2], [3, -1]),
    (Real(0, None, closed="neither"), [1e-9, 1, 2.5, np.float32(0.1)], [0, -1, float("inf"), float("nan"), True, "1"]),
    (Real(0), [0, 0.0, 3], [-1e-12]),
    (Real(0, 1, closed="right"), [1, 0.5], [0, 1.0001]),
    (Real(0, 1, closed="left"), [0, 0.5], [1]),
    (Options("a", "b"), ["a", "b"], ["A", "c", 1, None, np.array(["a", "b"])]),
    (Options(1, 2), [1, np.int64(2)], [True, 3]),
    (Boolean(), [True, False, np.bool_(False)], [0, 1, "true", None]),
    (Text(), ["x"], ["", 1, None]),
    (Metric(), ["ndcg@10", "MAP", "p@5", "meanndcg"], ["auc", "ndcg@0", 3]),
    (ListOf(Real(0)), [[0, 1], (2.5,), np.array([1.0, 2.0])], [[], [-1], "ab", {"a": 1}, {0, 1}, np.zeros((2, 2)), 1]),
    (ListOf(Integer(1), min_len=0), [[]], [[0]]),
    (Mapping(), [{}, {"eta": 0.1}], [[("eta", 0.1)], {1: 2}]),
])
def test_each_constraint_accepts_exactly_its_values(constraint, good, bad):
    for value in good:
        assert constraint.accepts(value), (constraint, value)
    for value in bad:
        assert not constraint.accepts(value), (constraint, value)


def test_descriptions_read_as_english():
    assert describe([Integer(1)]) == "an integer >= 1"
    assert describe([Integer(0, 3)]) == "an integer in 0..3"
    assert describe([Real(0, None, closed="neither")]) == "a finite number > 0"
    assert describe([Real(0, 1, closed="right"), None]) == "a number in (0, 1] or None"
    assert describe([Options("sqrt", "log2"), Integer(1), None]) == "one of sqrt, log2 or an integer >= 1 or None"
    assert describe([ListOf(Real(0))]) == "a non-empty list of finite numbers >= 0"
    assert describe([ListOf(Integer(1))]) == "a non-empty list of integers >= 1"
    assert accepts([Integer(1), None], None) and not accepts([Integer(1)], None)


def test_check_value_message_names_the_owner_and_the_value():
    assert check_value("k", 3, [Integer(1)]) == 3
    with pytest.raises(ValueError, match=r"^gas: t_vali must be an integer >= 1; got 0$"):
        check_value("t_vali", 0, [Integer(1)], "gas")
    with pytest.raises(ValueError, match=r"^n_jobs must be an integer >= 1; got -1 \(ltrfs never uses all cores"):
        check_value("n_jobs", -1, [Integer(1)])


@pytest.mark.parametrize("label", sorted(ESTIMATORS))
def test_every_constructor_parameter_is_declared_once(label):
    cls = ESTIMATORS[label]
    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert sorted(cls.parameters) == sorted(names), f"{label}: declared {sorted(cls.parameters)}, takes {sorted(names)}"


@pytest.mark.parametrize("label", sorted(ESTIMATORS))
def test_the_defaults_pass_and_a_wrong_type_fails_naming_the_parameter(label):
    cls = ESTIMATORS[label]
    cls().validate_params()
    owner = cls.name
    for name, allowed in cls.parameters.items():
        wrong = object()  # accepted by no constraint
        assert not accepts(allowed, wrong)
        with pytest.raises(ValueError, match=rf"^{owner}: {name} must be .*; got <object object"):
            cls(**{name: wrong}).validate_params()


@pytest.mark.parametrize("label", sorted(ESTIMATORS))
def test_every_declared_parameter_says_what_it_means(label):
    """``ltrfs params`` prints each parameter's meaning: the first sentence of its entry in the class
    docstring's Parameters section, which every declared parameter has."""
    from ltrfs.params import parameter_help

    meaning = parameter_help(ESTIMATORS[label])
    missing = [name for name in ESTIMATORS[label].parameters if not meaning.get(name)]
    assert not missing, f"{label}: no description of {missing} in the docstring's Parameters section"


def test_parameter_help_reads_the_first_sentence_of_each_entry():
    from ltrfs.params import parameter_help

    class Demo:
        """A demo.

        Parameters
        ----------
        alpha : float, default 1.0
            The ridge weight (``alpha``). Larger values shrink more;
            e.g. 10 shrinks a lot.
        low, high : int
            The bounds, e.g. 0 and 1.
        *args
            Passed on.

        Returns
        -------
        beta : float
            Not a parameter.
        """

    assert parameter_help(Demo) == {"alpha": "The ridge weight (alpha)", "low": "The bounds, e.g. 0 and 1",
                                    "high": "The bounds, e.g. 0 and 1", "args": "Passed on"}

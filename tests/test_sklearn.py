"""ltrfs.sklearn.FeatureSelector: a scikit-learn selector around every ltrfs method.

The pipelines hand their rankers exactly the k columns the plain ltrfs selector picks; k is a
parameter (set_params, clone, GridSearchCV); scikit-learn's estimator checks pass, and for
every method exactly the checks docs/sklearn.md lists fail; the page's examples run.
"""
from __future__ import annotations

import ast
import doctest
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimator

from ltrfs.datasets.synthetic import make
from ltrfs.examples import example_queries
from ltrfs.selection import SELECTORS, Selector, make_selector
from ltrfs.sklearn import FeatureSelector, contiguous_order

PAGE = Path(__file__).resolve().parents[1] / "docs" / "sklearn.md"


@pytest.fixture
def routing():
    """Metadata routing on for one test (scikit-learn's global config restored after)."""
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def ranking():
    """60 generated queries (1,797 rows, 30 features, planted roles): X, y, qid, query sizes."""
    data, info = make(n_queries=60, seed=1)
    return data.X, data.y, data.qid, data.query_sizes(), info


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message, message
    return message


# ----------------------------------------------------------------------------- pipelines

def test_pipeline_hands_xgbranker_exactly_the_k_selected_features(ranking, routing):
    import xgboost

    X, y, qid, _, info = ranking
    seen = {}

    class Spy(xgboost.XGBRanker):
        def fit(self, X, y, *, qid=None):
            seen["X"], seen["qid"] = np.array(X), np.array(qid)
            return super().fit(X, y, qid=qid)

    pipe = Pipeline([("select", FeatureSelector("gas_e", k=10, params={"c": 0.01}).set_fit_request(qid=True)),
                     ("rank", Spy(n_estimators=5, n_jobs=1).set_fit_request(qid=True))]).fit(X, y, qid=qid)
    kept = pipe["select"].get_support(indices=True)
    plain = make_selector("gas_e", c=0.01).fit(X, y, qid)
    assert kept.tolist() == sorted(plain.support(10).tolist())
    assert seen["X"].shape == (len(y), 10) and np.array_equal(seen["X"], X[:, kept])
    assert np.array_equal(seen["qid"], qid)
    assert pipe["rank"].n_features_in_ == 10
    assert not set((kept + 1).tolist()) & set(info["noise"])  # gas_e keeps no generated noise feature
    assert pipe.predict(X[:7]).shape == (7,)


def test_lgbmranker_pipeline_gets_group_sizes_and_the_k_columns(ranking, routing):
    import lightgbm

    X, y, qid, group, _ = ranking
    params = dict(n_estimators=10, n_jobs=1, verbose=-1, random_state=0)
    pipe = Pipeline([("select", FeatureSelector("pearson", k=5).set_fit_request(qid=True)),
                     ("rank", lightgbm.LGBMRanker(**params).set_fit_request(group=True))])
    pipe.fit(X, y, qid=qid, group=group)
    kept = pipe["select"].get_support(indices=True)
    assert kept.tolist() == sorted(make_selector("pearson").fit(X, y, qid).support(5).tolist())
    direct = lightgbm.LGBMRanker(**params).fit(X[:, kept], y, group=group)
    assert pipe["rank"].n_features_in_ == 5
    np.testing.assert_allclose(pipe.predict(X), direct.predict(X[:, kept]))


def test_validation_split_is_routed_to_the_method(ranking, routing):
    import xgboost

    X, y, qid, _, _ = ranking
    tr, va = qid < np.median(qid), qid >= np.median(qid)
    selector = FeatureSelector("gas_e", k=6).set_fit_request(qid=True, X_val=True, y_val=True, qid_val=True)
    pipe = Pipeline([("select", selector),
                     ("rank", xgboost.XGBRanker(n_estimators=3, n_jobs=1).set_fit_request(qid=True))])
    pipe.fit(X[tr], y[tr], qid=qid[tr], X_val=X[va], y_val=y[va], qid_val=qid[va])
    plain = make_selector("gas_e").fit(X[tr], y[tr], qid[tr], X_val=X[va], y_val=y[va], qid_val=qid[va])
    assert pipe["select"].selector_.chosen_["c"] == plain.chosen_["c"]
    assert pipe["select"].get_support(indices=True).tolist() == sorted(plain.support(6).tolist())
    assert pipe["rank"].n_features_in_ == 6


def test_step_parameters_pass_query_ids_without_routing(ranking):
    X, y, qid, _, _ = ranking
    pipe = Pipeline([("select", FeatureSelector("importance", k=4)), ("fit", LinearRegression())])
    pipe.fit(X, y, select__qid=qid)
    assert pipe["fit"].n_features_in_ == 4
    assert pipe["select"].ranking_.tolist() == make_selector("importance", convention="standard").fit(X, y, qid).ranking_.tolist()


# ----------------------------------------------------------------------------- k

def test_k_is_a_parameter_for_set_params_and_clone():
    X, y, qid = example_queries()
    sel = FeatureSelector("gas_e", k=2, params={"c": 0.01}).fit(X, y, qid=qid)
    assert sel.get_support(indices=True).tolist() == [0, 2]  # example_queries plants 2 and 0
    assert sel.ranking_[:3].tolist() == sel.selector_.ranking_[:3].tolist()
    sel.set_params(k=3)  # read when transforming, as SelectKBest does: no refit
    assert sel.transform(X).shape == (120, 3)
    assert sorted(sel.get_support(indices=True)) == sorted(sel.ranking_[:3])
    copy = clone(sel)
    assert copy.get_params() == {"method": "gas_e", "k": 3, "params": {"c": 0.01}, "convention": "standard"}
    assert not hasattr(copy, "selector_")
    assert sel.set_params(k="all").transform(X).shape == (120, 5)
    for bad in (0, 2.5, True, "most"):
        with pytest.raises(ValueError, match="k must be an integer >= 1 or 'all'") as excinfo:
            FeatureSelector("pearson", k=bad).fit(X, y, qid=qid)
        one_line(excinfo)


def test_grid_search_over_k(routing):
    X, y, qid = example_queries(n_queries=30)
    pipe = Pipeline([("select", FeatureSelector("pearson").set_fit_request(qid=True)),
                     ("fit", LinearRegression())])
    search = GridSearchCV(pipe, {"select__k": [1, 2, 5]}, cv=GroupKFold(3)).fit(X, y, qid=qid, groups=qid)
    scores = dict(zip(search.cv_results_["param_select__k"], search.cv_results_["mean_test_score"]))
    assert scores[2] > scores[1] + 0.05  # the second planted feature helps
    assert search.best_params_["select__k"] in (2, 5)
    assert search.best_estimator_["fit"].n_features_in_ == search.best_params_["select__k"]


def test_k_above_the_number_of_features_keeps_all_with_a_warning():
    X, y, qid = example_queries()
    with pytest.warns(UserWarning, match="k 10 exceeds the 5 features: all 5 are kept"):
        sel = FeatureSelector("pearson").fit(X, y, qid=qid)
    assert sel.get_support().all() and sel.transform(X).shape == X.shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # waf keeps every feature by design: no warning
        waf = FeatureSelector("waf", k=2).fit(X, y, qid=qid)
    assert waf.get_support().all()


# ----------------------------------------------------------------------------- query ids

def test_contiguous_order():
    assert contiguous_order([5, 5, 2, 9, 9]) is None
    assert contiguous_order([5, 2, 5, 9, 2]).tolist() == [0, 2, 1, 4, 3]
    assert contiguous_order(np.array(["b", "a", "b"])).tolist() == [0, 2, 1]


def test_interleaved_queries_are_grouped_and_rows_keep_their_order():
    X, y, qid = example_queries()
    order = np.random.default_rng(0).permutation(len(y))  # queries interleaved
    shuffled = FeatureSelector("importance", k=3).fit(X[order], y[order], qid=qid[order])
    contiguous = FeatureSelector("importance", k=3).fit(X, y, qid=qid)
    assert shuffled.ranking_.tolist() == contiguous.ranking_.tolist()
    assert np.array_equal(shuffled.transform(X[order]), X[order][:, contiguous.get_support()])


def test_fit_without_qid_is_one_query():
    X, y, qid = example_queries()
    alone = FeatureSelector("importance", k=3).fit(X, y)
    one_query = make_selector("importance", convention="standard").fit(X, y, np.zeros(len(y)))
    per_query = make_selector("importance").fit(X, y, qid)
    assert alone.ranking_.tolist() == one_query.ranking_.tolist()
    np.testing.assert_allclose(alone.selector_.scores_, one_query.scores_)
    assert not np.allclose(alone.selector_.scores_, per_query.scores_)


# ----------------------------------------------------------------------------- scikit-learn's selector API

def test_feature_names_inverse_transform_and_n_features_in():
    pd = pytest.importorskip("pandas")
    X, y, qid = example_queries()
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    sel = FeatureSelector("pearson", k=2).fit(frame, y, qid=qid)
    assert sel.n_features_in_ == 5 and sel.feature_names_in_.tolist() == list(frame.columns)
    assert sel.get_feature_names_out().tolist() == ["f0", "f2"]
    back = sel.inverse_transform(sel.transform(frame))
    assert np.array_equal(back[:, [0, 2]], X[:, [0, 2]]) and not back[:, [1, 3, 4]].any()
    with pytest.raises(ValueError, match="X has 4 features, but FeatureSelector is expecting 5"):
        FeatureSelector("pearson", k=2).fit(X, y, qid=qid).transform(X[:, :4])


def test_a_selector_instance_is_cloned_and_params_apply_over_it():
    X, y, qid = example_queries()
    instance = make_selector("gas_e", c=0.5)
    sel = FeatureSelector(instance, k=2, params={"c": 0.01}).fit(X, y, qid=qid)
    assert instance.c == 0.5 and not hasattr(instance, "ranking_")
    assert sel.selector_.c == 0.01 and sel.selector_ is not instance
    assert sel.get_params()["method__c"] == 0.5


def test_random_state_passes_through_params():
    X, y, qid = example_queries(n_features=12)

    def kept(seed):
        sel = FeatureSelector("random", k=4, params={"random_state": seed})
        return sel.fit(X, y, qid=qid).get_support(indices=True)

    plain = make_selector("random", random_state=3).fit(X, y, qid)
    assert kept(3).tolist() == sorted(plain.support(4).tolist()) == kept(3).tolist()
    assert kept(3).tolist() != kept(4).tolist()


def test_bad_input_gives_one_line_errors():
    X, y, qid = example_queries()
    cases = [
        (FeatureSelector("nope"), {}, ValueError, "unknown method 'nope'; valid: chi, "),
        (FeatureSelector("gas_e", params={"cc": 1}), {}, ValueError, "method 'gas_e' has no parameter 'cc'"),
        (FeatureSelector("gas_e", params=[("c", 1)]), {}, TypeError, "params must be a dict"),
        (FeatureSelector(3), {}, TypeError, "method must be a name of ltrfs.selection.SELECTORS"),
        (FeatureSelector("pearson"), {"qid": qid[:-1]}, ValueError, r"qid must hold one query id per row of X \(120\)"),
        (FeatureSelector("gas_e"), {"X_val": X}, ValueError, "give all of X_val, y_val and qid_val"),
        (FeatureSelector("gas_e"), {"X_val": X[:, :3], "y_val": y, "qid_val": qid}, ValueError,
         "X_val has 3 features but X has 5"),
        (FeatureSelector("pearson"), {"y": y + 0.5}, ValueError, "y must hold integer relevance labels"),
    ]
    for sel, kwargs, error, match in cases:
        with pytest.raises(error, match=match) as excinfo:
            sel.fit(X, kwargs.pop("y", y), **kwargs)
        one_line(excinfo)


def test_fs_bfs_is_refused_in_one_line_naming_ltrfs_selection():
    X, y, qid = example_queries()
    with pytest.raises(ValueError, match=r"fs_bfs builds new features \(a projection\), not a subset") as excinfo:
        FeatureSelector("fs_bfs", k=2).fit(X, y, qid=qid)
    assert "ltrfs.selection" in one_line(excinfo)


NEED_VALI = sorted(name for name, cls in SELECTORS.items() if cls().needs_validation() is not None)


def test_the_methods_that_need_validation_data():
    assert NEED_VALI == ["fenchelrank", "fs_ed", "fsmrank", "fsmsvm", "gas", "gas_e", "gas_l", "greedy_rankrls",
                         "lambdamart_gain", "lambdamart_rfe", "lambdamart_shap", "permutation", "sparse_ranksvm"]


@pytest.mark.parametrize("name", NEED_VALI)
def test_a_method_that_needs_validation_data_says_so(name):
    X, y, qid = example_queries()
    reason, fix = make_selector(name).needs_validation()
    with pytest.raises(ValueError):  # the hook agrees with the method
        make_selector(name).fit(X, y, qid)
    with pytest.raises(ValueError, match=f"FeatureSelector\\('{name}'\\) needs validation data") as excinfo:
        FeatureSelector(name, k=2).fit(X, y, qid=qid)
    message = one_line(excinfo)
    assert reason in message and "pass X_val, y_val and qid_val to fit" in message
    if fix:  # the fix it names works, and the docs table shows it
        assert f"params={fix!r}" in message
        assert FeatureSelector(name, k=2, params=fix).fit(X, y, qid=qid).get_support().sum() == 2
        assert f"`params={json.dumps(fix)}`" in PAGE.read_text()
    if name == "gas_e":
        assert message.endswith("or fix it: params={'c': 0.01}")


# ----------------------------------------------------------------------------- estimator checks

def failed_checks(estimator) -> set[str]:
    """The names of the scikit-learn estimator checks that fail for ``estimator``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # skip warnings (array API), k > d, convergence
        results = check_estimator(estimator, on_fail=None)
    assert {r["status"] for r in results} <= {"passed", "failed", "skipped"}
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert skipped <= {"check_array_api_input"}, skipped
    return {r["check_name"] for r in results if r["status"] == "failed"}


@pytest.mark.parametrize("name, params", [("pearson", None), ("importance", None), ("gas_e", {"c": 0.01})])
@pytest.mark.parametrize("k", [2, 10])
def test_check_estimator_passes(name, params, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(FeatureSelector(name, k=k, params=params))  # raises at the first failing check


def documented_checks() -> dict[str, tuple[dict, str]]:
    """docs/sklearn.md's table of the estimator checks: method -> (params, checks it cannot pass)."""
    section = PAGE.read_text().split("## scikit-learn's estimator checks", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| `(\{.*?\})` \| ([^|]+) \|", section, re.M)
    return {name: (ast.literal_eval(params), checks.strip()) for name, params, checks in rows}


class AlwaysFails(Selector):
    """A method whose fit always raises: the checks it fails are those that fit."""

    name = "always_fails"

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        raise ValueError("this method never fits")


@pytest.fixture(scope="module")
def checks_that_fit() -> set[str]:
    return failed_checks(FeatureSelector(AlwaysFails(), k=2))


def test_the_checks_table_lists_every_method():
    assert sorted(documented_checks()) == sorted(SELECTORS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_check_estimator_fails_only_the_documented_checks(name, checks_that_fit):
    params, documented = documented_checks()[name]
    failed = failed_checks(FeatureSelector(name, k=2, params=params))
    counted = sklearn.__version__.startswith("1.9.")  # the page's counts are scikit-learn 1.9's
    assert len(checks_that_fit) == 24 or not counted
    if documented == "none":
        assert failed == set()
    elif documented == "every check that fits":
        assert failed == checks_that_fit
    elif documented == "every check that calls `fit`":
        assert failed > checks_that_fit and (len(failed - checks_that_fit) == 7 or not counted)
    else:
        assert failed == set(re.findall(r"`(check_\w+)`", documented))


# ----------------------------------------------------------------------------- the docs page

def test_docs_page_examples_run():
    text = PAGE.read_text()
    globs: dict = {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    blocks = list(re.finditer(r"^```pycon\n(.*?)^```", text, re.M | re.S))
    assert len(blocks) == 4  # XGBRanker, rows in any order, LGBMRanker, GridSearchCV
    with sklearn.config_context():  # the page switches routing on and off; the config is restored
        for block in blocks:
            line = text[:block.start(1)].count("\n")
            test = doctest.DocTestParser().get_doctest(block.group(1), globs, "docs/sklearn.md", str(PAGE), line)
            runner.run(test, out=report.append, clear_globs=False)
            globs = test.globs  # a DocTest works on a copy: the next block continues from this one
    assert runner.summarize(verbose=False).failed == 0, "".join(report)


# ----------------------------------------------------------------------------- hostile values

def _planted_xyq(seed=1):
    from conftest import planted

    data = planted(n_queries=30, d=10, informative=(7, 9), seed=seed)
    return data.X, data.y, np.repeat(data.query_ids, np.diff(data.query_ptr))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_nan_or_infinite_qid_is_one_line(bad):
    X, y, qid = _planted_xyq()
    qid = qid.astype(np.float64)
    qid[5] = bad
    with pytest.raises(ValueError, match=rf"^qid holds {bad!r} at row 5; query ids must be finite") as exc:
        FeatureSelector("pearson", k=2).fit(X, y, qid)
    assert "\n" not in str(exc.value)
    with pytest.raises(ValueError, match=r"^qid_val holds .* at row 5"):
        FeatureSelector("gas_e", k=2).fit(X, y, qid=np.nan_to_num(qid, posinf=1e9, neginf=-1e9, nan=-7.0),
                                          X_val=X, y_val=y, qid_val=qid)
    from ltrfs.selection import make_selector
    with pytest.raises(ValueError, match=r"^qid holds .* at row 5"):
        make_selector("pearson").fit(X, y, qid)


@pytest.mark.parametrize("method", ["fenchelrank", "fsmrank", "sparse_ranksvm", "pearson"])
def test_float32_features_near_its_largest_value_still_find_the_planted_ones(method):
    # values of +-3e38: pairwise differences overflow float32 (fenchelrank stopped with an
    # IndexError, fsmrank and sparse_ranksvm saw a degenerate grid); they are computed in float64
    X, y, qid = _planted_xyq()
    big = (X * np.float32(2) - np.float32(1)) * np.float32(3e38)
    assert big.dtype == np.float32 and np.isfinite(big).all() and np.abs(big).max() > 2.9e38
    fs = FeatureSelector(method, k=2).fit(big, y, qid, X_val=big, y_val=y, qid_val=qid)
    assert set(fs.ranking_[:2].tolist()) == {7, 9}
    assert np.flatnonzero(fs.get_support()).tolist() == [7, 9]


@pytest.mark.parametrize("scale", [1e39, 1e200])
def test_values_beyond_float32s_range_are_one_line(scale):
    # 1e200 made pearson's correlations NaN and ranked the planted features last, without a word
    X, y, qid = _planted_xyq()
    X = X.astype(np.float64)
    X[:, [7, 9]] *= scale
    for method in ("pearson", "svm_rfe"):
        with pytest.raises(ValueError, match=rf"^{method}: X holds .* at row 0, feature column 7: beyond float32's range") as exc:
            FeatureSelector(method, k=2).fit(X, y, qid)
        assert "\n" not in str(exc.value) and "rescale the feature" in str(exc.value)


def test_convention_decides_short_queries():
    """FeatureSelector computes NDCG@10 of a query of fewer than 10 documents in the standard
    convention by default; convention="letor4" scores it 0 as the LETOR scripts do, so the
    importance scores are the long queries' alone, scaled by their share of the queries."""
    X, y, qid = example_queries()
    short_ids = np.unique(qid)[::2]  # every other query cut to its first 5 rows
    keep = ~np.isin(qid, short_ids) | (np.arange(len(qid)) - np.searchsorted(qid, qid) < 5)
    X, y, qid = X[keep], y[keep], qid[keep]
    long = ~np.isin(qid, short_ids)
    default = FeatureSelector("importance", k=5).fit(X, y, qid=qid)
    standard = make_selector("importance", convention="standard").fit(X, y, qid)
    letor = FeatureSelector("importance", k=5, convention="letor4").fit(X, y, qid=qid)
    long_only = make_selector("importance", convention="letor4").fit(X[long], y[long], qid[long])
    np.testing.assert_array_equal(default.selector_.scores_, standard.scores_)
    assert not np.allclose(default.selector_.scores_, letor.selector_.scores_)
    np.testing.assert_allclose(letor.selector_.scores_ * 10 / 5, long_only.scores_)
    with pytest.raises(ValueError, match="convention 'trec'"):
        FeatureSelector("importance", convention="trec").fit(X, y, qid=qid)

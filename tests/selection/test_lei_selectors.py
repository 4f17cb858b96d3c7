"""Lei & Han's ordinal_cr choice on the BIC path (the parsimonious model near the minimum) and
svm_rfe's cost sample, bootstrap class probabilities and resampled elimination
(ltrfs.selection.ordinal_cr, ltrfs.selection.svm_rfe)."""
import pickle

import numpy as np
import pytest

from conftest import planted
from ltrfs.selection import statistical as st
from ltrfs.selection.ordinal_cr import OrdinalCR, choose_on_path
from ltrfs.selection.svm_rfe import (SVMRFE, filter_heldout_accuracy, linear_svc, platt_sigmoid,
                                     rfe_heldout_accuracy, roc_auc_importance)
from ltrfs.tuning import DegenerateGridError


@pytest.fixture(scope="module")
def small():
    """40 queries, 6 features, labels 0..2 driven by features 2 and 4."""
    return planted(n_queries=40, d=6, informative=(2, 4), seed=7)


def groups_of(data):
    return st.prepare_rows(data.X, data.y, data.query_ptr, None, 0)[2]


# ----------------------------------------------------------------------------- ordinal_cr: the choice

#           index: 0      1     2     3     4     5     6     7     8
PATH_VALUES = [100.0, 60.0, 45.0, 41.0, 40.5, 40.0, 42.0, 44.0, 30.0]
PATH_NONZERO = [0, 1, 2, 3, 4, 5, 5, 6, 0]  # models 0 and 8 all zero (8 has the lowest value)


@pytest.mark.parametrize("choice, tolerance, unit, chosen, bound", [
    ("min", 0.01, "range", 5, 40.0),            # the first minimum among non-zero models (not 8)
    ("parsimonious", 0.0, "range", 5, 40.0),    # tolerance 0 = the minimum
    ("parsimonious", 0.01, "range", 4, 40.7),   # range 100 - 30 = 70 -> bound 40.7: models 4 (4 nz) and 5
    ("parsimonious", 0.1, "range", 2, 47.0),    # bound 47: models 2..7, fewest nonzero = model 2
    ("parsimonious", 0.01, "relative", 5, 40.4),  # 1% of |40|: only the minimum
    ("parsimonious", 5.0, "absolute", 2, 45.0),   # 45 <= 45: the bound is inclusive
    ("parsimonious", 1.0, "absolute", 3, 41.0),
])
def test_choose_on_path_on_a_hand_made_path(choice, tolerance, unit, chosen, bound):
    k, k_min, b = choose_on_path(PATH_VALUES, PATH_NONZERO, choice, tolerance, unit)
    assert (k, k_min) == (chosen, 5)
    assert b == pytest.approx(bound, abs=1e-12)


def test_choose_on_path_ties_go_to_the_most_penalised_model():
    # models 1 and 3 both have 2 nonzero coefficients and are within the bound: the earlier
    # (more penalised) wins, although model 3 has the lower value; the minimum (model 4) has 3
    values = [50.0, 20.6, 21.0, 20.2, 20.0]
    nonzero = [0, 2, 3, 2, 3]
    assert choose_on_path(values, nonzero, "parsimonious", 1.0, "absolute")[:2] == (1, 4)
    assert choose_on_path(values, nonzero, "parsimonious", 0.3, "absolute")[:2] == (3, 4)
    with pytest.raises(DegenerateGridError, match="^ordinal_cr: every penalty of the path gives all-zero"):
        choose_on_path([3.0, 2.0], [0, 0])


def test_ordinal_cr_parsimonious_choice_differs_from_the_minimum(small):
    sel = OrdinalCR().fit(small.X, small.y, small.qid)  # defaults: parsimonious, 1% of the range
    c = sel.chosen_
    crit = sel.criterion_
    nonzero = np.count_nonzero(sel.coef_path_, axis=1)
    # recomputed by a naive loop over the path
    usable = [i for i in range(len(crit)) if nonzero[i] > 0]
    k_min = min(usable, key=lambda i: (crit[i], i))
    bound = crit[k_min] + 0.01 * (crit.max() - crit.min())
    k = min((i for i in usable if crit[i] <= bound), key=lambda i: (nonzero[i], i))
    assert (c["step"], c["min_step"]) == (k + 1, k_min + 1) == (47, 86)
    assert (c["n_selected"], c["min_n_selected"]) == (3, 6)
    assert c["value"] == crit[k] and c["min_value"] == crit[k_min] and c["bound"] == pytest.approx(bound)
    assert c["lambda"] == sel.lambdas_[k] and c["min_lambda"] == sel.lambdas_[k_min]
    assert (c["choice"], c["tolerance"], c["tolerance_unit"], c["criterion"]) == ("parsimonious", 0.01, "range", "bic")
    np.testing.assert_array_equal(sel.coef_, sel.coef_path_[k])
    assert sel.selected_.tolist() == np.flatnonzero(sel.coef_path_[k]).tolist()
    assert set(sel.ranking_[:3].tolist()) == set(sel.selected_.tolist())
    # 5% of the range keeps exactly the two informative features
    wide = OrdinalCR(tolerance=0.05).fit(small.X, small.y, small.qid)
    assert sorted(wide.selected_.tolist()) == [2, 4] and wide.chosen_["min_step"] == 86
    # the path itself does not depend on the choice; the figure's record matches it
    mn = OrdinalCR(choice="min").fit(small.X, small.y, small.qid)
    np.testing.assert_array_equal(mn.criterion_, crit)
    np.testing.assert_array_equal(mn.coef_path_, sel.coef_path_)
    assert mn.chosen_["step"] == mn.chosen_["min_step"] == 86 and mn.chosen_["n_selected"] == 6
    path = sel.details_["path"]
    assert path["step"] == list(range(1, len(crit) + 1)) and path["criterion"] == crit.tolist()
    assert path["n_features"] == nonzero.tolist() and path["lambda"] == sel.lambdas_.tolist()


def test_ordinal_cr_tolerance_zero_equals_min(small):
    zero = OrdinalCR(tolerance=0.0).fit(small.X, small.y, small.qid)
    mn = OrdinalCR(choice="min").fit(small.X, small.y, small.qid)
    for key in ("step", "lambda", "n_selected", "value", "min_step"):
        assert zero.chosen_[key] == mn.chosen_[key]
    np.testing.assert_array_equal(zero.coef_, mn.coef_)
    assert zero.ranking_.tolist() == mn.ranking_.tolist()


@pytest.mark.parametrize("params, message", [
    ({"choice": "best"}, r"^ordinal_cr: choice must be one of parsimonious, min; got 'best'$"),
    ({"tolerance": -0.1}, r"^ordinal_cr: tolerance must be a finite number >= 0; got -0.1$"),
    ({"tolerance": float("nan")}, r"^ordinal_cr: tolerance must be a finite number >= 0; got nan$"),
    ({"tolerance": "1%"}, r"^ordinal_cr: tolerance must be a finite number >= 0; got '1%'$"),
    ({"tolerance_unit": "percent"}, r"^ordinal_cr: tolerance_unit must be one of range, relative, absolute; "
                                    r"got 'percent'$"),
])
def test_ordinal_cr_choice_parameters_raise_one_line(params, message):
    with pytest.raises(ValueError, match=message) as err:
        OrdinalCR(**params).validate_params()
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------------------- svm_rfe

def test_svm_rfe_planted_feature_ranks_first():
    data = planted(n_queries=30, d=6, informative=(3,), seed=1)
    for params in ({}, {"n_bootstrap": 5, "rfe_cv": 3}):
        sel = SVMRFE(relevant_min=1, C=0.1, **params).fit(data.X, data.y, data.qid)
        assert sel.ranking_[0] == 3
        assert int(np.argmax(np.abs(sel.coef_))) == 3
    # one feature classifies about as well as all six (held-out accuracy, 3 folds); sizes 4 and 2
    # tie exactly at the top: the smaller wins
    assert list(sel.rfe_curve_) == [6, 5, 4, 3, 2, 1] and sel.rfe_curve_[1] > 0.95
    assert sel.rfe_curve_[4] == sel.rfe_curve_[2] == max(sel.rfe_curve_.values()) and sel.rfe_best_size_ == 2


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("importance", ["weights", "roc_auc"])
def test_svm_rfe_both_losses_find_the_planted_features(loss, importance):
    # labels 0..2 from features 1 and 4 of 8 (relevant: label >= 1, about 35% of the rows)
    data = planted(n_queries=60, d=8, informative=(1, 4), seed=3)
    sel = SVMRFE(relevant_min=1, C=1.0, loss=loss, importance=importance).fit(data.X, data.y, data.qid)
    assert sorted(sel.ranking_[:2].tolist()) == [1, 4]
    assert sorted(np.argsort(-np.abs(sel.coef_))[:2].tolist()) == [1, 4]  # the all-feature SVM too


def test_roc_auc_importance_on_a_hand_computed_case():
    # rows: labels 0, 1, 0, 1; column 0 ties rows 1 and 2: pairs (relevant, irrelevant) ordered
    # right: (2 > 1), (2 = 2: 1/2), (3 > 1), (3 > 2) -> 3.5 / 4; column 1 is column 0 reversed (AUC
    # 1/8, folded to 7/8); column 2 separates the classes; column 3 is constant (1/2)
    X = np.array([[1.0, 3.0, 0.0, 5.0], [2.0, 2.0, 1.0, 5.0], [2.0, 2.0, 0.0, 5.0], [3.0, 1.0, 1.0, 5.0]])
    y = np.array([0, 1, 0, 1])
    assert roc_auc_importance(X, y) == pytest.approx([0.875, 0.875, 1.0, 0.5], abs=1e-15)
    sel = SVMRFE(relevant_min=1, C=1.0, importance="roc_auc").fit(X, y, np.array([1, 1, 2, 2]))
    assert sel.ranking_.tolist() == [2, 0, 1, 3]  # ties in column order
    assert sel.rounds_ == [4, 3, 2]


def test_svm_rfe_roc_auc_curve_equals_a_naive_two_fold_loop(small):
    sel = SVMRFE(relevant_min=1, C=0.05, importance="roc_auc", rfe_cv=2).fit(small.X, small.y, small.qid)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (small.y >= 1).astype(np.int64)
    per_fold = []
    for train, test in st.grouped_folds(groups_of(small), 2):
        auc = [max(a, 1 - a) for a in (np.mean([(p > n) + 0.5 * (p == n) for p in Xs[train][yb[train] == 1, j]
                                                for n in Xs[train][yb[train] == 0, j]]) for j in range(6))]
        order = np.argsort(-np.array(auc), kind="stable")
        acc = {}
        for size in range(6, 0, -1):
            cols = np.sort(order[:size])
            fit = linear_svc(0.05).fit(Xs[train][:, cols], yb[train])
            acc[size] = np.mean(fit.predict(Xs[test][:, cols]) == yb[test])
        per_fold.append(acc)
    assert list(sel.rfe_curve_) == [6, 5, 4, 3, 2, 1]
    for size in range(6, 0, -1):
        assert sel.rfe_curve_[size] == pytest.approx((per_fold[0][size] + per_fold[1][size]) / 2, abs=1e-15)
    train, test = st.grouped_folds(groups_of(small), 2)[0]
    assert filter_heldout_accuracy(linear_svc(0.05), Xs[train], yb[train], Xs[test], yb[test], step=0.34) == \
        pytest.approx({s: per_fold[0][s] for s in (6, 4, 2, 1)}, abs=1e-15)


def test_svm_rfe_chooses_C_on_a_row_sample_of_the_requested_size(small):
    Cs = [0.001, 0.01, 0.1, 1.5, 10.0, 100.0]
    sel = SVMRFE(relevant_min=1, C=Cs, cv=3, tune_sample_size=150).fit(small.X, small.y, small.qid)
    rows = sel.tune_rows_
    assert len(rows) == len(np.unique(rows)) == 150 and sel.chosen_["n_tune_rows"] == 150
    assert sel.chosen_["n_rows"] == small.n_rows  # every row for the final SVM
    # the C choice recomputed on those rows with folds grouped by query
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (small.y >= 1).astype(np.int64)
    Xt, yt, gt = Xs[rows], yb[rows], groups_of(small)[rows]
    for C in Cs:
        hits = sum(int(np.sum(linear_svc(C).fit(Xt[tr], yt[tr]).predict(Xt[te]) == yt[te]))
                   for tr, te in st.grouped_folds(gt, 3))
        assert sel.cv_accuracy_[C] == hits / 150
    assert sel.chosen_["C"] == Cs[int(np.argmax([sel.cv_accuracy_[C] for C in Cs]))]
    # seeded: the same rows again, other rows for another seed; None = every row
    again = SVMRFE(relevant_min=1, C=Cs, cv=3, tune_sample_size=150).fit(small.X, small.y, small.qid)
    other = SVMRFE(relevant_min=1, C=Cs, cv=3, tune_sample_size=150, random_state=1).fit(small.X, small.y, small.qid)
    assert again.tune_rows_.tolist() == rows.tolist() != other.tune_rows_.tolist()
    every = SVMRFE(relevant_min=1, C=Cs, cv=3).fit(small.X, small.y, small.qid)
    assert every.tune_rows_ is None and every.chosen_["n_tune_rows"] == small.n_rows


def test_platt_sigmoid_minimises_the_smoothed_cross_entropy():
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    f = rng.normal(size=200)
    y = (f + rng.normal(scale=0.8, size=200) > 0.3).astype(int)
    A, B = platt_sigmoid(f, y)
    n1, n0 = y.sum(), len(y) - y.sum()
    t = np.where(y == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))

    def loss(p):
        z = p[0] * f + p[1]
        return np.sum(t * z + np.logaddexp(0, -z))

    ref = minimize(loss, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose([A, B], ref, atol=1e-4)
    assert A < 0  # P(relevant) grows with the decision value


def test_svm_rfe_bootstrap_probabilities(small):
    sel = SVMRFE(relevant_min=1, C=0.05, n_bootstrap=8).fit(small.X, small.y, small.qid)
    assert sel.boot_coef_.shape == (8, 6) and sel.boot_intercept_.shape == (8,) and sel.platt_.shape == (8, 2)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (small.y >= 1).astype(np.int64)
    n = len(yb)
    # replicate 3 by hand: rows drawn with replacement (seed [random_state, 2, b]), Platt on out-of-bag rows
    rows = np.random.default_rng([0, 2, 3]).integers(0, n, size=n)
    oob = np.setdiff1d(np.arange(n), rows)
    svc = linear_svc(0.05).fit(Xs[rows], yb[rows])
    np.testing.assert_allclose(sel.boot_coef_[3], svc.coef_[0], atol=1e-12)
    f = Xs[oob] @ svc.coef_[0] + svc.intercept_[0]
    np.testing.assert_allclose(sel.platt_[3], platt_sigmoid(f, yb[oob]), atol=1e-12)
    assert sel.bootstrap_accuracy_[3] == np.mean((f > 0) == yb[oob])
    assert sel.chosen_["bootstrap_accuracy"] == pytest.approx(sel.bootstrap_accuracy_.mean())
    # the score is the mean of the replicates' sigmoids
    naive = np.zeros(n)
    for b in range(8):
        A, B = sel.platt_[b]
        naive += 1 / (1 + np.exp(A * (Xs @ sel.boot_coef_[b] + sel.boot_intercept_[b]) + B)) / 8
    p = sel.predict_scores(small.X)
    np.testing.assert_allclose(p, naive, rtol=1e-12)
    np.testing.assert_allclose(sel.predict_proba_relevant(small.X, block_rows=100), p, rtol=1e-15)
    assert np.all((p >= 0) & (p <= 1))
    # the decision-value model is unchanged; the ranking does not depend on the bootstrap
    plain = SVMRFE(relevant_min=1, C=0.05).fit(small.X, small.y, small.qid)
    np.testing.assert_array_equal(sel.decision_function(small.X), plain.predict_scores(small.X))
    assert sel.ranking_.tolist() == plain.ranking_.tolist()
    with pytest.raises(ValueError, match="^svm_rfe: P\\(relevant\\) needs a model fitted with n_bootstrap >= 1$"):
        plain.predict_proba_relevant(small.X)
    # small and picklable: arrays, no fitted estimators
    blob = pickle.dumps(sel)
    assert len(blob) < 8000
    assert not any(hasattr(v, "fit") for v in vars(sel).values())
    np.testing.assert_array_equal(pickle.loads(blob).predict_scores(small.X), p)
    # threads give the same replicates
    par = SVMRFE(relevant_min=1, C=0.05, n_bootstrap=8, n_jobs=2).fit(small.X, small.y, small.qid)
    np.testing.assert_array_equal(par.platt_, sel.platt_)


def test_svm_rfe_bootstrap_probability_is_monotone_in_the_decision_value_on_separated_data():
    # one feature, labels a step of it (noise 0.05): every replicate's sigmoid increases with x,
    # so their mean orders the rows as the all-feature decision value does
    data = planted(n_queries=30, d=1, informative=(0,), seed=4)
    sel = SVMRFE(relevant_min=1, C=1.0, n_bootstrap=10).fit(data.X, data.y, data.qid)
    p, f = sel.predict_scores(data.X), sel.decision_function(data.X)
    order = np.argsort(f, kind="stable")
    assert np.all(np.diff(p[order]) >= 0) and np.all(sel.platt_[:, 0] < 0)
    assert p[np.argmin(f)] < 1e-3 and p[np.argmax(f)] > 1 - 1e-3 and 0 <= p.min() and p.max() <= 1
    # several features, well separated: near-perfect rank agreement
    from scipy.stats import spearmanr

    data = planted(n_queries=30, d=4, informative=(1,), seed=2)
    sel = SVMRFE(relevant_min=1, C=1.0, n_bootstrap=10).fit(data.X, data.y, data.qid)
    assert spearmanr(sel.predict_scores(data.X), sel.decision_function(data.X)).statistic > 0.99


def test_svm_rfe_curve_equals_a_naive_two_fold_loop(small):
    from sklearn.feature_selection import RFE

    sel = SVMRFE(relevant_min=1, C=0.05, rfe_cv=2).fit(small.X, small.y, small.qid)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (small.y >= 1).astype(np.int64)
    per_fold = []
    for train, test in st.grouped_folds(groups_of(small), 2):
        acc = {}
        for size in range(6, 0, -1):
            ref = RFE(linear_svc(0.05), n_features_to_select=size, step=1).fit(Xs[train], yb[train])
            acc[size] = np.mean(ref.estimator_.predict(Xs[test][:, ref.support_]) == yb[test])
        per_fold.append(acc)
    naive = {size: (per_fold[0][size] + per_fold[1][size]) / 2 for size in range(6, 0, -1)}
    assert list(sel.rfe_curve_) == [6, 5, 4, 3, 2, 1]
    for size in naive:
        assert sel.rfe_curve_[size] == pytest.approx(naive[size], abs=1e-15)
    best = max(naive.values())
    assert sel.rfe_best_size_ == min(s for s in naive if naive[s] == pytest.approx(best, abs=1e-15))
    assert sel.chosen_["rfe_best_size"] == sel.rfe_best_size_
    assert sel.chosen_["rfe_curve"] == [[s, a] for s, a in sel.rfe_curve_.items()]
    # the ranking is the full-data elimination, with or without the resampling; threads agree
    plain = SVMRFE(relevant_min=1, C=0.05).fit(small.X, small.y, small.qid)
    assert sel.ranking_.tolist() == plain.ranking_.tolist()
    par = SVMRFE(relevant_min=1, C=0.05, rfe_cv=2, n_jobs=2).fit(small.X, small.y, small.qid)
    assert par.rfe_curve_ == sel.rfe_curve_
    # fractional steps: the sizes the elimination visits
    frac = SVMRFE(relevant_min=1, C=0.05, step=0.34, rfe_cv=2).fit(small.X, small.y, small.qid)
    assert list(frac.rfe_curve_) == [6, 4, 2, 1]
    train, test = st.grouped_folds(groups_of(small), 2)[0]
    one = rfe_heldout_accuracy(linear_svc(0.05), Xs[train], yb[train], Xs[test], yb[test], step=0.34)
    assert one == pytest.approx({s: per_fold[0][s] for s in (6, 4, 2, 1)}, abs=1e-15)


def test_svm_rfe_single_class_parts_are_one_line_errors():
    # two queries: all relevant rows in the first; a fold trained on the second has one class
    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    y = np.r_[np.tile([0, 1], 8), np.zeros(14, int)]
    qid = np.r_[np.zeros(16, int), np.ones(14, int)]
    cases = [
        ({"rfe_cv": 2}, r"^svm_rfe: the training part of RFE fold \d of 2 \(rfe_cv\) has a single class "
                        r"\(\d+ rows, all irrelevant\); an SVM needs relevant and irrelevant rows$"),
        ({"C": [0.1, 1.0], "cv": 2}, r"^svm_rfe: the training part of C-choice fold \d of 2 has a single class"),
    ]
    for params, message in cases:
        with pytest.raises(ValueError, match=message) as err:
            SVMRFE(relevant_min=1, **params).fit(X, y, qid)
        assert "\n" not in str(err.value)
    # two relevant rows only: the 2-row sample for C (seed [2, 1]) holds none of them
    y2 = np.r_[np.zeros(14, int), 1, 1, np.zeros(14, int)]
    assert y2[st.subsample_rows(30, 2, [2, 1])].tolist() == [0, 0]
    with pytest.raises(ValueError, match=r"^svm_rfe: the 2-row sample for choosing C \(tune_sample_size\) has a "
                                         r"single class \(2 rows, all irrelevant\)"):
        SVMRFE(relevant_min=1, C=[0.1, 1.0], cv=2, tune_sample_size=2, random_state=2).fit(X, y2, qid)
    with pytest.raises(ValueError, match=r"^svm_rfe: rfe_cv=3 folds need at least 3 queries, the data has 2$"):
        SVMRFE(relevant_min=1, rfe_cv=3).fit(X, y, qid)


@pytest.mark.parametrize("params, message", [
    ({"n_bootstrap": -1}, r"^svm_rfe: n_bootstrap must be an integer >= 0; got -1$"),
    ({"n_bootstrap": 2.5}, r"^svm_rfe: n_bootstrap must be an integer >= 0; got 2.5$"),
    ({"rfe_cv": 1}, r"^svm_rfe: rfe_cv must be 0 or an integer >= 2; got 1$"),
    ({"rfe_cv": True}, r"^svm_rfe: rfe_cv must be 0 or an integer >= 2; got True$"),
    ({"tune_sample_size": 1}, r"^svm_rfe: tune_sample_size must be an integer >= 2 or None; got 1$"),
])
def test_svm_rfe_new_parameters_raise_one_line(params, message):
    with pytest.raises(ValueError, match=message):
        SVMRFE(**params).validate_params()


# ----------------------------------------------------------------------------- the row sample


def test_prepare_rows_widens_the_sample_only():
    """A float32 X is sampled before its float64 copy (Lei & Han's 10,000 rows of a 2-million-row
    fold: not a float64 copy of the fold), and the rows are those of the copy-first order."""
    import tracemalloc

    rng = np.random.default_rng(0)
    X = rng.standard_normal((200_000, 20)).astype(np.float32)
    y = rng.integers(0, 3, len(X))
    ptr = np.arange(0, len(X) + 1, 50)
    tracemalloc.start()
    Xs, ys, gs = st.prepare_rows(X, y, ptr, 1000, 3)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 0.5 * X.nbytes, peak / X.nbytes  # the finiteness mask (a quarter), not 2 x X
    rows = st.subsample_rows(len(y), 1000, 3)
    assert Xs.dtype == np.float64 and np.array_equal(Xs, X.astype(np.float64)[rows])
    assert np.array_equal(ys, y[rows]) and np.array_equal(gs, rows // 50)

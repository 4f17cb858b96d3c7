"""Lei & Han's statistical selectors: l1_logistic, svm_rfe, ordinal_cr, rf_importance,
gbm_importance (ltrfs.selection.{l1_logistic, svm_rfe, ordinal_cr, forest, boosting}) and
their shared machinery (ltrfs.selection.statistical)."""
import warnings

import numpy as np
import pytest

from conftest import planted
from ltrfs.datasets import synthetic
from ltrfs.ranking_data import label_levels
from ltrfs.selection import statistical as st
from ltrfs.selection.boosting import GBMImportance
from ltrfs.selection.forest import RFImportance, oob_permutation_importance, rfcv_sizes
from ltrfs.selection.l1_logistic import L1Logistic, l1_logistic_regression
from ltrfs.selection.ordinal_cr import OrdinalCR, information_criterion
from ltrfs.selection.svm_rfe import SVMRFE, linear_svc


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.fixture(scope="module")
def small():
    """40 queries, 6 features, labels 0..2 driven by features 2 and 4."""
    return planted(n_queries=40, d=6, informative=(2, 4), seed=7)


@pytest.fixture(scope="module")
def synth():
    data, truth = synthetic.make(n_queries=120, seed=3)
    return data, truth


# ----------------------------------------------------------------------------- shared helpers

def test_subsample_rows_is_sorted_seeded_and_optional():
    a = st.subsample_rows(100, 30, 5)
    assert len(a) == 30 and np.all(np.diff(a) > 0)
    assert a.tolist() == st.subsample_rows(100, 30, 5).tolist()
    assert a.tolist() != st.subsample_rows(100, 30, 6).tolist()
    assert st.subsample_rows(100, None, 0) is None and st.subsample_rows(100, 100, 0) is None


def test_binarise_and_single_class_error():
    assert st.binarise(np.array([0, 1, 2, 3, 4]), 2).tolist() == [0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match=r"relevant_min=3 leaves a single class .*\(1 on 3-level LETOR data\)"):
        st.binarise(np.array([0, 1, 2, 2]), 3)


def test_standardise_weighted_equals_standardising_the_repeated_rows():
    rng = np.random.default_rng(0)
    X = rng.random((7, 3))
    X[:, 2] = 4.0  # constant column: scale 1, centred to 0
    w = np.array([1, 3, 2, 1, 2, 3, 1])
    Xs, mean, scale = st.standardise(X, weights=w)
    rep = np.repeat(X, w, axis=0)
    np.testing.assert_allclose(mean, rep.mean(0))
    np.testing.assert_allclose(scale[:2], rep[:, :2].std(0))
    assert scale[2] == 1.0 and np.all(Xs[:, 2] == 0)


def test_grouped_folds_never_split_a_query():
    group = np.repeat(np.arange(12), 3)
    folds = st.grouped_folds(group, 4)
    assert len(folds) == 4
    for train, test in folds:
        assert not set(group[train]) & set(group[test])
    with pytest.raises(ValueError, match="cv=13 folds need at least 13 queries, the data has 12"):
        st.grouped_folds(group, 13)


def test_cr_expansion_hand_case():
    # levels of 5 rows, K = 3: block r=1 (y <= 1) then block r=2 (y <= 2), rows in file order
    level = np.array([0, 2, 1, 2, 0])
    rows, thr, target = st.cr_expand(level, 3)
    assert rows.tolist() == [0, 2, 4, 0, 1, 2, 3, 4]
    assert thr.tolist() == [0, 0, 0, 1, 1, 1, 1, 1]
    assert target.tolist() == [0, 1, 0, 0, 1, 0, 1, 0]
    mask, t = st.cr_masks(level, 3)
    assert mask.tolist() == [[1, 1], [0, 1], [1, 1], [0, 1], [1, 1]]
    assert t.tolist() == [[0, 0], [0, 1], [1, 0], [0, 1], [0, 0]]
    # the dense form holds exactly the expanded rows
    assert sorted(zip(rows.tolist(), thr.tolist())) == sorted(map(tuple, np.argwhere(mask).tolist()))


def test_cr_probabilities_and_loglik_hand_case():
    eta = np.array([0.3, -1.0])
    alpha = np.array([0.5, -0.2])  # thresholds r = 1, 2
    p = st.cr_probabilities(eta, alpha)
    h1, h2 = sigmoid(0.5 + eta), sigmoid(-0.2 + eta)
    np.testing.assert_allclose(p[:, 2], h2)
    np.testing.assert_allclose(p[:, 1], h1 * (1 - h2))
    np.testing.assert_allclose(p[:, 0], (1 - h1) * (1 - h2))
    np.testing.assert_allclose(p.sum(1), 1.0)
    level = np.array([1, 0])
    mask, t = st.cr_masks(level, 3)
    assert st.cr_loglik(eta, alpha, mask, t) == pytest.approx(np.log(p[0, 1]) + np.log(p[1, 0]))


def test_one_se_rule_on_a_hand_made_cv_table():
    # path from most to least penalised; the minimum is at index 4 (0.50, se 0.04)
    mean = np.array([0.70, 0.60, 0.545, 0.53, 0.50, 0.51, 0.52])
    se = np.array([0.02, 0.02, 0.03, 0.03, 0.04, 0.05, 0.05])
    best, one_se = st.one_se_index(mean, se)
    assert best == 4
    assert one_se == 3  # first mean <= 0.54: 0.545 is above, 0.53 is within
    # fold table -> mean and standard error std(ddof=1)/sqrt(k)
    folds = np.array([[1.0, 2.0], [3.0, 2.0], [5.0, 2.0]])
    m, s = st.cv_summary(folds)
    assert m.tolist() == [3.0, 2.0]
    assert s[0] == pytest.approx(2.0 / np.sqrt(3)) and s[1] == 0.0


def test_path_ranking_hand_case():
    path = np.array([
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.5, 0.0, 0.0, 0.0],
        [0.2, 0.6, 0.0, -0.1, 0.0],
        [0.3, 0.7, 0.4, -0.2, 0.0],
    ])
    chosen = path[1]
    grad = np.array([0, 0, 0, 0, 0.01])
    # selected {1}; then entry order: 0 and 3 enter at 2 (|last| 0.3 > 0.2), 2 at 3, 4 never
    assert st.path_ranking(path, chosen, grad).tolist() == [1, 0, 3, 2, 4]
    chosen = path[3]  # four nonzero by |coef|: 1 (0.7), 2 (0.4), 0 (0.3), 3 (0.2)
    assert st.path_ranking(path, chosen, grad).tolist() == [1, 2, 0, 3, 4]


def test_rfcv_sizes_follow_the_report():
    sizes = rfcv_sizes(136, 0.7)
    assert sizes[:10] == [136, 95, 67, 47, 33, 23, 16, 11, 8, 5]  # Table 2.1
    assert sizes == [136, 95, 67, 47, 33, 23, 16, 11, 8, 5, 4, 3, 2, 1]
    assert rfcv_sizes(46, 0.7) == [46, 32, 23, 16, 11, 8, 5, 4, 3, 2, 1]
    assert rfcv_sizes(1) == [1] and rfcv_sizes(2) == [2, 1]


# ----------------------------------------------------------------------------- the L1 path solver

def _binary_problem(seed=0, m=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d)) * np.array([1, 5, 1, 0.2, 1, 1])[:d]
    yb = (X[:, 0] - 0.4 * X[:, 1] + 0.8 * rng.standard_normal(m) > 0.4).astype(np.int64)
    return st.standardise(X)[0], yb


def test_l1_path_binary_equals_sklearn_logistic_regression():
    Xs, yb = _binary_problem()
    m = len(yb)
    mask, t = np.ones((m, 1), bool), yb[:, None].astype(float)
    lambdas = st.lambda_path(st.lambda_max(Xs, mask, t), 12, 1e-3)
    res = st.l1_path(Xs, mask, t, lambdas, tol=1e-12)
    assert np.all(res["coef"][0] == 0) and np.count_nonzero(res["coef"][1]) == 1
    for k in (2, 6, 11):
        clf = l1_logistic_regression(1.0 / (m * lambdas[k]), "saga", tol=1e-12, max_iter=100000).fit(Xs, yb)
        np.testing.assert_allclose(res["coef"][k], clf.coef_[0], atol=2e-6)
        assert res["intercept"][k, 0] == pytest.approx(clf.intercept_[0], abs=2e-6)


def test_l1_path_continuation_ratio_satisfies_kkt_on_the_expanded_data():
    data = planted(n_queries=30, d=5, informative=(1, 3), seed=2)
    classes, level = label_levels(data.y)
    mask, t = st.cr_masks(level, len(classes))
    Xs, _, _ = st.standardise(data.X.astype(float), weights=mask.sum(1))
    lambdas = st.lambda_path(st.lambda_max(Xs, mask, t), 6, 1e-2)
    res = st.l1_path(Xs, mask, t, lambdas, tol=1e-13)
    rows, thr, target = st.cr_expand(level, len(classes))  # naive oracle: the written-out rows
    N = len(rows)
    assert res["n_total"] == N
    for k, lam in enumerate(lambdas):
        beta, alpha = res["coef"][k], res["intercept"][k]
        resid = target - sigmoid(alpha[thr] + Xs[rows] @ beta)
        grad = Xs[rows].T @ resid / N
        for s in range(len(alpha)):  # unpenalised intercepts: zero gradient
            assert abs(resid[thr == s].sum() / N) < 1e-6
        nz = beta != 0
        np.testing.assert_allclose(grad[nz], lam * np.sign(beta[nz]), atol=1e-6)
        assert np.all(np.abs(grad[~nz]) <= lam + 1e-6)
        # the reported loss is the mean negative log-likelihood of the expanded rows
        z = alpha[thr] + Xs[rows] @ beta
        assert res["loss"][k] == pytest.approx(np.mean(np.logaddexp(0, z) - target * z), rel=1e-9)
    assert np.count_nonzero(res["coef"][-1]) > np.count_nonzero(res["coef"][1])


# ----------------------------------------------------------------------------- l1_logistic

def _l1_setup(sel, data):
    Xs = (data.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (data.y >= sel.relevant_min).astype(np.int64)
    group = np.repeat(np.arange(data.n_queries), data.query_sizes())
    return Xs, yb, st.grouped_folds(group, sel.cv)


def test_l1_logistic_liblinear_reproduces_logistic_regression_cv(small):
    from sklearn.linear_model import LogisticRegressionCV

    sel = L1Logistic(rule="min", relevant_min=1, cv=4, n_lambdas=8, solver="liblinear").fit(
        small.X, small.y, small.qid)
    Xs, yb, folds = _l1_setup(sel, small)
    kwargs = {"l1_ratios": (1.0,)} if "l1_ratios" in LogisticRegressionCV().get_params() else {"penalty": "l1"}
    ref = LogisticRegressionCV(Cs=sel.Cs_, cv=folds, solver="liblinear", scoring="neg_log_loss", tol=1e-4,
                               max_iter=1000, random_state=0, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(Xs, yb)
    assert sel.chosen_["C"] == pytest.approx(float(np.ravel(ref.C_)[0]), rel=1e-12)
    direct = l1_logistic_regression(sel.chosen_["C"], "liblinear", tol=1e-4, max_iter=1000, random_state=0).fit(Xs, yb)
    np.testing.assert_allclose(sel.coef_, direct.coef_[0], atol=1e-12)
    np.testing.assert_allclose(sel.predict_scores(small.X), direct.predict_proba(Xs)[:, 1], atol=1e-12)
    assert sel.selected_.tolist() == np.flatnonzero(direct.coef_[0]).tolist()


def test_l1_logistic_cd_matches_sklearn_and_picks_sparser_1se(small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (tol tightened: the planted labels are nearly separable, so the coefficients are large)
        sel = L1Logistic(rule="min", relevant_min=1, cv=4, n_lambdas=15, tol=1e-13).fit(small.X, small.y, small.qid)
        one = L1Logistic(rule="1se", relevant_min=1, cv=4, n_lambdas=15, tol=1e-13).fit(small.X, small.y, small.qid)
    Xs, yb, _ = _l1_setup(sel, small)
    direct = l1_logistic_regression(sel.chosen_["C"], "saga", tol=1e-12, max_iter=100000).fit(Xs, yb)
    np.testing.assert_allclose(sel.coef_, direct.coef_[0], rtol=2e-5, atol=1e-5)
    assert sel.chosen_["C"] == pytest.approx(1.0 / (small.n_rows * sel.chosen_["lambda"]))
    # 1-SE: a larger penalty, so no more features; the same CV table
    assert one.chosen_["lambda"] >= sel.chosen_["lambda"]
    assert one.chosen_["n_selected"] <= sel.chosen_["n_selected"]
    assert one.chosen_["lambda_min"] == sel.chosen_["lambda"]
    best, k = st.one_se_index(one.cv_mean_, one.cv_se_)
    assert one.chosen_["lambda"] == one.lambdas_[k]
    # the selected set is the ranking's prefix; predictions use lambda.min by default
    assert set(one.ranking_[:one.chosen_["n_selected"]].tolist()) == set(one.selected_.tolist())
    assert sorted(one.ranking_.tolist()) == list(range(6))
    Xraw = small.X.astype(np.float64)
    coef_min = one.coef_path_[best]
    assert np.count_nonzero(coef_min) == one.chosen_["n_selected_min"]
    np.testing.assert_allclose(one.predict_scores(Xraw)[:5],
                               sigmoid(((Xraw - one.mean_) / one.scale_) @ coef_min + one._predict_coef[1])[:5])


def test_l1_logistic_sample_size_is_seeded(small):
    kw = dict(relevant_min=1, cv=3, n_lambdas=6, sample_size=300)
    a = L1Logistic(**kw).fit(small.X, small.y, small.qid)
    b = L1Logistic(**kw).fit(small.X, small.y, small.qid)
    assert a.chosen_["n_rows"] == 300
    assert a.ranking_.tolist() == b.ranking_.tolist() and a.chosen_ == b.chosen_
    # folds fitted on two threads give the same CV table
    c = L1Logistic(n_jobs=2, **kw).fit(small.X, small.y, small.qid)
    np.testing.assert_array_equal(c.cv_mean_, a.cv_mean_)
    assert c.chosen_ == a.chosen_


# ----------------------------------------------------------------------------- ordinal_cr

def test_ordinal_cr_bic_choice_on_a_tiny_path(small):
    lambdas = [0.2, 0.05, 0.01, 0.001]
    sel = OrdinalCR(lambdas=lambdas, choice="min").fit(small.X, small.y, small.qid)
    classes, level = label_levels(small.y)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    n = small.n_rows
    bic = []
    for k in range(4):
        # log-likelihood from the class probabilities of every original row
        p = st.cr_probabilities(Xs @ sel.coef_path_[k], sel.intercept_path_[k])
        ll = np.log(p[np.arange(n), level]).sum()
        df = np.count_nonzero(sel.coef_path_[k]) + 2
        bic.append(-2 * ll + df * np.log(n))
    np.testing.assert_allclose(sel.criterion_, bic, rtol=1e-9)
    assert sel.chosen_["step"] == int(np.argmin(bic)) + 1
    assert sel.chosen_["lambda"] == lambdas[int(np.argmin(bic))]
    assert sel.chosen_["n_selected"] == np.count_nonzero(sel.coef_path_[int(np.argmin(bic))])
    assert sel.chosen_["min_step"] == sel.chosen_["step"]
    # AIC and the expanded-n variant use the same fits
    aic = OrdinalCR(lambdas=lambdas, criterion="aic").fit(small.X, small.y, small.qid)
    np.testing.assert_allclose(aic.criterion_, information_criterion(sel.loglik_, sel.df_, n, "aic"))
    expd = OrdinalCR(lambdas=lambdas, bic_n="expanded").fit(small.X, small.y, small.qid)
    np.testing.assert_allclose(expd.criterion_, information_criterion(sel.loglik_, sel.df_,
                                                                      sel.chosen_["n_expanded"]))
    # expected label = sum_r r P(r)
    np.testing.assert_allclose(sel.predict_scores(small.X),
                               st.cr_probabilities(Xs @ sel.coef_, sel.intercept_) @ classes)


def test_ordinal_cr_on_two_levels_is_the_binomial_lasso(small):
    yb = (small.y >= 1).astype(np.int32)
    lambdas = [0.1, 0.02, 0.005]
    sel = OrdinalCR(lambdas=lambdas).fit(small.X, yb, small.qid)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    res = st.l1_path(Xs, np.ones((len(yb), 1), bool), yb[:, None].astype(float), np.array(lambdas))
    np.testing.assert_allclose(sel.coef_path_, res["coef"], atol=1e-12)


# ----------------------------------------------------------------------------- svm_rfe

def test_svm_rfe_equals_sklearn_rfe(small):
    from sklearn.feature_selection import RFE

    sel = SVMRFE(relevant_min=1, C=0.05).fit(small.X, small.y, small.qid)
    Xs = (small.X.astype(np.float64) - sel.mean_) / sel.scale_
    yb = (small.y >= 1).astype(np.int64)
    ref = RFE(linear_svc(0.05), n_features_to_select=1, step=1).fit(Xs, yb)
    assert ref.ranking_[sel.ranking_].tolist() == list(range(1, 7))  # best first = RFE rank 1, 2, ...
    assert sel.rounds_ == [6, 5, 4, 3, 2]
    # fractional step: same elimination rounds as RFE (rank groups), best first within a round
    frac = SVMRFE(relevant_min=1, C=0.05, step=0.34).fit(small.X, small.y, small.qid)
    ref = RFE(linear_svc(0.05), n_features_to_select=1, step=0.34).fit(Xs, yb)
    assert np.all(np.diff(ref.ranking_[frac.ranking_]) >= 0)
    assert frac.rounds_ == [6, 4, 2]
    # the scores for ranking are the all-feature SVM's decision values
    full = linear_svc(0.05).fit(Xs, yb)
    np.testing.assert_allclose(sel.predict_scores(small.X), full.decision_function(Xs), atol=1e-10)


def test_svm_rfe_chooses_C_from_a_list_by_grouped_cv(small):
    sel = SVMRFE(relevant_min=1, C=[0.001, 0.1, 10.0], cv=3).fit(small.X, small.y, small.qid)
    acc = sel.cv_accuracy_
    assert set(acc) == {0.001, 0.1, 10.0}
    assert sel.chosen_["C"] == max(acc, key=lambda c: (acc[c], -c))
    assert sel.chosen_["cv_accuracy"] == acc[sel.chosen_["C"]]


# ----------------------------------------------------------------------------- rf_importance

def test_rf_importance_equals_the_direct_forest_and_curve(small):
    from sklearn.ensemble import RandomForestClassifier

    sel = RFImportance(n_estimators=15, cv=3, keep=0.5).fit(small.X, small.y, small.qid)
    ref = RandomForestClassifier(n_estimators=15, max_features="sqrt", random_state=0).fit(
        small.X.astype(np.float32), small.y)
    np.testing.assert_array_equal(sel.scores_, ref.feature_importances_)
    assert sel.ranking_.tolist() == np.argsort(-ref.feature_importances_, kind="stable").tolist()
    np.testing.assert_allclose(sel.predict_scores(small.X), ref.predict_proba(small.X) @ ref.classes_)
    # curve: sizes 6, 3 (round(6 * 0.5^i), i < floor(log2 6) = 2) then 1; errors recomputed by hand
    assert [n for n, _ in sel.curve_] == [6, 3, 1]
    group = np.repeat(np.arange(small.n_queries), small.query_sizes())
    X32, y = small.X.astype(np.float32), small.y
    wrong = np.zeros(3)
    for train, test in st.grouped_folds(group, 3):
        rf = RandomForestClassifier(n_estimators=15, random_state=0).fit(X32[train], y[train])
        wrong[0] += np.sum(rf.predict(X32[test]) != y[test])
        order = np.argsort(-rf.feature_importances_, kind="stable")
        for i, n in enumerate([3, 1], start=1):
            sub = RandomForestClassifier(n_estimators=15, random_state=0).fit(X32[train][:, order[:n]], y[train])
            wrong[i] += np.sum(sub.predict(X32[test][:, order[:n]]) != y[test])
    np.testing.assert_allclose([e for _, e in sel.curve_], wrong / len(y))
    best = int(np.argmin(wrong))
    assert sel.chosen_["n_features"] == [6, 3, 1][best]
    assert sel.chosen_["curve"] == [list(p) for p in sel.curve_]


def test_oob_permutation_importance_equals_a_per_tree_loop(small):
    from sklearn.ensemble import RandomForestClassifier

    X32, y = small.X.astype(np.float32), small.y
    rf = RandomForestClassifier(n_estimators=6, random_state=1).fit(X32, y)
    fast = oob_permutation_importance(rf, X32, y, random_state=4, max_block_bytes=3000)  # several blocks
    rng = np.random.default_rng(4)
    code = np.searchsorted(rf.classes_, y)
    want = np.zeros(6)
    for tree, inbag in zip(rf.estimators_, rf.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(y)), inbag)
        base = np.mean(tree.predict(X32[oob]) == code[oob])
        for j in range(6):
            Xp = X32[oob].copy()
            Xp[:, j] = Xp[rng.permutation(len(oob)), j]
            want[j] += base - np.mean(tree.predict(Xp) == code[oob])
    np.testing.assert_allclose(fast, want / 6, atol=1e-12)
    assert set(np.argsort(-fast)[:2].tolist()) == {2, 4}


# ----------------------------------------------------------------------------- gbm_importance

def test_gbm_importance_equals_the_direct_model(small):
    from sklearn.ensemble import GradientBoostingClassifier

    sel = GBMImportance(n_estimators=30, learning_rate=0.1).fit(small.X, small.y, small.qid)
    ref = GradientBoostingClassifier(n_estimators=30, learning_rate=0.1, max_depth=None, max_leaf_nodes=5,
                                     subsample=0.5, min_samples_leaf=10, random_state=0).fit(
        small.X.astype(np.float32), small.y)
    np.testing.assert_array_equal(sel.scores_, ref.feature_importances_)
    assert all(est.tree_.n_leaves <= 5 for est in ref.estimators_.ravel())  # 4 splits per tree
    np.testing.assert_allclose(sel.predict_scores(small.X), ref.predict_proba(small.X) @ ref.classes_)
    assert set(sel.ranking_[:2].tolist()) == {2, 4}


def test_gbm_hist_backend_uses_permutation_importance_on_vali(small):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.inspection import permutation_importance

    vali = planted(n_queries=20, d=6, informative=(2, 4), seed=8)
    sel = GBMImportance(n_estimators=20, learning_rate=0.1, backend="hist", n_repeats=2).fit(
        small.X, small.y, small.qid, X_val=vali.X, y_val=vali.y, qid_val=vali.qid)
    ref = HistGradientBoostingClassifier(max_iter=20, learning_rate=0.1, max_leaf_nodes=5, min_samples_leaf=10,
                                         early_stopping=False, random_state=0).fit(small.X, small.y)
    imp = permutation_importance(ref, vali.X, vali.y, scoring="neg_log_loss", n_repeats=2, random_state=0)
    np.testing.assert_allclose(sel.scores_, imp.importances_mean, atol=1e-12)
    assert sel.chosen_["importance"] == "permutation:vali"


def test_gbm_xgboost_backend_is_the_direct_booster_with_total_gain(small):
    """Labels 0, 2 only (no 1): XGBoost sees class indices 0, 1 and the expected label uses 0, 2."""
    from xgboost import XGBClassifier

    y = np.where(small.y > 0, 2, 0)
    sel = GBMImportance(n_estimators=30, learning_rate=0.1, backend="xgboost").fit(small.X, y, small.qid)
    ref = XGBClassifier(n_estimators=30, learning_rate=0.1, tree_method="hist", max_depth=0, max_leaves=5,
                        grow_policy="lossguide", subsample=0.5, reg_lambda=0.0, min_child_weight=10 * 0.25,
                        objective="binary:logistic", random_state=0, n_jobs=1).fit(
        small.X.astype(np.float32), (y > 0).astype(int))
    gain = ref.get_booster().get_score(importance_type="total_gain")
    want = np.array([gain.get(f"f{j}", 0.0) for j in range(small.n_features)])
    np.testing.assert_allclose(sel.scores_, want / want.sum(), rtol=1e-12)
    np.testing.assert_allclose(sel.predict_scores(small.X), 2 * ref.predict_proba(small.X.astype(np.float32))[:, 1],
                               rtol=1e-6)
    assert sel.classes_.tolist() == [0, 2] and sel.chosen_["importance"] == "total_gain"
    trees = ref.get_booster().trees_to_dataframe()
    assert trees.groupby("Tree").Feature.apply(lambda f: (f == "Leaf").sum()).max() <= 5  # 4 splits per tree


# ----------------------------------------------------------------------------- planted truth

PLANTED = [
    # (selector, floor of precision@10 of informative + redundant features)
    (L1Logistic(relevant_min=1, cv=5, n_lambdas=40), 0.8),
    (OrdinalCR(), 0.8),
    (SVMRFE(relevant_min=1), 0.8),
    (RFImportance(n_estimators=60, curve=False), 0.9),
    (GBMImportance(n_estimators=60, learning_rate=0.1), 0.8),
    (GBMImportance(n_estimators=60, learning_rate=0.1, backend="xgboost"), 0.8),
]


@pytest.mark.parametrize("selector, floor", PLANTED, ids=[s.name for s, _ in PLANTED])
def test_planted_informative_features_rank_above_noise(synth, selector, floor):
    """synthetic.make(n_queries=120, seed=3): 8 informative, 8 redundant, 14 noise features.
    Precision@10 of the informative + redundant (signal) features, above a floor, and the
    strongest informative feature (strength 0.9) in the top 3."""
    data, truth = synth
    signal = set(np.array(truth["informative"] + truth["redundant"]) - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = selector.fit(data.X, data.y, data.qid)
    top = sel.ranking_[:10].tolist()
    precision = len(signal & set(top)) / 10
    assert precision >= floor, (sel.name, precision)
    assert truth["informative"][0] - 1 in sel.ranking_[:3]
    assert sorted(sel.ranking_.tolist()) == list(range(data.n_features))


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("selector, message", [
    (L1Logistic(rule="max"), r"^l1_logistic: rule must be one of min, 1se; got 'max'$"),
    (L1Logistic(solver="lbfgs"), r"^l1_logistic: solver must be one of cd, liblinear, saga; got 'lbfgs'$"),
    (L1Logistic(cv=1), r"^l1_logistic: cv must be an integer >= 2; got 1$"),
    (OrdinalCR(bic_n="all"), r"^ordinal_cr: bic_n must be one of rows, expanded; got 'all'$"),
    (OrdinalCR(lambdas=[0.1, 0.2]), r"^ordinal_cr: lambdas must be decreasing; got \[0.1, 0.2\]$"),
    (SVMRFE(step=0), r"^svm_rfe: step must be an integer >= 1 or a number in \(0, 1\); got 0$"),
    (SVMRFE(C=[0.1, -1]), r"^svm_rfe: C must be a finite number > 0 or a non-empty list of finite numbers > 0; "
                          r"got \[0.1, -1\]$"),
    (RFImportance(keep=1.5), r"^rf_importance: keep must be a number in \(0, 1\); got 1.5$"),
    (RFImportance(importance="gain"), r"^rf_importance: importance must be one of impurity, permutation; got 'gain'$"),
    (GBMImportance(backend="gpu"), r"^gbm_importance: backend must be one of exact, xgboost, hist; got 'gpu'$"),
    (GBMImportance(sample_size=1), r"^gbm_importance: sample_size must be an integer >= 2 or None; got 1$"),
])
def test_bad_parameters_raise_one_line(selector, message):
    with pytest.raises(ValueError, match=message):
        selector.validate_params()


def test_fit_errors_are_one_line(small):
    with pytest.raises(ValueError, match=r"relevant_min=5 leaves a single class"):
        L1Logistic(relevant_min=5).fit(small.X, small.y, small.qid)
    X = small.X.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"^ordinal_cr: X contains NaN or inf \(first at row 3, feature column 1\)"):
        OrdinalCR().fit(X, small.y, small.qid)


# ----------------------------------------------------------------------------- real data

@pytest.mark.slow
def test_ordinal_cr_on_mq2008_fold1(mq2008_dir):
    from ltrfs import io, metrics

    train = io.read_letor(mq2008_dir / "Fold1" / "train.txt")
    test = io.read_letor(mq2008_dir / "Fold1" / "test.txt")
    sel = OrdinalCR().fit(train.X, train.y, train.qid)
    assert 5 <= sel.chosen_["n_selected"] <= 30
    # constant features of MQ2008 (ids 6-10, 43) never enter the model
    assert not set(sel.selected_.tolist()) & {5, 6, 7, 8, 9, 42}
    qm = metrics.evaluate(test.y, sel.predict_scores(test.X), test.query_ptr, convention="letor4", max_k=10)
    # a pointwise linear model: NDCG@10 near LETOR's RankSVM (0.2309, Lai et al. Table II)
    assert qm.ndcg[:, 9].mean() > 0.20 and qm.map.mean() > 0.43


def test_l1_paths_never_choose_the_all_zero_model():
    """On labels independent of the features the 1-SE rule picks lambda_max, whose coefficients
    are all zero (a model that ranks by file order alone); the selectors take the most penalised
    model with a non-zero coefficient instead. A path of zero models only is a one-line error."""
    from ltrfs.tuning import DegenerateGridError

    rng = np.random.default_rng(5)
    sizes = rng.integers(5, 15, 60)
    ptr = np.r_[0, np.cumsum(sizes)]
    X = rng.random((ptr[-1], 5))
    y = rng.integers(0, 3, ptr[-1])
    qid = np.repeat(np.arange(60), sizes)
    sel = L1Logistic(relevant_min=1, cv=5, n_lambdas=30).fit(X, y, qid)
    raw = st.one_se_index(sel.cv_mean_, sel.cv_se_)[1]
    assert not np.any(sel.coef_path_[raw])  # what the plain rule would choose: all zero
    assert sel.chosen_["n_selected"] >= 1 and np.any(sel.coef_)
    with pytest.raises(DegenerateGridError, match="^l1_logistic: every penalty of the path gives all-zero"):
        st.without_degenerate(np.ones(3), np.zeros((3, 5)), "l1_logistic")

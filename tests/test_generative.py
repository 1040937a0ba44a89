"""Gaussian generative classifiers against scikit-learn's QDA / LDA and the lecture's estimates."""

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis

from mixlib.core.exceptions import NotFittedError
from mixlib.generative.gaussian import LinearGaussianClassifier, QuadraticGaussianClassifier

# scikit-learn >= 1.8 (QDA with a ``solver``) estimates each class covariance by maximum
# likelihood (divide by n_k); older versions divided by n_k - 1.
SKLEARN_QDA_DDOF = 0 if "solver" in QuadraticDiscriminantAnalysis().get_params() else 1


def _problem(seed, n=180, d=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    scales = rng.uniform(0.5, 2.0, size=(3, d))
    rotation = np.linalg.qr(rng.normal(size=(d, d)))[0]
    X = (rng.normal(size=(n, d)) * scales[y]) @ rotation + 1.5 * rng.normal(size=(3, d))[y]
    Q = rng.normal(size=(60, d)) * 2.5
    return X, np.array(["c1", "c2", "c3"])[y], Q


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_class_covariance_matches_qda(seed):
    X, y, Q = _problem(seed)
    ours = QuadraticGaussianClassifier(reg_covar=0.0, ddof=SKLEARN_QDA_DDOF).fit(X, y)
    theirs = QuadraticDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(ours.priors_, theirs.priors_)
    np.testing.assert_allclose(ours.means_, theirs.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("solver", ["lsqr", "eigen", "svd"])
def test_shared_covariance_matches_lda(seed, solver):
    X, y, Q = _problem(seed)
    ours = LinearGaussianClassifier(reg_covar=0.0).fit(X, y)
    theirs = LinearDiscriminantAnalysis(solver=solver, store_covariance=True).fit(X, y)
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))


def test_lecture_maximum_likelihood_estimates():
    """mu_k and Sigma_k divide by N_k; the shared Sigma is the pooled within-class scatter / N."""
    X, y, _ = _problem(3)
    qda = QuadraticGaussianClassifier(reg_covar=0.0).fit(X, y)
    lda = LinearGaussianClassifier(reg_covar=0.0).fit(X, y)
    pooled = np.zeros((3, 3))
    for k, label in enumerate(qda.classes_):
        members = X[y == label]
        np.testing.assert_allclose(qda.means_[k], members.mean(axis=0))
        np.testing.assert_allclose(qda.covariances_[k], np.cov(members.T, bias=True), rtol=1e-12)
        pooled += len(members) * np.cov(members.T, bias=True)
        assert qda.priors_[k] == pytest.approx(len(members) / len(y))
    np.testing.assert_allclose(lda.covariance_, pooled / len(y), rtol=1e-12)
    # Not the total covariance around the global mean, which also holds the between-class spread.
    assert not np.allclose(lda.covariance_, np.cov(X.T, bias=True), rtol=1e-2)


def test_shared_covariance_posteriors_are_a_softmax_of_linear_functions():
    """Seed 003: with a shared covariance, log p(x|C_k)p(C_k) = w_k.x + b_k + c(x)."""
    X, y, Q = _problem(4)
    model = LinearGaussianClassifier(reg_covar=0.0).fit(X, y)
    scores = model.decision_function(Q)
    softmax = np.exp(scores - scores.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(Q), softmax, rtol=1e-10, atol=1e-14)
    inverse = np.linalg.inv(model.covariance_)
    np.testing.assert_allclose(model.coef_, model.means_ @ inverse, rtol=1e-10)


@pytest.mark.parametrize("model_class", [QuadraticGaussianClassifier, LinearGaussianClassifier])
def test_integer_sample_weights_equal_repeated_rows(model_class):
    X, y, Q = _problem(5, n=90)
    counts = np.random.default_rng(5).integers(1, 4, size=len(y))
    weighted = model_class(reg_covar=1e-8).fit(X, y, sample_weight=counts)
    repeated = model_class(reg_covar=1e-8).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.predict_proba(Q), repeated.predict_proba(Q), rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("model_class", [QuadraticGaussianClassifier, LinearGaussianClassifier])
def test_singular_one_hot_covariance_needs_the_ridge(model_class):
    """One-hot columns of one attribute sum to 1: the covariance is singular without a ridge."""
    rng = np.random.default_rng(6)
    codes = rng.integers(0, 3, size=(120, 2))
    X = np.hstack([np.eye(3)[codes[:, 0]], np.eye(3)[codes[:, 1]]])
    y = np.where(codes[:, 0] == 0, "a", "b")
    with pytest.raises(ValueError, match="not positive definite; increase reg_covar"):
        model_class(reg_covar=0.0).fit(X, y)
    model = model_class(reg_covar=1e-3).fit(X, y)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and model.score(X, y) == 1.0


def test_priors_and_validation():
    X, y, Q = _problem(7)
    flat = LinearGaussianClassifier(priors=[0.2, 0.3, 0.5]).fit(X, y)
    default = LinearGaussianClassifier().fit(X, y)
    # Changing the priors shifts every log posterior by log(prior ratio), up to normalisation.
    shift = flat.predict_log_proba(Q) - default.predict_log_proba(Q)
    expected = np.log([0.2, 0.3, 0.5]) - np.log(default.priors_)
    np.testing.assert_allclose(shift - shift[:, :1], np.tile(expected - expected[0], (len(Q), 1)), atol=1e-10)
    with pytest.raises(ValueError, match="priors must be 3 positive numbers summing to 1"):
        QuadraticGaussianClassifier(priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="reg_covar must be a float >= 0, got -1"):
        QuadraticGaussianClassifier(reg_covar=-1).fit(X, y)
    with pytest.raises(ValueError, match="ddof must be 0"):
        LinearGaussianClassifier(ddof=2).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but LinearGaussianClassifier is expecting 3 features"):
        flat.predict(Q[:, :2])
    assert QuadraticGaussianClassifier(reg_covar=0.1).fit(X, y).score(X, y) > 0.5


@pytest.mark.parametrize("model_class", [QuadraticGaussianClassifier, LinearGaussianClassifier])
def test_unfitted_model_raises(model_class):
    with pytest.raises(NotFittedError, match="not fitted"):
        model_class().predict(np.zeros((2, 3)))


@pytest.mark.parametrize("reg_param", [0.0, 0.05, 0.5, 1.0])
def test_reg_param_is_scikit_learns(reg_param):
    """``(1 - r) S_k + r I``: scikit-learn's QDA with the same ``reg_param``."""
    X, y, Q = _problem(3)
    ours = QuadraticGaussianClassifier(reg_covar=0.0, reg_param=reg_param,
                                       ddof=SKLEARN_QDA_DDOF).fit(X, y)
    theirs = QuadraticDiscriminantAnalysis(reg_param=reg_param).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))
    with pytest.raises(ValueError, match=r"reg_param must be a float in \[0, 1\], got 1.5"):
        QuadraticGaussianClassifier(reg_param=1.5).fit(X, y)


@pytest.mark.parametrize("shape", [(40, 5), (12, 30), (300, 3)])
def test_ledoit_wolf_shrinkage_is_scikit_learns(shape):
    from sklearn.covariance import ledoit_wolf

    from mixlib.generative.gaussian import ledoit_wolf_shrinkage

    rng = np.random.default_rng(shape[1])
    X = rng.normal(size=shape) @ rng.normal(size=(shape[1], shape[1])) + 3.0
    covariance, shrinkage = ledoit_wolf(X)
    assert ledoit_wolf_shrinkage(X - X.mean(axis=0)) == pytest.approx(shrinkage, rel=1e-10)
    # Integer weights are repeated rows.
    counts = rng.integers(1, 4, size=shape[0])
    repeated = np.repeat(X, counts, axis=0)
    weighted_mean = counts @ X / counts.sum()
    assert ledoit_wolf_shrinkage(X - weighted_mean, counts) == pytest.approx(
        ledoit_wolf(repeated)[1], rel=1e-10)


def test_ledoit_wolf_covariances_are_scikit_learns_per_class():
    X, y, Q = _problem(4, n=90, d=6)
    from sklearn.covariance import ledoit_wolf

    model = QuadraticGaussianClassifier(reg_covar="ledoit_wolf").fit(X, y)
    for k, label in enumerate(model.classes_):
        covariance, shrinkage = ledoit_wolf(X[y == label])
        np.testing.assert_allclose(model.covariances_[k], covariance, rtol=1e-10, atol=1e-12)
        assert model.shrinkage_[k] == pytest.approx(shrinkage, rel=1e-10)
    with pytest.raises(ValueError, match="reg_covar must be a float >= 0 or 'ledoit_wolf', got 'oas'"):
        QuadraticGaussianClassifier(reg_covar="oas").fit(X, y)


def test_ledoit_wolf_makes_one_hot_covariances_invertible():
    """No ridge: the shrinkage alone makes the singular one-hot covariances positive definite."""
    rng = np.random.default_rng(6)
    codes = rng.integers(0, 3, size=(120, 2))
    X = np.hstack([np.eye(3)[codes[:, 0]], np.eye(3)[codes[:, 1]]])
    y = np.where(codes[:, 1] == 0, "a", "b")
    model = QuadraticGaussianClassifier(reg_covar="ledoit_wolf").fit(X, y)
    assert (model.shrinkage_ > 0).all()
    assert np.isfinite(model.predict_proba(X)).all() and model.score(X, y) == 1.0


# ------------------------------------------------------------------ reg_param="auto": inner CV
def _standardised(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _wine():
    from mixlib.datasets import load_xy

    X, y = load_xy("wine")
    return _standardised(X), y


@pytest.mark.parametrize("data", ["wine", "problem"])
def test_auto_shrinkage_is_scikit_learns_qda_with_the_chosen_reg_param(data):
    from mixlib.generative._shrinkage_cv import REG_PARAM_GRID

    X, y = _wine() if data == "wine" else _problem(5, n=120, d=4)[:2]
    X = _standardised(X)
    model = QuadraticGaussianClassifier(reg_param="auto", reg_covar=0.0, ddof=SKLEARN_QDA_DDOF,
                                        random_state=3).fit(X, y)
    assert model.reg_param_ in REG_PARAM_GRID
    theirs = QuadraticDiscriminantAnalysis(reg_param=model.reg_param_).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(model.predict(X), theirs.predict(X))


def test_auto_shrinkage_is_deterministic_given_the_seed():
    X, y = _wine()
    fits = [QuadraticGaussianClassifier(reg_param="auto", random_state=seed).fit(X, y)
            for seed in (7, 7, np.random.default_rng(7))]
    for fit in fits[1:]:
        assert fit.reg_param_ == fits[0].reg_param_
        np.testing.assert_array_equal(fit.cv_error_, fits[0].cv_error_)
        np.testing.assert_array_equal(fit.cv_log_loss_, fits[0].cv_log_loss_)


def test_a_refit_with_a_fixed_shrinkage_drops_the_scores_of_an_auto_fit():
    X, y = _wine()
    model = QuadraticGaussianClassifier(reg_param="auto", random_state=0).fit(X, y)
    assert hasattr(model, "cv_error_")
    model.set_params(reg_param=0.3).fit(X, y)
    assert model.reg_param_ == 0.3
    assert not hasattr(model, "cv_error_") and not hasattr(model, "cv_log_loss_")


def _blobs(n_classes, seed=0, d=4, sizes=None):
    """Gaussian classes of their own scales, rotation and mean (``sizes`` rows each)."""
    rng = np.random.default_rng(seed)
    sizes = [40] * n_classes if sizes is None else sizes
    y = np.repeat(np.arange(n_classes), sizes)
    rotations = np.linalg.qr(rng.normal(size=(n_classes, d, d)))[0]
    scales = rng.uniform(0.5, 2.0, (n_classes, d))
    X = np.einsum("nd,nde->ne", rng.normal(size=(len(y), d)) * scales[y], rotations[y])
    X += 1.2 * rng.normal(size=(n_classes, d))[y]
    return X, np.array([f"c{k}" for k in range(n_classes)])[y]


def _auto_data(name):
    """Data sets of the inner-CV checks: Gaussian blobs of 2-5 classes, a class of fewer rows
    than features, collinear features, and the study's wine and heart_cleveland."""
    if name.startswith("blobs"):
        return _blobs(int(name[-1]), seed=int(name[-1]))
    if name == "small_class":  # class c0: 6 rows, 8 features (4-5 in every training part)
        return _blobs(3, seed=9, d=8, sizes=[6, 40, 50])
    if name == "collinear":  # x4 = x0 + x1 and x5 = x2 exactly: every scatter is singular
        X, y = _blobs(3, seed=4)
        return np.column_stack([X, X[:, 0] + X[:, 1], X[:, 2]]), y
    if name == "wine":
        return _wine()
    from mixlib.datasets import load_xy
    from mixlib.impute import MeanImputer

    X, y = load_xy("heart_cleveland")
    return _standardised(MeanImputer().fit(X, y).transform(X)), y


AUTO_DATA = ["blobs2", "blobs3", "blobs4", "blobs5", "small_class", "collinear", "wine", "heart"]


def _refit_scores(X, y, weight, priors, ddof, seed):
    """The inner CV the slow way: a fresh fit for every grid value on every inner fold."""
    from mixlib.generative._shrinkage_cv import INNER_FOLDS, REG_PARAM_GRID
    from mixlib.model_selection.resampling import stratified_folds

    codes = np.unique(y, return_inverse=True)[1]
    n_folds = min(INNER_FOLDS, np.bincount(codes).min())
    folds = stratified_folds(codes, n_folds, seed)
    wrong, loss = np.zeros(len(REG_PARAM_GRID)), np.zeros(len(REG_PARAM_GRID))
    for g, r in enumerate(REG_PARAM_GRID):
        for f in range(n_folds):
            train, test = folds != f, folds == f
            fit = QuadraticGaussianClassifier(priors=priors, reg_covar=1e-6, reg_param=r,
                                              ddof=ddof).fit(X[train], y[train], weight[train])
            log_proba = fit.predict_log_proba(X[test])
            truth = np.searchsorted(fit.classes_, y[test])
            wrong[g] += weight[test] @ (fit.predict(X[test]) != y[test])
            loss[g] -= weight[test] @ log_proba[np.arange(len(truth)), truth]
    return wrong / weight.sum(), loss / weight.sum()


@pytest.mark.parametrize("data", AUTO_DATA + ["weighted"])
def test_inner_cv_scores_and_choice_are_those_of_fits_on_every_fold(data):
    """The scores of the whole grid from one eigendecomposition per class and fold: the same
    error counts, log-losses and chosen reg_param as a fresh fit per value and fold."""
    from mixlib.generative._shrinkage_cv import REG_PARAM_GRID, choose_reg_param

    ddof, priors, weight = 0, None, None
    if data == "weighted":  # integer weights, fixed priors, ddof=1
        X, y = _blobs(3, seed=8, d=5)
        weight = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
        ddof, priors = 1, [0.5, 0.3, 0.2]
    else:
        X, y = _auto_data(data)
    for seed in (11, 12):
        model = QuadraticGaussianClassifier(priors=priors, reg_param="auto", ddof=ddof,
                                            random_state=seed).fit(X, y, weight)
        error, log_loss = _refit_scores(X, y, np.ones(len(y)) if weight is None else weight,
                                        priors, ddof, seed)
        if weight is None:  # the same counts of misclassified rows, to the last bit
            np.testing.assert_array_equal(model.cv_error_ * len(y), error * len(y))
        np.testing.assert_allclose(model.cv_error_, error, rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.cv_log_loss_, log_loss, rtol=1e-9)
        assert model.reg_param_ == choose_reg_param(np.array(REG_PARAM_GRID), error, log_loss)


@pytest.mark.parametrize("data", AUTO_DATA)
def test_auto_shrinkage_decision_is_scikit_learns_at_the_chosen_reg_param(data):
    """``log p(x | C_k) p(C_k)`` up to the constant ``D/2 log(2 pi)``: scikit-learn's
    ``decision_function`` (for two classes, class 1's minus class 0's). scikit-learn refuses a
    class of fewer rows than features, so there the reference is scipy's Gaussian density
    with ``(1 - r) S_k + r I``."""
    from scipy.stats import multivariate_normal

    X, y = _auto_data(data)
    ours = QuadraticGaussianClassifier(reg_param="auto", reg_covar=0.0, ddof=SKLEARN_QDA_DDOF,
                                       random_state=5).fit(X, y)
    r = ours.reg_param_
    joint = ours._joint_log_likelihood(X)
    if data == "small_class":
        expected = np.column_stack([
            multivariate_normal(X[y == c].mean(axis=0), (1 - r) * np.cov(
                X[y == c].T, ddof=SKLEARN_QDA_DDOF) + r * np.eye(X.shape[1])).logpdf(X)
            + np.log(np.mean(y == c)) for c in ours.classes_])
        predicted = ours.classes_[expected.argmax(axis=1)]
    else:
        theirs = QuadraticDiscriminantAnalysis(reg_param=r).fit(X, y)
        joint += 0.5 * X.shape[1] * np.log(2 * np.pi)  # scikit-learn leaves the constant out
        expected, predicted = theirs.decision_function(X), theirs.predict(X)
    np.testing.assert_allclose(joint[:, 1] - joint[:, 0] if joint.shape[1] == 2 else joint,
                               expected, rtol=1e-10, atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), predicted)


def test_choice_is_least_error_then_least_log_loss_then_smallest():
    from mixlib.generative._shrinkage_cv import choose_reg_param

    grid = np.array([0.0, 0.1, 0.5, 1.0])
    assert choose_reg_param(grid, np.array([0.3, 0.1, 0.1, 0.2]), np.array([1, 2, 1.5, 0])) == 0.5
    assert choose_reg_param(grid, np.array([0.3, 0.1, 0.1, 0.2]), np.array([1, 2, 2, 0])) == 0.1
    assert choose_reg_param(grid, np.array([0.0, 0.1, 0.1, 0.0]), np.full(4, np.inf)) == 0.0


def test_auto_shrinkage_on_one_hot_rows_and_its_errors():
    """One-hot rows: singular covariances, which the ridge keeps invertible at r = 0."""
    from mixlib.generative._shrinkage_cv import REG_PARAM_GRID

    rng = np.random.default_rng(2)
    codes = rng.integers(0, 4, size=(150, 6))
    y = np.where(codes[:, 0] == codes[:, 1], "same", "other")
    X = np.eye(4)[codes].reshape(150, 24)
    model = QuadraticGaussianClassifier(reg_param="auto", random_state=0).fit(X, y)
    assert np.isfinite(model.cv_log_loss_).all() and model.score(X, y) > 0.8
    chosen = REG_PARAM_GRID.index(model.reg_param_)
    assert model.cv_error_[chosen] == model.cv_error_.min() < 0.1
    with pytest.raises(ValueError, match="reg_param must be a float in \\[0, 1\\] or 'auto'"):
        QuadraticGaussianClassifier(reg_param="auto", reg_covar="ledoit_wolf").fit(X, y)
    with pytest.raises(ValueError, match="reg_param must be a float in \\[0, 1\\] or 'auto'"):
        QuadraticGaussianClassifier(reg_param="cv").fit(X, y)
    with pytest.raises(ValueError, match="the smallest has 1 sample\\(s\\) \\(rows per class: \\[1, 149\\]\\)"):
        QuadraticGaussianClassifier(reg_param="auto").fit(X, np.r_[["a"], ["b"] * 149])

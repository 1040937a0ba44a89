"""Tests of mixlib.neural_network (network maths and MLPClassifier): the online rule of fig. 2.2,
the three regimes, the API.

The compiled epoch of backpropagation (gradients, momentum, weight decay) is tested in
tests/test_epoch_loop.py."""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone as sk_clone
from sklearn.model_selection import GridSearchCV

from mixlib.core.exceptions import NotFittedError
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.neural_network.mlp import MLPClassifier, stratified_split
from mixlib.neural_network.network import (
    TARGET_OFF,
    TARGET_ON,
    Network,
    add_bias_column,
    forward,
    one_of_n_targets,
    squared_error,
)


def blobs(n_per_class=20, n_features=2, n_classes=3, spread=0.3, seed=0):
    """Gaussian blobs around centres far apart (linearly separable)."""
    rng = np.random.default_rng(seed)
    centres = 4.0 * rng.standard_normal((n_classes, n_features))
    centres[:, 0] = 3.0 * np.arange(n_classes)  # guarantee separation along the first axis
    X = np.concatenate(
        [c + spread * rng.standard_normal((n_per_class, n_features)) for c in centres]
    )
    y = np.repeat(np.array(["a", "b", "c", "d", "e"][:n_classes]), n_per_class)
    return X, y


def noisy_problem(seed=0, n=80, n_features=10):
    """Labels that depend weakly on X and carry 30 % noise: a large net overfits."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features))
    y = (X[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)
    flip = rng.random(n) < 0.3
    y[flip] = 1 - y[flip]
    return X, y


# --------------------------------------------------------------------------- online rule


def hand_online_step(V1, V2, x, t, eta):
    """Fig. 2.2 for one pattern, written with Python scalars and loops (no numpy algebra)."""
    d, hidden = len(x), V1.shape[1]
    n_out = V2.shape[1]
    xa = list(x) + [1.0]
    h1 = [sum(V1[k, j] * xa[k] for k in range(d + 1)) for j in range(hidden)]
    a1 = [math.atan(h) for h in h1] + [1.0]
    h2 = [sum(V2[j, i] * a1[j] for j in range(hidden + 1)) for i in range(n_out)]
    out = [math.atan(h) for h in h2]
    delta_out = [(t[i] - out[i]) / (1 + h2[i] ** 2) for i in range(n_out)]  # step 3
    delta_hid = [
        sum(V2[j, i] * delta_out[i] for i in range(n_out)) / (1 + h1[j] ** 2)
        for j in range(hidden)
    ]  # step 4
    new_V2 = V2.copy()
    new_V1 = V1.copy()
    for j in range(hidden + 1):  # step 5: Delta w_ij = eta delta_i x_j
        for i in range(n_out):
            new_V2[j, i] += eta * delta_out[i] * a1[j]
    for k in range(d + 1):
        for j in range(hidden):
            new_V1[k, j] += eta * delta_hid[j] * xa[k]
    return new_V1, new_V2


@pytest.mark.parametrize("seed", [0, 5])
def test_fit_one_epoch_is_online_sgd_in_shuffled_order(seed):
    """fit = init from the seed, one permutation, then the hand rule example by example."""
    X, y = blobs(n_per_class=3, n_features=2, n_classes=2, seed=seed)
    eta = 0.3
    model = MLPClassifier(hidden_size=3, learning_rate=eta, n_epochs=1, random_state=seed).fit(X, y)
    rng = np.random.default_rng(seed)
    ref = Network(2, 3, 2, rng)
    V1, V2 = ref.V1.copy(), ref.V2.copy()
    T = one_of_n_targets(np.unique(y, return_inverse=True)[1], 2)
    for mu in rng.permutation(X.shape[0]):
        V1, V2 = hand_online_step(V1, V2, X[mu], T[mu], eta)
    np.testing.assert_allclose(model.coefs_[0], V1[:-1], rtol=1e-12)
    np.testing.assert_allclose(model.intercepts_[0], V1[-1], rtol=1e-12)
    np.testing.assert_allclose(model.coefs_[1], V2[:-1], rtol=1e-12)
    np.testing.assert_allclose(model.intercepts_[1], V2[-1], rtol=1e-12)


# --------------------------------------------------------------------------- regimes


def test_early_stopping_restores_best_validation_weights():
    X, y = noisy_problem()
    model = MLPClassifier(
        hidden_size=20, learning_rate=0.1, n_epochs=200, regime="early_stopping",
        validation_fraction=0.25, patience=4, random_state=0,
    ).fit(X, y)
    hist = model.history_
    assert model.n_epochs_run_ < 200
    assert model.n_epochs_run_ == model.best_epoch_ + 4
    assert hist["validation_loss"].shape == (model.n_epochs_run_,)
    best = model.best_epoch_ - 1
    assert hist["validation_loss"][best] == np.min(hist["validation_loss"])
    assert np.all(hist["validation_loss"][best + 1:] >= hist["validation_loss"][best])
    # recompute the validation loss of the returned weights on the same held-out rows
    y_index = np.unique(y, return_inverse=True)[1]
    _, val = stratified_split(y_index, 0.25, np.random.default_rng(0))
    out = model._outputs(X[val])
    loss = np.mean(squared_error(out, one_of_n_targets(y_index[val], 2)))
    assert loss == pytest.approx(hist["validation_loss"][best], rel=1e-12)
    assert loss < hist["validation_loss"][-1]


def test_early_stopping_warns_when_it_does_not_trigger():
    X, y = blobs(n_per_class=10)
    with pytest.warns(ConvergenceWarning, match="did not trigger within n_epochs=2"):
        model = MLPClassifier(n_epochs=2, regime="early_stopping", patience=5, random_state=0)
        model.fit(X, y)
    assert model.n_epochs_run_ == 2


def test_stratified_split_keeps_class_shares():
    y_index = np.repeat([0, 1, 2], [50, 30, 20])
    train, val = stratified_split(y_index, 0.2, np.random.default_rng(0))
    assert np.bincount(y_index[val]).tolist() == [10, 6, 4]
    assert np.intersect1d(train, val).size == 0
    assert np.union1d(train, val).tolist() == list(range(100))
    with pytest.raises(ValueError, match="class index 1 has 1"):
        stratified_split(np.array([0, 0, 1]), 0.2, np.random.default_rng(0))
    # The estimator names the class by its label, as the user wrote it.
    X = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match=r"class 'rare' \(1\) has fewer"):
        MLPClassifier(2, regime="early_stopping", random_state=0).fit(X, ["common"] * 5 + ["rare"])


@pytest.mark.parametrize("seed", [0, 1])
def test_weight_decay_gives_smaller_weights_than_plain(seed):
    X, y = noisy_problem(seed)
    params = dict(hidden_size=10, learning_rate=0.05, n_epochs=30, random_state=seed)
    plain = MLPClassifier(**params).fit(X, y)
    decayed = MLPClassifier(regime="weight_decay", weight_decay=0.05, **params).fit(X, y)
    norm = lambda m: sum(np.sum(W ** 2) for W in m.coefs_)  # noqa: E731
    assert norm(decayed) < 0.5 * norm(plain)
    # weight_decay is ignored by the plain regime
    other = MLPClassifier(weight_decay=0.05, **params).fit(X, y)
    np.testing.assert_array_equal(other.coefs_[0], plain.coefs_[0])


@pytest.mark.parametrize("batch_size, momentum", [(1, 0.0), (8, 0.9)])
def test_linearly_separable_problem_learnt_to_zero_error(batch_size, momentum):
    X, y = blobs(n_per_class=25, n_features=3, n_classes=3)
    model = MLPClassifier(
        hidden_size=4, learning_rate=0.05, n_epochs=40, batch_size=batch_size,
        momentum=momentum, random_state=0,
    ).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.history_["train_error"][-1] == 0.0
    assert model.history_["train_loss"][-1] < model.history_["train_loss"][0]
    assert np.isnan(model.history_["validation_loss"]).all()
    assert model.best_epoch_ == model.n_epochs_run_ == 40


@pytest.mark.parametrize("seed", [0, 1])
def test_xor_needs_and_uses_the_hidden_layer(seed):
    X = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]] * 5, dtype=float)
    y = np.array([0, 1, 1, 0] * 5)
    model = MLPClassifier(hidden_size=4, learning_rate=0.1, n_epochs=100, random_state=seed)
    assert model.fit(X, y).score(X, y) == 1.0


def test_sample_weight_equals_duplicating_a_row_full_batch():
    """Full batch: weight 2 on a row is the objective with that row twice."""
    X, y = blobs(n_per_class=6, seed=4)
    X2, y2 = np.vstack([X, X[:1]]), np.append(y, y[0])
    w = np.ones(len(y))
    w[0] = 2.0
    kw = dict(hidden_size=3, learning_rate=0.1, n_epochs=5, batch_size=1000, random_state=7)
    a = MLPClassifier(**kw).fit(X, y, sample_weight=w)
    b = MLPClassifier(**kw).fit(X2, y2)
    for Wa, Wb in zip(a.coefs_ + a.intercepts_, b.coefs_ + b.intercepts_):
        np.testing.assert_allclose(Wa, Wb, rtol=1e-10, atol=1e-14)


# --------------------------------------------------------------------------- API


def test_determinism_from_seed():
    X, y = blobs(seed=2)
    kw = dict(hidden_size=5, n_epochs=5, regime="early_stopping", patience=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = MLPClassifier(random_state=3, **kw).fit(X, y)
        b = MLPClassifier(random_state=3, **kw).fit(X, y)
        c = MLPClassifier(random_state=4, **kw).fit(X, y)
    np.testing.assert_array_equal(a.coefs_[0], b.coefs_[0])
    np.testing.assert_array_equal(a.history_["validation_loss"], b.history_["validation_loss"])
    assert not np.array_equal(a.coefs_[0], c.coefs_[0])


def test_outputs_targets_and_predict_proba():
    X, y = blobs(seed=1)
    model = MLPClassifier(hidden_size=4, n_epochs=10, random_state=0).fit(X, y)
    out = model.decision_function(X)
    assert out.shape == (X.shape[0], 3)
    assert np.all(np.abs(out) < np.pi / 2)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba > 0)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X))
    np.testing.assert_array_equal(model.classes_, ["a", "b", "c"])
    T = one_of_n_targets(np.array([2, 0]), 3)
    np.testing.assert_array_equal(
        T, [[TARGET_OFF, TARGET_OFF, TARGET_ON], [TARGET_ON, TARGET_OFF, TARGET_OFF]]
    )
    assert abs(TARGET_ON) < np.pi / 2 and abs(TARGET_OFF) < np.pi / 2


def test_sklearn_meta_estimators_accept_it():
    X, y = blobs(n_per_class=12, seed=3)
    est = MLPClassifier(hidden_size=3, n_epochs=5, random_state=0)
    assert sk_clone(est).get_params() == est.get_params()
    search = GridSearchCV(est, {"hidden_size": [2, 4]}, cv=3).fit(X, y)
    assert search.best_params_["hidden_size"] in (2, 4)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"hidden_size": 0}, ValueError, "hidden_size must be an int >= 1, got 0"),
        ({"hidden_size": 2.5}, TypeError, "hidden_size must be an int >= 1, got 2.5"),
        ({"n_epochs": 0}, ValueError, "n_epochs must be an int >= 1"),
        ({"batch_size": 0}, ValueError, "batch_size must be an int >= 1"),
        ({"learning_rate": -0.1}, ValueError, "learning_rate must be a finite float > 0, got -0.1"),
        ({"momentum": 1.0}, ValueError, r"momentum must be a float in \[0, 1\), got 1.0"),
        ({"regime": "dropout"}, ValueError, "regime must be one of"),
        ({"weight_decay": -1.0}, ValueError, "weight_decay must be a finite float >= 0, got -1.0"),
        (
            {"regime": "weight_decay", "weight_decay": 100.0},
            ValueError,
            "learning_rate \\* weight_decay",
        ),
        ({"validation_fraction": 1.5}, ValueError, r"validation_fraction must be a float in \(0, 1\), got 1.5"),
    ],
)
def test_bad_parameters_raise(params, error, match):
    X, y = blobs(n_per_class=4)
    with pytest.raises(error, match=match):
        MLPClassifier(**params).fit(X, y)


def test_bad_inputs_raise():
    X, y = blobs(n_per_class=4)
    with pytest.raises(NotFittedError, match="not fitted"):
        MLPClassifier().predict(X)
    X_nan = X.copy()
    X_nan[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MLPClassifier().fit(X_nan, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        MLPClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="X has 12 samples but y has 11"):
        MLPClassifier().fit(X, y[:-1])
    model = MLPClassifier(n_epochs=1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but MLPClassifier is expecting 2 features"):
        model.predict(np.ones((2, 3)))
    y_index = np.unique(y, return_inverse=True)[1]
    _, val = stratified_split(y_index, 0.25, np.random.default_rng(0))
    only_val = np.zeros(len(y))
    only_val[val] = 1.0
    for w in (only_val, 1.0 - only_val):
        with pytest.raises(ValueError, match="sample_weight is zero on every training row"):
            MLPClassifier(regime="early_stopping", validation_fraction=0.25, random_state=0).fit(
                X, y, sample_weight=w
            )
    with pytest.raises(ValueError, match="diverged at epoch 1"):
        MLPClassifier(learning_rate=1e300, random_state=0).fit(1e10 * X, y)

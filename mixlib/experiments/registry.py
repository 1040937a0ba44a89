"""The classifiers of the study: each one named, described and built from config parameters.

:data:`MODELS` maps a model name (the config's ``comparison.models`` values and the
``model`` column of the comparison tables) to a :class:`ModelSpec`: its ``approach``
(``"probabilistic"``: a probability model fitted by maximum likelihood, generative
``p(x | c)`` or discriminative ``p(c | x)``, whose output is a posterior; ``"deterministic"``:
a decision function fitted by minimising an error or a margin criterion, or a vote), its finer
``family``, its default parameters and a one-line description. :func:`make_model` builds an
unfitted estimator from the defaults overridden by config parameters.

Importing this module imports no estimator: every builder imports its estimator family
inside its body, so the config checks (:mod:`mixlib.pipeline.config`) can validate model and
parameter names cheaply. Adding a classifier to the study is one :class:`ModelSpec` entry
below (plus its estimator module).

Defaults suit both standardised numeric data (heart_cleveland, wine) and one-hot splice
(3190 x 240); data-dependent values (``"auto"``, ``"scale"``) are resolved from the training
rows by :func:`resolve_params`. Measured on splice (5 folds, one BLAS thread, a shared 2-core
machine), every model with its defaults takes at most 15 s per comparison job (bagging
14.6 s, AdaBoost 12.7 s, random forest 12.4 s, all others under 4 s).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mixlib.core.preprocessing import is_indicator_like
from mixlib.core.validation import check_random_state

APPROACHES = ("probabilistic", "deterministic")
#: The EM settings of a mixture (the config's ``em`` section; see :func:`make_mixture`).
EM_KEYS = ("init", "tol", "max_iter", "min_variance", "relative_min_variance")
#: ``reg_covar`` of the Gaussian classifiers on indicator-like (one-hot) data, where every
#: covariance is singular (the 4 indicators of a base sum to 1).
INDICATOR_REG_COVAR = 0.1
#: ``reg_covar`` of the Gaussian classifiers on numeric data.
NUMERIC_REG_COVAR = 1e-6

RandomState = None | int | np.random.Generator
Builder = Callable[[dict[str, Any], RandomState], Any]


@dataclass(frozen=True)
class ModelSpec:
    """One classifier of the study.

    Attributes
    ----------
    name : str
        Registry key (the ``model`` column).
    approach : {"probabilistic", "deterministic"}
    family : str
        Finer family: "mixture", "neural network", "kernel machine", "neighbours", "trees",
        "ensembles", "linear" or "generative".
    build : callable
        ``build(resolved_params, random_state) -> unfitted estimator``; it imports its
        estimator inside its body. ``random_state`` is passed to the estimator as is.
    defaults : dict
        Default parameters; the values ``"auto"``/``"scale"`` are resolved from the training
        rows (see :func:`resolve_params`).
    description : str
    optional : tuple of str
        Parameters accepted besides ``defaults`` that are left to the estimator's own default
        unless given (only given ones appear in the resolved parameters).
    """

    name: str
    approach: str
    family: str
    build: Builder = field(repr=False)
    defaults: dict[str, Any]
    description: str
    optional: tuple[str, ...] = ()

    @property
    def parameters(self) -> frozenset[str]:
        """Every parameter name the model accepts."""
        return frozenset(self.defaults) | frozenset(self.optional)


def _mixture(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.mixture import MixtureClassifier

    return MixtureClassifier(p["n_components"], init=p["init"], tol=p["tol"],
                             max_iter=p["max_iter"], min_variance=p["min_variance"],
                             relative_min_variance=p.get("relative_min_variance"),
                             random_state=random_state)


def _gaussian_per_class(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.generative import QuadraticGaussianClassifier

    return QuadraticGaussianClassifier(reg_covar=p["reg_covar"])


def _gaussian_shared(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.generative import LinearGaussianClassifier

    return LinearGaussianClassifier(reg_covar=p["reg_covar"])


def _naive_bayes(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.generative import BernoulliNaiveBayes, GaussianNaiveBayes

    if p["variant"] == "bernoulli":
        return BernoulliNaiveBayes(alpha=p["alpha"], binarize=p["binarize"])
    if p["variant"] == "gaussian":
        return GaussianNaiveBayes(var_smoothing=p["var_smoothing"])
    raise ValueError(f"naive_bayes variant must be 'auto', 'bernoulli' or 'gaussian', "
                     f"got {p['variant']!r}.")


def _logistic_regression(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.linear_model import LogisticRegression

    return LogisticRegression(C=p["C"], max_iter=p["max_iter"], tol=p["tol"])


def _mlp(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.neural_network import MLPClassifier

    return MLPClassifier(p["hidden_size"], p["learning_rate"], p["n_epochs"], p["batch_size"],
                         momentum=p["momentum"], regime=p["regime"],
                         weight_decay=p["weight_decay"],
                         validation_fraction=p["validation_fraction"], patience=p["patience"],
                         random_state=random_state)


def _svm(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.svm import SVC

    return SVC(C=p["C"], kernel=p["kernel"], sigma=p["sigma"], degree=p["degree"], tol=p["tol"],
               multiclass=p["multiclass"])


def _svm_all_together(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.svm import AllTogetherSVC

    return AllTogetherSVC(C=p["C"], kernel=p["kernel"], sigma=p["sigma"], degree=p["degree"],
                          tol=p["tol"])


def _knn(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=p["n_neighbors"], weights=p["weights"],
                                metric=p["metric"])


def _tree(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(criterion=p["criterion"], max_depth=p["max_depth"],
                                  min_samples_leaf=p["min_samples_leaf"],
                                  random_state=random_state)


def _cart(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.tree import CARTClassifier

    return CARTClassifier(criterion=p["criterion"], risk=p["risk"], n_folds=p["n_folds"],
                          se_rule=p["se_rule"], min_samples_leaf=p["min_samples_leaf"],
                          random_state=random_state)


def _id3(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.tree import ID3Classifier, QuantileDiscretised

    return QuantileDiscretised(ID3Classifier(max_depth=p["max_depth"]), n_bins=p["n_bins"],
                               max_categories=p["max_categories"])


def _random_forest(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=p["n_estimators"],
                                  max_features=p["max_features"], criterion=p["criterion"],
                                  vote=p["vote"], random_state=random_state)


def _adaboost(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.ensemble import AdaBoostClassifier
    from mixlib.tree import DecisionTreeClassifier

    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=p["max_depth"]),
                              n_estimators=p["n_estimators"], learning_rate=p["learning_rate"],
                              random_state=random_state)


def _bagging(p: dict[str, Any], random_state: RandomState) -> Any:
    from mixlib.ensemble import BaggingClassifier
    from mixlib.tree import DecisionTreeClassifier

    return BaggingClassifier(DecisionTreeClassifier(), n_estimators=p["n_estimators"],
                             random_state=random_state)


MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in [
    ModelSpec("mixture", "probabilistic", "mixture", _mixture,
              {"n_components": 4, "init": "report", "tol": 1e-6, "max_iter": 200,
               "min_variance": 1e-6},
              "isotropic Gaussian mixture per class, K = 4 kernels (report ch. 3)",
              optional=("relative_min_variance",)),
    ModelSpec("gaussian_per_class", "probabilistic", "generative", _gaussian_per_class,
              {"reg_covar": "auto"},
              "one full-covariance Gaussian per class (quadratic boundaries; seed 003)"),
    ModelSpec("gaussian_shared", "probabilistic", "generative", _gaussian_shared,
              {"reg_covar": "auto"},
              "Gaussians with one shared covariance (linear boundaries; seed 003)"),
    ModelSpec("naive_bayes", "probabilistic", "generative", _naive_bayes,
              {"variant": "auto", "alpha": 1.0, "binarize": "auto", "var_smoothing": 1e-9},
              "naive Bayes: Bernoulli on indicator-like (one-hot) data, Gaussian otherwise"),
    ModelSpec("logistic_regression", "probabilistic", "linear", _logistic_regression,
              {"C": 1.0, "max_iter": 1000, "tol": 1e-6},
              "multinomial logistic regression, L2 penalty 1/C, L-BFGS (seed 003)"),
    ModelSpec("mlp", "deterministic", "neural network", _mlp,
              {"hidden_size": 16, "learning_rate": 0.02, "n_epochs": 100, "batch_size": 1,
               "momentum": 0.0, "regime": "early_stopping", "weight_decay": 1e-3,
               "validation_fraction": 0.2, "patience": 5},
              "arctan MLP, 16 hidden units, online backpropagation, early stopping "
              "(patience 5, at most 100 epochs; report ch. 6)"),
    ModelSpec("svm", "deterministic", "kernel machine", _svm,
              {"C": 10.0, "kernel": "gaussian", "sigma": "scale", "degree": 3, "tol": 1e-3,
               "multiclass": "ovo"},
              "C-SVM, Gaussian kernel, one-vs-one (seed 004)"),
    ModelSpec("svm_all_together", "deterministic", "kernel machine", _svm_all_together,
              {"C": 10.0, "kernel": "gaussian", "sigma": "scale", "degree": 3, "tol": 1e-3},
              "all-together multi-class SVM (Weston-Watkins, one problem in n x c variables; "
              "seed 004), Gaussian kernel, Hsu & Lin's regularised biases"),
    ModelSpec("knn", "deterministic", "neighbours", _knn,
              {"n_neighbors": None, "weights": "uniform", "metric": "euclidean"},
              "k-NN, k the odd integer nearest sqrt(n_train) (seed 002)"),
    ModelSpec("tree_unpruned", "deterministic", "trees", _tree,
              {"criterion": "entropy", "max_depth": None, "min_samples_leaf": 1},
              "binary decision tree, information gain, grown to pure leaves, not pruned"),
    ModelSpec("cart", "deterministic", "trees", _cart,
              {"criterion": "gini", "risk": "misclassification", "n_folds": 10, "se_rule": 1.0,
               "min_samples_leaf": 1},
              "CART (Breiman et al. 1984): Gini tree pruned by minimal cost-complexity, the "
              "subtree chosen by 10-fold CV with the one-standard-error rule"),
    ModelSpec("id3", "deterministic", "trees", _id3,
              {"max_depth": None, "n_bins": 4, "max_categories": 8},
              "ID3 (seed 002) on categorical features: one-hot indicators as they are, "
              "numeric features (> 8 distinct values) binned into 4 training quantiles"),
    ModelSpec("random_forest", "deterministic", "ensembles", _random_forest,
              {"n_estimators": 100, "max_features": "sqrt", "criterion": "gini",
               "vote": "simple"},
              "random forest, 100 trees, sqrt(d) features per split (seed 004)"),
    ModelSpec("adaboost", "deterministic", "ensembles", _adaboost,
              {"n_estimators": 50, "max_depth": 1, "learning_rate": 1.0},
              "AdaBoost (SAMME) of 50 stumps (seed 004)"),
    ModelSpec("bagging", "deterministic", "ensembles", _bagging,
              {"n_estimators": 25},
              "bagging of 25 unpruned trees (seed 004)"),
]}


RENAMED: dict[str, str] = {"tree": "tree_unpruned"}
"""Old model names and their new ones: ``tree`` (grown to pure leaves) became
``tree_unpruned`` when ``cart`` (pruned) joined the study."""


def model_spec(name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``name``.

    Raises
    ------
    ValueError
        For an unknown model; the message lists the known ones.
    """
    if name in RENAMED:
        raise ValueError(f"model {name!r} is now called {RENAMED[name]!r}; use the new name.")
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; known models: {sorted(MODELS)}.")
    return MODELS[name]


def check_params(name: str, params: dict[str, Any]) -> None:
    """Raise ``ValueError`` if ``params`` holds a key that model ``name`` does not take."""
    spec = model_spec(name)
    unknown = set(params) - spec.parameters
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for model {name!r}; "
                         f"expected keys among {sorted(spec.parameters)} (and, for "
                         "comparison_point, the protocol key 'max_train_rows').")


def resolve_params(name: str, params: dict[str, Any] | None,
                   X: np.ndarray | None = None) -> dict[str, Any]:
    """Defaults of ``name`` overridden by ``params``, data-dependent values resolved.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`.
    params : dict or None
        Overrides; keys must be among the model's parameters (``max_train_rows`` is a
        protocol key of :func:`mixlib.experiments.comparison.comparison_point` and is not
        accepted here).
    X : ndarray of shape (n_train, n_features), optional
        Training rows; needed when a value to resolve is left at ``"auto"``/``"scale"``.

    Returns
    -------
    dict
        Every default parameter of the model with a concrete value, plus the optional ones
        given.

    Notes
    -----
    - ``svm`` ``sigma="scale"``: ``sigma = sqrt(d var(X) / 2)``, scikit-learn's
      ``gamma="scale"`` (``gamma = 1 / (d var(X))``) for ``exp(-||x - y||^2 / (2 sigma^2))``;
      the mean squared distance between two rows is ``2 d var(X)``, so
      ``||x - y||^2 / (2 sigma^2)`` is about 2 for a typical pair.
    - ``gaussian_*`` ``reg_covar="auto"``: :data:`INDICATOR_REG_COVAR` (0.1) on
      indicator-like data (:func:`mixlib.core.preprocessing.is_indicator_like`),
      :data:`NUMERIC_REG_COVAR` (1e-6) otherwise (measured on splice, 5 folds: 0.1 gives
      4.2 % error per class, 1e-6 11.8 %).
    - ``naive_bayes`` ``variant="auto"``: Bernoulli on indicator-like data, Gaussian
      otherwise; ``binarize="auto"``: 0.5 when every value of ``X`` is in [0, 1] (raw one-hot;
      an ambiguous base's 0.25 or 0.5 counts as 0), else 0.0 (standardised one-hot columns
      are negative for 0 and positive for 1).
    """
    params = dict(params or {})
    check_params(name, params)
    p = {**model_spec(name).defaults, **params}

    def need_data(key: str) -> np.ndarray:
        if X is None:
            raise ValueError(f"model {name!r}: {key}={p[key]!r} is resolved from the training "
                             "rows; pass X or a concrete value.")
        return np.asarray(X, dtype=float)

    if p.get("sigma") == "scale":
        data = need_data("sigma")
        variance = float(data.var())
        p["sigma"] = float(np.sqrt(data.shape[1] * variance / 2)) if variance > 0 else 1.0
    if p.get("reg_covar") == "auto":
        p["reg_covar"] = INDICATOR_REG_COVAR if is_indicator_like(need_data("reg_covar")) \
            else NUMERIC_REG_COVAR
    if p.get("variant") == "auto":
        p["variant"] = "bernoulli" if is_indicator_like(need_data("variant")) else "gaussian"
    if p.get("binarize") == "auto":
        data = need_data("binarize")
        p["binarize"] = 0.5 if data.min() >= 0.0 and data.max() <= 1.0 else 0.0
    return p


def make_model(name: str, params: dict[str, Any] | None = None, rng: RandomState = None, *,
               X: np.ndarray | None = None) -> Any:
    """An unfitted estimator of the registry.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`: "mixture", "gaussian_per_class", "gaussian_shared",
        "naive_bayes", "logistic_regression", "mlp", "svm", "svm_all_together", "knn",
        "tree_unpruned", "cart", "id3",
        "random_forest", "adaboost", "bagging".
    params : dict or None
        Overrides of the model's defaults (see :func:`resolve_params`); e.g. for "mixture"
        the EM settings ``n_components``, ``init``, ``tol``, ``max_iter``, ``min_variance``
        and ``relative_min_variance``.
    rng : None, int or numpy.random.Generator
        ``random_state`` of the models that draw (mixture, mlp, tree, forest, ensembles),
        passed as is: an int restarts the same stream at every ``fit`` of the estimator, a
        Generator advances from fit to fit.
    X : ndarray of shape (n_train, n_features), optional
        Training rows that resolve ``"auto"``/``"scale"`` values.

    Raises
    ------
    ValueError
        For an unknown model (the message lists the known ones) or parameter, or a negative
        int ``rng``.
    TypeError
        If ``rng`` is not None, an int or a Generator.
    """
    if rng is not None:
        check_random_state(rng)  # a clear error now rather than at fit
    return model_spec(name).build(resolve_params(name, params, X), rng)


def make_mixture(n_components: int, em: Mapping[str, Any] | None,
                 rng: RandomState = None) -> Any:
    """The study's mixture classifier: ``n_components`` kernels per class, fitted by EM with ``em``.

    Every stage that fits a mixture classifier (chapters 3, 5 and 6, the imputation study, the
    bagged mixtures) builds it here, from the config's one ``em`` section, so all of them use
    the same settings: ``make_model("mixture", {"n_components": K, **em}, rng)``.

    Parameters
    ----------
    n_components : int
        Kernels per class.
    em : mapping or None
        EM settings (``init``, ``tol``, ``max_iter``, ``min_variance`` or
        ``relative_min_variance``; other keys are ignored); keys that are absent or None keep
        the registry's defaults.
    rng : None, int or numpy.random.Generator
        The classifier's ``random_state``, passed as given (see :func:`make_model`).
    """
    settings = {key: em[key] for key in EM_KEYS if (em or {}).get(key) is not None}
    return make_model("mixture", {"n_components": n_components, **settings}, rng)

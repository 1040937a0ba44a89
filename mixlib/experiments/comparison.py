"""Every classifier of the project under one protocol: stratified K-fold cross-validation
with the Student-t interval of the course notes (seed 004), for the report's ch. 6 comparison
of the probabilistic and the deterministic approaches.

Pipeline granularity: ONE JOB PER (data set, model) runs :func:`comparison_point`; the jobs of
a data set share their folds because each builds its generator from the same
``(seed, "comparison", dataset)`` (:func:`mixlib.core.seeding.generator`) and the folds are the first
draw from it. :func:`comparison_job` runs several models in one process with exactly the same
result as the separate jobs. Inputs are the arrays of a whole data set, imputed (no NaN).
Standardisation: with ``standardise=True`` every fold is re-standardised with the mean and
deviation of its own training rows (the pipeline's arrays are standardised with statistics of
all rows, which include the test fold); pass True for numeric data sets and False for one-hot
splice, whose 0/1 coding the isotropic mixtures are meant to see.

Registry
--------
:data:`MODELS` maps a model name to a :class:`ModelSpec`: its ``approach``
(``"probabilistic"``: a probability model fitted by maximum likelihood, generative
``p(x | c)`` or discriminative ``p(c | x)``, whose output is a posterior; ``"deterministic"``:
a decision function fitted by minimising an error or a margin criterion, or a vote), its finer
``family`` and its default parameters (:data:`MODEL_FAMILIES`, :data:`MODEL_APPROACHES`).
Defaults suit both standardised numeric data (heart_cleveland, wine) and one-hot splice
(3190 x 240); data-dependent values (``"auto"``, ``"scale"``) are resolved from the training
rows of each fold by :func:`make_model`. Measured on splice (5 folds, one BLAS thread, a
shared 2-core machine), every model with its defaults takes at most 15 s per job (bagging
14.6 s, AdaBoost 12.7 s, random forest 12.4 s, all others under 4 s), so no default
subsamples; ``max_train_rows`` is available for heavier settings. Run the jobs with
``OPENBLAS_NUM_THREADS=1`` (or the job's ``threads``): with several BLAS threads on a busy
machine the L-BFGS of logistic regression ran 16 times slower.

Table layout (long, tidy, no index)
-----------------------------------
``dataset, model, approach, family, n_folds, alpha, params, metric, fold, true_class,
predicted_class, value``; ``params`` is the JSON text (sorted keys) of the resolved model
parameters of fold 0 plus ``max_train_rows``. Metrics:

- ``cv_error``: ``e``, mean of the per-fold misclassification rates (fraction);
- ``cv_std``: ``s``, their standard deviation (``ddof=1``);
- ``ci_low``, ``ci_high``: ``e -/+ t_{alpha/2, K-1} s / sqrt(K)``
  (:func:`mixlib.model_selection.evaluation.t_interval`), not clipped: ``ci_low`` can be negative when the
  error is small and varies between folds;
- ``fit_seconds``, ``predict_seconds``: mean wall-clock seconds per fold of ``fit`` on the
  training folds and ``predict`` on the test fold;
- ``fold_error``: the error of fold ``fold`` (0 .. K-1; the same folds for every model of a
  data set, so models can be compared fold by fold);
- ``confusion``: pooled out-of-fold confusion matrix, ``value`` = number of rows of
  ``true_class`` predicted ``predicted_class`` (every pair of classes, zeros included, plus a
  column for any predicted label that is not a class, e.g. a reject label; summed over the
  folds, the counts add up to ``n_samples``).

``fold`` is set only on ``fold_error`` rows and ``true_class``/``predicted_class`` only on
``confusion`` rows (missing elsewhere).
"""

from __future__ import annotations

import copy
import json
import logging
import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.validation import check_array, check_is_fitted, check_random_state
from mixlib.ensemble import BaggingClassifier
from mixlib.ensemble import AdaBoostClassifier
from mixlib.model_selection.evaluation import confusion_matrix, stratified_folds, t_interval
from mixlib.ensemble import RandomForestClassifier
from mixlib.generative import LinearGaussianClassifier, QuadraticGaussianClassifier
from mixlib.tree.id3 import ID3Classifier
from mixlib.linear_model import LogisticRegression
from mixlib.mixture import MixtureClassifier
from mixlib.neural_network import MLPClassifier
from mixlib.generative import BernoulliNaiveBayes, GaussianNaiveBayes
from mixlib.neighbors import KNeighborsClassifier
from mixlib.core.preprocessing import standardise as standardise_rows
from mixlib.model_selection.splits import duplicate_groups, grouped_stratified_folds
from mixlib.svm import SVC
from mixlib.tree.decision_tree import DecisionTreeClassifier

logger = logging.getLogger(__name__)

APPROACHES = ("probabilistic", "deterministic")
COLUMNS = ["dataset", "model", "approach", "family", "n_folds", "alpha", "params", "metric",
           "fold", "true_class", "predicted_class", "value"]
SUMMARY_METRICS = ("cv_error", "cv_std", "ci_low", "ci_high", "fit_seconds", "predict_seconds")
#: ``reg_covar`` of the Gaussian classifiers on indicator-like (one-hot) data, where every
#: covariance is singular (the 4 indicators of a base sum to 1).
INDICATOR_REG_COVAR = 0.1
#: ``reg_covar`` of the Gaussian classifiers on numeric data.
NUMERIC_REG_COVAR = 1e-6


#: Share of the rows the two most frequent values of every column must cover for data to
#: count as indicator-like (:func:`is_indicator_like`).
INDICATOR_COVERAGE = 0.99


def is_indicator_like(X: np.ndarray, coverage: float = INDICATOR_COVERAGE) -> bool:
    """Whether ``X`` (n_samples, n_features) is one-hot-like data.

    True when, in every column, the two most frequent values cover at least ``coverage`` of
    the rows: one-hot indicators, raw (0/1) or standardised (two values per column), allowing
    a few rows of other values (splice codes an ambiguous base by spreading one unit over its
    possible bases: 0.25, 1/3, 0.5 in 15 of its 3190 rows).
    """
    X = np.asarray(X)
    for column in X.T:
        counts = np.unique(column, return_counts=True)[1]
        if np.sort(counts)[-2:].sum() < coverage * len(column):
            return False
    return True


class QuantileDiscretised(ClassifierMixin, BaseEstimator):
    """A classifier on features binned into training quantiles (for ID3 on numeric data).

    Parameters
    ----------
    estimator : estimator
        A classifier for categorical features (e.g. :class:`mixlib.tree.id3.ID3Classifier`).
    n_bins : int, default=4
        Number of quantile bins of a numeric feature.
    max_categories : int, default=8
        A feature with at most this many distinct training values (one-hot indicators,
        ambiguity codes, small integer codes such as heart_cleveland's ``cp`` or ``thal``) is
        categorical and passed unchanged; a feature with more is numeric and replaced by the
        code ``0 .. n_bins - 1`` of its quantile bin.

    Attributes
    ----------
    edges_ : list of ndarray or None
        Per feature, the ``n_bins - 1`` inner bin edges (training quantiles
        ``q = 1/n_bins, ..., (n_bins - 1)/n_bins``), or None for a feature kept as is.
    estimator_ : fitted estimator
    classes_ : ndarray of shape (n_classes,)

    Notes
    -----
    Code of ``x`` for edges ``e_1 <= ... <= e_{B-1}``: ``#{b : e_b < x}`` (``x`` equal to an
    edge falls in the lower bin). Repeated edges (heavy ties) merge bins.
    """

    def __init__(self, estimator: Any = None, n_bins: int = 4, max_categories: int = 8) -> None:
        self.estimator = estimator
        self.n_bins = n_bins
        self.max_categories = max_categories

    def _codes(self, X: np.ndarray) -> np.ndarray:
        out = X.copy()
        for j, edges in enumerate(self.edges_):
            if edges is not None:
                out[:, j] = np.searchsorted(edges, X[:, j], side="left")
        return out

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> "QuantileDiscretised":
        """Compute the bin edges on ``X`` (n_samples, n_features) and fit the estimator."""
        if not isinstance(self.n_bins, numbers.Integral) or self.n_bins < 2:
            raise ValueError(f"n_bins must be an integer >= 2, got {self.n_bins!r}.")
        if not isinstance(self.max_categories, numbers.Integral) or self.max_categories < 1:
            raise ValueError(f"max_categories must be an integer >= 1, "
                             f"got {self.max_categories!r}.")
        if self.estimator is None:
            raise ValueError("QuantileDiscretised needs an estimator, got None.")
        X = check_array(X)
        quantiles = np.arange(1, self.n_bins) / self.n_bins
        self.edges_ = [
            np.quantile(column, quantiles) if len(np.unique(column)) > self.max_categories
            else None
            for column in X.T
        ]
        self.n_features_in_ = X.shape[1]
        self.estimator_ = clone(self.estimator)
        if sample_weight is None:
            self.estimator_.fit(self._codes(X), y)
        else:
            self.estimator_.fit(self._codes(X), y, sample_weight=sample_weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class of every row of ``X`` (n_samples, n_features)."""
        check_is_fitted(self, "edges_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}.")
        return self.estimator_.predict(self._codes(X))


Builder = Callable[[dict[str, Any], np.random.Generator], Any]


@dataclass(frozen=True)
class ModelSpec:
    """One classifier of the comparison.

    Attributes
    ----------
    name : str
        Registry key (the ``model`` column).
    approach : {"probabilistic", "deterministic"}
    family : str
        Finer family: "mixture", "neural network", "kernel machine", "neighbours", "trees",
        "ensembles", "linear" or "generative".
    build : callable
        ``build(resolved_params, rng) -> unfitted estimator``.
    defaults : dict
        Default parameters; the values ``"auto"``/``"scale"`` are resolved from the training
        rows (see :func:`resolve_params`).
    description : str
    """

    name: str
    approach: str
    family: str
    build: Builder = field(repr=False)
    defaults: dict[str, Any]
    description: str


def _mixture(p: dict[str, Any], rng: np.random.Generator) -> MixtureClassifier:
    return MixtureClassifier(p["n_components"], init=p["init"], tol=p["tol"],
                             max_iter=p["max_iter"], min_variance=p["min_variance"],
                             random_state=rng)


def _mlp(p: dict[str, Any], rng: np.random.Generator) -> MLPClassifier:
    return MLPClassifier(p["hidden_size"], p["learning_rate"], p["n_epochs"], p["batch_size"],
                         momentum=p["momentum"], regime=p["regime"],
                         weight_decay=p["weight_decay"],
                         validation_fraction=p["validation_fraction"], patience=p["patience"],
                         random_state=rng)


def _naive_bayes(p: dict[str, Any], rng: np.random.Generator) -> BaseEstimator:
    if p["variant"] == "bernoulli":
        return BernoulliNaiveBayes(alpha=p["alpha"], binarize=p["binarize"])
    if p["variant"] == "gaussian":
        return GaussianNaiveBayes(var_smoothing=p["var_smoothing"])
    raise ValueError(f"naive_bayes variant must be 'auto', 'bernoulli' or 'gaussian', "
                     f"got {p['variant']!r}.")


MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in [
    ModelSpec("mixture", "probabilistic", "mixture", _mixture,
              {"n_components": 4, "init": "report", "tol": 1e-6, "max_iter": 200,
               "min_variance": 1e-6},
              "isotropic Gaussian mixture per class, K = 4 kernels (report ch. 3)"),
    ModelSpec("gaussian_per_class", "probabilistic", "generative",
              lambda p, rng: QuadraticGaussianClassifier(reg_covar=p["reg_covar"]),
              {"reg_covar": "auto"},
              "one full-covariance Gaussian per class (quadratic boundaries; seed 003)"),
    ModelSpec("gaussian_shared", "probabilistic", "generative",
              lambda p, rng: LinearGaussianClassifier(reg_covar=p["reg_covar"]),
              {"reg_covar": "auto"},
              "Gaussians with one shared covariance (linear boundaries; seed 003)"),
    ModelSpec("naive_bayes", "probabilistic", "generative", _naive_bayes,
              {"variant": "auto", "alpha": 1.0, "binarize": "auto", "var_smoothing": 1e-9},
              "naive Bayes: Bernoulli on indicator-like (one-hot) data, Gaussian otherwise"),
    ModelSpec("logistic_regression", "probabilistic", "linear",
              lambda p, rng: LogisticRegression(C=p["C"], max_iter=p["max_iter"], tol=p["tol"]),
              {"C": 1.0, "max_iter": 1000, "tol": 1e-6},
              "multinomial logistic regression, L2 penalty 1/C, L-BFGS (seed 003)"),
    ModelSpec("mlp", "deterministic", "neural network", _mlp,
              {"hidden_size": 16, "learning_rate": 0.02, "n_epochs": 100, "batch_size": 1,
               "momentum": 0.0, "regime": "early_stopping", "weight_decay": 1e-3,
               "validation_fraction": 0.2, "patience": 5},
              "arctan MLP, 16 hidden units, online backpropagation, early stopping "
              "(patience 5, at most 100 epochs; report ch. 6)"),
    ModelSpec("svm", "deterministic", "kernel machine",
              lambda p, rng: SVC(C=p["C"], kernel=p["kernel"], sigma=p["sigma"],
                                 degree=p["degree"], tol=p["tol"], multiclass=p["multiclass"]),
              {"C": 10.0, "kernel": "gaussian", "sigma": "scale", "degree": 3, "tol": 1e-3,
               "multiclass": "ovo"},
              "C-SVM, Gaussian kernel, one-vs-one (seed 004)"),
    ModelSpec("knn", "deterministic", "neighbours",
              lambda p, rng: KNeighborsClassifier(n_neighbors=p["n_neighbors"],
                                                  weights=p["weights"], metric=p["metric"]),
              {"n_neighbors": None, "weights": "uniform", "metric": "euclidean"},
              "k-NN, k the odd integer nearest sqrt(n_train) (seed 002)"),
    ModelSpec("tree", "deterministic", "trees",
              lambda p, rng: DecisionTreeClassifier(criterion=p["criterion"],
                                                    max_depth=p["max_depth"],
                                                    min_samples_leaf=p["min_samples_leaf"],
                                                    random_state=rng),
              {"criterion": "entropy", "max_depth": None, "min_samples_leaf": 1},
              "binary decision tree, information gain, grown to pure leaves"),
    ModelSpec("id3", "deterministic", "trees",
              lambda p, rng: QuantileDiscretised(ID3Classifier(max_depth=p["max_depth"]),
                                                 n_bins=p["n_bins"],
                                                 max_categories=p["max_categories"]),
              {"max_depth": None, "n_bins": 4, "max_categories": 8},
              "ID3 (seed 002) on categorical features: one-hot indicators as they are, "
              "numeric features (> 8 distinct values) binned into 4 training quantiles"),
    ModelSpec("random_forest", "deterministic", "ensembles",
              lambda p, rng: RandomForestClassifier(n_estimators=p["n_estimators"],
                                                    max_features=p["max_features"],
                                                    criterion=p["criterion"], vote=p["vote"],
                                                    random_state=rng),
              {"n_estimators": 100, "max_features": "sqrt", "criterion": "gini",
               "vote": "simple"},
              "random forest, 100 trees, sqrt(d) features per split (seed 004)"),
    ModelSpec("adaboost", "deterministic", "ensembles",
              lambda p, rng: AdaBoostClassifier(
                  DecisionTreeClassifier(max_depth=p["max_depth"]),
                  n_estimators=p["n_estimators"], learning_rate=p["learning_rate"],
                  random_state=rng),
              {"n_estimators": 50, "max_depth": 1, "learning_rate": 1.0},
              "AdaBoost (SAMME) of 50 stumps (seed 004)"),
    ModelSpec("bagging", "deterministic", "ensembles",
              lambda p, rng: BaggingClassifier(DecisionTreeClassifier(),
                                               n_estimators=p["n_estimators"], random_state=rng),
              {"n_estimators": 25},
              "bagging of 25 unpruned trees (seed 004)"),
]}
#: Model name -> finer family.
MODEL_FAMILIES: dict[str, str] = {name: spec.family for name, spec in MODELS.items()}
#: Model name -> "probabilistic" or "deterministic".
MODEL_APPROACHES: dict[str, str] = {name: spec.approach for name, spec in MODELS.items()}


def _spec(name: str) -> ModelSpec:
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; known models: {sorted(MODELS)}.")
    return MODELS[name]


def _check_keys(spec: ModelSpec, params: dict[str, Any]) -> None:
    unknown = set(params) - set(spec.defaults)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for model {spec.name!r}; "
                         f"expected keys among {sorted(spec.defaults)} (and, for "
                         "comparison_point, the protocol key 'max_train_rows').")


def resolve_params(name: str, params: dict[str, Any] | None,
                   X: np.ndarray | None = None) -> dict[str, Any]:
    """Defaults of ``name`` overridden by ``params``, data-dependent values resolved.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`.
    params : dict or None
        Overrides; keys must be among the model's defaults (``max_train_rows`` is a protocol
        key handled by :func:`comparison_point` and is not accepted here).
    X : ndarray of shape (n_train, n_features), optional
        Training rows; needed when a value to resolve is left at ``"auto"``/``"scale"``.

    Returns
    -------
    dict
        Every parameter of the model with a concrete value.

    Notes
    -----
    - ``svm`` ``sigma="scale"``: ``sigma = sqrt(d var(X) / 2)``, scikit-learn's
      ``gamma="scale"`` (``gamma = 1 / (d var(X))``) for ``exp(-||x - y||^2 / (2 sigma^2))``;
      the mean squared distance between two rows is ``2 d var(X)``, so
      ``||x - y||^2 / (2 sigma^2)`` is about 2 for a typical pair.
    - ``gaussian_*`` ``reg_covar="auto"``: :data:`INDICATOR_REG_COVAR` (0.1) on
      indicator-like data (:func:`is_indicator_like`), :data:`NUMERIC_REG_COVAR` (1e-6)
      otherwise (measured on splice, 5 folds: 0.1 gives 4.2 % error per class, 1e-6 11.8 %).
    - ``naive_bayes`` ``variant="auto"``: Bernoulli on indicator-like data, Gaussian
      otherwise; ``binarize="auto"``: 0.5 when every value of ``X`` is in [0, 1] (raw one-hot;
      an ambiguous base's 0.25 or 0.5 counts as 0), else 0.0 (standardised one-hot columns
      are negative for 0 and positive for 1).
    """
    spec = _spec(name)
    params = dict(params or {})
    _check_keys(spec, params)
    p = {**spec.defaults, **params}

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


def make_model(name: str, params: dict[str, Any] | None = None,
               rng: None | int | np.random.Generator = None, *,
               X: np.ndarray | None = None) -> Any:
    """An unfitted estimator of the registry.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`: "mixture", "gaussian_per_class", "gaussian_shared",
        "naive_bayes", "logistic_regression", "mlp", "svm", "knn", "tree", "id3",
        "random_forest", "adaboost", "bagging".
    params : dict or None
        Overrides of the model's defaults (see :func:`resolve_params`).
    rng : None, int or numpy.random.Generator
        ``random_state`` of the models that draw (mixture, mlp, tree, forest, ensembles).
    X : ndarray of shape (n_train, n_features), optional
        Training rows that resolve ``"auto"``/``"scale"`` values.

    Raises
    ------
    ValueError
        For an unknown model (the message lists the known ones) or parameter.
    """
    return _spec(name).build(resolve_params(name, params, X), check_random_state(rng))


def comparison_point(
    X: np.ndarray,
    y: np.ndarray,
    dataset: str,
    model: str,
    params: dict[str, Any] | None,
    n_folds: int,
    alpha: float,
    rng: int | np.random.Generator,
    *,
    standardise: bool = False,
    groups: np.ndarray | None = None,
) -> pd.DataFrame:
    """Stratified K-fold cross-validation of one model on one data set (one pipeline job).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The whole data set, imputed (NaN raises). The pipeline's arrays are already
        standardised for numeric data sets; splice one-hot stays 0/1.
    y : ndarray of shape (n_samples,)
        Class labels.
    dataset : str
        Value of the ``dataset`` column.
    model : str
        A key of :data:`MODELS`.
    params : dict or None
        Overrides of the model's defaults (:func:`resolve_params`), plus the protocol key
        ``max_train_rows`` (int or None, default None): fit every fold on at most this many of
        its training rows, drawn uniformly without replacement (the test fold stays whole).
    n_folds : int
        ``K`` of the stratified K-fold cross-validation.
    alpha : float
        ``1 - alpha`` is the confidence level of the interval.
    rng : int or numpy.random.Generator
        Build it with ``mixlib.core.seeding.generator(seed, "comparison", dataset)`` for EVERY
        model of a data set: the folds are the first draw,
        ``stratified_folds(y, n_folds, rng)``, so all models get the same folds; then
        ``rng.spawn(n_folds)`` gives each fold its own generator (subsample, then the model's
        ``random_state``). A Generator passed in is advanced.
    standardise : bool, default False
        Re-standardise every fold with the mean and deviation of its training rows
        (:func:`mixlib.core.preprocessing.standardise`), so the test fold never influences them.
        Pass :func:`mixlib.experiments.data.uses_standardisation` of the data set: True for
        numeric data, False for one-hot splice (whose 0/1 geometry the mixtures rely on).
    groups : ndarray of shape (n_samples,), optional
        Rows of one group always share a fold (:func:`mixlib.model_selection.splits.grouped_stratified_folds`),
        e.g. :func:`mixlib.model_selection.splits.duplicate_groups` so identical rows are never both trained
        and tested on. Without duplicates the folds equal the plain stratified ones.

    Returns
    -------
    pandas.DataFrame
        The tidy table of the module docstring: ``6 + K + C^2`` rows for ``C`` classes.

    Notes
    -----
    Fold ``k``: fit on the other folds, ``e_k`` = misclassification rate on fold ``k`` (a
    prediction outside the classes, e.g. a reject label, counts as an error); then
    ``e = mean(e_k)``, ``s^2 = sum_k (e_k - e)^2 / (K - 1)`` and ``e +/- t_{alpha/2, K-1}
    sqrt(s^2 / K)`` (:func:`mixlib.model_selection.evaluation.t_interval`).
    """
    spec = _spec(model)
    params = dict(params or {})
    max_train_rows = params.pop("max_train_rows", None)
    if max_train_rows is not None and (not isinstance(max_train_rows, numbers.Integral)
                                       or isinstance(max_train_rows, bool)
                                       or max_train_rows < 2):
        raise ValueError(f"max_train_rows must be None or an integer >= 2, "
                         f"got {max_train_rows!r}.")
    _check_keys(spec, params)
    X = check_array(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
    rng = check_random_state(rng)
    folds = (stratified_folds(y, n_folds, rng) if groups is None
             else grouped_stratified_folds(y, groups, n_folds, rng))
    fold_rngs = rng.spawn(n_folds)
    classes = np.unique(y)
    errors = np.empty(n_folds)
    fit_seconds = np.empty(n_folds)
    predict_seconds = np.empty(n_folds)
    predictions = np.empty(len(y), dtype=object)
    first_params: dict[str, Any] = {}
    for k in range(n_folds):
        test = folds == k
        train_rows = np.flatnonzero(~test)
        if max_train_rows is not None and len(train_rows) > max_train_rows:
            train_rows = np.sort(fold_rngs[k].choice(train_rows, max_train_rows, replace=False))
        X_fold = X
        if standardise:
            fit_rows = np.zeros(len(y), dtype=bool)
            fit_rows[train_rows] = True
            X_fold, _, _ = standardise_rows(X, fit_rows)
        resolved = resolve_params(model, params, X_fold[train_rows])
        if k == 0:
            first_params = resolved
        estimator = spec.build(resolved, fold_rngs[k])
        start = time.perf_counter()
        estimator.fit(X_fold[train_rows], y[train_rows])
        fit_seconds[k] = time.perf_counter() - start
        start = time.perf_counter()
        predicted = np.asarray(estimator.predict(X_fold[test]))
        predict_seconds[k] = time.perf_counter() - start
        predictions[test] = predicted
        errors[k] = float(np.mean(predicted != y[test]))
        logger.info("%s %s fold %d/%d: error %.4f, fit %.2f s, predict %.2f s", dataset, model,
                    k + 1, n_folds, errors[k], fit_seconds[k], predict_seconds[k])
    cv = t_interval(errors, alpha)
    logger.info("%s %s: CV error %.4f +/- %.4f", dataset, model, cv.mean, cv.half_width)
    rows: list[tuple[str, float | None, str | None, str | None, float]] = [
        ("cv_error", None, None, None, cv.mean),
        ("cv_std", None, None, None, cv.std),
        ("ci_low", None, None, None, cv.low),
        ("ci_high", None, None, None, cv.high),
        ("fit_seconds", None, None, None, float(fit_seconds.mean())),
        ("predict_seconds", None, None, None, float(predict_seconds.mean())),
    ]
    rows += [("fold_error", k, None, None, float(errors[k])) for k in range(n_folds)]
    predicted_labels = np.asarray(predictions.tolist())
    labels = np.union1d(classes, predicted_labels)
    counts = confusion_matrix(y, predicted_labels, labels)
    is_class = np.isin(labels, classes)
    rows += [("confusion", None, str(labels[i]), str(labels[j]), float(counts[i, j]))
             for i in np.flatnonzero(is_class) for j in range(len(labels))]
    table = pd.DataFrame(rows, columns=["metric", "fold", "true_class", "predicted_class",
                                        "value"])
    record = {**first_params, "max_train_rows": max_train_rows}
    table.insert(0, "dataset", dataset)
    table.insert(1, "model", model)
    table.insert(2, "approach", spec.approach)
    table.insert(3, "family", spec.family)
    table.insert(4, "n_folds", int(n_folds))
    table.insert(5, "alpha", float(alpha))
    table.insert(6, "params", json.dumps(record, sort_keys=True, default=str))
    table["fold"] = table["fold"].astype("Int64")
    return table[COLUMNS]


def comparison_job(
    X: np.ndarray,
    y: np.ndarray,
    dataset: str,
    models: Sequence[str],
    params: dict[str, dict[str, Any]] | None,
    n_folds: int,
    alpha: float,
    rng: int | np.random.Generator,
    *,
    standardise: bool = False,
) -> pd.DataFrame:
    """:func:`comparison_point` of several models of one data set, on the same folds.

    Parameters
    ----------
    X, y, dataset, n_folds, alpha, standardise
        As in :func:`comparison_point`.
    models : sequence of str
        Keys of :data:`MODELS`.
    params : dict of str to dict, or None
        Per model name, its overrides (models not listed use their defaults).
    rng : int or numpy.random.Generator
        Every model gets a generator in the state of ``rng`` (a copy of it; ``rng`` itself is
        not advanced), so the result equals the concatenation of separate
        :func:`comparison_point` calls each given a generator in that state: the same folds
        for every model.

    Returns
    -------
    pandas.DataFrame
        The tables of the models, stacked in the order of ``models``.
    """
    params = dict(params or {})
    unknown = set(params) - set(models)
    if unknown:
        raise ValueError(f"params given for model(s) {sorted(unknown)} not in models "
                         f"{list(models)}.")
    for name in models:
        _spec(name)
    tables = [
        comparison_point(X, y, dataset, name, params.get(name), n_folds, alpha,
                         copy.deepcopy(rng) if isinstance(rng, np.random.Generator) else rng,
                         standardise=standardise)
        for name in models
    ]
    return pd.concat(tables, ignore_index=True)


def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, model): the comparison table of the report.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`comparison_point` / :func:`comparison_job`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``model``, ``approach``, ``family``, ``n_folds``, ``alpha`` and
        one per metric of :data:`SUMMARY_METRICS`; sorted by dataset, then ``cv_error``.
    """
    keys = ["dataset", "model", "approach", "family", "n_folds", "alpha"]
    missing = set(keys + ["metric", "value"]) - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    rows = table[table["metric"].isin(SUMMARY_METRICS)]
    wide = (rows.pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
            .reset_index().rename_axis(columns=None))
    wide = wide[keys + [m for m in SUMMARY_METRICS if m in wide.columns]]
    return wide.sort_values(["dataset", "cv_error", "model"], kind="stable",
                            ignore_index=True)


def probabilistic_vs_deterministic(table: pd.DataFrame) -> pd.DataFrame:
    """Mean CV error of the probabilistic and of the deterministic models, per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`comparison_point` (rows with metric ``cv_error`` are used).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, approach): ``dataset``, ``approach``, ``n_models``,
        ``mean_cv_error`` (unweighted mean over the models of the approach), ``best_model``,
        ``best_cv_error``, ``mixture_cv_error`` (the mixture classifier's error, NaN if it was
        not run), and ``gap`` = probabilistic minus deterministic ``mean_cv_error`` of the
        data set (the same on both rows; positive when the probabilistic models generalise
        worse, the report's conclusion).
    """
    summary = comparison_summary(table)
    records = []
    for dataset, part in summary.groupby("dataset", sort=True):
        means = {}
        for approach in APPROACHES:
            models = part[part["approach"] == approach]
            if models.empty:
                continue
            best = models.sort_values(["cv_error", "model"], kind="stable").iloc[0]
            means[approach] = float(models["cv_error"].mean())
            records.append({"dataset": dataset, "approach": approach,
                            "n_models": len(models), "mean_cv_error": means[approach],
                            "best_model": best["model"], "best_cv_error": float(best["cv_error"])})
        mixture = part.loc[part["model"] == "mixture", "cv_error"]
        gap = means.get("probabilistic", np.nan) - means.get("deterministic", np.nan)
        for record in records:
            if record["dataset"] == dataset:
                record["mixture_cv_error"] = float(mixture.iloc[0]) if len(mixture) else np.nan
                record["gap"] = gap
    return pd.DataFrame(records, columns=["dataset", "approach", "n_models", "mean_cv_error",
                                          "best_model", "best_cv_error", "mixture_cv_error",
                                          "gap"])


def comparison_dataset_job(prepared: pd.DataFrame, dataset: str, model: str,
                           params: dict[str, Any] | None, n_folds: int, alpha: float, seed: int,
                           *, standardise: bool, impute_method: str,
                           impute_components: int, group_duplicates: bool = False) -> pd.DataFrame:
    """The ``comparison_point`` rule: one model on one whole data set, by K-fold CV.

    Missing cells are filled first by the configured imputer fit on all rows *without their
    classes* (every row is treated as of unknown class), so no label, of any fold, reaches the
    imputation. Then :func:`comparison_point` runs with the generator of
    ``(seed, "comparison", dataset)``: every model of a data set gets the same folds. With
    ``group_duplicates``, rows identical in features (missing cells included) and class share
    a fold (:func:`mixlib.model_selection.splits.duplicate_groups`).
    """
    from mixlib.datasets import feature_matrix
    from mixlib.experiments.imputation import make_imputer
    from mixlib.core.seeding import generator

    X, y = feature_matrix(prepared)
    groups = duplicate_groups(X, y) if group_duplicates else None
    if np.isnan(X).any():
        spec = f"kernel_mode:{impute_components}" if impute_method == "kernel_mode" else impute_method
        X = make_imputer(spec, generator(seed, "comparison_impute", dataset)).fit_transform(X)
    return comparison_point(X, y, dataset, model, params, n_folds, alpha,
                            generator(seed, "comparison", dataset), standardise=standardise,
                            groups=groups)

"""The model catalogue: every estimator the study fits, named, described and built in one place.

Every stage builds its estimators here: the comparison (:func:`make_model` of each model of
``comparison.models``), the ensembles, the MLP sweep, the SVM stage, the imputers
(:func:`make_imputer`) and every mixture classifier (:func:`make_mixture`, which
``make_model("mixture", ...)`` calls, and :func:`seeded_classifier`).

:data:`MODELS` maps a name (a ``comparison.models`` value, the ``model`` column of the
comparison tables) to a :class:`ModelSpec`: its ``approach`` (``"probabilistic"``: a probability
model fitted by maximum likelihood, whose output is a posterior; ``"deterministic"``: a
decision function fitted by minimising an error or a margin criterion, or a vote;
``"one-class"``: a detector of one class), its finer ``family``, its estimator class (a dotted
path, imported when a model is built, so that importing the catalogue imports no estimator),
the parameters it takes with the class whose ``__init__`` holds each one's default, and a
one-line description. One builder, :meth:`ModelSpec.build`, builds every entry but the mixture,
which also takes the EM settings.

Defaults: none here. A builder passes on exactly the parameters it is given, so one left out
takes the estimator's own default (``tests/test_registry.py``); the study's choices are the
config's. A value may be data-dependent (``sigma: scale``, ``reg_covar: auto``, ...), resolved
from the training rows (:func:`resolve_data_dependent`). Adding a classifier is one
:class:`ModelSpec` entry in :data:`MODELS` (plus its estimator); see ``docs/architecture.md``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mixlib.core.validation import check_random_state
from mixlib.core.kernels import scale_sigma
from mixlib.core.preprocessing import is_indicator_like
from mixlib.catalogue.settings import EMSettings

if TYPE_CHECKING:
    from mixlib.mixture import MixtureClassifier

#: The approaches of the classifiers (the comparison's probabilistic-versus-deterministic split).
APPROACHES = ("probabilistic", "deterministic")
#: The imputers of the study (the config's ``impute.method`` and ``imputation_study.methods``).
IMPUTATION_METHODS = ("mean", "class_mean", "kernel_mode")

RandomState = None | int | np.random.Generator
#: An estimator class, or its dotted path (``"mixlib.mixture.MixtureClassifier"``).
EstimatorPath = str | type


def estimator_class(path: EstimatorPath) -> type:
    """The class a catalogue entry names (its dotted path, read from the family package)."""
    if isinstance(path, type):
        return path
    package, _, name = path.rpartition(".")
    return getattr(__import__(package, fromlist=[name]), name)


@dataclass(frozen=True)
class ModelSpec:
    """One estimator of the study, as data: its class and the parameters it takes.

    Attributes
    ----------
    name : str
        Catalogue key (the ``model`` column).
    approach : {"probabilistic", "deterministic", "one-class"}
    family : str
        Finer family: "mixture", "neural network", "kernel machine", "neighbours", "trees",
        "ensembles", "linear" or "generative".
    estimator : str, type or mapping of str to str
        The estimator class (its dotted path in its family package); a mapping picks it by the
        ``variant`` choice (naive Bayes).
    parameters : mapping of str to str
        Every parameter the model takes -> the name of the estimator class whose ``__init__``
        takes it (and holds its default): ``estimator``'s, or ``inner``'s.
    description : str
    choices : mapping of str to object
        Parameters that no estimator takes, which :meth:`build` itself reads (naive Bayes'
        ``variant``), with their one default.
    inner : str or type, optional
        An estimator the outer one wraps, built from its own parameters and passed as the
        first argument (ID3 inside its quantile discretiser, AdaBoost's base tree).
    inner_optional : bool
        Build ``inner`` only when one of its parameters is given; else the outer estimator
        keeps its own default (AdaBoost's stump).
    """

    name: str
    approach: str
    family: str
    estimator: EstimatorPath | Mapping[str, EstimatorPath] = field(repr=False)
    parameters: Mapping[str, str]
    description: str
    choices: Mapping[str, Any] = field(default_factory=dict)
    inner: EstimatorPath | None = None
    inner_optional: bool = False

    @property
    def accepted(self) -> frozenset[str]:
        """Every parameter name the model accepts."""
        return frozenset(self.parameters) | frozenset(self.choices)

    @property
    def estimator_paths(self) -> tuple[EstimatorPath, ...]:
        """Every estimator class the model may build (the pipeline's code fingerprint)."""
        outer = tuple(self.estimator.values()) if isinstance(self.estimator, Mapping) \
            else (self.estimator,)
        return outer + ((self.inner,) if self.inner is not None else ())

    def build(self, params: Mapping[str, Any], random_state: RandomState = None) -> Any:
        """The unfitted estimator: each class gets the parameters ``parameters`` gives it.

        ``params`` are resolved (:func:`resolve_params`): only the parameters given are passed
        on, so one left out takes the estimator's default; ``random_state`` goes, as is, to an
        outer estimator whose ``__init__`` takes it. A mixture also needs the study-wide EM
        settings, which no model's parameters hold: :func:`make_model` builds the mixture
        family with :func:`make_mixture` instead.
        """
        outer_path = self.estimator
        if isinstance(outer_path, Mapping):
            if params["variant"] not in outer_path:
                raise ValueError(f"{self.name} variant must be one of "
                                 f"{['auto', *outer_path]}, got {params['variant']!r}.")
            outer_path = outer_path[params["variant"]]
        outer = estimator_class(outer_path)
        args = []
        if self.inner is not None:
            inner = estimator_class(self.inner)
            taken = self._taken_by(inner, params)
            if taken or not self.inner_optional:
                args.append(inner(**taken))
        kwargs = self._taken_by(outer, params)
        if "random_state" in inspect.signature(outer).parameters:
            kwargs["random_state"] = random_state
        return outer(*args, **kwargs)

    def _taken_by(self, cls: type, params: Mapping[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in params.items()
                if self.parameters.get(key) == cls.__name__}


def _taken_by(estimator: str, *names: str) -> dict[str, str]:
    return {name: estimator for name in names}


_FOREST = ("n_estimators", "criterion", "max_depth", "min_samples_split", "min_samples_leaf",
           "max_features", "vote")
_TREE = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf", "max_features")
_KERNEL = ("C", "kernel", "sigma", "degree", "tol")

MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in [
    ModelSpec("mixture", "probabilistic", "mixture", "mixlib.mixture.MixtureClassifier",
              _taken_by("MixtureClassifier", "n_components"),
              "isotropic Gaussian mixture per class, fitted by EM (report ch. 3)"),
    ModelSpec("gaussian_per_class", "probabilistic", "generative",
              "mixlib.generative.QuadraticGaussianClassifier",
              _taken_by("QuadraticGaussianClassifier", "reg_covar", "reg_param"),
              "one full-covariance Gaussian per class (quadratic boundaries; lecture on "
              "linear classification), by default shrunk towards the identity by an amount "
              "chosen by inner cross-validation"),
    ModelSpec("gaussian_shared", "probabilistic", "generative",
              "mixlib.generative.LinearGaussianClassifier",
              _taken_by("LinearGaussianClassifier", "reg_covar"),
              "Gaussians with one shared covariance (linear boundaries; lecture on linear "
              "classification)"),
    ModelSpec("naive_bayes", "probabilistic", "generative",
              {"bernoulli": "mixlib.generative.BernoulliNaiveBayes",
               "gaussian": "mixlib.generative.GaussianNaiveBayes"},
              {**_taken_by("BernoulliNaiveBayes", "alpha", "binarize"),
               **_taken_by("GaussianNaiveBayes", "var_smoothing")},
              "naive Bayes: Bernoulli on indicator-like (one-hot) data, Gaussian otherwise",
              choices={"variant": "auto"}),
    ModelSpec("logistic_regression", "probabilistic", "linear",
              "mixlib.linear_model.LogisticRegression",
              _taken_by("LogisticRegression", "C", "max_iter", "tol"),
              "multinomial logistic regression, L2 penalty 1/C, L-BFGS (lecture on linear "
              "classification)"),
    ModelSpec("mlp", "deterministic", "neural network", "mixlib.neural_network.MLPClassifier",
              _taken_by("MLPClassifier", "hidden_size", "learning_rate", "n_epochs",
                        "batch_size", "momentum", "regime", "weight_decay",
                        "validation_fraction", "patience"),
              "arctan MLP, online backpropagation (report chs. 2 and 6)"),
    ModelSpec("svm", "deterministic", "kernel machine", "mixlib.svm.SVC",
              _taken_by("SVC", *_KERNEL, "multiclass"),
              "C-SVM, one-vs-one (course notes on ensembles, SVMs and cross-validation)"),
    ModelSpec("svm_all_together", "deterministic", "kernel machine", "mixlib.svm.AllTogetherSVC",
              _taken_by("AllTogetherSVC", *_KERNEL),
              "all-together multi-class SVM (Weston-Watkins, one problem in n x c variables; "
              "course notes on SVMs), Hsu & Lin's regularised biases"),
    ModelSpec("mkl", "deterministic", "kernel machine", "mixlib.svm.MKLSVC",
              _taken_by("MKLSVC", "C", "kernels", "tol", "mkl_max_iter", "gap_tol"),
              "multiple kernel learning: one SVM on a learned sum of kernels (course notes on "
              "SVMs)"),
    ModelSpec("knn", "deterministic", "neighbours", "mixlib.neighbors.KNeighborsClassifier",
              _taken_by("KNeighborsClassifier", "n_neighbors", "weights", "metric"),
              "k-NN, by default k the odd integer nearest sqrt(n_train) (course chapter on "
              "k-NN and trees)"),
    ModelSpec("tree_unpruned", "deterministic", "trees", "mixlib.tree.DecisionTreeClassifier",
              _taken_by("DecisionTreeClassifier", *_TREE),
              "binary decision tree grown to pure leaves, not pruned (course chapter on k-NN "
              "and trees)"),
    ModelSpec("cart", "deterministic", "trees", "mixlib.tree.CARTClassifier",
              _taken_by("CARTClassifier", "criterion", "risk", "n_folds", "se_rule",
                        "min_samples_leaf"),
              "CART (Breiman et al. 1984): tree pruned by minimal cost-complexity, by default "
              "Gini, the subtree chosen by 10-fold CV with the one-standard-error rule"),
    ModelSpec("id3", "deterministic", "trees", "mixlib.tree.QuantileDiscretised",
              {**_taken_by("ID3Classifier", "max_depth", "min_samples_split"),
               **_taken_by("QuantileDiscretised", "n_bins", "max_categories")},
              "ID3 (course chapter on k-NN and trees) on categorical features: features with "
              "few distinct values as they are, the others binned into training quantiles",
              inner="mixlib.tree.ID3Classifier"),
    ModelSpec("random_forest", "deterministic", "ensembles",
              "mixlib.ensemble.RandomForestClassifier",
              _taken_by("RandomForestClassifier", *_FOREST),
              "random forest (course notes on ensembles)"),
    ModelSpec("adaboost", "deterministic", "ensembles", "mixlib.ensemble.AdaBoostClassifier",
              {**_taken_by("AdaBoostClassifier", "n_estimators", "learning_rate"),
               **_taken_by("DecisionTreeClassifier", "max_depth", "criterion")},
              "AdaBoost (SAMME) of shallow trees (course notes on ensembles): a tree parameter "
              "given builds the base tree from it, else AdaBoost boosts its own stump",
              inner="mixlib.tree.DecisionTreeClassifier", inner_optional=True),
    ModelSpec("bagging", "deterministic", "ensembles", "mixlib.ensemble.BaggingClassifier",
              _taken_by("BaggingClassifier", "n_estimators"),
              "bagging of unpruned trees, or of another base estimator (course notes on "
              "ensembles)"),
    ModelSpec("svdd", "one-class", "kernel machine", "mixlib.svm.SVDD",
              _taken_by("SVDD", "C", "kernel", "sigma", "degree", "tol"),
              "support vector data description: the smallest ball around one class "
              "(course notes on SVMs)"),
]}

#: The classifiers of :data:`MODELS` (what ``comparison.models`` may name).
CLASSIFIERS = tuple(name for name, spec in MODELS.items() if spec.approach in APPROACHES)


def model_spec(name: str) -> ModelSpec:
    """The :class:`ModelSpec` of ``name``.

    Raises
    ------
    ValueError
        For an unknown model; the message lists the known ones.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; known models: {sorted(MODELS)}.")
    return MODELS[name]


def unknown_parameters(name: str, params: Mapping[str, Any]) -> list[str]:
    """The keys of ``params`` that model ``name`` does not take, sorted."""
    return sorted(set(params) - model_spec(name).accepted)


#: ``reg_covar: auto`` on indicator-like (one-hot) data, whose covariances are singular.
INDICATOR_REG_COVAR = 0.1
#: ``reg_covar: auto`` of the Gaussian classifiers on numeric data.
NUMERIC_REG_COVAR = 1e-6


def resolve_data_dependent(params: Mapping[str, Any], X: np.ndarray | None,
                           model: str = "model") -> dict[str, Any]:
    """``params`` with every data-dependent value resolved from the training rows ``X``.

    Parameters
    ----------
    params : mapping
    X : ndarray of shape (n_train, n_features) or None
        Training rows; needed only when a value to resolve is present.
    model : str
        The model's name, for messages.

    Returns
    -------
    dict
        ``params`` with concrete values:

        - ``sigma: scale``: ``sigma = sqrt(d var(X) / 2)``, scikit-learn's ``gamma="scale"``
          (:func:`mixlib.core.kernels.scale_sigma`, the rule the kernel machines apply
          themselves to ``sigma="scale"``);
        - ``reg_covar: auto``: :data:`INDICATOR_REG_COVAR` (0.1) on indicator-like data
          (:func:`mixlib.core.preprocessing.is_indicator_like`), :data:`NUMERIC_REG_COVAR`
          (1e-6) otherwise: the ridge of the shared-covariance Gaussian (measured with one
          covariance per class on splice, 5 folds: 0.1 gives 4.2 % error, 1e-6 11.8 %); the
          per-class Gaussian's ``reg_param: auto`` is chosen by the estimator on every fit;
        - ``variant: auto``: ``bernoulli`` on indicator-like data, ``gaussian`` otherwise;
        - ``binarize: auto``: 0.5 when every value of ``X`` is in [0, 1] (raw one-hot; an
          ambiguous base's 0.25 or 0.5 counts as 0), else 0.0 (standardised one-hot columns
          are negative for 0 and positive for 1).

    Raises
    ------
    ValueError
        If a value needs ``X`` and none is given.
    """
    p = dict(params)

    def need_data(key: str) -> np.ndarray:
        if X is None:
            raise ValueError(f"model {model!r}: {key}={p[key]!r} is resolved from the training "
                             "rows; pass X or a concrete value.")
        return np.asarray(X, dtype=float)

    if p.get("sigma") == "scale":
        p["sigma"] = scale_sigma(need_data("sigma"))
    if p.get("reg_covar") == "auto":
        p["reg_covar"] = INDICATOR_REG_COVAR if is_indicator_like(need_data("reg_covar")) \
            else NUMERIC_REG_COVAR
    if p.get("variant") == "auto":
        p["variant"] = "bernoulli" if is_indicator_like(need_data("variant")) else "gaussian"
    if p.get("binarize") == "auto":
        data = need_data("binarize")
        p["binarize"] = 0.5 if data.min() >= 0.0 and data.max() <= 1.0 else 0.0
    return p


def resolve_params(name: str, params: Mapping[str, Any] | None,
                   X: np.ndarray | None = None) -> dict[str, Any]:
    """``params`` (and the model's ``choices``) with their data-dependent values resolved.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`.
    params : mapping or None
        The model's parameters; keys must be among those it takes.
    X : ndarray of shape (n_train, n_features), optional
        Training rows; needed when a value to resolve is ``"auto"``/``"scale"``.

    Returns
    -------
    dict
        The parameters given and the model's choices, resolved (:func:`resolve_data_dependent`).
    """
    params = dict(params or {})
    unknown = unknown_parameters(name, params)
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for model {name!r}; it takes "
                         f"{sorted(model_spec(name).accepted)}.")
    return resolve_data_dependent({**model_spec(name).choices, **params}, X, name)


def make_mixture(n_components: int | None, em: EMSettings,
                 random_state: None | int | np.random.Generator = None) -> "MixtureClassifier":
    """The study's mixture classifier, ``MixtureClassifier(n_components, **em.as_kwargs(),
    random_state)``: ``n_components`` kernels per class, fitted by EM with ``em``.

    Every stage that fits a mixture classifier (chapters 3, 5 and 6, the imputation study, the
    bagged mixtures, the comparison's ``mixture`` entry) builds it here, with the config's one
    ``em`` section; the class is imported when one is built.

    Parameters
    ----------
    n_components : int or None
        Kernels per class (None: the estimator's own default).
    em : EMSettings
        The EM settings.
    random_state : None, int or numpy.random.Generator
        The classifier's ``random_state``, passed as given: an int restarts the same stream at
        every ``fit``, a Generator advances from fit to fit.

    Raises
    ------
    ValueError
        If ``em`` is not an :class:`EMSettings`.
    """
    from mixlib.mixture import MixtureClassifier

    if not isinstance(em, EMSettings):
        raise ValueError(f"the mixture classifier (model 'mixture') fits a mixture by EM: it "
                         f"needs the EM settings (an EMSettings), got {em!r}.")
    kernels = {} if n_components is None else {"n_components": n_components}
    return MixtureClassifier(**kernels, **em.as_kwargs(), random_state=random_state)


def seeded_classifier(n_components: int, em: EMSettings,
                      rng: np.random.Generator) -> "MixtureClassifier":
    """:func:`make_mixture` whose ``random_state`` is one integer drawn from ``rng``.

    Every refit of a semi-supervised run then restarts EM from the same random stream (as
    scikit-learn's self-training does with an int seed), so the rounds differ by their
    training data and priors, not by a new random initialisation.
    """
    return make_mixture(n_components, em, int(rng.integers(2**32)))


def make_model(name: str, params: Mapping[str, Any] | None = None,
               random_state: RandomState = None, *, X: np.ndarray | None = None,
               em: EMSettings | None = None) -> Any:
    """An unfitted estimator of the catalogue.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`.
    params : mapping or None
        The model's parameters (see :func:`resolve_params`); those left out take the
        estimator's defaults.
    random_state : None, int or numpy.random.Generator
        ``random_state`` of the models that draw (mixture, mlp, tree, forest, ensembles),
        passed as is: an int restarts the same stream at every ``fit`` of the estimator, a
        Generator advances from fit to fit.
    X : ndarray of shape (n_train, n_features), optional
        Training rows that resolve ``"auto"``/``"scale"`` values.
    em : EMSettings, optional
        The EM settings; required by a model of the mixture family, which fits by EM.

    Raises
    ------
    ValueError
        For an unknown model (the message lists the known ones) or parameter, a mixture
        without ``em``, or a negative int ``random_state``.
    TypeError
        If ``random_state`` is not None, an int or a Generator.
    """
    spec = model_spec(name)
    if random_state is not None:
        check_random_state(random_state)  # a clear error now rather than at fit
    resolved = resolve_params(name, params, X)
    if spec.family == "mixture":
        return make_mixture(resolved.get("n_components"), em, random_state)
    return spec.build(resolved, random_state)


def make_imputer(method: str, *, em: EMSettings | None = None,
                 kernels_per_feature: int | None = None, random_state: RandomState = None) -> Any:
    """The imputer named by ``method`` (one of :data:`IMPUTATION_METHODS`).

    ``mean`` and ``class_mean`` take no setting. ``kernel_mode`` is the report's imputer,
    :class:`~mixlib.impute.KernelModeImputer` with ``kernels_per_feature`` kernels per
    univariate mixture (None: the imputer's default), fitted with the EM settings ``em`` and
    driven by ``random_state``; it needs ``em``, so no kernel-mode imputer of the study runs
    with other EM settings than the study's mixtures.
    """
    from mixlib.impute import ClassMeanImputer, KernelModeImputer, MeanImputer

    if method == "mean":
        return MeanImputer()
    if method == "class_mean":
        return ClassMeanImputer()
    if method == "kernel_mode":
        if not isinstance(em, EMSettings):
            raise ValueError(f"the kernel_mode imputer fits mixtures by EM: it needs the EM "
                             f"settings (an EMSettings), got {em!r}.")
        kernels = {} if kernels_per_feature is None else {"n_components": kernels_per_feature}
        return KernelModeImputer(**kernels, **em.as_kwargs(), random_state=random_state)
    raise ValueError(f"Unknown imputation method {method!r}; expected one of "
                     f"{list(IMPUTATION_METHODS)}.")

"""The model catalogue: one entry names, describes and builds an estimator; a default lives
only in the estimator's ``__init__``; every stage builds its estimators through the catalogue;
the config checks and the schema agree with it; importing it loads no estimator."""

import ast
import copy
import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.comparison_runs import models_on_one_dataset
from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.seeding import generator
from mixlib.core.validation import check_array
from mixlib.core.vocabulary import COMPARISON_COLUMNS
from mixlib.experiments.comparison import comparison_point
from mixlib.catalogue.registry import (
    APPROACHES,
    CLASSIFIERS,
    MODELS,
    ModelSpec,
    make_imputer,
    make_mixture,
    make_model,
    resolve_params,
)
from mixlib.catalogue.settings import EMSettings
from mixlib.mixture import MixtureClassifier
from mixlib.model_selection.resampling import stratified_folds
from mixlib.pipeline.config_checks import check_comparison_params, check_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
#: The estimator family packages (the registry must not import any of them).
FAMILIES = ("mixture", "impute", "semi_supervised", "neural_network", "svm", "tree", "ensemble",
            "neighbors", "linear_model", "generative")
EM = EMSettings(init="report", tol=1e-6, max_iter=200, min_variance=1e-6)


class NearestCentroid(ClassifierMixin, BaseEstimator):
    """Toy classifier: the class whose (shrunk) training mean is nearest."""

    def __init__(self, shrink: float = 0.0) -> None:
        self.shrink = shrink

    def fit(self, X, y):
        X = check_array(X)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        centre = X.mean(axis=0)
        means = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        self.centroids_ = centre + (1.0 - self.shrink) * (means - centre)
        return self

    def predict(self, X):
        X = check_array(X)
        distances = ((X[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(distances, axis=1)]


CENTROID = ModelSpec("centroid", "deterministic", "neighbours", NearestCentroid,
                     {"shrink": "NearestCentroid"}, "nearest class centroid (a toy added by one entry)")


def blobs(seed: int, n: int = 60, spread: float = 1.5):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    X = spread * np.eye(3, 4)[labels] + rng.normal(size=(n, 4))
    return X, np.array(["a", "b", "c"])[labels]


def test_a_toy_classifier_needs_one_registry_entry(monkeypatch):
    monkeypatch.setitem(MODELS, "centroid", CENTROID)
    monkeypatch.setattr("mixlib.pipeline.config_checks.CLASSIFIERS", (*CLASSIFIERS, "centroid"))
    X, y = blobs(1)
    rng = generator(5, "comparison", "toy")
    folds = stratified_folds(y, 4, copy.deepcopy(rng))
    run = comparison_point(X, y, "toy", "centroid", {"shrink": 0.2}, 4, 0.05, rng)
    table = run.scores
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    assert set(table["approach"]) == {"deterministic"} and set(table["family"]) == {"neighbours"}
    # the settings that ran, one row per unit and parameter
    assert set(run.settings["parameter"]) == {"shrink"}
    assert set(run.settings["value"]) == {"0.2"} and len(run.settings) == 4
    # Its fold errors are those of the toy fitted by hand on the protocol's folds.
    expected = [np.mean(NearestCentroid(0.2).fit(X[folds != k], y[folds != k])
                        .predict(X[folds == k]) != y[folds == k]) for k in range(4)]
    np.testing.assert_array_equal(table.loc[table["metric"] == "fold_error", "value"], expected)
    assert 0 < np.mean(expected) < 0.5
    assert set(models_on_one_dataset(X, y, "toy", ["knn", "centroid"], None, 3, 0.05, 0).scores["model"]) \
        == {"knn", "centroid"}
    # The config checks accept it by name and check its parameters.
    config = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    config["comparison"]["models"].append("centroid")
    config["comparison"]["params"]["centroid"] = {"shrink": 0.5, "max_train_rows": 40}
    check_config(config, SCHEMA, ROOT)
    with pytest.raises(ValueError, match=r"comparison.params.centroid: unknown parameter\(s\) "
                                         r"\['k'\]; centroid takes \['max_train_rows', 'shrink'\]"):
        check_comparison_params({"centroid": {"k": 1}})


def test_without_the_entry_the_toy_is_unknown():
    with pytest.raises(ValueError, match="unknown model 'centroid'"):
        comparison_point(*blobs(1), "toy", "centroid", None, 3, 0.05, 0)
    with pytest.raises(ValueError, match=r"comparison.params: unknown model\(s\) \['centroid'\]"):
        check_comparison_params({"centroid": {}})


def test_schema_lists_exactly_the_catalogue_classifiers():
    comparison = yaml.safe_load(SCHEMA.read_text())["properties"]["comparison"]["properties"]
    assert comparison["models"]["items"]["enum"] == list(CLASSIFIERS)
    assert comparison["params"]["propertyNames"]["enum"] == list(CLASSIFIERS)
    assert "svdd" in MODELS and "svdd" not in CLASSIFIERS  # a one-class detector


@pytest.mark.parametrize("module", ["mixlib.pipeline.config_checks", "mixlib.catalogue.registry",
                                    "mixlib.experiments.comparison",
                                    "mixlib.analysis.comparison_summary"])
def test_importing_the_registry_loads_no_estimator(module):
    code = (f"import sys, {module}\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            f"[['mixlib', f] for f in {FAMILIES!r}]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


def estimator_class(name: str) -> type:
    """The estimator class ``name`` of one of the family packages."""
    for family in FAMILIES:
        module = importlib.import_module(f"mixlib.{family}")
        if hasattr(module, name):
            return getattr(module, name)
    raise LookupError(name)


def init_defaults(cls: type) -> dict:
    return {name: parameter.default
            for name, parameter in inspect.signature(cls.__init__).parameters.items()
            if parameter.default is not inspect.Parameter.empty}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_entry_is_described_and_its_parameters_are_its_estimators(name):
    """A parameter of the catalogue is one an estimator's ``__init__`` takes, with its default
    there: the catalogue holds none (``choices`` are read by the builder alone)."""
    spec = MODELS[name]
    assert spec.name == name
    assert spec.approach in (*APPROACHES, "one-class")
    assert spec.family and spec.description
    for parameter, owner in spec.parameters.items():
        assert parameter in init_defaults(estimator_class(owner)), (parameter, owner)
    assert not set(spec.choices) & set(spec.parameters)


# A model whose builder needs more than no parameter, and the parameters that build it.
REQUIRED = {"mkl": {"kernels": [("gaussian", 1.0)]}}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_model_built_from_no_parameter_has_its_estimators_defaults(name):
    """Nothing between the config and the estimator adds a default of its own."""
    X, _ = blobs(3)
    given = REQUIRED.get(name, {})
    built = make_model(name, given, 0, X=X, em=EM)
    params = built.get_params()
    em = EM.as_kwargs() if MODELS[name].family == "mixture" else {}
    for parameter, owner in MODELS[name].parameters.items():
        if parameter in params and parameter not in given and parameter not in em:
            expected = init_defaults(estimator_class(owner))[parameter]
            if type(built).__name__ == owner:
                assert params[parameter] == expected, (name, parameter)


SCHEMA_ESTIMATOR_SECTIONS = [("em",), ("impute",), ("imputation_study",), ("mlp", "training"),
                             ("svm", "grid"), ("svm", "mkl"), ("svm", "svdd"),
                             ("ensembles", "trees"), ("ensembles", "base_mixture"),
                             ("comparison", "params")]


def _schema_node(schema: dict, path: tuple[str, ...]) -> dict:
    node = schema
    for key in path:
        node = node["properties"][key] if "properties" in node else node
        if "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


@pytest.mark.parametrize("path", SCHEMA_ESTIMATOR_SECTIONS, ids=".".join)
def test_the_schema_gives_no_estimator_parameter_a_default(path):
    """An estimator's parameter has its default in its ``__init__`` only: the schema requires
    the study's value or leaves the key to the estimator, never a second default."""
    schema = yaml.safe_load(SCHEMA.read_text())
    node = _schema_node(schema, path)
    defaults = {key for key, child in node.get("properties", {}).items() if "default" in child}
    # impute.method picks an imputer, not a parameter of one
    assert defaults <= {"method"}, (path, defaults)


def test_no_module_of_the_stages_keeps_a_table_of_defaults():
    offenders = [f"{path.name}: {match}" for path in (ROOT / "mixlib" / "experiments").glob("*.py")
                 for match in re.findall(r"^([A-Z_]*DEFAULTS?\b[^=]*)=", path.read_text(), re.M)]
    assert not offenders


#: Estimator classes of the family packages (what only the catalogue may construct).
def _estimator_names() -> set[str]:
    names = set()
    for family in FAMILIES:
        module = importlib.import_module(f"mixlib.{family}")
        names |= {name for name, value in vars(module).items()
                  if isinstance(value, type) and issubclass(value, BaseEstimator)}
    return names


def test_no_stage_builds_an_estimator_outside_the_catalogue():
    """Every call of an estimator class in ``mixlib/experiments`` is in the catalogue."""
    estimators = _estimator_names()
    calls = []
    for path in sorted((ROOT / "mixlib" / "experiments").glob("*.py")):
        if path.name == "registry.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name in estimators:
                    calls.append(f"{path.name}:{node.lineno} {name}")
    assert not calls, calls


def test_no_rule_file_repeats_a_default_of_the_schema():
    """A key the schema defines is read as ``config[...]`` (the schema filled it), never with
    a second default as ``.get(key, default)``."""
    found = []
    for path in sorted((ROOT / "workflow").rglob("*.smk")) + [ROOT / "Snakefile"]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in re.finditer(r"\.get\(\s*[\"'](\w+)[\"']\s*,", line):
                found.append(f"{path.name}:{number} {match.group(1)}")
    assert not found, found


@pytest.mark.parametrize("settings", [
    {"n_components": 3},
    {"n_components": 2},
])
@pytest.mark.parametrize("em", [
    EMSettings(tol=1e-5, max_iter=50),
    EMSettings(init="kmeans++", tol=1e-4, max_iter=30, min_variance=1e-3),
    EMSettings(relative_min_variance=0.01),
])
def test_mixture_entry_expresses_every_em_setting_of_the_stages(settings, em):
    """The catalogue's ``mixture`` entry builds ``MixtureClassifier(random_state=..., **em,
    **settings)`` through :func:`make_mixture`, the one builder of the study's mixtures."""
    built = make_model("mixture", settings, 17, em=em)
    assert isinstance(built, MixtureClassifier)
    expected = MixtureClassifier(random_state=17, **em.as_kwargs(), **settings).get_params()
    assert built.get_params() == expected
    assert make_mixture(settings["n_components"], em, 17).get_params() == expected


def test_a_mixture_needs_the_em_settings():
    with pytest.raises(ValueError, match="needs the EM settings"):
        make_model("mixture", {"n_components": 2})
    with pytest.raises(ValueError, match="needs the EM"):
        make_imputer("kernel_mode", kernels_per_feature=2)
    imputer = make_imputer("kernel_mode", em=EM, kernels_per_feature=2, random_state=3)
    assert imputer.get_params()["n_components"] == 2 and imputer.get_params()["tol"] == 1e-6


def test_optional_parameters_are_recorded_only_when_given():
    assert "reg_covar" not in resolve_params("gaussian_per_class", None)
    assert resolve_params("gaussian_per_class", {"reg_covar": 0.1})["reg_covar"] == 0.1


def test_make_model_passes_the_random_state_as_given():
    """An int restarts the same stream at every fit (as the semi-supervised refits need)."""
    X, y = blobs(2)
    model = make_model("mixture", {"n_components": 2}, 3, em=EM)
    first = model.fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(model.fit(X, y).predict_proba(X), first)
    with pytest.raises(TypeError, match="random_state must be None, an int or"):
        make_model("mixture", None, "seed", em=EM)

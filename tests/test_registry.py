"""The model registry: one entry names, describes and builds a classifier; the config checks
and the schema agree with it; importing it loads no estimator."""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.seeding import generator
from mixlib.core.validation import check_array
from mixlib.experiments.comparison import COLUMNS, comparison_job, comparison_point
from mixlib.experiments.registry import (
    APPROACHES,
    MODELS,
    ModelSpec,
    make_model,
    resolve_params,
)
from mixlib.mixture import MixtureClassifier
from mixlib.model_selection.evaluation import stratified_folds
from mixlib.pipeline.config import _check_comparison_params, check_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
#: The estimator family packages (the registry must not import any of them).
FAMILIES = ("mixture", "impute", "semi_supervised", "neural_network", "svm", "tree", "ensemble",
            "neighbors", "linear_model", "generative")


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


CENTROID = ModelSpec("centroid", "deterministic", "neighbours",
                     lambda p, random_state: NearestCentroid(p["shrink"]),
                     {"shrink": 0.0}, "nearest class centroid (a toy added by one entry)")


def blobs(seed: int, n: int = 60, spread: float = 1.5):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    X = spread * np.eye(3, 4)[labels] + rng.normal(size=(n, 4))
    return X, np.array(["a", "b", "c"])[labels]


def test_a_toy_classifier_needs_one_registry_entry(monkeypatch):
    monkeypatch.setitem(MODELS, "centroid", CENTROID)
    X, y = blobs(1)
    rng = generator(5, "comparison", "toy")
    folds = stratified_folds(y, 4, copy.deepcopy(rng))
    table = comparison_point(X, y, "toy", "centroid", {"shrink": 0.2}, 4, 0.05, rng)
    assert list(table.columns) == COLUMNS
    assert set(table["approach"]) == {"deterministic"} and set(table["family"]) == {"neighbours"}
    assert json.loads(table["params"].iloc[0]) == {"shrink": 0.2, "max_train_rows": None}
    # Its fold errors are those of the toy fitted by hand on the protocol's folds.
    expected = [np.mean(NearestCentroid(0.2).fit(X[folds != k], y[folds != k])
                        .predict(X[folds == k]) != y[folds == k]) for k in range(4)]
    np.testing.assert_array_equal(table.loc[table["metric"] == "fold_error", "value"], expected)
    assert 0 < np.mean(expected) < 0.5
    assert set(comparison_job(X, y, "toy", ["knn", "centroid"], None, 3, 0.05, 0)["model"]) \
        == {"knn", "centroid"}
    # The config checks accept it by name and check its parameters.
    config = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    config["comparison"]["models"].append("centroid")
    config["comparison"]["params"]["centroid"] = {"shrink": 0.5, "max_train_rows": 40}
    check_config(config, ROOT)
    with pytest.raises(ValueError, match=r"comparison.params.centroid: unknown parameter\(s\) "
                                         r"\['k'\]; centroid takes \['max_train_rows', 'shrink'\]"):
        _check_comparison_params({"centroid": {"k": 1}})


def test_without_the_entry_the_toy_is_unknown():
    with pytest.raises(ValueError, match="unknown model 'centroid'"):
        comparison_point(*blobs(1), "toy", "centroid", None, 3, 0.05, 0)
    with pytest.raises(ValueError, match=r"comparison.params: unknown model\(s\) \['centroid'\]"):
        _check_comparison_params({"centroid": {}})


def test_schema_lists_exactly_the_registry_models():
    comparison = yaml.safe_load(SCHEMA.read_text())["properties"]["comparison"]["properties"]
    assert comparison["models"]["items"]["enum"] == list(MODELS)
    assert comparison["params"]["propertyNames"]["enum"] == list(MODELS)


@pytest.mark.parametrize("module", ["mixlib.pipeline.config", "mixlib.experiments.registry",
                                    "mixlib.experiments.comparison",
                                    "mixlib.experiments.comparison_summary"])
def test_importing_the_registry_loads_no_estimator(module):
    code = (f"import sys, {module}\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            f"[['mixlib', f] for f in {FAMILIES!r}]))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_entry_is_described(name):
    spec = MODELS[name]
    assert spec.name == name
    assert spec.approach in APPROACHES
    assert spec.family and spec.description
    assert not set(spec.optional) & set(spec.defaults)


@pytest.mark.parametrize("settings", [
    {},
    {"n_components": 3, "tol": 1e-5, "max_iter": 50},
    {"n_components": 2, "init": "kmeans++", "tol": 1e-4, "max_iter": 30, "min_variance": 1e-3},
    {"n_components": 5, "relative_min_variance": 0.01},
])
def test_mixture_entry_expresses_every_em_setting_of_the_stages(settings):
    """The stages build ``MixtureClassifier(random_state=..., **em_settings)``: the registry
    builds the same estimator, with the same settings and random state."""
    built = make_model("mixture", settings, 17)
    assert isinstance(built, MixtureClassifier)
    assert built.get_params() == MixtureClassifier(random_state=17, **settings).get_params()


def test_optional_parameters_are_recorded_only_when_given():
    assert "relative_min_variance" not in resolve_params("mixture", None)
    assert resolve_params("mixture", {"relative_min_variance": 0.1})["relative_min_variance"] == 0.1


def test_make_model_passes_the_random_state_as_given():
    """An int restarts the same stream at every fit (as the semi-supervised refits need)."""
    X, y = blobs(2)
    model = make_model("mixture", {"n_components": 2}, 3)
    first = model.fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(model.fit(X, y).predict_proba(X), first)
    with pytest.raises(TypeError, match="random_state must be None, an int or"):
        make_model("mixture", None, "seed")

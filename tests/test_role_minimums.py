"""The minimums of :mod:`mixlib.pipeline.data_checks` are those of the stages' own code:
the checks reject exactly the settings whose jobs fail. The messages, by
split, role, class and key, are cases of ``tests/test_bad_inputs.py``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from mixlib.experiments.comparison import comparison_dataset_job
from mixlib.experiments.preparation import prepare_dataset
from mixlib.catalogue.registry import MODELS, model_spec, resolve_params
from mixlib.catalogue.settings import ComparisonProtocol
from mixlib.pipeline.config_checks import check_config
from mixlib.pipeline.data_checks import TWO_CLASS_MODELS, check_cv_early_stopping
from tests.test_bad_inputs import SCHEMA, Case, build_project, compare, rare_class


@pytest.mark.parametrize("n_rare, n_folds", [(2, 2), (3, 2), (4, 2), (3, 3)])
def test_cv_check_rejects_exactly_the_folds_the_mlp_job_fails_on(n_rare, n_folds, tmp_path):
    config = build_project(Case("rare", "", csv=rare_class(n_rare),
                                config=compare(["people"], n_folds)), tmp_path)
    tables = check_config(config, SCHEMA, tmp_path)
    try:
        check_cv_early_stopping(config, tables)
        rejected = False
    except ValueError as exc:
        assert "class 'rare' (1)" in str(exc)
        rejected = True
    comparison = config["comparison"]
    prepared = prepare_dataset(tables["people"], "people", config["datasets"]["people"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # two epochs do not converge
            comparison_dataset_job(
                prepared, dataset="people", model="mlp",
                params={**comparison["params"]["mlp"], "n_epochs": 2},
                protocol=ComparisonProtocol.from_config(comparison), seed=config["seed"],
                standardise=True, impute={"method": "mean", "kernels_per_feature": 2}, em=None)
        failed = False
    except ValueError as exc:
        assert "early stopping needs at least 2 training rows per class" in str(exc)
        failed = True
    assert rejected == failed
    # a fold tests ceil(n / K) rows of the class, and trains on the others
    assert rejected == (n_rare - math.ceil(n_rare / n_folds) < 2)


def test_two_class_models_are_those_whose_estimator_refuses_one_class():
    X = np.random.default_rng(0).normal(size=(20, 3))
    refused = set()
    for name in MODELS:
        estimator = model_spec(name).build(resolve_params(name, None, X), 0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                estimator.fit(X, np.array(["a"] * 20))
        except ValueError as exc:
            assert "needs at least 2 classes" in str(exc)
            refused.add(name)
    assert refused == set(TWO_CLASS_MODELS)

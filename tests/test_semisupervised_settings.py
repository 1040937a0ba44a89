"""The semi-supervised settings: one typed record, validated once, built from the config by
one function, whose every default lives in one place."""

import inspect
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from mixlib.experiments.contract import RepeatData
from mixlib.experiments.semisupervised import _check_inputs, _fit_method
from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings, study_settings
from mixlib.pipeline.config import read_config_file
from mixlib.semi_supervised import IterativeClassifier, PriorProbabilityClassifier
from tests.test_schema_agreement import resolve

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
STUDY = read_config_file(ROOT / "config" / "config.yaml")


@pytest.mark.parametrize("changes, key", [
    ({"threshold": 1.0}, "threshold"),
    ({"threshold": -0.1}, "threshold"),
    ({"threshold": "0.75"}, "threshold"),
    ({"threshold": True}, "threshold"),
    ({"max_rounds": 0}, "max_rounds"),
    ({"max_rounds": 2.5}, "max_rounds"),
    ({"max_rounds": True}, "max_rounds"),
    ({"restart": "cold"}, "restart"),
    ({"finish": "never"}, "finish"),
    ({"unclassifiable": []}, "unclassifiable"),
    ({"unclassifiable": ["confidence", "confidence"]}, "unclassifiable"),
    ({"unclassifiable": ["confidence", "margin"]}, "unclassifiable"),
])
def test_a_bad_value_is_refused_naming_its_config_key(changes, key):
    section = {**STUDY["semisupervised"], **changes}
    with pytest.raises(ValueError, match=rf"^semisupervised\.{key}: expected "):
        SemiSupervisedSettings.from_config(section)


def test_the_study_config_builds_the_settings_once():
    settings = study_settings(STUDY).semisupervised
    section = STUDY["semisupervised"]
    assert settings == SemiSupervisedSettings(
        threshold=section["threshold"], max_rounds=section["max_rounds"],
        restart=section["restart"], finish=section["finish"],
        unclassifiable=tuple(section["unclassifiable"]))
    assert isinstance(settings.threshold, float) and isinstance(settings.unclassifiable, tuple)
    suite = read_config_file(ROOT / "config" / "suite.yaml")
    assert study_settings(suite).semisupervised is None


def test_the_record_has_exactly_the_keys_the_schema_requires_of_the_methods():
    """Every key of ``semisupervised`` that sets how the methods run or are scored is a field
    (the others pick the jobs: splits, methods, kernels per class)."""
    section = SCHEMA["properties"]["semisupervised"]
    jobs = {"splits", "methods", "n_components"}
    assert set(section["properties"]) - jobs == set(SemiSupervisedSettings._fields)
    assert set(SemiSupervisedSettings._fields) <= set(section["required"])


def test_a_changed_reading_is_checked_again():
    """``replaced`` builds a new record through the checks (``_replace`` would skip them)."""
    settings = SemiSupervisedSettings(threshold=0.75)
    assert settings.replaced(finish="stop") == SemiSupervisedSettings(threshold=0.75, finish="stop")
    with pytest.raises(ValueError, match=r"^semisupervised\.threshold: "):
        settings.replaced(threshold=1.5)


def test_the_record_survives_the_trip_to_a_job():
    """A rule hands the record to its script by pickle: the same record arrives, checked. And
    Snakemake reruns a job whose parameters changed only for the builtins it writes down with
    ``repr`` (tuples among them): the record is one, and its ``repr`` holds every value."""
    settings = SemiSupervisedSettings(0.6, 5, "fresh", "stop", ("underflow",))
    assert isinstance(settings, tuple)
    assert repr(settings) != repr(settings.replaced(max_rounds=6))
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert type(pickle.loads(pickle.dumps(settings))) is SemiSupervisedSettings


def _tiny_problem():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    X = rng.normal(size=(20, 2)) + 3.0 * y[:, None]
    return _check_inputs(RepeatData.of(0, labelled=(X[::2], y[::2]), unlabelled=(X[1::2], y[1::2]),
                                       test=(X, y)))


def _init_default(cls, name):
    return inspect.signature(cls.__init__).parameters[name].default


@pytest.mark.parametrize("method, wrapper, setting", [
    ("iterative", IterativeClassifier, "finish"),
    ("prior", PriorProbabilityClassifier, "restart"),
])
def test_a_setting_left_out_is_the_methods_own_default(method, wrapper, setting):
    """Without ``max_rounds``, ``restart`` or ``finish`` each method runs with its own
    ``__init__`` default (10 labelling rounds, 20 refits), the one place it is written; a given
    value reaches the method."""
    data, em = _tiny_problem(), EMSettings(tol=1e-4)
    fitted = _fit_method(method, data, 1, em, SemiSupervisedSettings(threshold=0.75),
                         np.random.default_rng(0))
    assert isinstance(fitted, wrapper)
    assert fitted.max_iter == _init_default(wrapper, "max_iter")
    assert getattr(fitted, setting) == _init_default(wrapper, setting)
    given = SemiSupervisedSettings(0.75, 3, "fresh", "stop")
    fitted = _fit_method(method, data, 1, em, given, np.random.default_rng(0))
    assert fitted.max_iter == 3 and getattr(fitted, setting) == getattr(given, setting)


def test_the_semisupervised_stages_read_no_setting_with_a_default_of_their_own():
    """The stages take the typed records: no ``.get(key, default)`` of a key of the
    ``semisupervised``, ``semisupervised_sensitivity``, ``kernel_sweep`` or ``em`` sections."""
    keys = {key for section in ("semisupervised", "semisupervised_sensitivity", "kernel_sweep", "em")
            for key in resolve(SCHEMA["properties"][section])["properties"]}
    experiments = ROOT / "mixlib" / "experiments"
    found = [f"{path.name}:{number} {match.group(1)}"
             for path in sorted(experiments.glob("semisupervised*.py")) + [experiments / "mixture_errors.py"]
             for number, line in enumerate(path.read_text().splitlines(), 1)
             for match in re.finditer(r"""\.get\(\s*["'](\w+)["']\s*,""", line) if match.group(1) in keys]
    assert found == []

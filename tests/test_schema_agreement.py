"""The config schema's lists of allowed values are the library's own.

Rules take their wildcard constraints from the same constants, so a method added to the
library is allowed by the schema and matched by the rules, or this test says where it is not.
"""

from pathlib import Path

import pytest
import yaml

from mixlib.core.vocabulary import FINISHES, RESTARTS
from mixlib.experiments.ensembles import ENSEMBLE_METHODS
from mixlib.experiments.imputation import IMPUTATION_METHODS
from mixlib.catalogue.registry import CLASSIFIERS
from mixlib.experiments.semisupervised import METHODS as SEMISUPERVISED_METHODS
from mixlib.mixture.initialisation import INITS
from mixlib.neural_network import REGIMES
from mixlib.semi_supervised.scoring import UNCLASSIFIABLE_RULES

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())


def resolve(node: dict) -> dict:
    """``node`` with its ``$ref`` (to ``#/$defs/<name>``) followed."""
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def schema_enum(*path: str) -> list:
    """The ``enum`` of the config key at ``path`` (or of its list items)."""
    node = SCHEMA
    for key in path:
        node = resolve(node)["properties"][key]
    node = resolve(node)
    return resolve(node.get("items", node))["enum"]


@pytest.mark.parametrize("path, values", [
    (("comparison", "models"), list(CLASSIFIERS)),
    (("ensembles", "methods"), list(ENSEMBLE_METHODS)),
    (("imputation_study", "methods"), list(IMPUTATION_METHODS)),
    (("impute", "method"), list(IMPUTATION_METHODS)),
    (("mlp", "regimes"), list(REGIMES)),
    (("kernel_sweep", "methods"), list(SEMISUPERVISED_METHODS)),
    (("semisupervised", "methods"), [m for m in SEMISUPERVISED_METHODS if m != "labelled_only"]),
    (("semisupervised", "unclassifiable"), list(UNCLASSIFIABLE_RULES)),
    (("semisupervised", "restart"), list(RESTARTS)),
    (("semisupervised", "finish"), list(FINISHES)),
    (("semisupervised_sensitivity", "restarts"), list(RESTARTS)),
    (("semisupervised_sensitivity", "finishes"), list(FINISHES)),
    (("em", "init"), list(INITS)),
])
def test_schema_allows_exactly_the_library_values(path, values):
    assert sorted(schema_enum(*path)) == sorted(values)


def test_rules_take_their_method_wildcards_from_the_library():
    rules = {path.name: path.read_text() for path in (ROOT / "workflow" / "rules").glob("*.smk")}
    assert 'method="|".join(ENSEMBLE_METHODS)' in rules["ensembles.smk"]
    assert 'regime="|".join(REGIMES)' in rules["mlp.smk"]
    # The chapter-5 stages run every method of a split in one job: the config's (checked
    # against the library above) list is a parameter, not a wildcard.
    assert "{method}" not in rules["semisupervised.smk"]
    assert 'methods=SEMI["methods"]' in rules["semisupervised.smk"]
    assert 'methods=KERNEL_SWEEP["methods"]' in rules["semisupervised.smk"]
    assert 'model="|".join(COMPARISON["models"])' in rules["comparison.smk"]


def test_every_source_key_of_a_data_set_reaches_the_fetch_job():
    """A data set key that says where or how its raw table is read is a ``fetch`` parameter
    (:data:`~mixlib.datasets.sources.SOURCE_KEYS`), so changing it refetches the data set;
    only the preparation keys are left to later rules."""
    from mixlib.datasets.sources import SOURCE_KEYS

    preparation_keys = {"encoding", "standardise"}
    dataset_keys = set(SCHEMA["$defs"]["dataset"]["properties"])
    assert dataset_keys - preparation_keys <= set(SOURCE_KEYS)


def test_a_data_set_s_default_source_is_the_schema_s():
    from mixlib.datasets.sources import DEFAULT_SOURCE, dataset_source

    assert SCHEMA["$defs"]["dataset"]["properties"]["source"]["default"] == DEFAULT_SOURCE
    assert dataset_source({}) == DEFAULT_SOURCE and dataset_source({"source": "csv"}) == "csv"

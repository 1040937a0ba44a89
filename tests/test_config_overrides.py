"""--config values nested in a mapping or list get the types the schema asks for."""

from pathlib import Path

import jsonschema
import pytest

from mixlib.pipeline.config import load_schema, retype_strings

SCHEMA = load_schema(str(Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"))


def test_integers_in_a_nested_list_are_read_as_integers():
    config = {"mlp": {"hidden_sizes": ["1", "2"], "splits": ["123"], "regimes": ["plain"]}}
    retype_strings(config, SCHEMA)
    assert config["mlp"]["hidden_sizes"] == [1, 2]
    assert config["mlp"]["splits"] == ["123"]  # a split name is a string: left alone


def test_numbers_and_booleans_through_refs_and_alternatives():
    schema = {
        "$defs": {"size": {"oneOf": [{"type": "integer"}, {"enum": ["rest"]}]}},
        "properties": {
            "roles": {"additionalProperties": {"$ref": "#/$defs/size"}},
            "alpha": {"type": "number"},
            "flag": {"type": "boolean"},
            "sizes": {"type": "array", "items": {"type": "integer"}},
        },
    }
    config = {"roles": {"train": "30", "test": "rest"}, "alpha": "0.05", "flag": "true",
              "sizes": ["1", "2.5", "x"]}
    retype_strings(config, schema)
    assert config["roles"] == {"train": 30, "test": "rest"}  # "rest" is a word of the enum
    assert config["alpha"] == 0.05 and config["flag"] is True
    assert config["sizes"] == [1, "2.5", "x"]  # not integers: left for the schema to reject


def test_a_value_of_the_wrong_type_is_still_rejected_by_the_schema():
    config = {"mlp": {"hidden_sizes": ["one"]}}
    retype_strings(config, SCHEMA)
    with pytest.raises(jsonschema.ValidationError, match="'one' is not of type 'integer'"):
        jsonschema.validate(config["mlp"]["hidden_sizes"],
                            SCHEMA["properties"]["mlp"]["properties"]["hidden_sizes"])

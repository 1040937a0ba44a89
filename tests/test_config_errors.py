"""A config error is one message naming the key, with no traceback frames after it."""

from pathlib import Path

import pytest

from mixlib.pipeline.config import check_schema, key_path, load_schema, stop_on_config_error

SCHEMA = load_schema(str(Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"))


def test_key_path_reads_as_the_config_is_written():
    assert key_path(["mlp", "hidden_sizes", 0]) == "mlp.hidden_sizes[0]"
    assert key_path([]) == "top level"


def test_schema_violation_names_the_key(tmp_path):
    with pytest.raises(ValueError, match=r"^mlp\.hidden_sizes\[1\]: 'x' is not of type 'integer'"):
        mlp = {"splits": ["s"], "hidden_sizes": [1, "x"], "regimes": ["plain"], "training": {}}
        check_schema({"mlp": mlp}, {**SCHEMA, "required": []})
    with pytest.raises(ValueError, match=r"^top level: .*'seeed' was unexpected"):
        check_schema({"seeed": 1}, SCHEMA)


def test_a_config_error_ends_the_run_with_its_message_alone(capsys):
    with pytest.raises(SystemExit) as stop:
        with stop_on_config_error():
            raise ValueError("splits.a.dataset: unknown data set 'nope'")
    assert stop.value.code == "Error in the config: splits.a.dataset: unknown data set 'nope'"
    assert stop.value.__cause__ is None and stop.value.__suppress_context__


def test_other_errors_pass_through():
    with pytest.raises(KeyError):
        with stop_on_config_error():
            raise KeyError("a bug, with its traceback")

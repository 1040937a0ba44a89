"""Tests of the shared parameter checks of mixlib.core.validation: what they accept, and their
one wording ("<name> must be <expected>, got <value>.")."""

import math

import numpy as np
import pytest

from mixlib.core.validation import InvalidParameterError, check_choice, check_float, check_int


def test_invalid_parameter_error_is_both_value_and_type_error():
    with pytest.raises(ValueError):
        check_int(0, "n", min_value=1)
    with pytest.raises(TypeError):
        check_int("3", "n", min_value=1)
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)


@pytest.mark.parametrize("value", [1, 7, np.int64(3), np.uint8(2)])
def test_check_int_accepts_integers_and_returns_python_int(value):
    out = check_int(value, "n", min_value=1)
    assert out == value and type(out) is int


@pytest.mark.parametrize(
    "value, kwargs, message",
    [
        (0, {"min_value": 1}, "n must be an int >= 1, got 0."),
        (True, {"min_value": 1}, "n must be an int >= 1, got True."),
        (np.bool_(True), {}, "n must be an int, got "),
        (2.0, {"min_value": 1}, "n must be an int >= 1, got 2.0."),
        ("3", {"min_value": 1}, "n must be an int >= 1, got '3'."),
        (9, {"min_value": 1, "max_value": 5}, "n must be an int in [1, 5], got 9."),
        (None, {"min_value": 2}, "n must be an int >= 2, got None."),
        (1, {"min_value": 2, "allow_none": True}, "n must be None or an int >= 2, got 1."),
    ],
)
def test_check_int_rejects(value, kwargs, message):
    with pytest.raises(InvalidParameterError) as info:
        check_int(value, "n", **kwargs)
    assert str(info.value).startswith(message)


def test_check_int_none_when_allowed():
    assert check_int(None, "max_depth", min_value=1, allow_none=True) is None


@pytest.mark.parametrize(
    "value, kwargs, expected",
    [
        (0, {"low": 0}, 0.0),
        (3, {"low": 0, "closed": "neither"}, 3.0),
        (np.float32(0.5), {"low": 0, "high": 1, "closed": "neither"}, 0.5),
        (0.0, {"low": 0, "high": 1, "closed": "left"}, 0.0),
        (math.inf, {"low": 1, "finite": False}, math.inf),
    ],
)
def test_check_float_accepts(value, kwargs, expected):
    assert check_float(value, "x", **kwargs) == expected


@pytest.mark.parametrize(
    "value, kwargs, message",
    [
        (0.0, {"low": 0, "closed": "neither"}, "x must be a finite float > 0, got 0.0."),
        (-1, {"low": 0}, "x must be a finite float >= 0, got -1."),
        (math.inf, {"low": 0}, "x must be a finite float >= 0, got inf."),
        (math.nan, {"low": 0, "finite": False}, "x must be a float >= 0, got nan."),
        (1.0, {"low": 0, "high": 1, "closed": "left"}, "x must be a float in [0, 1), got 1.0."),
        (0.0, {"low": 0, "high": 1, "closed": "neither"}, "x must be a float in (0, 1), got 0.0."),
        (2.0, {"high": 1, "closed": "neither"}, "x must be a finite float < 1, got 2.0."),
        (False, {"low": 0}, "x must be a finite float >= 0, got False."),
        ("0.1", {"low": 0}, "x must be a finite float >= 0, got '0.1'."),
        (-1.0, {"low": 0, "allow_none": True}, "x must be None or a finite float >= 0, got -1.0."),
    ],
)
def test_check_float_rejects(value, kwargs, message):
    with pytest.raises(InvalidParameterError) as info:
        check_float(value, "x", **kwargs)
    assert str(info.value) == message


def test_check_choice():
    assert check_choice("gini", "criterion", ("gini", "entropy")) == "gini"
    assert check_choice(0.0, "ddof", (0, 1)) == 0.0  # compared with ``in``, as before
    with pytest.raises(InvalidParameterError, match=r"^criterion must be 'gini' or 'entropy', got 'mse'\.$"):
        check_choice("mse", "criterion", ("gini", "entropy"))
    with pytest.raises(InvalidParameterError, match=r"^a must be one of 'x', 'y' or 'z', got 'w'\.$"):
        check_choice("w", "a", ("x", "y", "z"))
    with pytest.raises(InvalidParameterError, match=r"got \[1\]"):
        check_choice([1], "a", frozenset({"x"}))

"""Input checks shared by the estimators, with messages that name the bad value.

Parameter checks (:func:`check_int`, :func:`check_float`, :func:`check_choice`) all raise
:class:`InvalidParameterError` with one wording: ``"<name> must be <what was expected>, got
<the value>."``.
"""

from __future__ import annotations

import numbers
from collections.abc import Collection
from typing import Literal, TypeVar

import numpy as np

T = TypeVar("T")

_BRACKETS = {"both": "[]", "left": "[)", "right": "(]", "neither": "()"}


class InvalidParameterError(ValueError, TypeError):
    """A parameter of the wrong type or outside its allowed values.

    It derives from both :class:`ValueError` and :class:`TypeError`, as scikit-learn's
    error of the same name does, so that callers catching either keep working whether the
    value had the wrong type (``n_components=2.5``) or the wrong value (``n_components=0``).
    """


def _expected(kind: str, low, high, closed: str, allow_none: bool) -> str:
    """The phrase naming the accepted values, e.g. ``"an int >= 1"``, ``"a float in (0, 1)"``."""
    left, right = _BRACKETS[closed]
    if low is not None and high is not None:
        bound = f" in {left}{low}, {high}{right}"
    elif low is not None:
        bound = f" >= {low}" if left == "[" else f" > {low}"
    elif high is not None:
        bound = f" <= {high}" if right == "]" else f" < {high}"
    else:
        bound = ""
    article = "an" if kind[0] in "aeiou" else "a"
    return ("None or " if allow_none else "") + f"{article} {kind}{bound}"


def check_int(
    value, name: str, *, min_value: int | None = None, max_value: int | None = None,
    allow_none: bool = False,
) -> int | None:
    """Check that ``value`` is an integer with ``min_value <= value <= max_value``.

    Parameters
    ----------
    value : object
        The parameter. Any :class:`numbers.Integral` (``int``, ``numpy.int64``...) except
        ``bool``: ``True`` is not a count.
    name : str
        The parameter's name, for the message.
    min_value, max_value : int, optional
        Inclusive bounds (``None``: unbounded on that side).
    allow_none : bool, default=False
        Whether ``None`` is accepted (and returned as is).

    Returns
    -------
    int or None
        ``int(value)``.

    Raises
    ------
    InvalidParameterError
        ``"{name} must be an int >= {min_value}, got {value!r}."`` (or the matching phrase).
    """
    if value is None and allow_none:
        return None
    if (
        not isinstance(value, numbers.Integral) or isinstance(value, (bool, np.bool_))
        or (min_value is not None and value < min_value)
        or (max_value is not None and value > max_value)
    ):
        expected = _expected("int", min_value, max_value, "both", allow_none)
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r}.")
    return int(value)


def check_float(
    value, name: str, *, low: float | None = None, high: float | None = None,
    closed: Literal["both", "left", "right", "neither"] = "both", finite: bool = True,
    allow_none: bool = False,
) -> float | None:
    """Check that ``value`` is a real number in the interval from ``low`` to ``high``.

    Parameters
    ----------
    value : object
        The parameter: any :class:`numbers.Real` (ints included) except ``bool``; NaN is
        always rejected.
    name : str
        The parameter's name, for the message.
    low, high : float, optional
        Bounds of the interval (``None``: unbounded on that side).
    closed : {"both", "left", "right", "neither"}, default="both"
        Which bounds belong to the interval: ``"left"`` is ``low <= value < high``,
        ``"neither"`` with only ``low`` is ``value > low``.
    finite : bool, default=True
        Whether ``inf`` and ``-inf`` are rejected (when False they are accepted if the bounds
        allow them, e.g. ``C=inf`` for no penalty).
    allow_none : bool, default=False
        Whether ``None`` passes too.

    Returns
    -------
    float or None
        ``float(value)``, or None when ``value`` is None and that is allowed.

    Raises
    ------
    InvalidParameterError
        ``"{name} must be a finite float > 0, got {value!r}."`` (or the matching phrase).
    """
    left, right = _BRACKETS[closed]
    if value is None and allow_none:
        return None
    valid = (
        isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
        and not np.isnan(value) and (not finite or np.isfinite(value))
        and (low is None or (value >= low if left == "[" else value > low))
        and (high is None or (value <= high if right == "]" else value < high))
    )
    if not valid:
        unbounded = low is None or high is None
        kind = "finite float" if finite and unbounded else "float"
        expected = _expected(kind, low, high, closed, allow_none)
        raise InvalidParameterError(f"{name} must be {expected}, got {value!r}.")
    return float(value)


def check_choice(value: T, name: str, choices: Collection) -> T:
    """Check that ``value`` is one of ``choices`` (compared with ``in``) and return it.

    Raises
    ------
    InvalidParameterError
        ``"{name} must be 'a' or 'b', got 'c'."``, or ``"{name} must be one of 'a', 'b' or
        'c', got 'd'."`` for more than two choices.
    """
    try:
        valid = value in choices
    except TypeError:  # an unhashable value tested against a set
        valid = False
    if not valid:
        names = [repr(choice) for choice in choices]
        listed = " or ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " or " + names[-1]
        prefix = "" if len(names) <= 2 else "one of "
        raise InvalidParameterError(f"{name} must be {prefix}{listed}, got {value!r}.")
    return value


def check_random_state(random_state: None | int | np.random.Generator) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` gives a fresh, unseeded generator; an int seeds a new one; a generator is
    returned as is (so the caller's stream advances). Global numpy state is never used.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}."
    )


def check_array(
    X, *, name: str = "X", ndim: int = 2, allow_nan: bool = False, min_samples: int = 1
) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 array of ``ndim`` dimensions.

    Raises
    ------
    ValueError
        If the shape is wrong, there are fewer than ``min_samples`` rows, or the array holds
        infinities, or NaN while ``allow_nan`` is false (the message says where).
    """
    array = np.asarray(X)
    if array.dtype == object or not np.issubdtype(array.dtype, np.number):
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric, got dtype {array.dtype}.") from exc
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}.")
    if array.shape[0] < min_samples:
        raise ValueError(f"{name} needs at least {min_samples} samples, got {array.shape[0]}.")
    if np.isinf(array).any():
        raise ValueError(f"{name} contains infinite values.")
    if not allow_nan:
        nan_mask = np.isnan(array)
        if nan_mask.any():
            rows = np.unique(np.nonzero(nan_mask)[0])
            raise ValueError(
                f"{name} contains NaN in {int(nan_mask.sum())} cell(s) (first rows: "
                f"{rows[:5].tolist()}); impute missing values first."
            )
    return array


def check_X_y(X, y, *, allow_nan: bool = False, min_samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Check ``X`` as by :func:`check_array` and ``y`` as a 1-d label vector of the same length."""
    X = check_array(X, allow_nan=allow_nan, min_samples=min_samples)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}.")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError("y contains NaN labels.")
    return X, y


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Return non-negative float weights of length ``n_samples`` (ones when ``None``)."""
    if sample_weight is None:
        return np.ones(n_samples)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {weight.shape}.")
    if not np.all(np.isfinite(weight)) or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if weight.sum() <= 0:
        raise ValueError("sample_weight sums to zero: nothing to fit.")
    return weight


def check_is_fitted(estimator, attribute: str) -> None:
    """Raise a clear error if ``estimator`` has not been fitted (lacks ``attribute``)."""
    if not hasattr(estimator, attribute):
        raise RuntimeError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit first."
        )

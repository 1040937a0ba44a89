"""Input checks shared by the estimators, with messages that name the bad value.

Parameter checks (:func:`check_int`, :func:`check_float`, :func:`check_choice`) all raise
:class:`InvalidParameterError` with one wording: ``"<name> must be <what was expected>, got
<the value>."``.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from collections.abc import Collection
from typing import Literal, TypeVar

import numpy as np

from mixlib.core.exceptions import DataConversionWarning, not_fitted_error

T = TypeVar("T")

_BRACKETS = {"both": "[]", "left": "[)", "right": "(]", "neither": "()"}

MAX_MAGNITUDE = 1e150
"""Largest absolute feature value the estimators accept (the data sets' own bound,
:data:`mixlib.datasets.checks.MAX_MAGNITUDE`). Variances, squared distances and Gram matrices
square the features: beyond about 1e154 a square overflows float64 to infinity, and one such
cell sends a fit to chance with only numpy warnings, so 1e150 leaves room for sums."""


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


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array.

    Read without importing scipy.sparse (a tenth of a second, paid by every pipeline job
    otherwise): no sparse object can exist before that module is imported.
    """
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(X))


def check_array(
    X, *, name: str = "X", ndim: int = 2, allow_nan: bool = False, min_samples: int = 1,
    min_features: int = 1, max_magnitude: float | None = MAX_MAGNITUDE,
) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 array of ``ndim`` dimensions.

    Parameters
    ----------
    X : array-like
        Dense numbers: lists, numpy arrays, pandas frames, or object arrays of numbers.
    name : str, default="X"
        Name of the input, for the messages.
    ndim : int, default=2
        Required number of dimensions.
    allow_nan : bool, default=False
        Whether NaN cells are accepted (infinities never are).
    min_samples, min_features : int, default=1
        Fewest rows, and (for 2-dimensional input) fewest columns, accepted.
    max_magnitude : float or None, default=:data:`MAX_MAGNITUDE`
        Largest absolute value accepted (None: any finite value).

    Raises
    ------
    TypeError
        If ``X`` is a scipy sparse matrix or array (the estimators need dense arrays), or
        holds values that are not numbers.
    ValueError
        If ``X`` holds complex numbers, has the wrong number of dimensions, too few rows or
        columns, or infinities, or NaN while ``allow_nan`` is false, or a value beyond
        ``max_magnitude`` (the message says where: the column and the value).
    """
    if is_sparse(X):
        raise TypeError(f"{name} is a sparse {X.format} matrix; the estimators of mixlib need a "
                        f"dense array: pass {name}.toarray().")
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} holds complex numbers.")
    if array.dtype == object or not np.issubdtype(array.dtype, np.number):
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers, got dtype {array.dtype}: {exc}") from exc
    array = np.ascontiguousarray(array, dtype=np.float64)
    if array.ndim != ndim:
        hint = (f" Reshape your data: {name}.reshape(-1, 1) if it holds a single feature, "
                f"{name}.reshape(1, -1) if it holds a single sample."
                if ndim == 2 and array.ndim == 1 else "")
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}.{hint}")
    if array.shape[0] < min_samples:
        raise ValueError(f"{name} has {array.shape[0]} sample(s) (shape={array.shape}) while a "
                         f"minimum of {min_samples} is required.")
    if ndim == 2 and array.shape[1] < min_features:
        raise ValueError(f"{name} has {array.shape[1]} feature(s) (shape={array.shape}) while a "
                         f"minimum of {min_features} is required.")
    if max_magnitude is not None and array.size and np.abs(array).max() <= max_magnitude:
        return array  # every value finite and within the bound: none of the checks below fails
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
    if max_magnitude is not None and array.size:
        _check_magnitude(array, name, max_magnitude)
    return array


def _check_magnitude(array: np.ndarray, name: str, max_magnitude: float) -> None:
    """Raise ``ValueError`` naming the first cell with ``|value| > max_magnitude``.

    NaN cells (allowed by the caller or not) compare false and pass.
    """
    beyond = np.abs(array) > max_magnitude
    if not beyond.any():
        return
    cells = np.argwhere(beyond)
    first = tuple(int(i) for i in cells[0])
    where = (f"feature (column) {first[1]} of {name}, row {first[0]}" if array.ndim == 2
             else f"{name}[{first[0]}]")
    raise ValueError(
        f"{where} holds {array[first]:.6g}, beyond the +/-{max_magnitude:.0e} the estimators "
        f"accept ({len(cells)} such cell(s)): its square overflows float64. Rescale that "
        "feature (standardise it or change its unit) before fitting or predicting."
    )


def check_labels(y, n_samples: int) -> np.ndarray:
    """Return the class labels ``y`` as a 1-d array of ``n_samples`` labels.

    A column vector of shape (n_samples, 1) is flattened, with a
    :class:`~mixlib.core.exceptions.DataConversionWarning`.

    Raises
    ------
    ValueError
        If ``y`` has another shape (several outputs per row are not supported), holds NaN or
        infinite values, or continuous values (numbers that are not whole: a classifier needs
        class labels, not a measurement to regress on).
    """
    if y is None:
        raise ValueError("fit requires y to be passed, but the target y is None: give the "
                         "class label of every row.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is read as "
                      "the label vector y.ravel().", DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, one class label per row, got shape {y.shape} "
                         "(several outputs per row are not supported).")
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {y.shape[0]}.")
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported: y holds complex numbers.")
    if y.dtype.kind == "f":
        if np.isnan(y).any():
            raise ValueError("y contains NaN labels.")
        if np.isinf(y).any():
            raise ValueError("y contains infinite labels.")
        fractional = np.flatnonzero(y != np.round(y))
        if fractional.size:
            row = int(fractional[0])
            raise ValueError(f"y holds continuous values ({fractional.size} are not whole "
                             f"numbers, first y[{row}] = {y[row]!r}); a classifier needs class "
                             "labels.")
    return y


def encode_labels(y: np.ndarray, *, min_classes: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels of ``y`` and the index of every row's label among them.

    Raises
    ------
    ValueError
        ``"y holds one class ('a'); this classifier needs at least 2 classes."`` when
        ``y`` has fewer than ``min_classes`` distinct labels.
    """
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < min_classes:
        held = f"one class ({classes.tolist()[0]!r})" if len(classes) == 1 else "no class"
        raise ValueError(f"y holds {held}; this classifier needs at least {min_classes} classes.")
    return classes, codes


def check_X_y(X, y, *, allow_nan: bool = False, min_samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Check ``X`` as by :func:`check_array` and ``y`` as by :func:`check_labels`."""
    X = check_array(X, allow_nan=allow_nan, min_samples=min_samples)
    return X, check_labels(y, X.shape[0])


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Return non-negative float weights of length ``n_samples`` (ones when ``None``).

    The result is a new array: the caller's weights are never modified.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    weight = np.array(sample_weight, dtype=np.float64)
    if weight.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {weight.shape}.")
    if not np.all(np.isfinite(weight)) or (weight < 0).any():
        raise ValueError("sample_weight must be finite and non-negative.")
    if weight.sum() <= 0:
        raise ValueError("sample_weight sums to zero: nothing to fit.")
    return weight


def reject_extra_arguments(estimator, method: str, extra: dict, takes: str) -> None:
    """Raise ``TypeError`` naming ``estimator``'s own class if ``extra`` holds any argument.

    A method defined on a private base class and called with an argument it does not take
    would otherwise raise Python's ``TypeError``, which names the base class.

    Parameters
    ----------
    estimator : object
    method : str
        The method's name (``"fit"``).
    extra : dict
        The keyword arguments the method collected beyond its own (``**extra``).
    takes : str
        What the method takes instead, and why (for the message).
    """
    if extra:
        raise TypeError(f"{type(estimator).__name__}.{method}() got unexpected keyword "
                        f"argument(s) {', '.join(map(repr, extra))}: it takes {takes}.")


def check_is_fitted(estimator, attribute: str = "n_features_in_") -> None:
    """Raise :class:`~mixlib.core.exceptions.NotFittedError` if ``estimator`` lacks ``attribute``."""
    if not hasattr(estimator, attribute):
        raise not_fitted_error(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit first."
        )


def check_fitted_input(estimator, X, *, attribute: str = "n_features_in_",
                       allow_nan: bool = False) -> np.ndarray:
    """Validate the input of a method that needs a fitted ``estimator``.

    Checks that ``estimator`` is fitted (has ``attribute``), that ``X`` is a valid array
    (:func:`check_array`) and that it has the ``n_features_in_`` columns seen by ``fit``.

    Returns
    -------
    ndarray of shape (n_samples, n_features_in_)

    Raises
    ------
    NotFittedError
        Before ``fit``.
    ValueError
        ``"X has 3 features, but SVC is expecting 4 features as input."`` (scikit-learn's
        wording), or as :func:`check_array`.
    """
    check_is_fitted(estimator, attribute)
    X = check_array(X, allow_nan=allow_nan)
    check_n_features(estimator, X)
    return X


def check_n_features(estimator, X: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``X`` has the ``n_features_in_`` columns seen by ``fit``."""
    expected = estimator.n_features_in_
    if X.shape[1] != expected:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {expected} features as input.")

"""Input checks shared by the estimators, with messages that name the bad value."""

from __future__ import annotations

import numbers

import numpy as np


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

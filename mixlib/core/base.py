"""Estimator base classes: parameters, representation and scoring.

The conventions are those of scikit-learn, without depending on it: ``__init__`` stores its
arguments unchanged (no validation there), ``get_params``/``set_params`` expose them so that
meta-estimators can clone an estimator, and learned attributes end with ``_``.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np


class BaseEstimator:
    """Parameter handling shared by every estimator of :mod:`mixlib`."""

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return sorted(
            name
            for name, parameter in signature.parameters.items()
            if name != "self" and parameter.kind != parameter.VAR_KEYWORD
        )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the constructor arguments of this estimator.

        Parameters
        ----------
        deep : bool, default=True
            Also return the parameters of nested estimators, as ``name__param``.
        """
        params: dict[str, Any] = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for sub_name, sub_value in value.get_params(deep=True).items():
                    params[f"{name}__{sub_name}"] = sub_value
            params[name] = value
        return params

    def set_params(self, **params: Any) -> "BaseEstimator":
        """Set constructor arguments (``name`` or ``name__param`` for nested estimators)."""
        valid = self._param_names()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub_name = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for {type(self).__name__}; "
                    f"valid parameters are {valid}."
                )
            if sub_name:
                nested.setdefault(name, {})[sub_name] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"


class ClassifierMixin:
    """Accuracy scoring for classifiers that implement ``predict``."""

    _estimator_type = "classifier"

    def score(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        """Mean (weighted) accuracy of ``self.predict(X)`` against ``y``."""
        correct = np.asarray(self.predict(X) == np.asarray(y), dtype=float)
        return float(np.average(correct, weights=sample_weight))


def clone(estimator: BaseEstimator) -> BaseEstimator:
    """A new unfitted estimator with the same parameters (nested estimators cloned too)."""
    params = estimator.get_params(deep=False)
    for name, value in params.items():
        if isinstance(value, BaseEstimator):
            params[name] = clone(value)
    return type(estimator)(**params)

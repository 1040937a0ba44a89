"""Estimator base classes: parameters, representation, scoring and scikit-learn's tags.

The conventions are those of scikit-learn, without depending on it: ``__init__`` stores its
arguments unchanged (no validation there), ``get_params``/``set_params`` expose them so that
meta-estimators can clone an estimator, learned attributes end with ``_``, ``fit`` sets
``n_features_in_`` and prediction before ``fit`` raises
:class:`~mixlib.core.exceptions.NotFittedError`.

scikit-learn (1.6 and later) asks every estimator for its tags through
``__sklearn_tags__()``, which must return its ``sklearn.utils.Tags`` dataclass. Only
scikit-learn calls that method, so it imports scikit-learn's dataclasses inside its body:
importing or using mixlib never imports scikit-learn. A subclass adjusts its tags the way
scikit-learn's developer guide shows, by calling ``super().__sklearn_tags__()`` and setting
fields (``tags.non_deterministic = True``), which needs no import either.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np


# Per class: its __init__ and that __init__'s sorted parameter names (BaseEstimator._param_names).
_PARAM_NAMES: dict[type, tuple[Any, tuple[str, ...]]] = {}


class BaseEstimator:
    """Parameter handling shared by every estimator of :mod:`mixlib`."""

    @classmethod
    def _param_names(cls) -> list[str]:
        """The sorted constructor arguments of ``cls`` (read from its ``__init__`` signature).

        The signature is inspected once per class and ``__init__`` (``get_params``, called by
        every clone, ran ``inspect.signature`` at every call); a new list is returned.
        """
        init = cls.__init__
        cached = _PARAM_NAMES.get(cls)
        if cached is None or cached[0] is not init:
            signature = inspect.signature(init)
            cached = _PARAM_NAMES[cls] = (init, tuple(sorted(
                name
                for name, parameter in signature.parameters.items()
                if name != "self" and parameter.kind != parameter.VAR_KEYWORD
            )))
        return list(cached[1])

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

    def __sklearn_tags__(self):
        """scikit-learn's tags of a plain estimator: dense 2-d numeric ``X``, no NaN.

        Returns
        -------
        sklearn.utils.Tags
        """
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False),
                    input_tags=InputTags())


class ClassifierMixin:
    """Accuracy scoring and the classifier tags for classifiers that implement ``predict``.

    List it before :class:`BaseEstimator` among the bases, as scikit-learn's mixins.
    """

    _estimator_type = "classifier"

    def __sklearn_tags__(self):
        """The base tags, marked as a classifier that needs ``y`` (scikit-learn's tags).

        Returns
        -------
        sklearn.utils.Tags
        """
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.target_tags.required = True
        return tags

    @staticmethod
    def _binary_decision(scores: np.ndarray) -> np.ndarray:
        """Per-class scores as scikit-learn's ``decision_function`` shapes them.

        Parameters
        ----------
        scores : ndarray of shape (n_samples, n_classes)
            One score per class; the prediction is the class of the largest.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes: ``scores[:, 1] - scores[:, 0]``,
        positive exactly where ``classes_[1]`` is predicted; else ``scores`` unchanged.
        """
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def score(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        """Mean (weighted) accuracy of ``self.predict(X)`` against ``y``."""
        correct = np.asarray(self.predict(X) == np.asarray(y), dtype=float)
        return float(np.average(correct, weights=sample_weight))


def transformer_tags(preserves_dtype: list[str]):
    """scikit-learn's ``TransformerTags`` for an estimator that also transforms, imported only
    when scikit-learn asks for the tags.

    Parameters
    ----------
    preserves_dtype : list of str
        The float dtypes its ``transform`` keeps (empty: it returns another type).

    Returns
    -------
    sklearn.utils.TransformerTags
    """
    from sklearn.utils import TransformerTags

    return TransformerTags(preserves_dtype=preserves_dtype)


def clone(estimator: BaseEstimator) -> BaseEstimator:
    """A new unfitted estimator with the same parameters (nested estimators cloned too)."""
    params = estimator.get_params(deep=False)
    for name, value in params.items():
        if isinstance(value, BaseEstimator):
            params[name] = clone(value)
    return type(estimator)(**params)

"""Parameter values that depend on the data, resolved from a model's training rows.

A config may give some parameters of the catalogue's models a value that only the training
rows of a fit can settle: ``sigma: scale`` for the kernel machines, ``reg_covar: auto`` for the
Gaussian classifiers, ``variant: auto`` and ``binarize: auto`` for naive Bayes.
:func:`resolve_data_dependent` settles them (:func:`mixlib.catalogue.registry.resolve_params`
calls it on every unit's training rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mixlib.core.kernels import scale_sigma
from mixlib.core.preprocessing import is_indicator_like

#: ``reg_covar: auto`` of the Gaussian classifiers on indicator-like (one-hot) data, where every
#: covariance is singular (the 4 indicators of a base sum to 1).
INDICATOR_REG_COVAR = 0.1
#: ``reg_covar: auto`` of the Gaussian classifiers on numeric data.
NUMERIC_REG_COVAR = 1e-6


def resolve_data_dependent(params: Mapping[str, Any], X: np.ndarray | None,
                           model: str = "model") -> dict[str, Any]:
    """``params`` with every data-dependent value resolved from the training rows ``X``.

    Parameters
    ----------
    params : mapping
        A model's parameters.
    X : ndarray of shape (n_train, n_features) or None
        Training rows; needed only when a value to resolve is present.
    model : str
        The model's name, for messages.

    Returns
    -------
    dict
        ``params`` with concrete values:

        - ``sigma: scale``: ``sigma = sqrt(d var(X) / 2)``, scikit-learn's ``gamma="scale"``
          (:func:`mixlib.core.kernels.scale_sigma`, the rule the kernel machines apply
          themselves to ``sigma="scale"``);
        - ``reg_covar: auto``: :data:`INDICATOR_REG_COVAR` (0.1) on indicator-like data
          (:func:`mixlib.core.preprocessing.is_indicator_like`), :data:`NUMERIC_REG_COVAR`
          (1e-6) otherwise: the ridge of the shared-covariance Gaussian (measured with one
          covariance per class on splice, 5 folds: 0.1 gives 4.2 % error, 1e-6 11.8 %). The
          per-class Gaussian's own ``reg_param: auto``, an inner cross-validation of its
          shrinkage towards the identity, is no value to resolve here: the estimator
          chooses it on every fit (:class:`mixlib.generative.QuadraticGaussianClassifier`);
        - ``variant: auto``: ``bernoulli`` on indicator-like data, ``gaussian`` otherwise;
        - ``binarize: auto``: 0.5 when every value of ``X`` is in [0, 1] (raw one-hot; an
          ambiguous base's 0.25 or 0.5 counts as 0), else 0.0 (standardised one-hot columns
          are negative for 0 and positive for 1).

    Raises
    ------
    ValueError
        If a value needs ``X`` and none is given.
    """
    p = dict(params)

    def need_data(key: str) -> np.ndarray:
        if X is None:
            raise ValueError(f"model {model!r}: {key}={p[key]!r} is resolved from the training "
                             "rows; pass X or a concrete value.")
        return np.asarray(X, dtype=float)

    if p.get("sigma") == "scale":
        p["sigma"] = scale_sigma(need_data("sigma"))
    if p.get("reg_covar") == "auto":
        p["reg_covar"] = INDICATOR_REG_COVAR if is_indicator_like(need_data("reg_covar")) \
            else NUMERIC_REG_COVAR
    if p.get("variant") == "auto":
        p["variant"] = "bernoulli" if is_indicator_like(need_data("variant")) else "gaussian"
    if p.get("binarize") == "auto":
        data = need_data("binarize")
        p["binarize"] = 0.5 if data.min() >= 0.0 and data.max() <= 1.0 else 0.0
    return p

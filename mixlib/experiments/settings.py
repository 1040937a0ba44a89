"""The study's typed settings: immutable records, validated once when they are built.

:class:`EMSettings` holds the EM settings of every Gaussian mixture (the config's ``em``
section), :class:`ComparisonProtocol` how the comparison resamples and tests (``comparison``).
The pipeline builds each once from the config (:func:`study_settings`, which
:func:`mixlib.pipeline.checks.validate_study_config` returns) and passes it whole to the
stages; a stage never picks keys out of a dict.

Both are immutable typed tuples (:class:`typing.NamedTuple`) rather than dataclasses on purpose:
a rule hands them to its jobs as Snakemake parameters, and Snakemake reruns a job whose
parameters changed only for values it can write down, builtins and tuples among them; a
dataclass parameter would be skipped, and changing an EM setting would rerun nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any, NamedTuple


def _integer(value: Any, minimum: int, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{key}: expected an integer >= {minimum}, got {value!r}.")
    return int(value)


def _number(value: Any, key: str, *, low: float, high: float = float("inf"),
            low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not (low < value if low_open else low <= value) or not value < high:
        bounds = f"{'(' if low_open else '['}{low:g}, {high:g})"
        raise ValueError(f"{key}: expected a number in {bounds}, got {value!r}.")
    return float(value)


class _EMFields(NamedTuple):
    init: str | None = None
    tol: float | None = None
    max_iter: int | None = None
    min_variance: float | None = None
    relative_min_variance: float | None = None


class EMSettings(_EMFields):
    """The EM settings of a Gaussian mixture: one record for every mixture of the study.

    Parameters
    ----------
    init : {"report", "kmeans++"} or None
        Initialisation of the centres.
    tol : float >= 0 or None
        EM stops when the mean log-likelihood per example changes by less (nats).
    max_iter : int >= 1 or None
        At most this many EM iterations.
    min_variance : float > 0 or None
        Floor on every kernel's variance.
    relative_min_variance : float > 0 or None
        The floor as a share of the mean feature variance of the training rows (instead of
        ``min_variance``: give at most one of the two).

    A setting left None takes the estimator's own default (its ``__init__``, the one place a
    default lives); the study's config gives every one (the schema requires them).

    Raises
    ------
    ValueError
        Naming the ``em`` key of a value out of range, or both floors.
    """

    __slots__ = ()

    def __new__(cls, init: str | None = None, tol: float | None = None,
                max_iter: int | None = None, min_variance: float | None = None,
                relative_min_variance: float | None = None) -> "EMSettings":
        if init is not None and not isinstance(init, str):
            raise ValueError(f"em.init: expected a name, got {init!r}.")
        if tol is not None:
            tol = _number(tol, "em.tol", low=0.0)
        if max_iter is not None:
            max_iter = _integer(max_iter, 1, "em.max_iter")
        if min_variance is not None:
            min_variance = _number(min_variance, "em.min_variance", low=0.0, low_open=True)
        if relative_min_variance is not None:
            relative_min_variance = _number(relative_min_variance, "em.relative_min_variance",
                                            low=0.0, low_open=True)
        if min_variance is not None and relative_min_variance is not None:
            raise ValueError("em: give min_variance or relative_min_variance, not both.")
        return super().__new__(cls, init, tol, max_iter, min_variance, relative_min_variance)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "EMSettings":
        """The EM settings among ``values`` (other keys are not EM settings and are left out)."""
        return cls(**{key: values[key] for key in cls._fields if values.get(key) is not None})

    def as_kwargs(self) -> dict[str, Any]:
        """The settings given, as keyword arguments of a mixture estimator."""
        return {key: value for key, value in self._asdict().items() if value is not None}


class _ProtocolFields(NamedTuple):
    n_folds: int
    cv_repeats: int
    group_duplicates: bool
    significance_level: float


class ComparisonProtocol(_ProtocolFields):
    """How the comparison resamples every model and tests the differences.

    Parameters
    ----------
    n_folds : int >= 2
        ``K`` of the stratified K-fold cross-validation.
    cv_repeats : int >= 1
        ``r``: seeded fold assignments of the r x K-fold cross-validation.
    group_duplicates : bool
        Keep identical rows (features and class) in one fold.
    significance_level : float in (0, 1)
        Of the significance tests; the comparison's intervals are at level
        ``1 - significance_level``.
    """

    __slots__ = ()

    def __new__(cls, n_folds: int, cv_repeats: int, group_duplicates: bool,
                significance_level: float) -> "ComparisonProtocol":
        if not isinstance(group_duplicates, bool):
            raise ValueError(f"comparison.group_duplicates: expected true or false, got "
                             f"{group_duplicates!r}.")
        return super().__new__(
            cls, _integer(n_folds, 2, "comparison.n_folds"),
            _integer(cv_repeats, 1, "comparison.cv_repeats"), group_duplicates,
            _number(significance_level, "comparison.significance_level", low=0.0, high=1.0,
                    low_open=True))

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> "ComparisonProtocol":
        """The protocol of the config's ``comparison`` section (checked by the schema)."""
        return cls(section["n_folds"], section["cv_repeats"], section["group_duplicates"],
                   section["significance_level"])


class StudySettings(NamedTuple):
    """The typed settings of a study, built once from its config by :func:`study_settings`.

    Attributes
    ----------
    em : EMSettings
        The ``em`` section: the EM settings of every mixture.
    comparison : ComparisonProtocol or None
        How the comparison resamples and tests; None when the config runs no comparison
        (it has no ``comparison`` section).
    """

    em: EMSettings
    comparison: ComparisonProtocol | None


def study_settings(config: Mapping[str, Any]) -> StudySettings:
    """The typed settings of a config already checked by its schema (every ``em`` key given)."""
    comparison = config["comparison"] if "comparison" in config else None
    return StudySettings(EMSettings.from_mapping(config["em"]),
                         None if comparison is None else ComparisonProtocol.from_config(comparison))

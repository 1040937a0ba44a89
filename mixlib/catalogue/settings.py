"""The study's typed settings: immutable records, validated once when they are built.

:class:`EMSettings` holds the EM settings of every Gaussian mixture (the config's ``em``
section; :func:`mixlib.catalogue.registry.make_mixture` builds the study's mixture classifier
from them), :class:`ComparisonProtocol` how the comparison resamples and tests (``comparison``),
:class:`SemiSupervisedSettings` how the semi-supervised methods run and are scored
(``semisupervised``).
The pipeline builds each once from the config (:func:`study_settings`, which
:func:`mixlib.pipeline.config_checks.validate_study_config` returns) and passes it whole to the
stages; a stage never picks keys out of a dict.

They are immutable typed tuples (:class:`typing.NamedTuple`) rather than dataclasses on purpose:
a rule hands them to its jobs as Snakemake parameters, and Snakemake reruns a job whose
parameters changed only for values it can write down, builtins and tuples among them; a
dataclass parameter would be skipped, and changing an EM setting would rerun nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from mixlib.core.vocabulary import FINISHES, RESTARTS, UNCLASSIFIABLE_RULES

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


def _choice(value: Any, choices: tuple[str, ...], key: str) -> str:
    if value not in choices:
        raise ValueError(f"{key}: expected one of {list(choices)}, got {value!r}.")
    return value


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

    def with_relative_floor(self, floor: float) -> "EMSettings":
        """These settings with the variance floor ``relative_min_variance = floor`` in place of
        their own floor (``min_variance`` or ``relative_min_variance``): a point of the
        sensitivity grid's floors."""
        return EMSettings(**{**self._asdict(), "min_variance": None,
                             "relative_min_variance": floor})


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


class _SemiSupervisedFields(NamedTuple):
    threshold: float
    max_rounds: int | None = None
    restart: str | None = None
    finish: str | None = None
    unclassifiable: tuple[str, ...] = UNCLASSIFIABLE_RULES


class SemiSupervisedSettings(_SemiSupervisedFields):
    """How the semi-supervised methods run and how their models are scored (report ch. 5).

    Parameters
    ----------
    threshold : float in [0, 1)
        The confidence threshold: the iterative method assigns an unknown example when its top
        posterior is strictly greater, and the ``confidence`` rule counts an example
        unclassifiable when its top posterior is at or below it.
    max_rounds : int >= 1 or None
        At most this many labelling rounds (iterative method) or soft-label refits (prior
        method).
    restart : {"warm", "fresh"} or None
        Prior method: how each refit starts EM.
    finish : {"argmax", "stop"} or None
        Iterative method: what happens to the unknowns left when a round assigns nothing.
    unclassifiable : tuple of {"confidence", "underflow"}
        The distinct rules the unknown error is measured under (default: every rule,
        :data:`~mixlib.core.vocabulary.UNCLASSIFIABLE_RULES`); the first is the reading the
        claims are judged under.

    A method setting left None takes each method's own default, from the ``__init__`` of
    :class:`~mixlib.semi_supervised.IterativeClassifier` or
    :class:`~mixlib.semi_supervised.PriorProbabilityClassifier` (the one place it is written;
    the two methods' round limits differ); the study's config gives every one (the schema
    requires them).

    Raises
    ------
    ValueError
        Naming the ``semisupervised`` key of a value out of range.
    """

    __slots__ = ()

    def __new__(cls, threshold: float, max_rounds: int | None = None, restart: str | None = None,
                finish: str | None = None,
                unclassifiable: Sequence[str] = UNCLASSIFIABLE_RULES) -> "SemiSupervisedSettings":
        threshold = _number(threshold, "semisupervised.threshold", low=0.0, high=1.0)
        if max_rounds is not None:
            max_rounds = _integer(max_rounds, 1, "semisupervised.max_rounds")
        if restart is not None:
            restart = _choice(restart, RESTARTS, "semisupervised.restart")
        if finish is not None:
            finish = _choice(finish, FINISHES, "semisupervised.finish")
        rules = (unclassifiable,) if isinstance(unclassifiable, str) else tuple(unclassifiable)
        if not rules or len(set(rules)) != len(rules):
            raise ValueError(f"semisupervised.unclassifiable: expected distinct rules, got "
                             f"{list(rules)}.")
        for rule in rules:
            _choice(rule, UNCLASSIFIABLE_RULES, "semisupervised.unclassifiable")
        return super().__new__(cls, threshold, max_rounds, restart, finish, rules)

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> "SemiSupervisedSettings":
        """The settings of the config's ``semisupervised`` section (checked by the schema)."""
        return cls(section["threshold"], section["max_rounds"], section["restart"],
                   section["finish"], section["unclassifiable"])

    def replaced(self, **changes: Any) -> "SemiSupervisedSettings":
        """These settings with ``changes`` (e.g. one reading of the sensitivity grid), checked
        again."""
        return SemiSupervisedSettings(**{**self._asdict(), **changes})


class StudySettings(NamedTuple):
    """The typed settings of a study, built once from its config by :func:`study_settings`.

    Attributes
    ----------
    em : EMSettings
        The ``em`` section: the EM settings of every mixture.
    comparison : ComparisonProtocol or None
        How the comparison resamples and tests; None when the config runs no comparison
        (it has no ``comparison`` section).
    semisupervised : SemiSupervisedSettings or None
        How the semi-supervised methods run and are scored; None when the config runs no
        semi-supervised stage (it has no ``semisupervised`` section).
    """

    em: EMSettings
    comparison: ComparisonProtocol | None
    semisupervised: SemiSupervisedSettings | None


def study_settings(config: Mapping[str, Any]) -> StudySettings:
    """The typed settings of a config already checked by its schema (every ``em`` key given)."""
    return StudySettings(
        EMSettings.from_mapping(config["em"]),
        ComparisonProtocol.from_config(config["comparison"]) if "comparison" in config else None,
        SemiSupervisedSettings.from_config(config["semisupervised"])
        if "semisupervised" in config else None)

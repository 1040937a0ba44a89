"""Iterative classification (self-training) with a mixture classifier (report section 5.1, fig. 5.1)."""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field

from typing import Any

import numpy as np

from mixlib.core.vocabulary import FINISHES
from mixlib.mixture import MixtureClassifier
from mixlib.semi_supervised.base import (
    RoundCallback,
    SemiSupervisedMixin,
    check_choice,
    check_fraction,
    check_max_iter,
    notify,
    stack_labelled,
    tidy_labels,
)

logger = logging.getLogger(__name__)


@dataclass
class _Rounds:
    """The labels and counters of an :class:`IterativeClassifier` fit, round after round."""

    transduction: np.ndarray
    labeled_iter: np.ndarray
    has_label: np.ndarray
    assigned_labels: np.ndarray
    records: dict[str, list[int]] = field(default_factory=lambda: {
        "n_labelled": [], "n_unknown": [], "n_assigned": [], "n_argmax": []})
    n_iter: int = 0
    n_by_argmax: int = 0
    termination: str = "all_labeled"

    def record_round(self) -> None:
        """Counters of the model just fit: its examples, the unknowns left, none assigned yet."""
        self.records["n_labelled"].append(int(self.has_label.sum()))
        self.records["n_unknown"].append(int((~self.has_label).sum()))
        self.records["n_assigned"].append(0)
        self.records["n_argmax"].append(0)

    def copy(self) -> "_Rounds":
        """An independent copy (arrays and counters lists copied)."""
        return _Rounds(self.transduction.copy(), self.labeled_iter.copy(), self.has_label.copy(),
                       self.assigned_labels.copy(),
                       {key: list(values) for key, values in self.records.items()},
                       self.n_iter, self.n_by_argmax, self.termination)


class IterativeClassifier(SemiSupervisedMixin):
    """Iterative classification (self-training) with a mixture classifier (report section 5.1).

    Parameters
    ----------
    estimator : MixtureClassifier or None, default=None
        The classifier refit every round (cloned first; ``None``: ``MixtureClassifier()``, 4
        kernels per class).
    threshold : float in [0, 1), default=0.75
        Confidence margin of the report: an unknown example is assigned its argmax class when
        its top posterior is *strictly greater* than ``threshold``, ``max_c p(c | x) >
        threshold`` (report: "la classe dont la probabilité est la plus forte parmi toutes les
        classes de probabilité supérieure à une certaine marge de confiance"), and the
        estimator does not flag it unclassifiable (its ``margin`` rule: with the default
        ``margin=0``, exact ties only). This is scikit-learn's
        ``SelfTrainingClassifier(criterion="threshold")`` rule.
    max_iter : int or None, default=10
        Maximum number of labelling rounds by threshold (scikit-learn's ``max_iter``);
        ``None``: no limit.
    finish : {"argmax", "stop"}, default="argmax"
        What happens when a round assigns nothing (or ``max_iter`` is reached) while unknowns
        are left. ``"argmax"``: they all get their top-posterior class in a last round and the
        model is refit on every example (the report: "until every unknown is classified").
        ``"stop"``: they stay unknown (scikit-learn's behaviour).
    unlabelled_label : object, default=-1
        Marks the unlabelled rows of ``y`` in :meth:`fit` (``None`` and NaN always do).
    random_state : None, int or numpy.random.Generator, default=None
        If not None, replaces the estimator's ``random_state`` (one generator then drives the
        initialisations of all rounds); if None the estimator's own is used as it is (an int
        then restarts the same stream at every round, as in scikit-learn).

    Attributes
    ----------
    estimator_ : MixtureClassifier
        The final model: fit on the originally labelled plus all assigned examples.
    classes_ : ndarray of shape (n_classes,)
    transduction_ : ndarray of shape (n_samples,)
        Labels of the training rows: the given ones, the assigned ones, and
        ``unlabelled_label`` for rows never assigned (object array if types differ).
    labeled_iter_ : ndarray of int of shape (n_samples,)
        0 for rows labelled from the start, ``r`` for rows assigned in round ``r`` (1-based,
        as scikit-learn), -1 for rows never assigned.
    n_features_in_ : int
        Columns of ``X`` seen by :meth:`fit`.
    n_iter_ : int
        Rounds run, that is models fit: round 0 (the labelled examples only) and every round
        after one that assigned unknowns (the argmax round included); the length of the
        arrays of ``history_``, at least 1.
    n_assigned_by_argmax_ : int
        Unknowns assigned by the final argmax round (0 with ``finish="stop"``).
    termination_condition_ : {"all_labeled", "no_change", "max_iter", "argmax"}
        Every row labelled by threshold / no unknown cleared the threshold / round limit (both
        with ``finish="stop"``) / the unknowns left were assigned by argmax.
    history_ : dict of str to ndarray of int of shape (n_rounds,)
        The wrapper's own record of every fitted model, ``round`` = 0, 1, ...: model ``r``
        is fit after ``r`` labelling rounds (round 0: the labelled examples only). Keys
        ``n_labelled`` (examples the model was fit on), ``n_unknown`` (unlabelled examples
        not yet assigned when it was fit), ``n_assigned`` (unknowns this model then
        assigned; 0 for the final model) and ``n_argmax`` (of those, assigned by argmax).
        Scores of each round come from a ``callback`` of :meth:`fit`.

    Notes
    -----
    Round ``r`` (``L_0`` = the labelled examples, ``U_0`` = the unlabelled ones)::

        fit the estimator on L_r
        stop if U_r is empty
        A = {x in U_r : max_c p(c | x) > threshold and x classifiable}   (empty if r == max_iter)
        if A is empty:
            stop                                   (finish="stop": the model of round r is final)
            A = U_r                                (finish="argmax": one last round)
        L_{r+1} = L_r + A with labels argmax_c p(c | x),  U_{r+1} = U_r - A

    With ``finish="stop"`` the pseudo-labels and ``labeled_iter_`` equal scikit-learn's
    ``SelfTrainingClassifier`` with the same estimator and ``random_state`` int;
    scikit-learn refits once more after a round that assigned nothing, on the same examples,
    which here is skipped. Its ``n_iter_`` does not count its final fit: it is ours less one,
    or ours when our last model tried the unknowns and assigned none (its uncounted final fit
    is then that repeated one).

    sklearn check not passed: check_classifiers_classes — a label equal to unlabelled_label
    (-1 by default, scikit-learn's mark of an unlabelled row) is read as unlabelled, so the
    check's classes -1 and 1 leave one known class; give unlabelled_label a value that is
    not a class.
    """

    def __init__(
        self,
        estimator: MixtureClassifier | None = None,
        *,
        threshold: float = 0.75,
        max_iter: int | None = 10,
        finish: str = "argmax",
        unlabelled_label=-1,
        random_state=None,
    ) -> None:
        self.estimator = estimator
        self.threshold = threshold
        self.max_iter = max_iter
        self.finish = finish
        self.unlabelled_label = unlabelled_label
        self.random_state = random_state

    def fit(self, X, y, *, callback: RoundCallback | None = None) -> "IterativeClassifier":
        """Self-train on ``X``; the rows with unknown ``y`` are the unlabelled examples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Classes; ``unlabelled_label`` (default -1), ``None`` or NaN for unlabelled rows.
        callback : callable, optional
            Called as ``callback(RoundState(round, estimator))`` right after the model of
            every round is fit (round 0 included), e.g. to score it on held-out data; its
            return value is ignored and the fit does not depend on it.

        Returns
        -------
        self : IterativeClassifier
        """
        check_choice(self.finish, "finish", FINISHES)
        self._self_train(X, y, callback, keep_stop=False)
        return self

    def fit_finishes(self, X, y, *,
                     callback: RoundCallback | None = None) -> dict[str, "IterativeClassifier"]:
        """Fit under both finishes at the cost of one fit.

        The ``"stop"`` fit is the ``"argmax"`` fit cut before its argmax round: both fit the
        same models with the same random stream up to that round (the initialisations of
        every round come from the estimator's generator, which the decision to stop or to
        assign by argmax does not draw from). So one run of the ``"argmax"`` fit, copied at
        that round, gives both.

        Parameters
        ----------
        X, y :
            As in :meth:`fit`.
        callback : callable, optional
            As in :meth:`fit`, called for every round of the ``"argmax"`` fit; the rounds of
            the ``"stop"`` fit are its first ``len(fits["stop"].history_["n_labelled"])``.

        Returns
        -------
        fits : dict of str to IterativeClassifier
            ``{"argmax": ..., "stop": ...}``: copies of this classifier with that ``finish``,
            each fitted as :meth:`fit` leaves it (same attributes, same final model). This
            object itself is left as it was.
        """
        argmax = copy.copy(self)
        argmax.finish = "argmax"
        stop = argmax._self_train(X, y, callback, keep_stop=True)
        return {"argmax": argmax, "stop": stop}

    def _self_train(self, X, y, callback: RoundCallback | None, *,
                    keep_stop: bool) -> "IterativeClassifier | None":
        """The rounds of the class docstring's Notes, under ``self.finish``; sets the fit.

        With ``keep_stop`` (and ``finish="argmax"``), the state where a ``"stop"`` fit would
        end is copied into a second classifier with ``finish="stop"``, fitted as :meth:`fit`
        would leave it, and returned (None without ``keep_stop``).
        """
        threshold = check_fraction(self.threshold, "threshold")
        check_max_iter(self.max_iter)
        X, y, unlabelled, y_known = self._split(X, y)
        estimator = self._make_estimator()
        classes = np.unique(y_known)
        state = _Rounds(
            transduction=np.array(y, dtype=object),
            labeled_iter=np.where(unlabelled, -1, 0),
            has_label=~unlabelled,
            assigned_labels=np.empty(len(y), dtype=classes.dtype),
        )
        state.assigned_labels[state.has_label] = y_known
        stopped = None
        while True:
            round_ = len(state.records["n_labelled"])
            estimator.fit(X[state.has_label], state.assigned_labels[state.has_label], classes=classes)
            notify(callback, round_, estimator)
            state.record_round()
            logger.info("iterative round %d: fit on %d examples, %d unknown", round_,
                        state.records["n_labelled"][-1], state.records["n_unknown"][-1])
            if state.has_label.all():
                break
            pending = np.nonzero(~state.has_label)[0]
            proba, undecided = estimator.proba_and_unclassifiable(X[pending])
            at_limit = self.max_iter is not None and round_ == self.max_iter
            if at_limit:
                chosen = np.zeros(len(pending), dtype=bool)
            else:
                chosen = (proba.max(axis=1) > threshold) & ~undecided
            if not chosen.any():
                # A "stop" fit ends here: at the round limit before counting the round.
                n_iter = state.n_iter if at_limit else state.n_iter + 1
                ending = "max_iter" if at_limit or n_iter == self.max_iter else "no_change"
                if self.finish == "stop":
                    state.n_iter, state.termination = n_iter, ending
                    break
                if keep_stop:
                    stopped = self._stopped_copy(state, estimator, n_iter, ending)
                state.n_iter += 1
                chosen[:] = True
                state.n_by_argmax = len(pending)
                state.records["n_argmax"][-1] = state.n_by_argmax
                state.termination = "argmax"
            else:
                state.n_iter += 1
            chosen_rows = pending[chosen]
            state.records["n_assigned"][-1] = int(chosen.sum())
            state.assigned_labels[chosen_rows] = estimator.classes_[proba[chosen].argmax(axis=1)]
            state.transduction[chosen_rows] = state.assigned_labels[chosen_rows]
            state.labeled_iter[chosen_rows] = state.n_iter
            state.has_label[chosen_rows] = True
        if keep_stop and stopped is None:  # every row labelled by threshold: the same fit
            stopped = self._stopped_copy(state, estimator, state.n_iter, state.termination)
        self._set_fitted(state, estimator)
        return stopped

    def _stopped_copy(self, state: "_Rounds", estimator: MixtureClassifier, n_iter: int,
                      termination: str) -> "IterativeClassifier":
        """A copy of this classifier with ``finish="stop"``, fitted as it ends at ``state``
        with ``estimator`` (both copied, since the ``"argmax"`` rounds go on with them)."""
        stopped = copy.copy(self)
        stopped.finish = "stop"
        ended = state.copy()
        ended.n_iter, ended.termination = n_iter, termination
        stopped._set_fitted(ended, _fitted_copy(estimator))
        return stopped

    def _set_fitted(self, state: "_Rounds", estimator: MixtureClassifier) -> None:
        """The fitted attributes (class docstring) from the rounds' ``state``."""
        self.estimator_ = estimator
        self.classes_ = estimator.classes_
        self.transduction_ = tidy_labels(state.transduction)
        self.labeled_iter_ = state.labeled_iter
        self.n_iter_ = len(state.records["n_labelled"])
        self.n_assigned_by_argmax_ = state.n_by_argmax
        self.termination_condition_ = state.termination
        self.history_ = {key: np.array(values, dtype=int) for key, values in state.records.items()}


def _fitted_copy(estimator: MixtureClassifier) -> MixtureClassifier:
    """A copy of a fitted classifier that the estimator's later fits leave as it is.

    ``MixtureClassifier.fit`` rebinds every fitted attribute to new objects (a new list of new
    class mixtures; no array is changed in place, here or by the mixtures), so the copy
    shares the fitted arrays: the classifier and each class mixture are copied shallowly.
    A :class:`numpy.random.Generator` among their ``random_state`` is copied (one copy for
    each generator, as ``copy.deepcopy`` of the whole would give), since the next fit draws
    from it. This replaces a ``deepcopy``, which cost a millisecond per copy.
    """
    generators: dict[int, np.random.Generator] = {}

    def detached(model: Any) -> Any:
        twin = copy.copy(model)
        rng = model.random_state
        if isinstance(rng, np.random.Generator):
            if id(rng) not in generators:
                generators[id(rng)] = copy.deepcopy(rng)
            twin.random_state = generators[id(rng)]
        return twin

    twin = detached(estimator)
    twin.mixtures_ = [detached(mixture) for mixture in estimator.mixtures_]
    return twin


def iterative_classification(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    *,
    callback: RoundCallback | None = None,
    **params: Any,
) -> IterativeClassifier:
    """Run :class:`IterativeClassifier` on labelled and unlabelled arrays.

    Parameters
    ----------
    X_labelled : ndarray of shape (n_labelled, n_features)
    y_labelled : ndarray of shape (n_labelled,)
    X_unlabelled : ndarray of shape (n_unlabelled, n_features)
    callback : callable, optional
        As in :meth:`IterativeClassifier.fit`.
    **params
        Parameters of :class:`IterativeClassifier` (``estimator``, ``threshold``,
        ``max_iter``, ``finish``, ``random_state``); one left out takes its default there.

    Returns
    -------
    classifier : IterativeClassifier
        Fitted; rows ``0 .. n_labelled - 1`` of its ``transduction_`` are the labelled
        examples, the rest the unlabelled ones in order (``None`` if never assigned).
    """
    X, y = stack_labelled(X_labelled, y_labelled, X_unlabelled)
    clf = IterativeClassifier(unlabelled_label=None, **params)
    return clf.fit(X, y, callback=callback)


def iterative_classification_finishes(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    *,
    callback: RoundCallback | None = None,
    **params: Any,
) -> dict[str, IterativeClassifier]:
    """:func:`iterative_classification` under both finishes, from one fit.

    Parameters are those of :func:`iterative_classification` but ``finish``; ``callback`` sees
    the rounds of the ``"argmax"`` fit (:meth:`IterativeClassifier.fit_finishes`).

    Returns
    -------
    fits : dict of str to IterativeClassifier
        ``{"argmax": ..., "stop": ...}``, each what :func:`iterative_classification` returns
        with that ``finish``.
    """
    X, y = stack_labelled(X_labelled, y_labelled, X_unlabelled)
    clf = IterativeClassifier(unlabelled_label=None, **params)
    return clf.fit_finishes(X, y, callback=callback)

"""Learning from unlabelled examples with the mixture classifier (report ch. 5, STUDY.md section 3).

Two wrappers around :class:`~mixlib.mixture.gaussian_mixture.MixtureClassifier`:

- :class:`IterativeClassifier` (report section 5.1, fig. 5.1): self-training. Each round fits
  the classifier on the labelled set, classifies the unknowns and moves those whose top
  posterior clears a confidence threshold into the labelled set, with that class; when a
  round moves none, the unknowns left get their top-posterior class in a last round
  (``finish="argmax"``: the report repeats "until every unknown is classified").
- :class:`PriorProbabilityClassifier` (report section 5.2, figs. 5.2-5.3): every training
  example carries a prior ``q(c | x)``, one-hot for the labelled ones; the unlabelled ones get
  the posteriors of the current model and the classifier is refit by the weighted EM
  (``MixtureClassifier.fit(X, soft_labels=Q, classes=...)``) until no argmax class changes.
  Each refit continues EM from the previous round's parameters (``restart="warm"``, the
  report's outer loop around one EM) or starts anew (``restart="fresh"``).

Both record one row per fitted model in ``history_`` (a :class:`pandas.DataFrame`), with the
counters of the report, measured under each *unclassifiable rule* of ``unclassifiable_rules``
(:data:`UNCLASSIFIABLE_RULES`; see :func:`unclassifiable_mask`):

- ``hard_error_<rule>``: share of the *originally labelled* examples that the model classifies
  (not unclassifiable under the rule) into a class other than their label;
- ``unknown_error_<rule>``: share of the originally labelled examples that the model cannot
  classify under the rule;
- ``unknown`` (iterative): share of the unlabelled examples not yet assigned a class when
  the model was fit; ``flips`` (prior): share of the unlabelled examples whose argmax class
  changed since the previous round.

The report states two rules, which we read as follows:

- ``"confidence"``: the top posterior is at or below the confidence threshold, the rule by
  which the iterative method leaves an example unknown ("impossible to classify");
- ``"underflow"``: every class density underflows to 0 in linear-space float64 arithmetic, so
  the posteriors are ``1/C`` and the example lies "exactly on the boundary, preventing any
  decision" (the prior method's wording). This is our reading of the original program, which
  computed densities as plain products of doubles; see
  :meth:`~mixlib.mixture.gaussian_mixture.MixtureClassifier.underflow_mask` for the exact formula.

The classification itself (argmax of the log-space posteriors) is the same under every rule.
The denominator of the two errors is the fixed set of examples labelled at the start (not the
grown set of the iterative method, whose pseudo-labels the model agrees with by construction),
so the two methods and all rounds are measured on the same examples. When test data are given
to ``fit``, every row also holds ``test_hard_error_<rule>`` and ``test_unknown_error_<rule>``
(same definitions on the test set).

Functions :func:`iterative_classification` and :func:`prior_probability_classification`
take the labelled and unlabelled examples as separate arrays and return the fitted
wrapper and its history.
"""

from __future__ import annotations

import logging
import numbers
import warnings

import numpy as np
import pandas as pd

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.validation import check_array, check_is_fitted, check_random_state
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import MixtureClassifier

logger = logging.getLogger(__name__)


def unlabelled_mask(y, unlabelled_label=-1) -> np.ndarray:
    """True for the entries of ``y`` whose class is unknown, shape (n_samples,).

    Unknown: ``None``, a float NaN, or a value equal to ``unlabelled_label`` (scikit-learn
    marks unlabelled samples with -1).
    """
    values = np.asarray(y, dtype=object)
    if values.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {values.shape}.")
    return np.array(
        [v is None or (isinstance(v, float) and np.isnan(v)) or bool(v == unlabelled_label) for v in values],
        dtype=bool,
    )


#: The unclassifiable rules of the study (see the module docstring).
UNCLASSIFIABLE_RULES = ("confidence", "underflow")


def unclassifiable_mask(classifier: MixtureClassifier, X: np.ndarray, rule: str,
                        threshold: float = 0.75) -> np.ndarray:
    """Examples a fitted classifier cannot classify under ``rule``, shape (n_samples,).

    Parameters
    ----------
    classifier : fitted MixtureClassifier
    X : ndarray of shape (n_samples, n_features)
    rule : {"confidence", "underflow", "margin"}
        ``"confidence"``: ``max_c p(c | x) <= threshold``. ``"underflow"``: every class
        density is 0 in linear-space float64
        (:meth:`~mixlib.mixture.gaussian_mixture.MixtureClassifier.underflow_mask`). ``"margin"``: the
        classifier's own rule (:meth:`~mixlib.mixture.gaussian_mixture.MixtureClassifier.unclassifiable`: the
        two top posteriors differ by at most its ``margin``, by default exact ties only).
    threshold : float
        The confidence threshold (``"confidence"`` only).
    """
    if rule == "confidence":
        return classifier.predict_proba(X).max(axis=1) <= threshold
    if rule == "underflow":
        return classifier.underflow_mask(X)
    if rule == "margin":
        return classifier.unclassifiable(X)
    raise ValueError(f"unclassifiable rule must be one of {UNCLASSIFIABLE_RULES + ('margin',)}, got {rule!r}.")


def label_errors(classifier: MixtureClassifier, X: np.ndarray, y: np.ndarray,
                 rule: str = "margin", threshold: float = 0.75) -> tuple[float, float]:
    """Hard error and unknown error of a fitted classifier on labelled examples.

    Parameters
    ----------
    classifier : fitted MixtureClassifier
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        True classes.
    rule, threshold :
        The unclassifiable rule, as in :func:`unclassifiable_mask`.

    Returns
    -------
    hard_error : float
        ``mean_n [not u_n and argmax_c p(c | x_n) != y_n]``, ``u`` the unclassifiable mask.
    unknown_error : float
        ``mean_n u_n``. The two are disjoint: ``1 - hard - unknown`` is the share classified
        correctly.
    """
    predicted = classifier.classes_[classifier.predict_proba(X).argmax(axis=1)]
    undecided = unclassifiable_mask(classifier, X, rule, threshold)
    return float(np.mean(~undecided & (predicted != y))), float(np.mean(undecided))


def _check_rules(rules) -> tuple[str, ...]:
    rules = (rules,) if isinstance(rules, str) else tuple(rules)
    unknown = [rule for rule in rules if rule not in UNCLASSIFIABLE_RULES]
    if not rules or unknown or len(set(rules)) != len(rules):
        raise ValueError(
            f"unclassifiable must list distinct rules among {UNCLASSIFIABLE_RULES}, got {list(rules)}."
        )
    return rules


def _check_choice(value, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")
    return value


def _check_fraction(value, name: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a real number in [0, 1), got {value!r}.")
    return float(value)


def _check_max_iter(value) -> None:
    if value is not None and (not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0):
        raise ValueError(f"max_iter must be None or a non-negative int, got {value!r}.")


class _SemiSupervised(ClassifierMixin, BaseEstimator):
    """Shared parts: estimator set-up, data split, delegation of prediction."""

    def _make_estimator(self) -> MixtureClassifier:
        estimator = MixtureClassifier() if self.estimator is None else clone(self.estimator)
        if self.random_state is not None:
            estimator.set_params(random_state=check_random_state(self.random_state))
        return estimator

    def _split(self, X, y, X_test, y_test):
        X = check_array(X)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
        unlabelled = unlabelled_mask(y, self.unlabelled_label)
        if unlabelled.all():
            raise ValueError("y has no labelled example: at least one per class is needed.")
        y_known = y[~unlabelled]
        if y_known.dtype == object:
            y_known = np.array(y_known.tolist())
        if (X_test is None) != (y_test is None):
            raise ValueError("Give both X_test and y_test, or neither.")
        if X_test is not None:
            X_test = check_array(X_test, name="X_test")
            y_test = np.asarray(y_test)
            if y_test.shape != (X_test.shape[0],):
                raise ValueError(f"y_test must have shape ({X_test.shape[0]},), got {y_test.shape}.")
        return X, y, unlabelled, y_known, X_test, y_test

    def _errors(self, estimator, X_known, y_known, X_test, y_test) -> dict[str, float]:
        """``hard_error_<rule>``, ``unknown_error_<rule>`` (and ``test_...``) for every rule."""
        row = {}
        threshold = _check_fraction(self.threshold, "threshold")
        for rule in _check_rules(self.unclassifiable_rules):
            sets = [("", X_known, y_known)] + ([("test_", X_test, y_test)] if X_test is not None else [])
            for prefix, X, y in sets:
                hard, unknown = label_errors(estimator, X, y, rule, threshold)
                row[f"{prefix}hard_error_{rule}"] = hard
                row[f"{prefix}unknown_error_{rule}"] = unknown
        return row

    def predict_proba(self, X) -> np.ndarray:
        """Posteriors of the final model, shape (n_samples, n_classes)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """Classes predicted by the final model, shape (n_samples,)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def unclassifiable(self, X) -> np.ndarray:
        """Unclassifiable mask of the final model, shape (n_samples,)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.unclassifiable(X)


class IterativeClassifier(_SemiSupervised):
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
        ``SelfTrainingClassifier(criterion="threshold")`` rule. The ``"confidence"``
        unclassifiable rule uses the same threshold.
    max_iter : int or None, default=10
        Maximum number of labelling rounds by threshold (scikit-learn's ``max_iter``);
        ``None``: no limit.
    finish : {"argmax", "stop"}, default="argmax"
        What happens when a round assigns nothing (or ``max_iter`` is reached) while unknowns
        are left. ``"argmax"``: they all get their top-posterior class in a last round and the
        model is refit on every example (the report: "until every unknown is classified").
        ``"stop"``: they stay unknown (scikit-learn's behaviour).
    unclassifiable_rules : sequence of {"confidence", "underflow"}, default=("confidence", "underflow")
        The rules under which ``history_`` measures the hard and unknown errors.
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
    n_iter_ : int
        Rounds in which the unknowns were classified (the argmax round included).
    n_assigned_by_argmax_ : int
        Unknowns assigned by the final argmax round (0 with ``finish="stop"``).
    termination_condition_ : {"all_labeled", "no_change", "max_iter", "argmax"}
        Every row labelled by threshold / no unknown cleared the threshold / round limit (both
        with ``finish="stop"``) / the unknowns left were assigned by argmax.
    history_ : pandas.DataFrame
        One row per fitted model, ``round`` = 0, 1, ...: model ``r`` is fit after ``r``
        labelling rounds (round 0: the labelled examples only). Columns ``round``,
        ``n_labelled`` (examples the model was fit on), ``unknown`` (share of the unlabelled
        examples not yet assigned when it was fit; 0 when there are none), ``n_assigned``
        (unknowns this model then assigned; 0 for the final model), ``n_argmax`` (of those,
        assigned by argmax), and ``hard_error_<rule>``, ``unknown_error_<rule>`` (on the
        originally labelled examples, see the module docstring) and, with test data,
        ``test_hard_error_<rule>``, ``test_unknown_error_<rule>`` for every rule.

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

    With ``finish="stop"`` the pseudo-labels and ``n_iter_`` equal scikit-learn's
    ``SelfTrainingClassifier`` with the same estimator and ``random_state`` int;
    scikit-learn refits once more after a round that assigned nothing, on the same examples,
    which here is skipped.
    """

    def __init__(
        self,
        estimator: MixtureClassifier | None = None,
        *,
        threshold: float = 0.75,
        max_iter: int | None = 10,
        finish: str = "argmax",
        unclassifiable_rules=UNCLASSIFIABLE_RULES,
        unlabelled_label=-1,
        random_state=None,
    ) -> None:
        self.estimator = estimator
        self.threshold = threshold
        self.max_iter = max_iter
        self.finish = finish
        self.unclassifiable_rules = unclassifiable_rules
        self.unlabelled_label = unlabelled_label
        self.random_state = random_state

    def fit(self, X, y, *, X_test=None, y_test=None) -> "IterativeClassifier":
        """Self-train on ``X``; the rows with unknown ``y`` are the unlabelled examples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Classes; ``unlabelled_label`` (default -1), ``None`` or NaN for unlabelled rows.
        X_test : array-like of shape (n_test, n_features), optional
        y_test : array-like of shape (n_test,), optional
            Only monitored: the test errors of every round go into ``history_``.
        """
        threshold = _check_fraction(self.threshold, "threshold")
        _check_max_iter(self.max_iter)
        _check_choice(self.finish, "finish", ("argmax", "stop"))
        _check_rules(self.unclassifiable_rules)
        X, y, unlabelled, y_known, X_test, y_test = self._split(X, y, X_test, y_test)
        X_known = X[~unlabelled]
        estimator = self._make_estimator()
        classes = np.unique(y_known)
        transduction = np.array(y, dtype=object)
        labeled_iter = np.where(unlabelled, -1, 0)
        has_label = ~unlabelled
        n_unlabelled = int(unlabelled.sum())
        assigned_labels = np.empty(len(y), dtype=classes.dtype)
        assigned_labels[has_label] = y_known
        rows = []
        n_iter = 0
        n_by_argmax = 0
        termination = "all_labeled"
        while True:
            round_ = len(rows)
            estimator.fit(X[has_label], assigned_labels[has_label], classes=classes)
            row = {
                "round": round_,
                "n_labelled": int(has_label.sum()),
                "unknown": float((~has_label).sum() / n_unlabelled) if n_unlabelled else 0.0,
                "n_assigned": 0,
                "n_argmax": 0,
                **self._errors(estimator, X_known, y_known, X_test, y_test),
            }
            rows.append(row)
            logger.info("iterative round %d: %s", round_, row)
            if has_label.all():
                break
            pending = np.nonzero(~has_label)[0]
            proba = estimator.predict_proba(X[pending])
            at_limit = self.max_iter is not None and round_ == self.max_iter
            if at_limit and self.finish == "stop":
                termination = "max_iter"
                break
            n_iter += 1
            if at_limit:
                chosen = np.zeros(len(pending), dtype=bool)
            else:
                chosen = (proba.max(axis=1) > threshold) & ~estimator.unclassifiable(X[pending])
            if not chosen.any():
                if self.finish == "stop":
                    termination = "max_iter" if n_iter == self.max_iter else "no_change"
                    break
                chosen[:] = True
                n_by_argmax = len(pending)
                row["n_argmax"] = n_by_argmax
                termination = "argmax"
            chosen_rows = pending[chosen]
            row["n_assigned"] = int(chosen.sum())
            assigned_labels[chosen_rows] = estimator.classes_[proba[chosen].argmax(axis=1)]
            transduction[chosen_rows] = assigned_labels[chosen_rows]
            labeled_iter[chosen_rows] = n_iter
            has_label[chosen_rows] = True
        self.estimator_ = estimator
        self.classes_ = estimator.classes_
        self.transduction_ = _tidy_labels(transduction)
        self.labeled_iter_ = labeled_iter
        self.n_iter_ = n_iter
        self.n_assigned_by_argmax_ = n_by_argmax
        self.termination_condition_ = termination
        self.history_ = pd.DataFrame(rows)
        return self


def _tidy_labels(values: np.ndarray) -> np.ndarray:
    """``values`` (object array) as a plain numpy array when all entries share one type."""
    if len({type(v) for v in values}) == 1:
        return np.array(values.tolist())
    return values


class PriorProbabilityClassifier(_SemiSupervised):
    """Mixture classifier trained with prior class probabilities on unlabelled data (report 5.2).

    Parameters
    ----------
    estimator : MixtureClassifier or None, default=None
        The classifier refit every round (cloned first; ``None``: ``MixtureClassifier()``).
    max_iter : int, default=20
        Maximum number of soft-label refits (rounds after the labelled-only round 0). Reaching
        it while labels still flip raises a ``ConvergenceWarning``.
    restart : {"warm", "fresh"}, default="warm"
        How each refit starts EM. ``"warm"``: from the previous round's fitted parameters
        (``MixtureClassifier(warm_start=True)``: same kernels, centres, widths and weights),
        so the rounds are one EM whose weights ``q`` are updated between iterations, the
        report's outer loop (fig. 5.2). ``"fresh"``: from a new random initialisation (the
        estimator's ``init`` with weights ``q``) every round.
    threshold : float in [0, 1), default=0.75
        Used only by the ``"confidence"`` unclassifiable rule.
    unclassifiable_rules : sequence of {"confidence", "underflow"}, default=("confidence", "underflow")
        The rules under which ``history_`` measures the hard and unknown errors.
    unlabelled_label : object, default=-1
        Marks the unlabelled rows of ``y`` in :meth:`fit` (``None`` and NaN always do).
    random_state : None, int or numpy.random.Generator, default=None
        As in :class:`IterativeClassifier`.

    Attributes
    ----------
    estimator_ : MixtureClassifier
        The final model.
    classes_ : ndarray of shape (n_classes,)
    soft_labels_ : ndarray of shape (n_samples, n_classes)
        Final priors ``q(c | x_n)`` of the training rows, columns in the order of ``classes_``:
        one-hot for the labelled rows, the final model's posteriors for the unlabelled ones.
    transduction_ : ndarray of shape (n_samples,)
        ``classes_[argmax_c q(c | x_n)]``: the given labels, and the final argmax class of the
        unlabelled rows.
    n_iter_ : int
        Soft-label refits performed.
    converged_ : bool
        Whether the last refit flipped no argmax class (True as well without unlabelled rows).
    history_ : pandas.DataFrame
        One row per fitted model, ``round`` = 0 (labelled examples only), 1, ... (refits on
        all examples with soft labels). Columns ``round``, ``n_flips`` and ``flips`` (number
        and share of the unlabelled examples whose argmax class under this model differs from
        that under the previous model; NaN in round 0), ``hard_error_<rule>``,
        ``unknown_error_<rule>`` (on the originally labelled examples) and with test data
        ``test_hard_error_<rule>``, ``test_unknown_error_<rule>``, for every rule.

    Notes
    -----
    With ``Q_0`` the one-hot rows of the labelled examples (report eq. 5.1 and fig. 5.2)::

        round 0:  fit on the labelled examples;        q_0(c | x) = p_0(c | x) on the unlabelled
        round r:  fit on all examples with priors [Q_0; q_{r-1}] (weighted EM: class c's mixture
                  weights example n by q(c | x_n)), starting from the parameters of round r-1
                  (restart="warm") or anew (restart="fresh");  q_r(c | x) = p_r(c | x)
                  flips_r = mean over unlabelled x of [argmax q_r(x) != argmax q_{r-1}(x)]
        stop at the first r >= 1 with flips_r = 0, or at r = max_iter.

    With ``restart="warm"`` each class keeps the kernel count of its round-0 mixture (at most
    its number of distinct labelled examples), since EM continues from those kernels. Argmax
    ties go to the first class.
    """

    def __init__(
        self,
        estimator: MixtureClassifier | None = None,
        *,
        max_iter: int = 20,
        restart: str = "warm",
        threshold: float = 0.75,
        unclassifiable_rules=UNCLASSIFIABLE_RULES,
        unlabelled_label=-1,
        random_state=None,
    ) -> None:
        self.estimator = estimator
        self.max_iter = max_iter
        self.restart = restart
        self.threshold = threshold
        self.unclassifiable_rules = unclassifiable_rules
        self.unlabelled_label = unlabelled_label
        self.random_state = random_state

    def fit(self, X, y, *, X_test=None, y_test=None) -> "PriorProbabilityClassifier":
        """Fit with one-hot priors on the labelled rows and posteriors on the unlabelled ones.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Classes; ``unlabelled_label`` (default -1), ``None`` or NaN for unlabelled rows.
        X_test : array-like of shape (n_test, n_features), optional
        y_test : array-like of shape (n_test,), optional
            Only monitored: the test errors of every round go into ``history_``.
        """
        _check_max_iter(self.max_iter)
        if self.max_iter is None:
            raise ValueError("max_iter must be a non-negative int for PriorProbabilityClassifier, got None.")
        _check_choice(self.restart, "restart", ("warm", "fresh"))
        _check_rules(self.unclassifiable_rules)
        X, y, unlabelled, y_known, X_test, y_test = self._split(X, y, X_test, y_test)
        X_known, X_unknown = X[~unlabelled], X[unlabelled]
        estimator = self._make_estimator()
        classes = np.unique(y_known)
        estimator.fit(X_known, y_known, classes=classes)
        estimator.set_params(warm_start=self.restart == "warm")
        Q = np.zeros((len(y), len(classes)))
        Q[np.nonzero(~unlabelled)[0], np.searchsorted(classes, y_known)] = 1.0
        rows = [{"round": 0, "n_flips": np.nan, "flips": np.nan,
                 **self._errors(estimator, X_known, y_known, X_test, y_test)}]
        converged = True
        n_iter = 0
        if unlabelled.any():
            q = estimator.predict_proba(X_unknown)
            converged = False
            for n_iter in range(1, self.max_iter + 1):
                Q[unlabelled] = q
                estimator.fit(X, soft_labels=Q, classes=classes)
                q_new = estimator.predict_proba(X_unknown)
                n_flips = int((q_new.argmax(axis=1) != q.argmax(axis=1)).sum())
                q = q_new
                rows.append({"round": n_iter, "n_flips": n_flips, "flips": n_flips / len(q),
                             **self._errors(estimator, X_known, y_known, X_test, y_test)})
                logger.info("prior-probability round %d: %s", n_iter, rows[-1])
                if n_flips == 0:
                    converged = True
                    break
            Q[unlabelled] = q
            if not converged:
                warnings.warn(
                    f"PriorProbabilityClassifier: {rows[-1]['n_flips']} unlabelled example(s) "
                    f"still changed class in the last of max_iter={self.max_iter} rounds; "
                    "increase max_iter.",
                    ConvergenceWarning,
                    stacklevel=2,
                )
        self.estimator_ = estimator
        self.classes_ = estimator.classes_
        self.soft_labels_ = Q
        self.transduction_ = classes[Q.argmax(axis=1)]
        self.n_iter_ = n_iter
        self.converged_ = converged
        self.history_ = pd.DataFrame(rows)
        return self


def _stack(X_labelled, y_labelled, X_unlabelled) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``[X_labelled; X_unlabelled]`` and labels with ``None`` for the unlabelled rows."""
    X_labelled = check_array(X_labelled, name="X_labelled")
    X_unlabelled = check_array(X_unlabelled, name="X_unlabelled", min_samples=0)
    if X_unlabelled.shape[1] != X_labelled.shape[1]:
        raise ValueError(
            f"X_unlabelled has {X_unlabelled.shape[1]} features, X_labelled {X_labelled.shape[1]}."
        )
    y_labelled = np.asarray(y_labelled)
    if y_labelled.shape != (X_labelled.shape[0],):
        raise ValueError(f"y_labelled must have shape ({X_labelled.shape[0]},), got {y_labelled.shape}.")
    y = np.concatenate([y_labelled.astype(object), np.full(len(X_unlabelled), None, dtype=object)])
    return np.vstack([X_labelled, X_unlabelled]), y


def iterative_classification(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    *,
    estimator: MixtureClassifier | None = None,
    threshold: float = 0.75,
    max_iter: int | None = 10,
    finish: str = "argmax",
    unclassifiable_rules=UNCLASSIFIABLE_RULES,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    random_state=None,
) -> tuple[IterativeClassifier, pd.DataFrame]:
    """Run :class:`IterativeClassifier` on labelled and unlabelled arrays.

    Parameters
    ----------
    X_labelled : ndarray of shape (n_labelled, n_features)
    y_labelled : ndarray of shape (n_labelled,)
    X_unlabelled : ndarray of shape (n_unlabelled, n_features)
    estimator, threshold, max_iter, finish, unclassifiable_rules, random_state :
        As in :class:`IterativeClassifier`.
    X_test : ndarray of shape (n_test, n_features), optional
    y_test : ndarray of shape (n_test,), optional

    Returns
    -------
    classifier : IterativeClassifier
        Fitted; rows ``0 .. n_labelled - 1`` of its ``transduction_`` are the labelled
        examples, the rest the unlabelled ones in order (``None`` if never assigned).
    history : pandas.DataFrame
        ``classifier.history_``.
    """
    X, y = _stack(X_labelled, y_labelled, X_unlabelled)
    clf = IterativeClassifier(estimator, threshold=threshold, max_iter=max_iter, finish=finish,
                              unclassifiable_rules=unclassifiable_rules, unlabelled_label=None,
                              random_state=random_state)
    clf.fit(X, y, X_test=X_test, y_test=y_test)
    return clf, clf.history_


def prior_probability_classification(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    *,
    estimator: MixtureClassifier | None = None,
    max_iter: int = 20,
    restart: str = "warm",
    threshold: float = 0.75,
    unclassifiable_rules=UNCLASSIFIABLE_RULES,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    random_state=None,
) -> tuple[PriorProbabilityClassifier, pd.DataFrame]:
    """Run :class:`PriorProbabilityClassifier` on labelled and unlabelled arrays.

    Parameters and returns as :func:`iterative_classification` (``restart`` as in
    :class:`PriorProbabilityClassifier`; rows of ``soft_labels_``: labelled first, then
    unlabelled).
    """
    X, y = _stack(X_labelled, y_labelled, X_unlabelled)
    clf = PriorProbabilityClassifier(estimator, max_iter=max_iter, restart=restart,
                                     threshold=threshold, unclassifiable_rules=unclassifiable_rules,
                                     unlabelled_label=None, random_state=random_state)
    clf.fit(X, y, X_test=X_test, y_test=y_test)
    return clf, clf.history_

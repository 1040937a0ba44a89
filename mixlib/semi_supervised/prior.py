"""Mixture classifier trained with prior class probabilities on unlabelled data (report 5.2, figs. 5.2-5.3)."""

from __future__ import annotations

import logging
import warnings

from typing import Any

import numpy as np

from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.vocabulary import RESTARTS
from mixlib.mixture import MixtureClassifier
from mixlib.semi_supervised.base import (
    RoundCallback,
    SemiSupervisedMixin,
    check_choice,
    check_max_iter,
    notify,
    stack_labelled,
)

logger = logging.getLogger(__name__)


class PriorProbabilityClassifier(SemiSupervisedMixin):
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
    n_features_in_ : int
        Columns of ``X`` seen by :meth:`fit`.
    n_iter_ : int
        Rounds run, that is models fit: round 0 (the labelled examples only) and the
        soft-label refits; at least 1.
    converged_ : bool
        Whether the last refit flipped no argmax class (True as well without unlabelled rows).
    history_ : dict of str to ndarray of shape (n_iter_,)
        The wrapper's own record of every fitted model, ``round`` = 0 (labelled examples
        only), 1, ... (refits on all examples with soft labels). Key ``n_flips`` (float):
        the number of unlabelled examples whose argmax class under this model differs from
        that under the previous model (NaN in round 0). Scores of each round come from a
        ``callback`` of :meth:`fit`.

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

    sklearn check not passed: check_classifiers_classes — a label equal to unlabelled_label
    (-1 by default, scikit-learn's mark of an unlabelled row) is read as unlabelled, so the
    check's classes -1 and 1 leave one known class; give unlabelled_label a value that is
    not a class.
    """

    def __init__(
        self,
        estimator: MixtureClassifier | None = None,
        *,
        max_iter: int = 20,
        restart: str = "warm",
        unlabelled_label=-1,
        random_state=None,
    ) -> None:
        self.estimator = estimator
        self.max_iter = max_iter
        self.restart = restart
        self.unlabelled_label = unlabelled_label
        self.random_state = random_state

    def fit(self, X, y, *, callback: RoundCallback | None = None) -> "PriorProbabilityClassifier":
        """Fit with one-hot priors on the labelled rows and posteriors on the unlabelled ones.

        Parameters
        ----------
        X, y, callback :
            As in :meth:`IterativeClassifier.fit`: ``callback(RoundState(round, estimator))``
            sees the model of round 0 (labelled rows only) and of every soft-label refit.

        Returns
        -------
        self : PriorProbabilityClassifier
        """
        check_max_iter(self.max_iter)
        if self.max_iter is None:
            raise ValueError("max_iter must be a non-negative int for PriorProbabilityClassifier, got None.")
        check_choice(self.restart, "restart", RESTARTS)
        X, y, unlabelled, y_known = self._split(X, y)
        X_known, X_unknown = X[~unlabelled], X[unlabelled]
        estimator = self._make_estimator()
        classes = np.unique(y_known)
        estimator.fit(X_known, y_known, classes=classes)
        notify(callback, 0, estimator)
        estimator.set_params(warm_start=self.restart == "warm")
        Q = np.zeros((len(y), len(classes)))
        Q[np.nonzero(~unlabelled)[0], np.searchsorted(classes, y_known)] = 1.0
        flips = [np.nan]
        converged = True
        if unlabelled.any():
            q = estimator.predict_proba(X_unknown)
            converged = False
            for n_iter in range(1, self.max_iter + 1):
                Q[unlabelled] = q
                estimator.fit(X, soft_labels=Q, classes=classes)
                q_new = estimator.predict_proba(X_unknown)
                n_flips = int((q_new.argmax(axis=1) != q.argmax(axis=1)).sum())
                q = q_new
                notify(callback, n_iter, estimator)
                flips.append(n_flips)
                logger.info("prior-probability round %d: %d flip(s)", n_iter, n_flips)
                if n_flips == 0:
                    converged = True
                    break
            Q[unlabelled] = q
            if not converged:
                warnings.warn(
                    f"PriorProbabilityClassifier: {flips[-1]} unlabelled example(s) "
                    f"still changed class in the last of max_iter={self.max_iter} rounds; "
                    "increase max_iter.",
                    ConvergenceWarning,
                    stacklevel=2,
                )
        self.estimator_ = estimator
        self.classes_ = estimator.classes_
        self.soft_labels_ = Q
        self.transduction_ = classes[Q.argmax(axis=1)]
        self.n_iter_ = len(flips)
        self.converged_ = converged
        self.history_ = {"n_flips": np.array(flips, dtype=float)}
        return self


def prior_probability_classification(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    *,
    callback: RoundCallback | None = None,
    **params: Any,
) -> PriorProbabilityClassifier:
    """Run :class:`PriorProbabilityClassifier` on labelled and unlabelled arrays.

    Parameters
    ----------
    X_labelled : ndarray of shape (n_labelled, n_features)
    y_labelled : ndarray of shape (n_labelled,)
    X_unlabelled : ndarray of shape (n_unlabelled, n_features)
    callback : callable, optional
        As in :meth:`PriorProbabilityClassifier.fit`.
    **params
        Parameters of :class:`PriorProbabilityClassifier` (``estimator``, ``max_iter``,
        ``restart``, ``random_state``); one left out takes its default there (the one place
        the 20 refits are written).

    Returns
    -------
    classifier : PriorProbabilityClassifier
        Fitted; rows of its ``soft_labels_`` and ``transduction_``: the labelled examples
        first, then the unlabelled ones in order.
    """
    X, y = stack_labelled(X_labelled, y_labelled, X_unlabelled)
    clf = PriorProbabilityClassifier(unlabelled_label=None, **params)
    return clf.fit(X, y, callback=callback)

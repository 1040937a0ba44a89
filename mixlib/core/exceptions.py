"""Errors and warnings shared by the estimators of :mod:`mixlib`.

:class:`NotFittedError` is what every estimator raises when asked to predict before ``fit``.
It derives from :class:`ValueError` and :class:`AttributeError`, as scikit-learn's error of
the same name does. mixlib never imports scikit-learn, but when the calling process has
imported it, :func:`not_fitted_error` also makes the raised error an instance of
``sklearn.exceptions.NotFittedError``, so that scikit-learn's tools recognise it.
"""

from __future__ import annotations

import functools
import sys


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped before its convergence criterion was met.

    Parameters
    ----------
    message : str
        What did not converge, and what to change.
    change, tol : float, optional
        The fit's last change of its convergence criterion and the tolerance it had to fall
        below: a job's log sums up how far from ``tol`` its unconverged fits stopped
        (:mod:`mixlib.pipeline.warning_summary`).
    """

    def __init__(self, message: str = "", *, change: float | None = None,
                 tol: float | None = None) -> None:
        super().__init__(message)
        self.change = change
        self.tol = tol


class DataConversionWarning(UserWarning):
    """An input was accepted after a conversion the caller may not expect.

    Raised, for instance, when ``y`` comes as a column vector of shape (n_samples, 1) and is
    flattened to the label vector it stands for (scikit-learn warns with a warning of the same
    name and text).
    """


class NotFittedError(ValueError, AttributeError):
    """A method that needs a fitted estimator was called before ``fit``."""

    def __reduce__(self):
        # Rebuilt through not_fitted_error, so that an unpickled copy (e.g. from a worker
        # process) is scikit-learn-compatible exactly when scikit-learn is loaded there.
        return not_fitted_error, self.args


@functools.cache
def _with_sklearn_base(sklearn_not_fitted: type) -> type:
    """The subclass of :class:`NotFittedError` that is also scikit-learn's ``NotFittedError``."""
    return type("NotFittedError", (NotFittedError, sklearn_not_fitted),
                {"__module__": __name__, "__doc__": NotFittedError.__doc__})


def not_fitted_error(message: str) -> NotFittedError:
    """A :class:`NotFittedError` carrying ``message``.

    When scikit-learn is already imported in this process (and only then: it is never
    imported here), the error is also an instance of ``sklearn.exceptions.NotFittedError``.
    """
    if "sklearn" not in sys.modules:
        return NotFittedError(message)
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    return _with_sklearn_base(SklearnNotFittedError)(message)

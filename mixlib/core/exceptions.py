"""Warning classes shared by the estimators of :mod:`mixlib`."""


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped before its convergence criterion was met."""

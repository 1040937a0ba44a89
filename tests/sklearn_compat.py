"""Make a mixlib estimator acceptable to scikit-learn meta-estimators, in tests only.

scikit-learn >= 1.6 asks every estimator for ``__sklearn_tags__``, which only its own
``BaseEstimator`` provides; mixlib does not import scikit-learn, so tests mix it in here.
"""

from sklearn.base import BaseEstimator, ClassifierMixin


def sklearn_compatible(estimator_class: type) -> type:
    """A subclass of ``estimator_class`` that scikit-learn's meta-estimators accept."""
    return type(
        f"Sk{estimator_class.__name__}",
        (ClassifierMixin, estimator_class, BaseEstimator),
        {},
    )

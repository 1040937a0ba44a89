"""Missing-value imputers: the mean, the class mean, and the mode of a per-feature mixture
(report ch. 4)."""

from mixlib.impute.imputers import ClassMeanImputer, KernelModeImputer, MeanImputer

__all__ = ["ClassMeanImputer", "KernelModeImputer", "MeanImputer"]

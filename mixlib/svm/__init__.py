"""Kernel machines of the ensembles-and-SVM notes: the C-SVM trained by SMO, the all-together
(Weston-Watkins) multi-class SVM, SVDD and multiple kernel learning."""

from mixlib.svm.all_together import AllTogetherSVC
from mixlib.svm.mkl import MKLSVC
from mixlib.svm.svc import SVC
from mixlib.svm.svdd import SVDD

__all__ = ["AllTogetherSVC", "MKLSVC", "SVC", "SVDD"]

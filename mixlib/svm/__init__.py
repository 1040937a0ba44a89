"""Kernel machines of the course notes (seed 004): the C-SVM trained by SMO, SVDD and
multiple kernel learning."""

from mixlib.svm.mkl import MKLSVC
from mixlib.svm.svc import SVC
from mixlib.svm.svdd import SVDD

__all__ = ["MKLSVC", "SVC", "SVDD"]

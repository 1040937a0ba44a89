"""mixlib: the algorithms and experiments of the mixstudy pipeline.

The package holds pure functions and estimators (no file paths): data sets and their
encoders (:mod:`mixlib.datasets`), the classifiers of the study, one function per pipeline
rule (:mod:`mixlib.experiments`) and one function per figure (:mod:`mixlib.figures`).
"""

__version__ = "0.1.0"

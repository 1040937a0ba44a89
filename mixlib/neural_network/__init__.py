"""The multilayer perceptron of the report (ch. 6): arctan units, backpropagation, three
regularisation regimes.

Modules: :mod:`~mixlib.neural_network.network` (targets, forward pass, error,
backpropagation) and :mod:`~mixlib.neural_network.mlp` (the estimator and its training loop).
"""

from mixlib.neural_network.mlp import REGIMES, MLPClassifier

__all__ = ["MLPClassifier", "REGIMES"]

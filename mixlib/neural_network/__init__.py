"""The multilayer perceptron of the report (ch. 6): arctan units, backpropagation, three
regularisation regimes."""

from mixlib.neural_network.mlp import REGIMES, MLPClassifier

__all__ = ["MLPClassifier", "REGIMES"]

"""The multilayer perceptron of the report (ch. 6): arctan units, backpropagation, three
regularisation regimes.

Modules: :mod:`~mixlib.neural_network.network` (targets, forward pass, error, weights),
:mod:`~mixlib.neural_network._epoch_loop` (backpropagation: an epoch of gradient steps,
compiled) and :mod:`~mixlib.neural_network.mlp` (the estimator and its training loop).
"""

from mixlib.neural_network.mlp import REGIMES, MLPClassifier

__all__ = ["MLPClassifier", "REGIMES"]

"""Decision trees: binary trees grown level by level (the engine the forests share), CART
pruned by cost-complexity with its level chosen by cross-validation, and the ID3 tree of the
course notes."""

from mixlib.tree.cart import CARTClassifier
from mixlib.tree.decision_tree import DecisionTreeClassifier
from mixlib.tree.discretised import QuantileDiscretised
from mixlib.tree.id3 import ID3Classifier

__all__ = ["CARTClassifier", "DecisionTreeClassifier", "ID3Classifier", "QuantileDiscretised"]

"""Decision trees: CART-style binary trees grown level by level (the engine the forests share)
and the ID3 tree of the course notes."""

from mixlib.tree.decision_tree import DecisionTreeClassifier
from mixlib.tree.discretised import QuantileDiscretised
from mixlib.tree.id3 import ID3Classifier

__all__ = ["DecisionTreeClassifier", "ID3Classifier", "QuantileDiscretised"]

"""k nearest neighbours (supervised-learning notes): brute force and the kd-tree search."""

from mixlib.neighbors.kd_tree import KDTree
from mixlib.neighbors.knn import KNeighborsClassifier, default_n_neighbors

__all__ = ["KDTree", "KNeighborsClassifier", "default_n_neighbors"]

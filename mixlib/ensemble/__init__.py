"""Ensembles of the course notes: bagging, AdaBoost (SAMME), random forests, and the
voting classifier with its bootstrap estimate."""

from mixlib.ensemble.bagging import BaggingClassifier
from mixlib.ensemble.boosting import AdaBoostClassifier
from mixlib.ensemble.forest import RandomForestClassifier
from mixlib.ensemble.voting import VotingClassifier

__all__ = ["AdaBoostClassifier", "BaggingClassifier", "RandomForestClassifier", "VotingClassifier"]

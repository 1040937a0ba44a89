"""Shared machinery of every family: estimator base classes, input validation, squared
distances, kernels, seeding, standardisation and the warnings the estimators emit.

Nothing here imports another part of mixlib: every other package may import it."""

"""Splitting data and scoring models: seeded role tables of a split, stratified and grouped
folds, cross-validated errors with their t-interval, grid searches and confusion matrices."""

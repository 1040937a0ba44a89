"""The model catalogue: every estimator of the study as data (class and parameters), one
builder, the typed settings the stages take, and the data-dependent parameter values."""

"""The words of the study's tables: column names and the values that carry a meaning.

Every table the pipeline writes is read again by later rules, by the figures and by the claims;
they agree on these names because they all take them from here (the figures may import only
:mod:`mixlib.core` and :mod:`mixlib.figures`, so the vocabulary lives in the core).
"""

from __future__ import annotations

#: The class column of every prepared table and of the tables that name a class.
CLASS_COLUMN = "class"

#: The value of a setting column on a row that does not depend on that setting: a rule-free
#: metric under ``unclassifiable``, the iterative method under ``restart``, a hold-out
#: comparison under ``group_duplicates``.
ANY = "any"

# --- Chapter 5 (the semi-supervised methods) --------------------------------------------------

#: ``restart`` of the prior method's rows: each refit continues EM from the previous round's
#: parameters (``warm``) or starts from a new random initialisation (``fresh``).
RESTARTS = ("warm", "fresh")
#: ``finish`` of the iterative method's rows: the unknowns left when a round labels nothing get
#: their top-posterior class in a last round (``argmax``) or stay unknown (``stop``).
FINISHES = ("argmax", "stop")
#: ``unclassifiable``: the rules under which a labelled example counts as one the model cannot
#: classify (:mod:`mixlib.semi_supervised.scoring`).
UNCLASSIFIABLE_RULES = ("confidence", "underflow")

# --- The comparison (one protocol, two splitters) --------------------------------------------

#: ``protocol`` of the rows of repeated stratified K-fold cross-validation on a whole data set.
CV = "cv"
#: ``protocol`` of the rows of the hold-out protocol on a split's train and test rows.
HOLDOUT = "holdout"
#: ``group_duplicates`` of a cross-validation whose folds kept identical rows together, of one
#: that did not, and (:data:`ANY`) of the hold-out protocol, whose split is not dealt into folds.
GROUPED, UNGROUPED = "yes", "no"

#: The columns that say which comparison a row belongs to and how it was run.
COMPARISON_KEYS = ("protocol", "dataset", "split", "model", "approach", "family", "n_folds",
                   "n_repeats", "group_duplicates", "alpha")
#: The columns of one row of a comparison table, after :data:`COMPARISON_KEYS`.
COMPARISON_ROW = ("metric", "repeat", "fold", "n_train", "n_test", "true_class",
                  "predicted_class", "value")
#: Every column of a comparison table, in order.
COMPARISON_COLUMNS = (*COMPARISON_KEYS, *COMPARISON_ROW)
#: The summary metrics of a comparison table, one row each per model (``comparison_summary``).
SUMMARY_METRICS = ("cv_error", "cv_std", "ci_low", "ci_high", "ci_corrected_low",
                   "ci_corrected_high", "fit_seconds", "predict_seconds")
#: The columns naming one comparison of models: the models of a group are compared fold by fold.
COMPARISON_GROUP = ("protocol", "dataset", "split", "group_duplicates")
#: The columns of the table of every model setting that ran (``comparison_settings``): one row
#: per evaluation unit and parameter of the fitted estimator, its value as text.
SETTINGS_COLUMNS = ("protocol", "dataset", "split", "model", "repeat", "fold", "parameter",
                    "value")

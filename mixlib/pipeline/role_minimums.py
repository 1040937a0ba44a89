"""Pre-run check of the rows each stage needs, per role and class, named by split and role.

Each minimum is what a stage's own code requires, checked on the exact rows its jobs will
get: the roles of every repeat of a split come from the split rule's own function
(:func:`mixlib.experiments.data.make_split`, seeded as the job is), the comparison's folds
from the job's own resampling (:func:`mixlib.model_selection.resampling.repeated_kfold_units`,
:func:`~mixlib.model_selection.resampling.training_rows`). The minimums:

- **two classes** in the rows a classifier is fitted on, for the estimators that call
  ``encode_labels(y, min_classes=2)`` (:data:`TWO_CLASS_MODELS`): the MLP, the SVMs (and MKL),
  logistic regression and AdaBoost. Checked on the ``train`` role of the ``mlp``, ``svm``,
  ``ensembles`` (with ``adaboost``) and ``comparison.holdout_splits`` stages.
- **two rows of every class** in the rows an MLP with early stopping is fitted on
  (:func:`mixlib.neural_network.mlp.stratified_split` holds out at least one row of every
  class for validation and trains on at least one): the ``train`` role of each of ``mlp.splits``
  when ``mlp.regimes`` has ``early_stopping``, and, when the comparison's ``mlp`` runs with
  early stopping (its default), the ``train`` role of every hold-out split and the training
  part of every fold of every CV repeat.
- **``svm.grid.n_folds`` rows** in the ``train`` role of every ``svm`` split (repeat 0, the
  one the stage runs on): the grid search's stratified folds need ``2 <= K <= n``.

A ``url`` data set not yet fetched is checked in its jobs only. With ``max_train_rows`` on a
hold-out split, the subsample is not replayed: the whole ``train`` role is checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from mixlib.datasets import CLASS_COLUMN
from mixlib.model_selection.fixed_splits import split_repeats

#: Models whose estimator needs two classes in its training rows (``min_classes=2``).
TWO_CLASS_MODELS = ("adaboost", "logistic_regression", "mkl", "mlp", "svm", "svm_all_together")
#: Rows of every class an MLP with early stopping needs among its training rows.
EARLY_STOPPING_ROWS = 2
#: Who needs them in the comparison, for messages.
_COMPARISON_MLP = ("the comparison's model mlp with the regime early_stopping "
                   "(comparison.params.mlp.regime; plain trains without it)")


def check_role_minimums(config: Mapping[str, Any],
                        tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Raise ``ValueError`` if a stage would get fewer rows than its code needs (see module)."""
    for split, role, stage, needs in _role_needs(config):
        spec = config["splits"][split]
        table = tables.get(spec["dataset"])
        if table is None:
            continue
        repeats = 1 if stage == "svm.splits" else split_repeats(spec, config["repeats"])
        for repeat, y in _role_labels(config, split, table, role, repeats):
            where = f"splits.{split}: repeat {repeat} gives the role {role!r}"
            _check_rows(y, needs, where, spec["dataset"], stage)


def check_cv_early_stopping(config: Mapping[str, Any],
                            tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every training part of the comparison's folds has two rows of every class it holds
    when its ``mlp`` runs with early stopping.

    Every class has at least ``n_folds`` rows, or groups of identical rows, in every fold
    assignment (the checks before this one), and both fold functions give each fold at least
    one of them; so a fold trains on at least ``n_folds - 1`` rows of every class, enough from
    3 folds on. With 2 folds, or a ``max_train_rows`` subsample, the folds and subsamples of
    every CV repeat are replayed as the job draws them.
    """
    from mixlib.core.seeding import generator
    from mixlib.datasets import feature_matrix
    from mixlib.experiments.comparison import split_protocol_params
    from mixlib.experiments.data import prepare_dataset
    from mixlib.catalogue.settings import ComparisonProtocol
    from mixlib.model_selection.resampling import repeated_kfold_units, training_rows
    from mixlib.model_selection.splits import duplicate_groups

    comparison = config.get("comparison")
    if not comparison or not _comparison_early_stopping(config):
        return
    _, max_train_rows = split_protocol_params(comparison.get("params", {}).get("mlp"))
    protocol = ComparisonProtocol.from_config(comparison)
    n_folds = protocol.n_folds
    if n_folds - 1 >= EARLY_STOPPING_ROWS and max_train_rows is None:
        return
    for name in comparison.get("datasets", []):
        if tables.get(name) is None:
            continue
        X, y = feature_matrix(prepare_dataset(tables[name], name, config["datasets"][name]))
        groups = duplicate_groups(X, y) if protocol.group_duplicates else None
        units = repeated_kfold_units(X, y, n_folds, protocol.cv_repeats,
                                     generator(config["seed"], "comparison", name), groups=groups)
        for unit in units:
            rows = training_rows(unit, max_train_rows)
            where = (f"comparison.n_folds: with {n_folds} folds, fold {unit.fold + 1} of CV "
                     f"repeat {unit.repeat} trains on")
            _check_early_stopping(unit.y_train[rows], where, name, _COMPARISON_MLP)


def _comparison_early_stopping(config: Mapping[str, Any]) -> bool:
    """Whether the comparison fits the model ``mlp`` with early stopping (its configured
    regime, or the estimator's default)."""
    from mixlib.experiments.comparison import split_protocol_params
    from mixlib.catalogue.registry import make_model

    comparison = config["comparison"]
    if "mlp" not in comparison.get("models", []):
        return False
    params, _ = split_protocol_params(comparison.get("params", {}).get("mlp"))
    return make_model("mlp", params).regime == "early_stopping"


def _role_needs(config: Mapping[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(split, role, stage key, needs) of every stage that fits on a split's ``train`` role.

    ``needs``: ``classes`` (the estimator needing two classes, or None), ``early_stopping``
    (who runs an MLP with early stopping, or None), ``rows`` (fewest rows, or 0).
    """
    mlp = config.get("mlp")
    if mlp:
        early = ("the mlp stage's regime early_stopping (mlp.regimes; leave it out there to "
                 "train without)" if "early_stopping" in mlp.get("regimes", []) else None)
        for split in mlp["splits"]:
            yield split, "train", "mlp.splits", {"classes": "the MLP", "early_stopping": early}
    svm = config.get("svm")
    if svm:
        n_folds = svm.get("grid", {}).get("n_folds", 0)
        for split in svm["splits"]:
            yield split, "train", "svm.splits", {
                "classes": "the SVM", "rows": (n_folds, f"svm.grid.n_folds: {n_folds} folds")}
    ensembles = config.get("ensembles")
    if ensembles and "adaboost" in ensembles.get("methods", []):
        for split in ensembles["splits"]:
            yield split, "train", "ensembles.splits", {"classes": "adaboost"}
    comparison = config.get("comparison")
    if comparison:
        two_class = [m for m in comparison.get("models", []) if m in TWO_CLASS_MODELS]
        early = _COMPARISON_MLP if _comparison_early_stopping(config) else None
        for split in comparison.get("holdout_splits", []):
            yield split, "train", "comparison.holdout_splits", {
                "classes": f"the comparison's model {two_class[0]}" if two_class else None,
                "early_stopping": early}


def _role_labels(config: Mapping[str, Any], split: str, table: pd.DataFrame, role: str,
                 repeats: int) -> Iterator[tuple[int, np.ndarray]]:
    """(repeat, classes of the rows of ``role``) of each repeat, as the split rule draws them."""
    from mixlib.experiments.data import make_split

    classes = table[CLASS_COLUMN].astype(str).to_numpy()
    prepared = pd.DataFrame({"row_id": np.arange(len(table)), CLASS_COLUMN: classes})
    roles = make_split(prepared, split, config["splits"][split], config["seed"], repeats,
                       raw=table)
    for repeat, rows in roles.groupby("repeat", sort=True):
        yield int(repeat), classes[rows["row_id"].to_numpy()[rows["role"].to_numpy() == role]]


def _check_rows(y: np.ndarray, needs: Mapping[str, Any], where: str, dataset: str,
                stage: str) -> None:
    """Raise if the rows of classes ``y`` miss one of ``needs`` (see :func:`_role_needs`)."""
    fewest, rows_key = needs.get("rows", (0, ""))
    if len(y) < fewest:
        raise ValueError(
            f"{where} {len(y)} rows of data set {dataset!r}; {rows_key} need at least "
            f"{fewest} (the stage {stage}). Give the role more rows, or use fewer folds.")
    present = np.unique(y)
    if needs.get("classes") and len(present) < 2:
        held = f"only class {present[0]!r}" if len(present) else "no row"
        raise ValueError(
            f"{where} {held} of data set {dataset!r}; {needs['classes']} ({stage}) needs at "
            f"least two classes to learn from. Give the role rows of another class (a random "
            f"split with stratify: true gives every role every class).")
    if needs.get("early_stopping"):
        _check_early_stopping(y, where, dataset, needs["early_stopping"])


def _check_early_stopping(y: np.ndarray, where: str, dataset: str, who: str) -> None:
    """Raise unless every class of ``y`` has :data:`EARLY_STOPPING_ROWS` rows."""
    labels, counts = np.unique(y, return_counts=True)
    few = [f"{label!r} ({count})" for label, count in zip(labels.tolist(), counts.tolist())
           if count < EARLY_STOPPING_ROWS]
    if few:
        raise ValueError(
            f"{where} fewer than {EARLY_STOPPING_ROWS} rows of class {', '.join(few)} of data "
            f"set {dataset!r}. The MLP's early stopping holds out at least one row of every "
            f"class for validation and trains on at least one, so {who} needs "
            f"{EARLY_STOPPING_ROWS} rows of every class there. Give the class more rows, or "
            f"train without early stopping.")

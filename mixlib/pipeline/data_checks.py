"""What only the data or a fit can tell, checked before any job and named by the config key.

:func:`check_prerun` runs after :func:`mixlib.pipeline.config_checks.check_config`, on the
data sets that one read (``tables``: a raw table, or None for a ``url`` source not yet fetched,
which its jobs check): every data set has two classes; every role of a random split gets a row;
the comparison's folds have enough groups of rows per class when ``group_duplicates`` keeps
identical rows together; every ``comparison.params`` value passes the estimator's own
validation; every stage gets the rows per role and class its code needs, on the rows its jobs
will get (the split rule's own :func:`mixlib.experiments.preparation.make_split`, seeded as the job
is; the comparison's folds from :func:`mixlib.model_selection.resampling.repeated_kfold_units`):

- **two classes** where an estimator calls ``encode_labels(y, min_classes=2)``
  (:data:`TWO_CLASS_MODELS`): the ``train`` role of the ``mlp``, ``svm``, ``ensembles`` (with
  ``adaboost``) and ``comparison.holdout_splits`` stages;
- **two rows of every class** where an MLP trains with early stopping (which holds out one row
  of every class): the ``train`` role of ``mlp.splits`` when ``mlp.regimes`` has it and, when
  the comparison's ``mlp`` uses it (its default), of every hold-out split and every CV fold
  (with ``max_train_rows`` on a hold-out split, the whole ``train`` role is checked);
- **``svm.grid.n_folds`` rows** in the ``train`` role of repeat 0 of every ``svm`` split.

:func:`check_stage_params` runs each stage section, on a small well separated data set
(:func:`probe_data`), through the function its jobs call, its sizes cut to the least that
exercises every setting (:data:`PROBE_CAPS`): ``svm`` (the grid's axes, the SVM at each end of
each range, MKL, SVDD), ``mlp.training``, ``ensembles.trees``, ``em`` and the comparison's
Bayesian test. An invalid value fails there as in every job, its message re-labelled with the
config key of the parameter it names (:func:`relabel`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.datasets import CLASS_COLUMN, feature_matrix
from mixlib.experiments.comparison import split_protocol_params
from mixlib.catalogue.registry import make_mixture, make_model
from mixlib.catalogue.settings import ComparisonProtocol, EMSettings
from mixlib.model_selection.fixed_splits import split_kind, split_repeats
from mixlib.model_selection.resampling import repeated_kfold_units, training_rows
from mixlib.model_selection.splits import duplicate_groups, role_sizes

#: Model parameters bounded by the number of training rows of a fold.
TRAIN_ROW_BOUNDED = {("knn", "n_neighbors")}


def check_prerun(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Run every check of this module; the first failure raises ``ValueError``."""
    check_classes(config, tables)
    check_role_rows(config, tables)
    check_grouped_folds(config, tables)
    check_comparison_fits(config, tables)
    check_role_minimums(config, tables)
    check_cv_early_stopping(config, tables)


def check_classes(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every data set that could be read has at least two classes."""
    for name, table in tables.items():
        if table is None:
            continue
        classes = pd.unique(table[CLASS_COLUMN].astype(str))
        if len(classes) < 2:
            column = config["datasets"][name].get("class_column", CLASS_COLUMN)
            raise ValueError(
                f"datasets.{name}: every row has the class {classes[0]!r} (column "
                f"{column!r}); a classifier needs at least two classes. Check class_column, or "
                f"leave {name!r} out of the config.")


def check_role_rows(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every role of a random split gets at least one row (every stage fits or scores on it)."""
    for split_name, split in config.get("splits", {}).items():
        table = tables.get(split["dataset"])
        if split_kind(split) != "random" or table is None:
            continue
        sizes = role_sizes(split["roles"], len(table), where=f"splits.{split_name}.roles")
        empty = [role for role, size in sizes.items() if size < 1]
        if empty:
            raise ValueError(
                f"splits.{split_name}.roles.{empty[0]}: the role {empty[0]!r} gets no row of "
                f"data set {split['dataset']!r} ({len(table)} rows, sizes {sizes}); every stage "
                f"that uses split {split_name!r} fits or scores on each role, so give it at "
                f"least 1 row, or remove the role.")


def check_grouped_folds(config: Mapping[str, Any],
                        tables: Mapping[str, pd.DataFrame | None]) -> None:
    """With ``comparison.group_duplicates``, each class has ``n_folds`` distinct rows (identical
    rows stay in one fold, so a class needs ``n_folds`` groups of them for every fold to test it)."""
    comparison = config.get("comparison")
    if not comparison or not comparison["group_duplicates"]:
        return
    n_folds = comparison["n_folds"]
    for name in comparison.get("datasets", []):
        table = tables.get(name)
        if table is None:
            continue
        distinct = table.astype(str).drop_duplicates()
        groups = distinct[CLASS_COLUMN].value_counts()
        small = [f"{label!r} ({count})" for label, count in groups.items() if count < n_folds]
        if small:
            raise ValueError(
                f"comparison.n_folds: {n_folds} folds need at least {n_folds} distinct rows of "
                f"every class, because comparison.group_duplicates keeps identical rows in one "
                f"fold; data set {name!r} has fewer of class {', '.join(small)}. Lower "
                f"comparison.n_folds, set comparison.group_duplicates: false, or leave {name!r} "
                f"out of the comparison.")


def _training_rows(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None],
                   max_train_rows: int | None) -> list[tuple[str, int]]:
    """(where, rows) of the smallest training set of each comparison data set."""
    comparison = config["comparison"]
    n_folds = comparison["n_folds"]
    rows = []
    for name in comparison.get("datasets", []):
        table = tables.get(name)
        if table is not None:
            smallest = len(table) - -(-len(table) // n_folds)  # the rows left by the largest fold
            if max_train_rows is not None:
                smallest = min(smallest, max_train_rows)
            rows.append((f"data set {name!r} ({n_folds} folds)", smallest))
    return rows


def check_comparison_fits(config: Mapping[str, Any],
                          tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every ``comparison.params`` override passes the estimator's own validation: its model
    is built with it and fitted on :func:`probe_data`; values bounded by the training rows
    (:data:`TRAIN_ROW_BOUNDED`) are checked against each comparison data set's folds."""
    comparison = config.get("comparison")
    if not comparison:
        return
    X, y = probe_data()["train"]
    for model, overrides in comparison.get("params", {}).items():
        if model not in comparison.get("models", []) or not overrides:
            continue
        where = f"comparison.params.{model}"
        try:
            params, max_train_rows = split_protocol_params(overrides)
        except ValueError as exc:
            raise ValueError(f"{where}.max_train_rows: {exc}") from None
        for key, value in params.items():
            if (model, key) not in TRAIN_ROW_BOUNDED or not isinstance(value, int):
                continue
            for dataset, rows in _training_rows(config, tables, max_train_rows):
                if value > rows:
                    raise ValueError(
                        f"{where}.{key}: {value} is more than the {rows} training rows of "
                        f"{dataset}; use at most {rows}.")
        # a bound by the training rows is checked above, against the real data sets
        probe = {key: (min(value, len(X) // 2) if (model, key) in TRAIN_ROW_BOUNDED
                       and isinstance(value, int) else value) for key, value in params.items()}
        try:
            with warnings.catch_warnings():  # a short fit's convergence is not the question
                warnings.simplefilter("ignore")
                estimator = make_model(model, probe, 0, X=X,
                                       em=EMSettings.from_mapping(config["em"]))
                estimator.fit(X, y)
        except (ValueError, TypeError) as exc:
            raise relabel(where, exc, {key: key for key in params}) from None


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
    when its ``mlp`` runs with early stopping: with at least ``n_folds`` rows (or groups) of
    every class, checked before, a fold trains on ``n_folds - 1`` of each, enough from 3 folds
    on; with 2 folds or ``max_train_rows``, every CV repeat's folds are replayed as drawn."""
    from mixlib.experiments.preparation import prepare_dataset

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
    comparison = config["comparison"]
    if "mlp" not in comparison.get("models", []):
        return False
    params, _ = split_protocol_params(comparison.get("params", {}).get("mlp"))
    return make_model("mlp", params).regime == "early_stopping"


def _role_needs(config: Mapping[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(split, role, stage key, needs) of every stage that fits on a split's ``train`` role;
    ``needs``: ``classes`` (the estimator needing two classes, or None), ``early_stopping``
    (who runs an MLP with early stopping, or None), ``rows`` (fewest rows, or 0)."""
    mlp = config.get("mlp")
    if mlp:
        early = ("the mlp stage's regime early_stopping (mlp.regimes; leave it out there to "
                 "train without)" if "early_stopping" in mlp.get("regimes", []) else None)
        for split in mlp["splits"]:
            yield split, "train", "mlp.splits", {"classes": "the MLP", "early_stopping": early}
    svm = config.get("svm")
    if svm:
        n_folds = svm["grid"]["n_folds"]
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
    from mixlib.experiments.preparation import make_split

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


#: Work sizes cut for the probe fits, when given as integers (an invalid one is left as is,
#: so that the estimator refuses it).
PROBE_CAPS = {"n_epochs": 2, "mkl_max_iter": 2, "max_iter": 5, "n_points": 4, "n_folds": 3,
              "max_members": 2, "n_estimators": 2, "n_samples": 100}
#: Settings bounded by the data's features, cut to the probe's 3 (a larger value is checked
#: by the job, against the real data).
FEATURE_BOUNDED = ("max_features",)
#: The estimator parameter each ensembles.trees key sets, per method (its catalogue model).
_TREE_MODEL = {"tree": "tree_unpruned", "id3": "id3", "adaboost": "adaboost",
               "forest_simple": "random_forest", "forest_oob_weighted": "random_forest"}
#: The Bayesian test's parameters, by the comparison key that sets each.
_BAYES_KEYS = {"rope": "rope", "prior_strength": "bayes_prior_strength",
               "n_samples": "bayes_samples"}


def probe_data(repeat: int = 0) -> Any:
    """Three well separated classes of 12 rows and 3 features, as roles ``train`` and
    ``test`` (a :class:`~mixlib.experiments.contract.RepeatData`): any valid setting fits it."""
    from mixlib.experiments.contract import RepeatData

    rng = np.random.default_rng(0)
    y = np.repeat(np.array(["a", "b", "c"]), 12)
    X = rng.normal(size=(36, 3)) + 4.0 * (np.arange(36)[:, None] // 12)
    return RepeatData.of(repeat, train=(X, y), test=(X[::3], y[::3]))


def capped(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the work sizes of :data:`PROBE_CAPS` and the feature counts of
    :data:`FEATURE_BOUNDED` cut, when they are valid integers."""
    caps = {**PROBE_CAPS, **{key: 3 for key in FEATURE_BOUNDED}}
    return {key: min(value, caps[key]) if key in caps and isinstance(value, int)
            and not isinstance(value, bool) and value >= 1 else value
            for key, value in params.items()}


def relabel(section: str, exc: Exception, keys: Mapping[str, str]) -> ValueError:
    """The estimator's message ``"<parameter> must be ..."`` named by its config key:
    ``section.keys[parameter]`` when the message starts with a parameter of ``keys``
    (estimator parameter -> config key), else ``section``."""
    message = str(exc)
    first = message.split(" ", 1)[0].split("=", 1)[0].strip(":,'\"")
    where = f"{section}.{keys[first]}" if first in keys else section
    return ValueError(f"{where}{'' if where.endswith(' and') else ':'} {message}")


def _run(section: str, keys: Mapping[str, str], call: Callable[[], Any]) -> None:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # a short fit's convergence is not the question
            call()
    except (ValueError, TypeError) as exc:
        raise relabel(section, exc, keys) from None
    except ArithmeticError as exc:  # a value the estimator accepts but cannot compute with
        raise ValueError(f"{section}: these settings fail on a small well separated data set "
                         f"with {type(exc).__name__}: {exc}; check the values of "
                         f"{sorted(set(keys.values()))}.") from None


def _same(names: Any) -> dict[str, str]:
    return {name: name for name in names}


def check_svm(section: Mapping[str, Any]) -> None:
    """``svm.grid``, ``svm.mkl`` and ``svm.svdd`` (see module)."""
    from mixlib.experiments.svm import mkl_run, svdd_run
    from mixlib.model_selection.evaluation import grid_level_axes

    X, y = probe_data()["train"]
    grid = section["grid"]
    tol = {"tol": grid["tol"]} if "tol" in grid else {}
    _run("svm.grid", _same(grid), lambda: make_model("svm", tol).fit(X, y))
    for key, parameter in (("log10_C_range", "C"), ("log10_sigma_range", "sigma")):
        where = f"svm.grid.{key}"
        ends = tuple(grid[key])
        _run(where, {}, lambda: grid_level_axes(0, ends, (0.0, 1.0), 4))
        for end in ends:
            with np.errstate(over="ignore"):
                value = float(np.power(10.0, np.float64(end)))  # as the grid's jobs compute it
            _run(f"{where}: the end {end!r} gives {parameter} = 10^{end!r} = {value:g}, and",
                 {}, lambda: make_model("svm", {"C": 1.0, "sigma": 1.0,
                                                parameter: value}).fit(X, y))
    mkl = capped(section["mkl"])
    _run("svm.mkl", _same(mkl), lambda: mkl_run(probe_data(), params=mkl))
    _run("svm.svdd", _same(section["svdd"]), lambda: svdd_run(probe_data(), params=section["svdd"]))


def check_mlp(section: Mapping[str, Any]) -> None:
    """``mlp.training``: each regime with the smallest hidden size."""
    from mixlib.experiments.mlp import mlp_sweep_point

    training = capped(section.get("training", {}))
    for regime in section["regimes"]:
        _run("mlp.training", _same(training), lambda: mlp_sweep_point(
            probe_data(), regime=regime, hidden_size=min(section["hidden_sizes"]),
            params=training, rng=0))


def check_ensembles(section: Mapping[str, Any], em: Any) -> None:
    """``ensembles.trees`` (and ``base_mixture``): each method with two members."""
    from mixlib.experiments.ensembles import TREE_KEYS, ensemble_point

    for method in section["methods"]:
        model = _TREE_MODEL.get(method)
        keys = {parameter: key for key, parameter in TREE_KEYS.get(model, {}).items()}
        _run("ensembles.trees", keys, lambda: ensemble_point(
            probe_data(), method=method, max_members=PROBE_CAPS["max_members"],
            params=capped(section.get("trees", {})),
            base_kernels=section["base_mixture"]["n_components"] if method == "bagging_base"
            else None, em=em if method == "bagging_base" else None,
            rng=np.random.default_rng(0)))


def check_em(em: Any) -> None:
    """``em``: the study's mixture classifier fitted with the EM settings."""
    X, y = probe_data()["train"]
    probe_em = em._replace(max_iter=min(em.max_iter, PROBE_CAPS["max_iter"])) \
        if isinstance(em.max_iter, int) else em
    _run("em", _same(em._fields), lambda: make_mixture(2, probe_em, 0).fit(X, y))


def check_bayes(section: Mapping[str, Any]) -> None:
    """The comparison's Bayesian signed-rank test with ``rope``, ``bayes_prior_strength``
    and ``bayes_samples``, on two columns of errors."""
    from mixlib.model_selection.across_datasets import bayesian_signed_rank

    a, b = np.array([0.1, 0.2, 0.3]), np.array([0.15, 0.2, 0.25])
    given = capped({parameter: section[key] for parameter, key in _BAYES_KEYS.items()
                    if key in section})
    _run("comparison", _BAYES_KEYS, lambda: bayesian_signed_rank(a, b, rng=0, **given))


def check_stage_params(config: Mapping[str, Any], em: Any) -> None:
    """Run every check of this module for the sections the config has (``em``: the study's
    :class:`~mixlib.catalogue.settings.EMSettings`)."""
    check_em(em)
    if "svm" in config:
        check_svm(config["svm"])
    if "mlp" in config:
        check_mlp(config["mlp"])
    if "ensembles" in config:
        check_ensembles(config["ensembles"], em)
    if "comparison" in config:
        check_bayes(config["comparison"])

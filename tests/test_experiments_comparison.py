"""The comparison protocol (one model registry, the same seeded folds for every model) and its
figures, on tiny synthetic problems."""

import copy

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.naive_bayes import GaussianNB

from tests.comparison_runs import models_on_one_dataset
from mixlib.core.base import BaseEstimator
from mixlib.model_selection.evaluation import cross_val_error, stratified_folds, t_interval
from mixlib.core.preprocessing import is_indicator_like
from mixlib.core.vocabulary import COMPARISON_COLUMNS, SETTINGS_COLUMNS
from mixlib.experiments.comparison import comparison_point
from mixlib.analysis.comparison_summary import (
    SUMMARY_METRICS,
    comparison_summary,
    probabilistic_vs_deterministic,
)
from mixlib.catalogue.registry import CLASSIFIERS, MODELS, ModelSpec, make_model, resolve_params
from mixlib.catalogue.settings import EMSettings
from mixlib.figures.comparison import best_per_family, comparison_figure, confusion_figure
from mixlib.tree import ID3Classifier, QuantileDiscretised
from mixlib.core.seeding import generator

#: Light settings so that every model runs in well under a second on the tiny problems.
LIGHT = {"mixture": {"n_components": 2}, "mlp": {"n_epochs": 3, "hidden_size": 4, "regime": "plain"},
         "random_forest": {"n_estimators": 5}, "adaboost": {"n_estimators": 5},
         "bagging": {"n_estimators": 3}, "mkl": {"mkl_max_iter": 5}}
#: The EM settings of the mixtures of these tests (the estimator's defaults).
EM = EMSettings()
COLUMNS = list(COMPARISON_COLUMNS)
TIMING = {"fit_seconds", "predict_seconds"}


def blobs(seed: int, n: int = 60, spread: float = 3.0, n_features: int = 4):
    """Three Gaussian classes ``a, b, c`` with centres ``spread`` apart."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    centres = spread * np.eye(3, n_features)
    X = centres[labels] + rng.normal(size=(n, n_features))
    return X, np.array(["a", "b", "c"])[labels]


def one_hot(seed: int, n: int = 60, length: int = 6):
    """Sequences of ``length`` bases one-hot coded (4 columns per base); the class is set by
    the first base, the other bases are noise."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, length))
    y = np.array(["A", "B", "C", "C"])[codes[:, 0]]
    X = np.zeros((n, 4 * length))
    X[np.arange(n)[:, None], 4 * np.arange(length) + codes] = 1.0
    return X, y


def without_timing(table: pd.DataFrame) -> pd.DataFrame:
    return table[~table["metric"].isin(TIMING)].reset_index(drop=True)


def metric(table: pd.DataFrame, name: str) -> float:
    return float(table.loc[table["metric"] == name, "value"].iloc[0])


@pytest.mark.parametrize("model", sorted(CLASSIFIERS))
def test_every_model_gives_a_complete_table(model):
    X, y = one_hot(3) if model in ("id3", "naive_bayes") else blobs(3)
    run = comparison_point(X, y, "toy", model, LIGHT.get(model), 3, 0.05, 11, em=EM)
    table = run.scores
    assert list(table.columns) == COLUMNS
    n_classes = len(np.unique(y))
    assert len(table) == 8 + 3 + n_classes**2
    assert (table["model"] == model).all()
    assert (table["approach"] == MODELS[model].approach).all()
    assert (table["family"] == MODELS[model].family).all()
    errors = table[table["metric"].isin(["cv_error", "fold_error"])]["value"]
    assert errors.between(0, 1).all()
    assert metric(table, "ci_low") <= metric(table, "cv_error") <= metric(table, "ci_high")
    assert metric(table, "fit_seconds") >= 0 and metric(table, "predict_seconds") >= 0
    confusion = table[table["metric"] == "confusion"]
    assert confusion["value"].sum() == len(y)
    assert sorted(confusion["fold"].isna()) == [True] * len(confusion)
    assert table.loc[table["metric"] == "fold_error", "fold"].tolist() == [0, 1, 2]
    # The out-of-fold error is the share of off-diagonal counts, the mean fold error the
    # mean of the fold rates: with folds of equal size they coincide.
    off = confusion.loc[confusion["true_class"] != confusion["predicted_class"], "value"].sum()
    assert off / len(y) == pytest.approx(metric(table, "cv_error"))
    # The settings table: every parameter of each fold's fitted estimator, as text.
    settings = run.settings
    assert list(settings.columns) == list(SETTINGS_COLUMNS)
    assert settings["fold"].unique().tolist() == [0, 1, 2] and (settings["model"] == model).all()
    per_fold = settings.groupby("fold")["parameter"].apply(tuple)
    assert per_fold.nunique() == 1 and "random_state" not in per_fold.iloc[0]
    given = {name for name in LIGHT.get(model, {})}
    assert given <= {name.rsplit("__", 1)[-1] for name in per_fold.iloc[0]}
    assert settings["value"].map(type).eq(str).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_folds_for_every_model(seed):
    """Each model's fold errors are those of cross_val_error on the folds drawn first from a
    generator in the job's state: every model is evaluated on the same folds."""
    X, y = blobs(seed, n=45)
    rng = generator(seed, "comparison", "toy")
    folds = stratified_folds(y, 5, copy.deepcopy(rng))
    table = models_on_one_dataset(X, y, "toy", ["knn", "naive_bayes", "gaussian_shared"], None,
                                  5, 0.05, rng).scores
    for model in ("knn", "naive_bayes", "gaussian_shared"):
        rows = table[(table["model"] == model) & (table["metric"] == "fold_error")]
        expected = cross_val_error(make_model(model, None, 0, X=X), X, y, folds=folds)
        np.testing.assert_array_equal(rows["value"].to_numpy(), expected.fold_errors)


@pytest.mark.parametrize("model", ["mixture", "mlp", "random_forest", "bagging"])
def test_deterministic_from_seed(model):
    X, y = blobs(5, n=45)
    first = comparison_point(X, y, "toy", model, LIGHT[model], 3, 0.05, 21, em=EM).scores
    again = comparison_point(X, y, "toy", model, LIGHT[model], 3, 0.05, 21, em=EM).scores
    pd.testing.assert_frame_equal(without_timing(first), without_timing(again))


@pytest.mark.parametrize("model", ["gaussian_shared", "knn", "tree_unpruned"])
def test_perfect_model_zero_error_and_diagonal_confusion(model):
    X, y = blobs(6, n=60, spread=40.0)
    table = comparison_point(X, y, "toy", model, None, 4, 0.05, 1).scores
    for name in ("cv_error", "cv_std", "ci_low", "ci_high"):
        assert metric(table, name) == 0.0
    confusion = table[table["metric"] == "confusion"]
    diagonal = confusion["true_class"] == confusion["predicted_class"]
    assert (confusion.loc[~diagonal, "value"] == 0).all()
    assert confusion.loc[diagonal].set_index("true_class")["value"].to_dict() == \
        {"a": 20, "b": 20, "c": 20}


@pytest.mark.parametrize("significance_level", [0.05, 0.2])
def test_interval_is_the_notes_t_interval(significance_level):
    X, y = blobs(8, n=60, spread=1.5)
    table = comparison_point(X, y, "toy", "knn", {"n_neighbors": 3}, 6, significance_level, 2).scores
    fold_errors = table.loc[table["metric"] == "fold_error", "value"].to_numpy()
    cv = t_interval(fold_errors, significance_level)
    assert cv.std > 0
    assert metric(table, "cv_error") == pytest.approx(cv.mean, abs=1e-15)
    assert metric(table, "cv_std") == pytest.approx(cv.std, abs=1e-15)
    assert metric(table, "ci_low") == pytest.approx(cv.low, abs=1e-15)
    assert metric(table, "ci_high") == pytest.approx(cv.high, abs=1e-15)
    assert table["alpha"].unique().tolist() == [significance_level]


def test_matches_scikit_learn_on_the_same_folds():
    """Gaussian naive Bayes through the protocol = scikit-learn's GaussianNB cross-validated
    on the same folds: fold errors and the pooled confusion matrix."""
    X, y = blobs(9, n=90, spread=1.5)
    rng = generator(3, "comparison", "toy")
    folds = stratified_folds(y, 5, copy.deepcopy(rng))
    table = comparison_point(X, y, "toy", "naive_bayes", None, 5, 0.05, rng).scores
    predicted = cross_val_predict(GaussianNB(), X, y, cv=PredefinedSplit(folds))
    expected = [np.mean(predicted[folds == k] != y[folds == k]) for k in range(5)]
    np.testing.assert_allclose(table.loc[table["metric"] == "fold_error", "value"], expected)
    confusion = table[table["metric"] == "confusion"].pivot(
        index="true_class", columns="predicted_class", values="value")
    np.testing.assert_array_equal(confusion.to_numpy(),
                                  sk_confusion_matrix(y, predicted, labels=["a", "b", "c"]))


def test_standardise_within_folds_removes_feature_scale():
    """With ``standardise=True`` every fold is rescaled with its training statistics, so an
    affine change of a feature's units changes nothing; without it k-NN is dominated by
    the rescaled feature."""
    X, y = blobs(10, n=60, spread=2.0)
    scaled = X * np.array([1000.0, 1.0, 1.0, 1.0]) + 5.0
    base = comparison_point(X, y, "toy", "knn", None, 3, 0.05, 4, standardise=True).scores
    moved = comparison_point(scaled, y, "toy", "knn", None, 3, 0.05, 4, standardise=True).scores
    pd.testing.assert_frame_equal(without_timing(base), without_timing(moved))
    raw = comparison_point(scaled, y, "toy", "knn", None, 3, 0.05, 4).scores
    assert metric(raw, "cv_error") > metric(base, "cv_error")


class _SpyClassifier(BaseEstimator):
    """Majority vote that records the training rows it was given."""

    seen: list = []

    def __init__(self, label=None) -> None:
        self.label = label

    def fit(self, X, y):
        type(self).seen.append(len(X))
        values, counts = np.unique(y, return_counts=True)
        self.classes_ = values
        self.label_ = values[np.argmax(counts)] if self.label is None else self.label
        return self

    def predict(self, X):
        return np.full(len(X), self.label_, dtype=object)


SPY = ModelSpec("spy", "deterministic", "test", _SpyClassifier,
                {"label": "_SpyClassifier"}, "records fit sizes; a constant label if given")


def test_max_train_rows_subsamples_each_training_fold(monkeypatch):
    monkeypatch.setitem(MODELS, "spy", SPY)
    monkeypatch.setattr(_SpyClassifier, "seen", [])
    X, y = blobs(11, n=60)
    table = comparison_point(X, y, "toy", "spy", {"max_train_rows": 25}, 4, 0.05, 0).scores
    # the untimed warm-up fit (a few of the first fold's 25 rows), then the four folds
    assert _SpyClassifier.seen == [25, 25, 25, 25, 25]
    assert (table.loc[table["metric"] == "fold_error", "n_train"] == 25).all()
    # Test folds stay whole: the confusion matrix still counts every row.
    assert table.loc[table["metric"] == "confusion", "value"].sum() == 60


def test_rejected_predictions_count_as_errors(monkeypatch):
    monkeypatch.setitem(MODELS, "spy", SPY)
    X, y = blobs(12, n=30)
    table = comparison_point(X, y, "toy", "spy", {"label": "unclassifiable"}, 3, 0.05, 0).scores
    assert metric(table, "cv_error") == 1.0
    confusion = table[table["metric"] == "confusion"]
    assert set(confusion["true_class"]) == {"a", "b", "c"}
    rejected = confusion[confusion["predicted_class"] == "unclassifiable"]
    assert rejected.set_index("true_class")["value"].to_dict() == {"a": 10, "b": 10, "c": 10}


def test_unknown_names_raise_clear_errors():
    X, y = blobs(0, n=30)
    with pytest.raises(ValueError, match=r"unknown model 'lda'; known models: \[.*'mixture'"):
        make_model("lda")
    with pytest.raises(ValueError, match="known models"):
        comparison_point(X, y, "toy", "perceptron", None, 3, 0.05, 0).scores
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['gamma'\] for model 'svm'"):
        comparison_point(X, y, "toy", "svm", {"gamma": 1.0}, 3, 0.05, 0).scores
    with pytest.raises(ValueError, match="max_train_rows must be None or an integer >= 2"):
        comparison_point(X, y, "toy", "knn", {"max_train_rows": 1.5}, 3, 0.05, 0).scores
    with pytest.raises(ValueError, match="resolved from the training rows"):
        make_model("svm", {"sigma": "scale"})
    with pytest.raises(ValueError, match="fits a mixture by EM: it needs the EM settings"):
        comparison_point(X, y, "toy", "mixture", None, 3, 0.05, 0)
    with pytest.raises(ValueError, match="NaN"):
        comparison_point(np.where(X > 2, np.nan, X), y, "toy", "knn", None, 3, 0.05, 0).scores


def test_resolved_defaults_follow_the_data():
    X, _ = blobs(13, n=40)
    H, _ = one_hot(13, n=40)
    sigma = resolve_params("svm", {"sigma": "scale"}, X)["sigma"]
    gamma_scale = 1.0 / (X.shape[1] * X.var())  # scikit-learn's gamma="scale"
    assert 1.0 / (2 * sigma**2) == pytest.approx(gamma_scale)
    assert resolve_params("gaussian_per_class", {"reg_covar": "auto"}, H)["reg_covar"] == 0.1
    assert resolve_params("gaussian_shared", {"reg_covar": "auto"}, X)["reg_covar"] == 1e-6
    # naive Bayes' variant is the catalogue's own choice: "auto" unless given
    assert resolve_params("naive_bayes", None, H)["variant"] == "bernoulli"
    assert resolve_params("naive_bayes", {"binarize": "auto"}, H)["binarize"] == 0.5
    standard = (H - H.mean(0)) / H.std(0)
    assert resolve_params("naive_bayes", {"binarize": "auto"}, standard)["binarize"] == 0.0
    assert resolve_params("naive_bayes", None, X)["variant"] == "gaussian"
    assert resolve_params("svm", {"sigma": 2.0})["sigma"] == 2.0
    assert resolve_params("svm", None, X) == {}  # nothing given: the estimator's defaults


def test_indicator_like_allows_a_few_ambiguous_rows():
    H, _ = one_hot(14, n=400)
    assert is_indicator_like(H)
    assert is_indicator_like((H - H.mean(0)) / np.where(H.std(0) > 0, H.std(0), 1))
    H[0, :4] = 0.25  # one ambiguous base in 400 rows
    assert is_indicator_like(H)
    H[:10, :4] = 0.25  # 2.5 % of the rows
    assert not is_indicator_like(H)
    assert not is_indicator_like(blobs(14)[0])


def test_quantile_discretised_bins_numeric_features_only():
    rng = np.random.default_rng(15)
    numeric = rng.normal(size=200)
    category = rng.integers(0, 3, size=200).astype(float)
    X = np.column_stack([numeric, category])
    y = np.where(numeric > 0.3, "hi", "lo")
    model = QuantileDiscretised(ID3Classifier(), n_bins=4).fit(X, y)
    assert model.edges_[1] is None
    np.testing.assert_allclose(model.edges_[0], np.quantile(numeric, [0.25, 0.5, 0.75]))
    codes = model._codes(X)
    np.testing.assert_array_equal(codes[:, 1], category)
    assert np.bincount(codes[:, 0].astype(int)).tolist() == [50, 50, 50, 50]
    by_hand = ID3Classifier().fit(codes, y)
    np.testing.assert_array_equal(model.predict(X), by_hand.predict(codes))
    with pytest.raises(ValueError, match="n_bins must be an integer >= 2"):
        QuantileDiscretised(ID3Classifier(), n_bins=1).fit(X, y)


def _hand_table() -> pd.DataFrame:
    errors = {("d1", "mixture"): 0.30, ("d1", "naive_bayes"): 0.20, ("d1", "svm"): 0.10,
              ("d1", "knn"): 0.20, ("d2", "mixture"): 0.40, ("d2", "tree_unpruned"): 0.05}
    rows = []
    for (dataset, model), e in errors.items():
        for name, value in (("cv_error", e), ("cv_std", 0.01), ("ci_low", e - 0.02),
                            ("ci_high", e + 0.02), ("ci_corrected_low", e - 0.03),
                            ("ci_corrected_high", e + 0.03), ("fit_seconds", 1.0),
                            ("predict_seconds", 0.1)):
            rows.append({"protocol": "cv", "dataset": dataset, "model": model,
                         "approach": MODELS[model].approach, "family": MODELS[model].family,
                         "n_folds": 5, "alpha": 0.05, "metric": name,
                         "fold": pd.NA, "true_class": None, "predicted_class": None,
                         "value": value})
    return pd.DataFrame(rows, columns=COLUMNS)


def test_probabilistic_vs_deterministic_by_hand():
    result = probabilistic_vs_deterministic(_hand_table()).set_index(["dataset", "approach"])
    assert result.loc[("d1", "probabilistic"), "mean_cv_error"] == pytest.approx(0.25)
    assert result.loc[("d1", "deterministic"), "mean_cv_error"] == pytest.approx(0.15)
    assert result.loc[("d1", "deterministic"), "best_model"] == "svm"
    assert result.loc[("d1", "probabilistic"), "best_model"] == "naive_bayes"
    assert result.loc[("d1", "probabilistic"), "n_models"] == 2
    np.testing.assert_allclose(result.loc["d1", "gap"], [0.10, 0.10])
    assert (result.loc["d1", "mixture_cv_error"] == 0.30).all()
    assert result.loc[("d2", "probabilistic"), "gap"] == pytest.approx(0.35)


def test_summary_is_one_row_per_model_sorted():
    summary = comparison_summary(_hand_table())
    assert len(summary) == 6
    assert summary.loc[summary["dataset"] == "d1", "model"].tolist()[0] == "svm"
    assert summary.columns.tolist()[-len(SUMMARY_METRICS):] == list(SUMMARY_METRICS)


@pytest.fixture(scope="module")
def two_datasets() -> pd.DataFrame:
    X, y = blobs(16, n=45, spread=2.0)
    H, z = one_hot(16, n=45)
    models = ["mixture", "naive_bayes", "knn", "tree_unpruned"]
    params = {"mixture": LIGHT["mixture"]}
    return pd.concat([models_on_one_dataset(X, y, "blobs", models, params, 3, 0.05, 1,
                                            em=EM).scores,
                      models_on_one_dataset(H, z, "dna", models, params, 3, 0.05, 1,
                                            em=EM).scores],
                     ignore_index=True)


def test_comparison_figure(two_datasets, tmp_path):
    summary = comparison_summary(two_datasets)
    fig = comparison_figure(summary)
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 2
    for ax, dataset in zip(axes, ["blobs", "dna"]):
        labels = [t.get_text() for t in ax.get_yticklabels()]
        part = summary[summary["dataset"] == dataset]
        # Best model on top: tick labels bottom to top by decreasing error.
        errors = part.set_index("model").loc[labels, "cv_error"].to_numpy()
        assert np.all(np.diff(errors) <= 0)
        assert set(labels) == set(part["model"])
        assert ax.get_xlabel() == "cross-validated error (%)"
    fig.savefig(tmp_path / "comparison.png")
    with pytest.raises(ValueError, match="lacks the column"):
        comparison_figure(two_datasets)  # the stacked points, not the summary


def test_confusion_figure(two_datasets, tmp_path):
    summary = comparison_summary(two_datasets)
    best = best_per_family(summary, "blobs")
    assert sorted(best["family"]) == sorted({"mixture", "generative", "neighbours", "trees"})
    fig = confusion_figure(two_datasets, summary, "blobs")
    heatmaps = [ax for ax in fig.axes if ax.get_visible() and ax.images]
    assert len(heatmaps) == len(best)
    for ax, (_, row) in zip(heatmaps, best.iterrows()):
        assert row["model"] in ax.get_title()
        # each cell: "share %" over the count of one repeat; the counts add up to the rows
        counts = sum(float(text.get_text().split("\n")[1]) for text in ax.texts)
        assert counts == 45
    fig.savefig(tmp_path / "confusion.png")
    with pytest.raises(ValueError, match="no cv_error rows for dataset 'wine'"):
        confusion_figure(two_datasets, summary, "wine")


def test_the_settings_table_records_a_shrinkage_chosen_at_fit_with_the_value_that_ran():
    """The per-class Gaussian's reg_param='auto' is chosen by each fit's inner cross-validation:
    the settings table gives the text and the value that fold ran with."""
    from mixlib.experiments.comparison import estimator_settings
    from mixlib.generative import QuadraticGaussianClassifier
    from mixlib.generative._shrinkage_cv import REG_PARAM_GRID

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(1.5, 1, (40, 3))])
    y = np.repeat([0, 1], 40)
    model = QuadraticGaussianClassifier(reg_param="auto", random_state=0).fit(X, y)
    recorded = estimator_settings(model)["reg_param"]
    assert recorded == f"auto ({model.reg_param_:g})" and model.reg_param_ in REG_PARAM_GRID
    fixed = QuadraticGaussianClassifier(reg_param=0.3).fit(X, y)
    assert estimator_settings(fixed)["reg_param"] == "0.3"

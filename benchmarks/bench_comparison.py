"""The comparison protocol: every mixlib model against its scikit-learn counterpart, same folds.

Usage: ``python benchmarks/bench_comparison.py [--quick] [--datasets splice,wine]
[--models gaussian_per_class,knn]``

For each data set, :func:`mixlib.experiments.comparison.comparison_point` runs every model of
the study's ``comparison.models`` with its ``comparison.params`` and the ``em`` settings of
``config/config.yaml`` on the stratified folds of
``generator(seed, "comparison", dataset)``; scikit-learn's closest estimator runs on the same
folds (``PredefinedSplit``) with the same settings where they exist (mixture and ID3 have no
counterpart; the all-together SVM is set against scikit-learn's one-vs-one ``SVC`` with the
same kernel and C, which has no Weston-Watkins formulation; a model added to the registry
without a counterpart here runs alone, its scikit-learn columns printed as ``-``). Numeric data sets are standardised inside the folds (``StandardScaler`` for
scikit-learn), heart_cleveland's 6 missing cells are mean-imputed beforehand. Printed per
model: mean fit + predict seconds per fold (wall clock) of both, their ratio, and both CV
errors. ``--quick``: wine and heart_cleveland only.
"""

from __future__ import annotations

import argparse
import copy
import time

from pathlib import Path

import numpy as np
import yaml
from sklearn.base import clone as sk_clone
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.ensemble import AdaBoostClassifier, BaggingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from _common import Ratios
from mixlib.datasets import load_xy
from mixlib.model_selection.evaluation import stratified_folds
from mixlib.core.preprocessing import is_indicator_like
from mixlib.experiments.comparison import comparison_point
from mixlib.catalogue.settings import EMSettings
from mixlib.impute import MeanImputer
from mixlib.neighbors import default_n_neighbors
from mixlib.core.seeding import generator

SEED = 20061
STUDY = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "config.yaml")
                       .read_text(encoding="utf-8"))


def sklearn_models(X: np.ndarray, n_train: int) -> dict:
    """scikit-learn's closest counterpart of each registry model (None: no counterpart)."""
    onehot = is_indicator_like(X)
    return {
        "mixture": None,
        "gaussian_per_class": QuadraticDiscriminantAnalysis(reg_param=0.1 if onehot else 0.0),
        "gaussian_shared": LinearDiscriminantAnalysis(solver="lsqr",
                                                      shrinkage=0.1 if onehot else None),
        "naive_bayes": BernoulliNB(binarize=0.5) if onehot else GaussianNB(),
        "logistic_regression": LogisticRegression(C=1.0, max_iter=1000, tol=1e-6),
        "mlp": MLPClassifier((16,), activation="tanh", solver="sgd", batch_size=1,
                             learning_rate_init=0.02, max_iter=100, early_stopping=True,
                             n_iter_no_change=5, momentum=0.0, random_state=0),
        "svm": SVC(C=10.0, kernel="rbf", gamma="scale", tol=1e-3),
        "svm_all_together": SVC(C=10.0, kernel="rbf", gamma="scale", tol=1e-3),
        "knn": KNeighborsClassifier(default_n_neighbors(n_train)),
        "tree_unpruned": DecisionTreeClassifier(criterion="entropy", random_state=0),
        "id3": None,
        "random_forest": RandomForestClassifier(100, max_features="sqrt", random_state=0,
                                                n_jobs=1),
        "adaboost": AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50,
                                       random_state=0),
        "bagging": BaggingClassifier(DecisionTreeClassifier(), n_estimators=25, random_state=0,
                                     n_jobs=1),
    }


def sklearn_cv(model, X, y, folds, standardise: bool) -> tuple[float, float]:
    """Mean (fit + predict) seconds per fold and mean fold error of a scikit-learn model."""
    seconds, errors = [], []
    for k in np.unique(folds):
        test = folds == k
        estimator = make_pipeline(StandardScaler(), sk_clone(model)) if standardise \
            else sk_clone(model)
        start = time.perf_counter()
        predicted = estimator.fit(X[~test], y[~test]).predict(X[test])
        seconds.append(time.perf_counter() - start)
        errors.append(float(np.mean(predicted != y[test])))
    return float(np.mean(seconds)), float(np.mean(errors))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="wine and heart_cleveland only")
    parser.add_argument("--datasets", default="splice,heart_cleveland,wine")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--models", default=None,
                        help="comma-separated models of comparison.models (default: all)")
    args = parser.parse_args()
    datasets = ["heart_cleveland", "wine"] if args.quick else args.datasets.split(",")
    models = STUDY["comparison"]["models"] if args.models is None else args.models.split(",")
    unknown = sorted(set(models) - set(STUDY["comparison"]["models"]))
    if unknown:
        parser.error(f"--models: {unknown} not in comparison.models of config/config.yaml")
    print(f"{args.folds}-fold CV, seconds = mean fit + predict per fold (wall clock)")
    print(f"{'dataset':16s}{'model':21s}{'mixlib s':>9s}{'sklearn s':>10s}{'ratio':>7s}"
          f"{'mixlib err':>11s}{'sklearn err':>12s}")
    ratios = Ratios("comparison")
    for dataset in datasets:
        X, y = load_xy(dataset)
        if np.isnan(X).any():
            X = MeanImputer().fit(X, y).transform(X)
        standardise = not is_indicator_like(X)
        rng = generator(SEED, "comparison", dataset)
        folds = stratified_folds(y, args.folds, copy.deepcopy(rng))
        n_train = int(np.sum(folds != 0))
        counterparts = sklearn_models(X, n_train)
        em = EMSettings.from_mapping(STUDY["em"])
        for name in models:
            table = comparison_point(X, y, dataset, name, STUDY["comparison"]["params"].get(name),
                                     args.folds, 0.05, copy.deepcopy(rng),
                                     standardise=standardise, em=em).scores
            values = table.set_index("metric")["value"]
            ours = float(values["fit_seconds"] + values["predict_seconds"])
            line = f"{dataset:16s}{name:21s}{ours:9.3f}"
            if counterparts.get(name) is None:
                print(f"{line}{'-':>10s}{'-':>7s}{values['cv_error']:11.4f}{'-':>12s}",
                      flush=True)
                continue
            theirs, error = sklearn_cv(counterparts[name], X, y, folds, standardise)
            print(f"{line}{theirs:10.3f}{ours / theirs:7.1f}{values['cv_error']:11.4f}"
                  f"{error:12.4f}", flush=True)
            ratios.add(f"{dataset}_{name}", ours / theirs, 1.0 - float(values["cv_error"]),
                       1.0 - error)
    ratios.emit()


if __name__ == "__main__":
    main()

"""The compile-once rule: which jobs wait for which compiled module, and the warm-up fit."""

from pathlib import Path

import numpy as np
import pytest

from mixlib.model_selection.resampling import WARM_UP_ROWS, warm_up
from mixlib.pipeline.compiled import COMPILED_MODULES, marker_path, modules_used, warm
from mixlib.pipeline.fingerprint import job_files

SCRIPTS = Path(__file__).resolve().parents[1] / "workflow" / "scripts"


@pytest.mark.parametrize(("model", "expected"), [
    # every model: the comparison fills missing cells with the kernel-mode imputer's mixtures
    ("knn", ["mixlib.mixture._em_loop"]),
    ("mixture", ["mixlib.mixture._em_loop"]),
    ("cart", ["mixlib.tree._histogram_search", "mixlib.mixture._em_loop"]),
    ("logistic_regression", ["mixlib.linear_model._sparse_loop", "mixlib.mixture._em_loop"]),
    ("svm", ["mixlib.svm._smo_loop", "mixlib.svm._all_together_loop",
             "mixlib.mixture._em_loop"]),
    ("mlp", ["mixlib.neural_network._epoch_loop", "mixlib.mixture._em_loop"]),
])
def test_a_comparison_job_waits_for_the_compiled_modules_of_its_model(model, expected):
    assert modules_used(job_files(SCRIPTS / "comparison_point.py", model)) == expected


def test_jobs_without_compiled_code_wait_for_none():
    # every job imports mixlib.pipeline.workflow: it must not pull the warm-ups in
    for script in ("data_summary.py", "split.py"):
        assert modules_used(job_files(SCRIPTS / script)) == [], script
    assert modules_used(job_files(SCRIPTS / "ensemble_curve.py")) == [
        "mixlib.tree._histogram_search", "mixlib.mixture._em_loop"]  # bagged mixtures
    assert modules_used(job_files(SCRIPTS / "mlp_sweep_point.py")) == [
        "mixlib.neural_network._epoch_loop"]


@pytest.mark.filterwarnings("ignore:early stopping did not trigger")
def test_the_mlp_warm_up_reaches_the_argument_types_of_the_study_fits():
    """After the warm-up, fits like the study's (one-hot or ordinal inputs, every regime, a
    mini-batch, momentum, row weights) compile nothing more: no new signature of the loop."""
    from mixlib.datasets import load_xy
    from mixlib.neural_network import MLPClassifier
    from mixlib.neural_network._epoch_loop import run_epoch

    warm("mixlib.neural_network._epoch_loop")
    signatures = list(run_epoch.signatures)
    assert len(signatures) == 1
    for encoding in ("onehot", "ordinal"):
        X, y = load_xy("splice", encoding=encoding)
        rows = np.random.default_rng(0).permutation(len(y))[:60]
        for params in ({"regime": "plain"}, {"regime": "weight_decay"},
                       {"regime": "early_stopping", "batch_size": 8, "momentum": 0.5}):
            MLPClassifier(hidden_size=3, n_epochs=2, random_state=0, **params).fit(
                X[rows], y[rows], sample_weight=np.linspace(0.5, 1.5, 60))
    assert run_epoch.signatures == signatures
# Every script that fits a mixture, and so runs the compiled EM loop.
MIXTURE_SCRIPTS = (
    "dna_kernel_curve.py", "em_trace.py", "em_trace_sensitivity.py", "imputation_study_point.py",
    "impute.py", "kernel_map.py", "kernel_sweep_curve.py", "kernel_sweep_sensitivity.py",
    "semisupervised_rounds.py", "semisupervised_sensitivity.py",
)


@pytest.mark.parametrize("script", MIXTURE_SCRIPTS)
def test_mixture_jobs_wait_for_the_compiled_em_loop(script):
    assert modules_used(job_files(SCRIPTS / script)) == ["mixlib.mixture._em_loop"]
    # and their rule asks for the marker (compiled_code of that script)
    rules = "\n".join(path.read_text() for path in (SCRIPTS.parent / "rules").glob("*.smk"))
    assert f'compiled=compiled_code("{script}")' in rules


def test_em_warm_up_compiles_the_types_the_fits_pass():
    from mixlib.mixture._em_loop import em_iterations

    warm("mixlib.mixture._em_loop")
    # one specialisation: unit and other weights, Fortran-ordered input all pass C arrays
    assert len(em_iterations.signatures) == 1


def test_markers_and_unknown_module():
    assert marker_path("mixlib.svm._smo_loop") == "results/compiled/mixlib.svm._smo_loop.done"
    with pytest.raises(ValueError, match="no compiled module 'numpy'"):
        warm("numpy")


class _Recorder:
    fitted: list = []

    def __init__(self, rng):
        self.rng = rng

    def fit(self, X, y):
        _Recorder.fitted.append((X.copy(), y.copy()))
        return self


def test_warm_up_fits_a_few_rows_with_every_class_and_its_own_generator():
    _Recorder.fitted = []
    X = np.arange(600.0).reshape(300, 2)
    y = np.r_[np.zeros(299, dtype=int), 1]  # class 1 only in the last row
    unit_rng = np.random.default_rng(3)
    state = unit_rng.bit_generator.state
    warm_up(lambda X_, rng: _Recorder(rng), X, y)
    (X_fit, y_fit), = _Recorder.fitted
    assert len(y_fit) <= WARM_UP_ROWS + 2 and set(y_fit) == {0, 1}
    assert unit_rng.bit_generator.state == state


def test_warm_up_ignores_a_model_that_cannot_fit_so_few_rows():
    class Failing:
        def fit(self, X, y):
            raise ValueError("too few rows")

    warm_up(lambda X, rng: Failing(), np.zeros((5, 1)), np.arange(5))  # no exception

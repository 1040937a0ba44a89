"""Code fingerprints of the jobs (mixlib.pipeline.fingerprint): an edited module reruns
exactly the jobs that import it."""

import re
from pathlib import Path

import pytest

from mixlib.pipeline import fingerprint
from mixlib.pipeline.fingerprint import PACKAGE_DIR, code_fingerprint, job_files

SCRIPTS = Path(__file__).resolve().parents[1] / "workflow" / "scripts"
RULES = SCRIPTS.parent / "rules"
KNN = PACKAGE_DIR / "neighbors" / "knn.py"


def test_a_comparison_job_depends_on_its_own_models_estimator_only():
    knn = job_files(SCRIPTS / "comparison_point.py", "knn")
    svm = job_files(SCRIPTS / "comparison_point.py", "svm")
    assert KNN in knn and KNN not in svm
    assert PACKAGE_DIR / "svm" / "svc.py" in svm and PACKAGE_DIR / "svm" / "svc.py" not in knn
    for files in (knn, svm):  # both read the prepared table and run the comparison protocol
        assert {PACKAGE_DIR / "experiments" / "comparison.py", PACKAGE_DIR / "pipeline" / "io.py",
                PACKAGE_DIR / "__init__.py"} <= set(files)


def test_jobs_that_build_a_mixture_depend_on_the_mixture_not_on_other_estimators():
    files = job_files(SCRIPTS / "em_trace.py")
    assert PACKAGE_DIR / "mixture" / "gaussian_mixture.py" in files
    assert not any(path.is_relative_to(PACKAGE_DIR / "neighbors") for path in files)
    assert not any(path.is_relative_to(PACKAGE_DIR / "svm") for path in files)


@pytest.mark.parametrize("script", ["claims.py", "svm_best.py", "mlp_sweep_point.py", "mkl.py", "svdd.py"])
def test_jobs_that_build_no_mixture_do_not_depend_on_the_mixture(script):
    """The settings module builds the mixture classifier inside a function (and names its class
    for type hints only): importing the settings alone does not make a job a mixture job."""
    files = job_files(SCRIPTS / script)
    assert PACKAGE_DIR / "catalogue" / "settings.py" in files
    assert not any(path.is_relative_to(PACKAGE_DIR / "mixture") for path in files)


@pytest.mark.parametrize("script, built, not_built", [
    ("ensemble_curve.py", [("tree", "decision_tree.py"), ("ensemble", "forest.py")],
     [("svm", "svc.py"), ("neural_network", "mlp.py")]),
    ("mlp_sweep_point.py", [("neural_network", "mlp.py")], [("svm", "svc.py"), ("tree", "cart.py")]),
    ("mkl.py", [("svm", "svc.py")], [("neural_network", "mlp.py"), ("tree", "cart.py")]),
])
def test_a_stage_that_names_its_models_depends_on_their_estimators_only(script, built, not_built):
    """``make_model("mlp", ...)`` runs the builder of the named model alone, for a job without
    a ``model`` wildcard too; no stage job depends on k-NN, which none of them builds."""
    files = job_files(SCRIPTS / script)
    for package, module in built:
        assert PACKAGE_DIR / package / module in files
    for package, module in [*not_built, ("neighbors", "knn.py")]:
        assert PACKAGE_DIR / package / module not in files


def test_a_model_named_at_run_time_without_a_model_wildcard_depends_on_every_builder():
    # the comparison's script builds the model its wildcard names: without one, it could be any
    files = job_files(SCRIPTS / "comparison_point.py")
    assert KNN in files and PACKAGE_DIR / "svm" / "svc.py" in files


def test_a_figure_job_depends_on_its_figure_module_and_the_style_file():
    files = job_files(SCRIPTS / "figure.py", None, ("mixlib.figures.fig3_3",))
    assert PACKAGE_DIR / "figures" / "fig3_3.py" in files
    assert PACKAGE_DIR / "figures" / "mixstudy.mplstyle" in files
    assert PACKAGE_DIR / "catalogue" / "registry.py" not in files


def clear_caches():
    """Forget every file read (the caches last one Snakemake invocation)."""
    for function in vars(fingerprint).values():
        if hasattr(function, "cache_clear"):
            function.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_caches():
    yield
    clear_caches()


def test_relative_and_parenthesised_imports_are_followed(tmp_path, monkeypatch):
    package = tmp_path / "mixlib"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .a import (\n    f,\n)\n")
    (package / "sub" / "a.py").write_text("def f():\n    from ..b import g\n    return g\n")
    (package / "b.py").write_text("g = 1\n")
    (package / "c.py").write_text("h = 1\n")
    script = tmp_path / "script.py"
    script.write_text('"""Doc: import nothing here."""\nfrom mixlib.sub import f\n')
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", package)
    clear_caches()
    assert {path.name for path in fingerprint.job_files(script)} == {"__init__.py", "a.py", "b.py"}
    before = fingerprint.code_fingerprint(script)
    (package / "c.py").write_text("h = 2\n")  # not imported: same fingerprint
    clear_caches()
    assert fingerprint.code_fingerprint(script) == before
    (package / "b.py").write_text("g = 2\n")
    clear_caches()
    assert fingerprint.code_fingerprint(script) != before


def test_the_fingerprint_is_stable_and_short():
    first = code_fingerprint(SCRIPTS / "comparison_point.py", "knn")
    assert first == code_fingerprint(SCRIPTS / "comparison_point.py", "knn")
    assert len(first) == 16 and first != code_fingerprint(SCRIPTS / "comparison_point.py", "svm")


def test_every_script_rule_declares_its_own_scripts_fingerprint_and_the_environment():
    """Each ``script:`` rule says in its text what it runs with: ``code`` for the script it
    runs (not another's) and ``conda: ENVIRONMENT``; no rule is changed after it is read."""
    checked = 0
    for rules in sorted(RULES.glob("*.smk")):
        for name, body in re.findall(r"^rule (\w+):\n((?:(?: {4}.*)?\n)+)", rules.read_text(),
                                     flags=re.MULTILINE):
            script = re.search(r'^ {4}script:\n {8}"\.\./scripts/([\w/]+\.py)"', body, re.MULTILINE)
            assert script, f"rule {name} runs no script"
            assert re.findall(r'^ {8}code=fingerprint_of\("([\w/]+\.py)"(?:, "[\w.]+")?\),$', body,
                              re.MULTILINE) == [script.group(1)], name
            assert "    conda:\n        ENVIRONMENT\n" in body, name
            checked += 1
    assert checked > 60

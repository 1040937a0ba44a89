"""One set of EM settings for every mixture: which jobs fit one, and where EM keys may stand."""

import copy

import pytest

from mixlib.catalogue.settings import EMSettings
from mixlib.pipeline.config_checks import check_comparison_params
from mixlib.pipeline.config import read_config_file
from mixlib.pipeline.datasets import dataset_has_missing_values
from mixlib.pipeline.mixtures import comparison_fits_mixture, em_if, imputer_fits_mixture

STUDY = read_config_file("config/config.yaml")


def test_shipped_data_sets_with_missing_cells_are_known_before_any_job():
    datasets = STUDY["datasets"]
    assert dataset_has_missing_values("heart_cleveland", datasets["heart_cleveland"])
    assert not dataset_has_missing_values("wine", datasets["wine"])
    assert not dataset_has_missing_values("splice", datasets["splice"])


def test_a_url_source_may_have_missing_cells_until_downloaded():
    spec = {"source": "url", "url": "https://example.org/x.data", "sha256": "0" * 64,
            "format": "wine"}
    assert dataset_has_missing_values("remote", spec)


def test_a_user_csv_is_read_for_missing_cells(tmp_path):
    (tmp_path / "full.csv").write_text("a,b,kind\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n")
    (tmp_path / "holes.csv").write_text("a,b,kind\n1,,x\n3,4,y\n5,6,x\n7,8,y\n")
    full = {"source": "csv", "path": "full.csv", "class_column": "kind"}
    holes = {"source": "csv", "path": "holes.csv", "class_column": "kind"}
    assert not dataset_has_missing_values("full", full, tmp_path)
    assert dataset_has_missing_values("holes", holes, tmp_path)


def test_the_imputer_fits_mixtures_only_with_kernel_mode_on_missing_cells():
    assert imputer_fits_mixture(STUDY, "heart_cleveland")
    assert not imputer_fits_mixture(STUDY, "wine")
    mean_config = copy.deepcopy(STUDY)
    mean_config["impute"]["method"] = "mean"
    assert not imputer_fits_mixture(mean_config, "heart_cleveland")


@pytest.mark.parametrize("dataset, model, expected", [
    ("wine", "mixture", True),             # the model is a mixture
    ("wine", "svm", False),                # complete data: nothing to impute
    ("heart_cleveland", "svm", True),      # kernel-mode imputation of its missing cells
    ("splice", "random_forest", False),
])
def test_comparison_jobs_that_fit_a_mixture(dataset, model, expected):
    assert comparison_fits_mixture(STUDY, dataset, model) is expected


def test_em_parameter_is_the_section_or_none():
    em = EMSettings.from_mapping(STUDY["em"])
    assert em_if(em, True) is em
    assert em_if(em, False) is None


def test_em_keys_in_the_comparison_mixture_overrides_are_refused():
    config = copy.deepcopy(STUDY)
    config["comparison"]["params"]["mixture"] = {"n_components": 4, "tol": 1e-3}
    with pytest.raises(ValueError, match=r"^comparison\.params\.mixture: \['tol'\] are EM settings"):
        check_comparison_params(config["comparison"]["params"])
    config["comparison"]["params"]["mixture"] = {"n_components": 3}
    check_comparison_params(config["comparison"]["params"])

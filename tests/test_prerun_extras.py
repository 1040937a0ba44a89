"""Pre-run checks outside the config values (issue 25 defect 4 and item 8): grid values get
exact file names, and an output folder that is a file is named before any job."""

import re
from types import SimpleNamespace

import pytest

from mixlib.experiments.semisupervised_readings import sensitivity_point_paths
from mixlib.pipeline.prerun_checks import check_output_folders


def test_close_grid_values_get_their_own_files_and_exact_values():
    grid = {"thresholds": [0.75, 0.7500001], "relative_min_variances": [1e-6]}
    paths = sensitivity_point_paths(["s"], grid)
    assert len(set(paths)) == 2
    thresholds = [re.search(r"\.t(.+)\.v(.+)\.tsv$", path).groups() for path in paths]
    assert [float(t) for t, _ in thresholds] == [0.75, 0.7500001]


def test_an_output_folder_that_is_a_file_is_named(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "tables").write_text("oops")
    rules = [SimpleNamespace(output=["results/tables/{table}.tsv"]),
             SimpleNamespace(output=["results/figures/x.png"])]
    with pytest.raises(ValueError, match=r"^results/tables is a file, not a folder: the study "
                                         r"writes its outputs into results/tables/\. Move"):
        check_output_folders(rules, tmp_path)
    (tmp_path / "results" / "tables").unlink()
    check_output_folders(rules, tmp_path)

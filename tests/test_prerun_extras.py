"""Pre-run checks outside the config values: an output folder that is a file is named before
any job."""

from types import SimpleNamespace

import pytest

from mixlib.pipeline.io import check_output_folders


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

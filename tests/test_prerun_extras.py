"""Pre-run checks outside the config values: grid values get
exact file names, and an output folder that is a file is named before any job."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from snakemake.io import expand

from mixlib.pipeline.io import check_output_folders

RULES = Path(__file__).resolve().parents[1] / "workflow" / "rules"
#: The sensitivity grid's rounds tables, as the rule writes them and common.smk asks for them.
GRID_TABLE = "results/semisupervised_sensitivity/{split}.v{floor}.tsv"


def test_close_grid_values_get_their_own_files_and_exact_values():
    """common.smk names a grid job's table by expanding the rule's output over the config's
    floors: each is written as Python writes it, so close values get two files and the job
    reads back (float of its wildcard) the very value of the config."""
    rule_file = (RULES / "semisupervised.smk").read_text()
    assert f'"{GRID_TABLE}"' in rule_file and f'"{GRID_TABLE}"' in (RULES / "common.smk").read_text()
    number = re.search(r'floor=r"([^"]+)"', rule_file).group(1)
    floors = [1e-6, 1e-2, 0.0100001, 0.1 + 0.2]
    paths = expand(GRID_TABLE, split=["s"], floor=floors)
    assert len(set(paths)) == 4 and paths[0] == "results/semisupervised_sensitivity/s.v1e-06.tsv"
    pattern = re.escape(GRID_TABLE).replace(r"\{split\}", "s").replace(r"\{floor\}", f"({number})")
    read_back = [float(re.fullmatch(pattern, path).group(1)) for path in paths]
    assert read_back == floors


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

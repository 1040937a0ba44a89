"""The config checker refuses what YAML or Snakemake would accept silently."""

import pytest

from mixlib.pipeline.cli import main
from mixlib.pipeline.config import read_config_file


def test_a_key_given_twice_is_refused_with_both_lines(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("seed: 1\nrepeats: 3\nseed: 2\n")
    with pytest.raises(ValueError, match=r"my\.yaml, line 3, column 1: .*key 'seed' is given "
                                         r"twice \(first at line 1, column 1\)"):
        read_config_file(path)


def test_a_nested_key_given_twice_is_refused(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("comparison:\n  n_folds: 5\n  alpha: 0.05\n  n_folds: 3\n")
    with pytest.raises(ValueError, match=r"line 4, column 3: .*'n_folds' is given twice"):
        read_config_file(path)


def test_use_yte_is_refused(tmp_path):
    path = tmp_path / "other.yaml"
    path.write_text("__use_yte__: true\nseed: 1\n")
    with pytest.raises(ValueError, match=r"other\.yaml: sets __use_yte__, which makes Snakemake "
                                         r"run the Python inside the file"):
        read_config_file(path)


def test_the_checker_command_says_not_ok(tmp_path, capsys):
    good, twice, yte = tmp_path / "good.yaml", tmp_path / "twice.yaml", tmp_path / "yte.yaml"
    good.write_text("seed: 1\n")
    twice.write_text("seed: 1\nseed: 1\n")
    yte.write_text("__use_yte__: true\n")
    assert main([str(good)]) == 0
    assert main([str(twice)]) == 1 and "given twice" in capsys.readouterr().err
    assert main([str(yte)]) == 1 and "__use_yte__" in capsys.readouterr().err

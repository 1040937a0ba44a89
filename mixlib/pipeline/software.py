"""The software every job runs with: the study's one conda environment, named on each rule."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml


def conda_environment_name(environment_file: Path) -> str:
    """The ``name:`` of a conda environment file (``environment.yml``).

    Raises
    ------
    ValueError
        If the file gives no name: a rule can only refer to a created environment by it.
    """
    spec = yaml.safe_load(Path(environment_file).read_text()) or {}
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{environment_file}: no 'name:' for the conda environment")
    return name


def use_conda_environment(rules: Iterable[Any], environment_file: Path) -> None:
    """Name the conda environment of ``environment_file`` on every rule that runs a script.

    With ``snakemake --sdm conda`` each job then runs in that environment, created once by
    the user as its file says (``conda env create -f environment.yml``, then ``pip install
    --no-deps -e .`` in it); without that flag Snakemake ignores it and jobs run in the
    current Python. A named environment, not the file itself: the file installs the lock
    through ``pip --requirement`` and mixlib needs an editable install, neither of which
    Snakemake's own deployment of an environment file (a copy under ``.snakemake/conda``)
    can do. It is what ``snakemake --lint`` asks of each rule.

    Parameters
    ----------
    rules : iterable of snakemake.rules.Rule
        The workflow's rules (``workflow.rules`` in the Snakefile, after every include).
    environment_file : Path
        The project's ``environment.yml``. A copy of the workflow without it (only
        ``workflow/`` and ``config/``) names no environment: its jobs run in the current
        Python, as they do without ``--sdm conda``.
    """
    if not Path(environment_file).is_file():
        return
    name = conda_environment_name(environment_file)
    for rule in rules:
        if rule.script is not None and rule.conda_env is None:
            rule.conda_env = name

"""The software every job runs with, declared on each rule: the study's conda environment file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any


def use_conda_environment(rules: Iterable[Any], environment_file: Path) -> None:
    """Declare ``environment_file`` as the conda environment of every rule that runs a script.

    The declaration documents, on each rule, the software its jobs need (what
    ``snakemake --lint`` asks of every rule): the file lists the run lock's packages at its
    versions. Snakemake ignores it unless asked to deploy it: jobs run in the Python that runs
    Snakemake, and no job reruns because of it. ``--sdm conda`` is not supported: the
    environments Snakemake would build from the file do not hold mixlib itself, which the
    README installs from the checkout (``pip install --no-deps -e .``).

    Parameters
    ----------
    rules : iterable of snakemake.rules.Rule
        The workflow's rules (``workflow.rules`` in the Snakefile, after every include); a
        rule that declares its own environment keeps it.
    environment_file : Path
        The project's ``environment.yml``. A copy of the workflow without it (only
        ``workflow/`` and ``config/``) declares none.
    """
    environment_file = Path(environment_file)
    if not environment_file.is_file():
        return
    for rule in rules:
        if rule.script is not None and rule.conda_env is None:
            rule.conda_env = str(environment_file.resolve())

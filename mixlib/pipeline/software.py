"""The software every job runs with, declared on each rule: the study's conda environment file."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any


def use_conda_environment(rules: Iterable[Any], environment_file: Path) -> None:
    """Declare ``environment_file`` as the conda environment of every rule that runs a script.

    The declaration documents, on each rule, the software its jobs need (what
    ``snakemake --lint`` asks of every rule). Without ``--sdm conda`` (the README's way)
    Snakemake ignores it: jobs run in the Python that runs Snakemake, and no job reruns
    because of it. ``--sdm conda`` is not supported: Snakemake would create the environment
    from a copy of the file under ``.snakemake/conda``, where its ``pip --requirement
    requirements/test.txt`` line does not resolve, and mixlib itself needs the editable
    install the file's header describes.

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

"""The software every job runs with, declared on each rule: the study's conda environment file."""

from __future__ import annotations

from pathlib import Path


def conda_environment(environment_file: Path) -> str | None:
    """The ``conda:`` of every script rule: ``environment_file``'s absolute path, or None (no
    environment declared) for a copy of the workflow without it (only ``workflow/`` and
    ``config/``).

    The declaration documents, on each rule, the software its jobs need (what
    ``snakemake --lint`` asks of every rule): the file lists the run lock's packages at its
    versions. Snakemake ignores it unless asked to deploy it: jobs run in the Python that runs
    Snakemake, and no job reruns because of it. ``--sdm conda`` is not supported: the
    environments Snakemake would build from the file do not hold mixlib itself, which the
    README installs from the checkout (``pip install --no-deps -e .``).
    """
    environment_file = Path(environment_file)
    return str(environment_file.resolve()) if environment_file.is_file() else None

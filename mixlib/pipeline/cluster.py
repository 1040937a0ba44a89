"""Checks of a cluster run's settings, made before Snakemake submits any job.

The example user profile for SLURM sites (``docs/slurm-profile/config.yaml``) ships with
placeholders for the account and the partition. Left as they are in a copy, ``sbatch`` rejects
every job only after the run has started; :func:`check_slurm_workflow` stops the run before the first submission instead,
with a message naming the resource to set and where to set it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

#: The resources the SLURM executor turns into ``sbatch --account`` and ``--partition``.
SLURM_PLACEHOLDER_KEYS: tuple[str, ...] = ("slurm_account", "slurm_partition")

#: The example user profile whose copy holds a site's account and partition.
PROFILE = "docs/slurm-profile/config.yaml"

_PLACEHOLDER = re.compile(r"\s*<[^<>]*>\s*")


class ClusterSettingsError(ValueError):
    """A cluster run's settings still hold a placeholder; nothing was submitted."""


def is_placeholder(value: Any) -> bool:
    """Whether ``value`` is a placeholder such as ``"<your-account>"``.

    Parameters
    ----------
    value : object
        A resource value as Snakemake evaluated it (a string, a number or ``None``).

    Returns
    -------
    bool
        True for a string that is one ``<...>`` token, the form of the profile's
        placeholders (no real SLURM account or partition name contains ``<`` or ``>``).
    """
    return isinstance(value, str) and _PLACEHOLDER.fullmatch(value) is not None


def slurm_placeholders(
    job_resources: Iterable[tuple[str, Mapping[str, Any]]],
    no_account: bool = False,
) -> dict[str, dict[str, list[str]]]:
    """The placeholder account and partition values the jobs of a run would be submitted with.

    Parameters
    ----------
    job_resources : iterable of (str, mapping)
        For each job to run, its rule name and its evaluated resources (profile defaults,
        ``--default-resources``, the rule's own ``resources:`` and ``--set-resources``
        already merged, as Snakemake hands them to the executor).
    no_account : bool, default False
        The executor's ``slurm-no-account`` setting: then no account is passed to ``sbatch``
        and ``slurm_account`` is not checked.

    Returns
    -------
    dict
        Resource key -> placeholder value -> sorted names of the rules whose jobs carry it;
        empty when every job can be submitted as it is.
    """
    keys = [key for key in SLURM_PLACEHOLDER_KEYS if not (no_account and key == "slurm_account")]
    found: dict[str, dict[str, set[str]]] = {}
    for rule, resources in job_resources:
        for key in keys:
            value = resources.get(key)
            if is_placeholder(value):
                found.setdefault(key, {}).setdefault(value.strip(), set()).add(rule)
    return {key: {value: sorted(rules) for value, rules in values.items()}
            for key, values in found.items()}


def placeholder_message(placeholders: Mapping[str, Mapping[str, list[str]]]) -> str:
    """The error message for :func:`slurm_placeholders`' findings: what to set, and where.

    Parameters
    ----------
    placeholders : mapping
        The non-empty result of :func:`slurm_placeholders`.

    Returns
    -------
    str
        One line per placeholder naming the resource key and the rules it reaches, then how
        to set the keys in the profile or on the command line.
    """
    lines = ["The SLURM run still has placeholder resources; no job was submitted."]
    for key, values in placeholders.items():
        for value, rules in values.items():
            shown = ", ".join(rules[:5]) + (f" and {len(rules) - 5} more" if len(rules) > 5 else "")
            lines.append(f"  {key} is {value!r} (rules: {shown})")
    keys = list(placeholders)
    example = " ".join(f"{key}={key.removeprefix('slurm_').upper()}" for key in keys)
    lines += [
        f"Set {' and '.join(keys)} under default-resources in your copy of {PROFILE}",
        f"(the --profile of this run), or on the command line: --default-resources {example}",
        "(this replaces the profile's default-resources). On a cluster without accounts, set",
        "slurm-no-account: true in that profile instead of an account. See docs/cluster.md.",
    ]
    return "\n".join(lines)


def check_slurm_workflow(workflow: Any) -> None:
    """Stop a SLURM run whose account or partition is still a placeholder, before any submission.

    Called from the ``onstart`` handler of ``workflow/rules/common.smk``, which Snakemake
    runs after building the DAG and before scheduling the first job. Does nothing unless the
    executor is ``slurm`` (local runs, dry runs and the jobs running inside a SLURM
    allocation are left alone).

    Parameters
    ----------
    workflow : snakemake.workflow.Workflow
        The running workflow: its ``executor_plugin.name``, its ``executor_settings``
        (``no_account``) and the jobs of ``dag.needrun_jobs()`` with their evaluated
        ``resources`` are read.

    Raises
    ------
    ClusterSettingsError
        If a job would reach ``sbatch`` with a placeholder account or partition; the message
        names each key and says where to set it.
    """
    plugin = getattr(workflow, "executor_plugin", None)
    if plugin is None or getattr(plugin, "name", None) != "slurm":
        return
    settings = getattr(workflow, "executor_settings", None)
    no_account = bool(getattr(settings, "no_account", False))
    jobs = ((job.rule.name, dict(job.resources.items())) for job in workflow.dag.needrun_jobs())
    placeholders = slurm_placeholders(jobs, no_account=no_account)
    if placeholders:
        raise ClusterSettingsError(placeholder_message(placeholders))

"""Which stages of the study a config runs: a stage runs when its sections are in the config.

The shared sections (``seed``, ``repeats``, ``datasets``, ``splits``, ``em``, ``impute``) feed
every stage; each stage's own sections switch it on. ``config/config.yaml`` has them all (the
whole study); ``config/suite.yaml`` has only ``comparison`` (the suite of data sets). The
Snakefile includes the rule file of each configured stage, and the ``all`` rule asks for its
targets only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Each stage (named after its rule file, ``workflow/rules/<stage>.smk``) and the config
#: sections it needs.
STAGES: dict[str, tuple[str, ...]] = {
    "mixture": ("mixture",),
    "imputation_study": ("imputation_study",),
    "semisupervised": ("semisupervised", "kernel_sweep"),
    "dna": ("dna_kernel_sweep",),
    "mlp": ("mlp",),
    "svm": ("svm",),
    "ensembles": ("ensembles",),
    "comparison": ("comparison",),
}
#: The stages whose tables the claims of the report are measured from (``report.smk``).
CLAIM_STAGES = ("mixture", "imputation_study", "semisupervised", "dna", "mlp", "comparison")
#: Sections that several stages read, and those stages: the ``figures`` section sets the
#: interval level of the figures that draw a band over repeats.
SHARED_SECTIONS: dict[str, tuple[str, ...]] = {
    "figures": ("mixture", "imputation_study", "dna", "mlp", "ensembles"),
}


def configured_stages(config: Mapping[str, Any]) -> list[str]:
    """The stages whose sections are all in ``config``, in the order of :data:`STAGES`, then
    ``report`` (the claims) when every stage of :data:`CLAIM_STAGES` is configured.

    Raises
    ------
    ValueError
        If a stage has some of its sections but not all, naming the missing ones.
    """
    stages = []
    for stage, sections in STAGES.items():
        present = [section for section in sections if section in config]
        if present and len(present) < len(sections):
            missing = [section for section in sections if section not in config]
            raise ValueError(f"{', '.join(present)}: the {stage} stage also needs the "
                             f"section(s) {missing}; give them, or leave out {present}.")
        if present:
            stages.append(stage)
    if all(stage in stages for stage in CLAIM_STAGES):
        stages.append("report")
    return stages


def check_shared_sections(config: Mapping[str, Any]) -> None:
    """Every shared section (:data:`SHARED_SECTIONS`) that a configured stage reads is given.

    Raises
    ------
    ValueError
        Naming the missing section and the configured stages that read it, or a stage given
        only some of its sections (:func:`configured_stages`).
    """
    stages = configured_stages(config)
    for section, readers in SHARED_SECTIONS.items():
        needing = [stage for stage in readers if stage in stages]
        if needing and section not in config:
            raise ValueError(f"{section}: the stage(s) {needing} read this section; give it "
                             f"(see config/README.md), or leave those stages out.")

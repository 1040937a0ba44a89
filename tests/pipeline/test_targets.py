"""`rule all` and `rule claims` ask for the same files whatever the order of the includes."""

import re
from pathlib import Path

import pytest

from tests.pipeline.conftest import copy_workflow, snakemake

pytestmark = pytest.mark.pipeline

#: With claims.replicate, the chapter-3/5 splits run again as "<split>_replicate".
_SPLITS = ("bacteria", "bacteria_replicate", "dna_mixture", "dna_mixture_ordinal", "dna_mlp", "dna_mlp_ordinal",
           "heart_holdout",
           "wine_holdout", "wine_semisupervised", "wine_semisupervised_replicate")
#: The targets of `rule all` for config/test.yaml: the data stages', then each configured
#: stage's in the order of mixlib.pipeline.stages.STAGES (common.smk, study_targets).
TEST_TARGETS = (
    [f"results/splits/{split}.split.tsv" for split in _SPLITS]
    + ["results/tables/data_summary.tsv", "results/tables/splits_summary.tsv", "results/figures/data_summary.png"]
    + [f"results/impute/{split}.substitutes.tsv" for split in _SPLITS]
    + ["results/provenance.json"]
    + [f"results/figures/{name}.png" for name in ("fig3_3", "fig3_4", "imputation_heart_cleveland", "fig5_1",
                                                  "fig5_3", "fig5_4", "fig5_5", "semisupervised_sensitivity",
                                                  "fig6_1")]
    + ["results/tables/mlp_sweep.tsv", "results/figures/fig6_2.png", "results/figures/svm_grid_heart_holdout.png",
       "results/figures/mkl.png", "results/figures/svdd.png", "results/tables/ensembles.tsv",
       "results/figures/ensembles.png", "results/tables/comparison_summary.tsv", "results/figures/comparison.png",
       "results/tables/comparison_settings.tsv",
       "results/tables/comparison_pairs.tsv", "results/tables/comparison_ranks.tsv",
       "results/figures/comparison_cd.png"]
    # the pairwise tests are a figure of Holm-adjusted p-values, not a page
    + ["results/report/comparison_summary.html", "results/figures/comparison_pairs.png",
       "results/report/comparison_ranks.html"]
    + ["results/figures/confusion_wine.png", "results/tables/claims.tsv",
       "results/tables/claims_readings.tsv", "results/figures/claims.png"]
    + [f"results/report/{name}.html" for name in ("claims", "claims_readings", "summary")]
)
TEST_CLAIM_TABLES = [f"results/tables/{name}.tsv" for name in (
    "em_trace", "semisupervised_rounds", "kernel_sweep", "dna_kernel_sweep", "mlp_sweep", "comparison",
    "comparison_ranks", "imputation_study.heart_cleveland", "em_trace_sensitivity", "semisupervised_sensitivity",
    "kernel_sweep_sensitivity", "em_trace_replicate", "semisupervised_rounds_replicate", "kernel_sweep_replicate")]


def _planned(workdir: Path) -> tuple[list[str], list[str]]:
    """The inputs of `rule all` and of `rule claims` in a dry run of config/test.yaml."""
    result = snakemake(workdir, "-n", "--quiet", "host", "--configfile", "config/test.yaml")
    inputs = {rule: line.split(", ") for rule, line in
              re.findall(r"^(?:local)?rule (all|claims):\n    input: (.*)$", result.stdout, flags=re.MULTILINE)}
    return inputs["all"], inputs["claims"]


def test_targets_are_those_of_the_stages(tmp_path):
    targets, claims = _planned(copy_workflow(tmp_path / "plan"))
    assert targets == TEST_TARGETS
    assert claims == TEST_CLAIM_TABLES


def test_include_order_does_not_change_the_targets(tmp_path):
    workdir = copy_workflow(tmp_path / "reversed")
    snakefile = workdir / "Snakefile"
    text = snakefile.read_text()
    includes = re.findall(r"^include: .*$", text, flags=re.MULTILINE)
    assert includes[0] == 'include: "workflow/rules/common.smk"' and len(includes) > 2
    # common.smk defines the helpers every rule file uses; the data rules follow in reverse
    # order, and so do the stages' rule files (included in a loop over the configured stages).
    block = "\n".join(includes)
    reordered = text.replace(block, "\n".join([includes[0], *reversed(includes[1:])]))
    loop = "for _stage in STAGES_RUN:"
    assert loop in reordered
    snakefile.write_text(reordered.replace(loop, "for _stage in reversed(STAGES_RUN):"))
    assert snakefile.read_text() != text
    assert _planned(workdir) == (TEST_TARGETS, TEST_CLAIM_TABLES)

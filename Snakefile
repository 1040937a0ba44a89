# mixstudy: re-run the mixture-model classification study and regenerate its report.
#   snakemake --cores 4               the whole study on the shipped data
#   snakemake --cores 4 <target>      one part (see README, "Run a subset")
#   snakemake --report report.html    one self-contained HTML report
# The rules are in workflow/rules/, one file per stage; the logic is in the mixlib package.

from snakemake.utils import min_version

from mixlib.pipeline.config import STUDY_CONFIG, read_config_file

min_version("8.0")


# A --configfile stands on its own: config/config.yaml is read only when none is given, so a
# key or data set left out of the user's file never comes back from the study's config.
if not workflow.overwrite_configfiles:
    read_config_file(STUDY_CONFIG)  # a YAML syntax error names the file, line and column

    configfile: STUDY_CONFIG


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/impute.smk"
include: "workflow/rules/provenance.smk"


# Each stage whose config sections are present (mixlib/pipeline/stages.py): all of them for
# config/config.yaml, only the comparison for config/suite.yaml.
for _stage in STAGES_RUN:

    include: f"workflow/rules/{_stage}.smk"


# Every table and figure of the study (listed in common.smk).
rule all:
    default_target: True
    input:
        study_targets(),

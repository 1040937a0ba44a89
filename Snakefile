# mixstudy: re-run the mixture-model classification study and regenerate its report.
#   snakemake --cores 4               the whole study on the shipped data
#   snakemake --cores 4 <target>      one part (see README, "Run a subset")
#   snakemake --report report.html    one self-contained HTML report
# The rules are in workflow/rules/, one file per stage; the logic is in the mixlib package.

from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/impute.smk"
include: "workflow/rules/mixture.smk"
include: "workflow/rules/imputation.smk"
include: "workflow/rules/semisupervised.smk"
include: "workflow/rules/mlp.smk"
include: "workflow/rules/svm.smk"
include: "workflow/rules/ensembles.smk"
include: "workflow/rules/comparison.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        ALL_TARGETS,

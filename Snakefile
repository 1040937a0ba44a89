# mixstudy: re-run the mixture-model classification study and regenerate its report.
# Run from the project's root: Snakemake finds this file, and its default profile
# profiles/default, there without flags.
#   snakemake --cores 4                             the whole study on the shipped data
#   snakemake --cores 4 <target>                    one part (docs/usage.md, "Run a subset")
#   snakemake --report results/report.html          one self-contained HTML report
# The rules are in workflow/rules/, one file per stage; the logic is in the mixlib package.

import time

from snakemake.utils import min_version

from mixlib.pipeline.config import STUDY_CONFIG, read_config_file, stop_on_config_error
from mixlib.pipeline.console import NameFinishedJobs
from mixlib.pipeline.io import check_output_folders
from mixlib.pipeline.warning_summary import log_run_warnings

min_version("8.0")

# The logs written from now on are this run's (the warning summary at its end reads them).
RUN_STARTED = time.time()


# A --configfile stands on its own: config/config.yaml is read only when none is given, so a
# key or data set left out of the user's file never comes back from the study's config.
# Read as plain YAML first (nothing in it runs): a YAML syntax error names the file, line and
# column; a key given twice, __use_yte__ or an alias bomb stops the run with one message.
if not workflow.overwrite_configfiles:
    with stop_on_config_error():
        read_config_file(STUDY_CONFIG)

    configfile: STUDY_CONFIG

else:  # Snakemake has already read these (and run a YTE template: config/README.md)
    with stop_on_config_error():
        for _path in workflow.overwrite_configfiles:
            read_config_file(_path)


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/compiled.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/missing_values.smk"
include: "workflow/rules/provenance.smk"


# Each stage whose config sections are present (mixlib/pipeline/stages.py): all of them for
# config/config.yaml, only the comparison for config/suite.yaml.
for _stage in STAGES_RUN:

    include: f"workflow/rules/{_stage}.smk"


try:  # e.g. results/tables left as a file: named before any job, without a traceback
    check_output_folders(workflow.rules)
except ValueError as error:
    raise SystemExit(f"Error: {error}") from None
# A finished job's console line names its wildcards: "Finished jobid: 24 (Rule:
# mlp_sweep_point, split=dna_mlp, regime=plain, hidden=8)".
logger.addFilter(NameFinishedJobs(lambda: workflow.dag.jobs))


# The end of a run, done or failed: one paragraph on the warnings of the logs it wrote.
onsuccess:
    log_run_warnings(logger, "results/logs", RUN_STARTED, workflow.is_main_process)


onerror:
    log_run_warnings(logger, "results/logs", RUN_STARTED, workflow.is_main_process)


# Every table and figure of the study (listed in common.smk).
rule all:
    default_target: True
    input:
        study_targets(),

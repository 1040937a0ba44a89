# Config validation, wildcard constraints, the study's typed settings and the input and
# parameter functions the rules share (each takes the job's wildcards).

import os
import re
from pathlib import Path

from mixlib.datasets import dataset_encoding, uses_standardisation
from mixlib.datasets.sources import SOURCE_KEYS
from mixlib.model_selection.fixed_splits import split_kind
from mixlib.pipeline.compiled import marker_path, modules_used
from mixlib.pipeline.cluster import check_slurm_workflow
from mixlib.pipeline.config import describe_config_source, stop_on_config_error
from mixlib.pipeline.config_checks import validate_study_config
from mixlib.pipeline.datasets import dataset_source
from mixlib.pipeline.fingerprint import job_files, script_fingerprint
from mixlib.pipeline.mixtures import (
    comparison_fits_mixture,
    em_if,
    imputer_fits_mixture,
    model_fits_mixture,
)
from mixlib.pipeline.provenance import (
    checkout_directory,
    code_state,
    current_provenance,
    first_line,
)
from mixlib.pipeline.software import conda_environment
from mixlib.pipeline.stages import configured_stages
from mixlib.pipeline.suite_claims import decides_claims_across_datasets
from mixlib.pipeline.replicates import (
    claim_min_n,
    claim_repeats,
    claim_splits,
    replicate_of,
    replicated_outputs,
    replicates,
    repeats_of,
    split_and_replicate,
    with_replicate_splits,
)

# Parallelism comes from Snakemake jobs: one BLAS thread per job unless the user says otherwise.
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# numba's compiled loops are cached under the project (git-ignored), where the compile rule
# writes them and every job, local or on a cluster's shared file system, reads them.
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.abspath(".snakemake/numba_cache"))

# The first line of a run: the commit, and whether uncommitted changes make it untraceable.
if workflow.is_main_process:
    _code = code_state(checkout_directory(workflow.basedir))
    (logger.warning if _code["dirty"] else logger.info)(first_line(_code))

# Which file(s) the config comes from, then every check before any job (the form of the splits,
# --config strings typed as the schema says, finite numbers, the schema once, the bounds of
# size-like keys, every stage setting by its estimator's own validation, then names, sizes and
# the data's values), and the typed settings. Each error is one message naming the key, without
# traceback frames (mixlib/pipeline/config.py). Reading the data sets takes about a second: the
# Snakemake started inside each cluster job (exec mode remote) reruns this file for a config
# the submitting process already checked.
logger.info(describe_config_source(workflow.overwrite_configfiles))
with stop_on_config_error():
    SETTINGS = validate_study_config(
        config,
        schema=Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml",
        base_dir=".",
        read_data=workflow.is_main_process,
    )
# The EM settings of every mixture the study fits.
EM = SETTINGS.em
# The settings of the semi-supervised methods (None without a semisupervised section).
SEMI_SETTINGS = SETTINGS.semisupervised
# What produced this run (results/provenance.json; its hash stamps the claims and comparison
# tables): collected once here, handed to the jobs through the environment.
PROVENANCE = current_provenance(config, workflow.overwrite_configfiles, workflow.basedir)


# A SLURM run whose account or partition is still the profile's placeholder stops here, after
# the DAG is built and before the first submission (no-op for any other executor).
onstart:
    check_slurm_workflow(workflow)


DATASETS = sorted(config["datasets"])
STAGES_RUN = configured_stages(config)  # the stages whose config sections are present
# With claims.replicate, every split of the chapter-3 and -5 stages runs twice, the second time
# as "<split>_replicate" (its own seed streams): mixlib/pipeline/replicates.py.
config["splits"] = with_replicate_splits(config)
SPLITS = sorted(config["splits"])
#: The replicate splits of the chapter-3 and -5 stages (none without claims.replicate).
REPLICATES = [replicate_of(name) for name in claim_splits(config)] if replicates(config) else []
# The chapter-3 and -5 stages run the first CLAIM_REPEATS repeats of their splits; em_trace and
# the prior method's rounds go on until CLAIM_MIN_N repeats count for their measure, at most
# the split's claims.max_repeats (mixlib.experiments.contract.run_repeats).
CLAIM_REPEATS = claim_repeats(config)
CLAIM_MIN_N = claim_min_n(config)
# The figures' settings: required by the stages that draw intervals (validate_study_config).
FIGURES = config["figures"] if "figures" in config else None
# Each script rule declares, in its own text, params "code" (the fingerprint of the mixlib
# modules its script imports, so that editing one reruns exactly the jobs that use it;
# docs/usage.md, "When results are rerun") and conda ENVIRONMENT (the study's software,
# environment.yml, which snakemake --lint asks every rule to name).
SCRIPTS = Path(workflow.basedir) / "workflow" / "scripts"
ENVIRONMENT = conda_environment(Path(workflow.basedir) / "environment.yml")


def fingerprint_of(script, *named):
    """The params "code" of a rule whose script is workflow/scripts/<script> (and imports the
    modules named, a figure rule's drawing module, by name)."""
    return script_fingerprint(SCRIPTS / script, *named)


# The relative variance floors of the sensitivity grid (semisupervised_sensitivity), which
# the chapter-3 and chapter-5 readings share; none without that section.
SENSITIVITY_FLOORS = (
    config["semisupervised_sensitivity"]["relative_min_variances"]
    if "semisupervised_sensitivity" in config
    else []
)


wildcard_constraints:
    dataset="|".join(DATASETS),
    split="|".join(SPLITS) if SPLITS else "(?!)",


def prepared_table(dataset):
    return f"results/data/{dataset}.prepared.tsv"


# --- Data sets -------------------------------------------------------------------------------


def dataset_spec(wildcards):
    """A data set's config entry."""
    return config["datasets"][wildcards.dataset]


def source_spec(wildcards):
    """The keys of a data set's config entry that say where its raw data come from, and the
    role columns its splits read (``role_columns``, only if a split has a ``role_column``)."""
    spec = dataset_source(config, wildcards.dataset)
    return {key: spec[key] for key in SOURCE_KEYS if key in spec}


def user_csv(wildcards):
    """A user's CSV file as an input of `fetch`, so editing the file reruns the data stages."""
    spec = config["datasets"][wildcards.dataset]
    return [spec["path"]] if spec.get("source") == "csv" else []


def dataset_prepared(wildcards):
    """The prepared table of a data set."""
    return prepared_table(wildcards.dataset)


def dataset_standardises(wildcards):
    """Whether a data set's features are standardised (``datasets.<name>.standardise``)."""
    return uses_standardisation(wildcards.dataset, config["datasets"][wildcards.dataset])


# --- Splits ----------------------------------------------------------------------------------


def split_spec(wildcards):
    """A split's config entry."""
    return config["splits"][wildcards.split]


def split_dataset(wildcards):
    """The name of the data set a split draws from."""
    return config["splits"][wildcards.split]["dataset"]


def split_repeats_of(wildcards):
    """Repeats of a split's table: ``repeats`` for a random split, 1 for a fixed one."""
    return repeats_of(config, wildcards.split)


def split_dataset_table(wildcards):
    """The prepared table of the data set a split draws from."""
    return prepared_table(split_dataset(wildcards))


def split_data_inputs(wildcards):
    """What the `split` job reads: the prepared table, and for a split whose roles are a
    column of the data set (``role_column``) the fetched table, which carries that column."""
    spec = config["splits"][wildcards.split]
    inputs = {"prepared": prepared_table(spec["dataset"])}
    if split_kind(spec) == "role_column":
        inputs["raw"] = f"resources/data/{spec['dataset']}.csv"
    return inputs


def split_inputs(wildcards):
    """What an experiment on a split reads: prepared data, roles, imputed substitutes."""
    return {
        "prepared": split_dataset_table(wildcards),
        "split": f"results/splits/{wildcards.split}.split.tsv",
        "substitutes": f"results/impute/{wildcards.split}.substitutes.tsv",
    }


def replicated_split_inputs(wildcards):
    """split_inputs of a split and, with claims.replicate, of its replicate, for one job that
    runs both (their data set's table once; the split and substitutes files in the order of
    split_and_replicate)."""
    splits = split_and_replicate(config, wildcards.split)
    return {
        "prepared": split_dataset_table(wildcards),
        "split": [f"results/splits/{name}.split.tsv" for name in splits],
        "substitutes": [f"results/impute/{name}.substitutes.tsv" for name in splits],
    }


def one_of(names):
    """A wildcard constraint matching exactly one of ``names`` (none if it is empty)."""
    return "|".join(re.escape(name) for name in names) if names else "(?!)"


def standardises(wildcards):
    """Whether the features of a split's data set are standardised (see config/README.md)."""
    dataset = split_dataset(wildcards)
    return uses_standardisation(dataset, config["datasets"][dataset])


def split_encoding(wildcards):
    """The sequence coding of a split's data set."""
    return dataset_encoding(config["datasets"][split_dataset(wildcards)])


# --- EM settings, to the jobs that fit a mixture only ----------------------------------------


def impute_em(wildcards):
    """The `impute` job's EM settings: only the kernel-mode imputer of missing cells fits."""
    return em_if(EM, imputer_fits_mixture(config, split_dataset(wildcards)))


def comparison_em(wildcards):
    """A CV comparison job's EM settings: a mixture model, or kernel-mode imputation."""
    return em_if(EM, comparison_fits_mixture(config, wildcards.dataset, wildcards.model))


def holdout_em(wildcards):
    """A hold-out comparison job's EM settings (its rows are imputed already)."""
    return em_if(EM, model_fits_mixture(wildcards.model))


def ensemble_em(wildcards):
    """An ensemble job's EM settings: only ``bagging_base`` bags mixture classifiers."""
    return em_if(EM, wildcards.method == "bagging_base")


def ensemble_base_kernels(wildcards):
    """Kernels per class of the mixtures ``bagging_base`` bags (None for the other methods)."""
    bagged = wildcards.method == "bagging_base"
    return config["ensembles"]["base_mixture"]["n_components"] if bagged else None


def comparison_mem_mb(wildcards):
    """Memory (MB) of a CV comparison job: the peak measured on its data set
    (``comparison.mem_mb``; docs/scaling.md), else 2 GB."""
    return config["comparison"]["mem_mb"].get(wildcards.dataset, 2000)


def model_params(wildcards):
    """A comparison model's parameters (``comparison.params.<model>``; none: its defaults)."""
    return config["comparison"]["params"].get(wildcards.model) or {}


def previous_grid_levels(wildcards):
    """The SVM grid levels before this one: level l refines around their best point."""
    return [
        f"results/svm/{wildcards.split}.level{level}.tsv" for level in range(int(wildcards.level))
    ]


# --- The chapter-5 sensitivity grid: one job per split, every grid value inside ---------------


def sensitivity_tables():
    """The tables of the `semisupervised_sensitivity` jobs: one per split of `semisupervised`
    (every floor and threshold inside); none without the grid."""
    if "semisupervised_sensitivity" not in config:
        return []
    return expand(
        "results/semisupervised_sensitivity/{split}.tsv",
        split=config["semisupervised"]["splits"],
    )


def kernel_sweep_sensitivity_tables():
    """The tables of the `kernel_sweep_sensitivity` jobs: one per split of `kernel_sweep`;
    none without the grid."""
    if "semisupervised_sensitivity" not in config:
        return []
    return expand(
        "results/kernel_sweep_sensitivity/{split}.tsv",
        split=config["kernel_sweep"]["splits"],
    )


# What the study produces, listed here in one place (no rule file appends to these lists), so
# the order of the includes does not matter: the targets of the `all` rule in the Snakefile
# and the tables the `claims` rule reads.
CLAIM_TABLE_NAMES = (
    "em_trace",
    "semisupervised_rounds",
    "kernel_sweep",
    "dna_kernel_sweep",
    "mlp_sweep",
    "comparison",
    "comparison_ranks",
)
# The sensitivity grid's tables, by the name of the run's table they read like.
CLAIM_READING_TABLES = {
    "em_trace": "em_trace_sensitivity",
    "semisupervised_rounds": "semisupervised_sensitivity",
    "kernel_sweep": "kernel_sweep_sensitivity",
}


def claim_tables():
    """The tables the claims of the report are measured from, name -> path(s) (the `claims`
    rule): the run's, the imputation study's (one per data set) and, with a sensitivity grid,
    the grid's under the prefix `readings_`."""
    tables = {name: f"results/tables/{name}.tsv" for name in CLAIM_TABLE_NAMES}
    tables["imputation_study"] = expand(
        "results/tables/imputation_study.{dataset}.tsv",
        dataset=config["imputation_study"]["datasets"],
    )
    if config.get("semisupervised_sensitivity"):
        tables.update(
            {
                f"readings_{name}": f"results/tables/{grid}.tsv"
                for name, grid in CLAIM_READING_TABLES.items()
            }
        )
    if REPLICATES:
        tables.update(
            {
                f"replicate_{name}": f"results/tables/{name}_replicate.tsv"
                for name in CLAIM_READING_TABLES
            }
        )
    return tables


def study_targets():
    """The targets of the `all` rule: the data stages', then each configured stage's tables
    and figures (mixlib.pipeline.stages)."""
    sensitivity = config.get("semisupervised_sensitivity")
    per_stage = {
        "mixture": ["results/figures/fig3_3.png", "results/figures/fig3_4.png"],
        "imputation_study": lambda: expand(
            "results/figures/imputation_{dataset}.png",
            dataset=config["imputation_study"]["datasets"],
        ),
        "semisupervised": lambda: (
            expand("results/figures/{figure}.png", figure=["fig5_1", "fig5_3", "fig5_4", "fig5_5"])
            + (["results/figures/semisupervised_sensitivity.png"] if sensitivity else [])
        ),
        "dna": ["results/figures/fig6_1.png"],
        "mlp": ["results/tables/mlp_sweep.tsv", "results/figures/fig6_2.png"],
        "svm": lambda: (
            expand("results/figures/svm_grid_{split}.png", split=config["svm"]["splits"])
            + ["results/figures/mkl.png", "results/figures/svdd.png"]
        ),
        "ensembles": ["results/tables/ensembles.tsv", "results/figures/ensembles.png"],
        "comparison": lambda: (
            [
                "results/tables/comparison_summary.tsv",
                "results/figures/comparison.png",
                "results/tables/comparison_settings.tsv",
                "results/tables/comparison_pairs.tsv",
                "results/tables/comparison_ranks.tsv",
                "results/figures/comparison_cd.png",
                "results/report/comparison_summary.html",
                "results/figures/comparison_pairs.png",
                "results/report/comparison_ranks.html",
            ]
            + (
                [
                    "results/tables/comparison_wilcoxon.tsv",
                    "results/tables/comparison_bayes.tsv",
                    "results/figures/comparison_bayes.png",
                    "results/report/comparison_wilcoxon.html",
                    "results/report/comparison_bayes.html",
                ]
                if len(config["comparison"]["datasets"]) >= 2
                else []
            )
            + (
                ["results/tables/suite_claims.tsv"]
                if decides_claims_across_datasets(config)
                else []
            )
            + expand(
                "results/figures/confusion_{dataset}.png", dataset=config["comparison"]["datasets"]
            )
        ),
        "report": [
            "results/tables/claims.tsv",
            "results/tables/claims_readings.tsv",
            "results/figures/claims.png",
            "results/report/claims.html",
            "results/report/claims_readings.html",
            "results/report/summary.html",
        ],
    }
    targets = (
        expand("results/splits/{split}.split.tsv", split=SPLITS)
        + [
            "results/tables/data_summary.tsv",
            "results/tables/splits_summary.tsv",
            "results/figures/data_summary.png",
        ]
        + expand("results/impute/{split}.substitutes.tsv", split=SPLITS)
        + ["results/provenance.json"]
    )
    for stage in STAGES_RUN:
        stage_targets = per_stage[stage]
        targets += stage_targets() if callable(stage_targets) else stage_targets
    return targets


# --- Compiled code ----------------------------------------------------------------------------


def compiled_code(script):
    """An input function: the markers of the compiled modules a job of ``script`` (a file of
    workflow/scripts) may call, for its ``model`` wildcard where it has one (the same module
    closure as its code fingerprint). ancient(): the job waits for the compilation, and does
    not rerun when a marker is rewritten."""
    path = SCRIPTS / script

    def markers(wildcards):
        used = modules_used(job_files(path, wildcards.get("model")))
        return [ancient(marker_path(module)) for module in used]

    return markers

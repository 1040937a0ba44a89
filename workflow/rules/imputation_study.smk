# Beyond the report: does kernel-mode imputation beat the mean? (report ch. 4's claim)

IMPUTATION_STUDY = config["imputation_study"]


rule imputation_study_point:
    input:
        dataset_prepared,
        compiled=compiled_code("imputation_study_point.py"),
    output:
        "results/imputation/{dataset}.rate{rate}.tsv",
    log:
        "results/logs/imputation_study_point/{dataset}.rate{rate}.log",
    benchmark:
        "results/benchmarks/imputation_study_point/{dataset}.rate{rate}.tsv"
    params:
        methods=IMPUTATION_STUDY["methods"],
        kernels_per_feature=IMPUTATION_STUDY["kernels_per_feature"],
        test_fraction=IMPUTATION_STUDY["test_fraction"],
        classifier_components=IMPUTATION_STUDY["classifier"]["n_components"],
        em=EM,
        repeats=config["repeats"],
        seed=config["seed"],
        code=fingerprint_of("imputation_study_point.py"),
    wildcard_constraints:
        rate=r"[0-9.eE+-]+",  # every number the schema accepts, as Python writes it
    resources:
        runtime=20,
    conda:
        ENVIRONMENT
    script:
        "../scripts/imputation_study_point.py"


rule imputation_study:
    input:
        expand(
            "results/imputation/{{dataset}}.rate{rate}.tsv",
            rate=IMPUTATION_STUDY["missing_rates"],
        ),
    output:
        "results/tables/imputation_study.{dataset}.tsv",
    log:
        "results/logs/imputation_study/{dataset}.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule imputation_figure:
    input:
        "results/tables/imputation_study.{dataset}.tsv",
    output:
        png=report(
            "results/figures/imputation_{dataset}.png",
            caption="../report/imputation.rst",
            category="Beyond the report",
            labels={
                "figure": "imputation study",
                "data set": "{dataset}",
                "sweep": "missing rate",
            },
        ),
        svg="results/figures/imputation_{dataset}.svg",
    log:
        "results/logs/imputation_figure/{dataset}.log",
    params:
        figure="mixlib.figures.imputation.imputation_figure",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.imputation"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

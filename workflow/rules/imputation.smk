# Beyond the report: does kernel-mode imputation beat the mean? (report ch. 4's claim)

IMPUTATION_STUDY = config["imputation_study"]


rule imputation_study_point:
    input:
        lambda wildcards: prepared_table(wildcards.dataset),
    output:
        "results/imputation/{dataset}.rate{rate}.tsv",
    log:
        "results/logs/imputation_study_point/{dataset}.rate{rate}.log",
    benchmark:
        "results/benchmarks/imputation_study_point/{dataset}.rate{rate}.tsv"
    params:
        methods=IMPUTATION_STUDY["methods"],
        n_components=IMPUTATION_STUDY["n_components"],
        classifier=IMPUTATION_STUDY["classifier"],
        em=config["em"],
        repeats=config["repeats"],
        seed=config["seed"],
    wildcard_constraints:
        rate=r"[0-9.eE+-]+",  # every number the schema accepts, as Python writes it
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/imputation.py"

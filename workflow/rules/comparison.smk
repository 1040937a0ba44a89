# Every classifier of the project on every data set, under one seeded stratified K-fold
# cross-validation (report ch. 6, extended to the course classifiers; seeds 002-004).

COMPARISON = config["comparison"]


rule comparison_point:
    input:
        lambda wildcards: prepared_table(wildcards.dataset),
    output:
        "results/comparison/{dataset}.{model}.tsv",
    log:
        "results/logs/comparison_point/{dataset}.{model}.log",
    benchmark:
        "results/benchmarks/comparison_point/{dataset}.{model}.tsv"
    params:
        settings=lambda wildcards: COMPARISON["params"].get(wildcards.model, {}),
        n_folds=COMPARISON["n_folds"],
        group_duplicates=COMPARISON["group_duplicates"],
        alpha=COMPARISON["alpha"],
        seed=config["seed"],
        standardise=lambda wildcards: uses_standardisation(
            wildcards.dataset, config["datasets"][wildcards.dataset]
        ),
        impute=config["impute"],
        em=lambda wildcards: em_if(
            config, comparison_fits_mixture(config, wildcards.dataset, wildcards.model)
        ),
    wildcard_constraints:
        model="|".join(COMPARISON["models"]),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/comparison_point.py"


rule comparison_dataset:
    input:
        expand("results/comparison/{{dataset}}.{model}.tsv", model=COMPARISON["models"]),
    output:
        "results/tables/comparison.{dataset}.tsv",
    log:
        "results/logs/comparison_dataset/{dataset}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule comparison_table:
    input:
        expand("results/tables/comparison.{dataset}.tsv", dataset=COMPARISON["datasets"]),
    output:
        "results/tables/comparison.tsv",
    log:
        "results/logs/comparison_table/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule comparison_summary:
    input:
        "results/tables/comparison.tsv",
    output:
        report(
            "results/tables/comparison_summary.tsv",
            caption="../report/comparison_summary.rst",
            category="Comparison",
        ),
    log:
        "results/logs/comparison_summary/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/comparison_summary.py"


rule comparison_figure:
    input:
        "results/tables/comparison_summary.tsv",
    output:
        png=report(
            "results/figures/comparison.png",
            caption="../report/comparison.rst",
            category="Comparison",
            labels={"figure": "comparison", "sweep": "classifier"},
        ),
        svg="results/figures/comparison.svg",
    log:
        "results/logs/comparison_figure/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/comparison.py"


rule confusion_figure:
    input:
        "results/tables/comparison.{dataset}.tsv",
        "results/tables/comparison_summary.tsv",
    output:
        png=report(
            "results/figures/confusion_{dataset}.png",
            caption="../report/confusion.rst",
            category="Comparison",
            labels={"figure": "confusion matrices", "data set": "{dataset}"},
        ),
        svg="results/figures/confusion_{dataset}.svg",
    log:
        "results/logs/confusion_figure/{dataset}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/confusion.py"

# Every classifier of the project on every data set, under r seeded stratified K-fold
# cross-validations, and on the train/test rows of the hold-out splits (report ch. 6, extended
# to the course classifiers); then the significance tests across models. One job per (data
# set or split, model) writes the scores and the settings that ran.

COMPARISON = config["comparison"]


rule comparison_point:
    input:
        dataset_prepared,
        compiled=compiled_code("comparison_point.py"),
    output:
        scores="results/comparison/{dataset}.{model}.tsv",
        settings="results/comparison/{dataset}.{model}.settings.tsv",
    log:
        "results/logs/comparison_point/{dataset}.{model}.log",
    benchmark:
        "results/benchmarks/comparison_point/{dataset}.{model}.tsv"
    params:
        model_params=model_params,
        protocol=SETTINGS.comparison,
        seed=config["seed"],
        standardise=dataset_standardises,
        impute=config["impute"],
        em=comparison_em,
        code=fingerprint_of("comparison_point.py"),
    wildcard_constraints:
        model="|".join(COMPARISON["models"]),
    resources:
        mem_mb=comparison_mem_mb,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/comparison_point.py"


rule comparison_holdout_point:
    input:
        unpack(split_inputs),
        compiled=compiled_code("comparison_holdout_point.py"),
    output:
        scores="results/comparison/holdout/{split}.{model}.tsv",
        settings="results/comparison/holdout/{split}.{model}.settings.tsv",
    log:
        "results/logs/comparison_holdout_point/{split}.{model}.log",
    benchmark:
        "results/benchmarks/comparison_holdout_point/{split}.{model}.tsv"
    params:
        model_params=model_params,
        protocol=SETTINGS.comparison,
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        em=holdout_em,
        code=fingerprint_of("comparison_holdout_point.py"),
    wildcard_constraints:
        model="|".join(COMPARISON["models"]),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/comparison_holdout_point.py"


rule comparison_dataset:
    input:
        expand("results/comparison/{{dataset}}.{model}.tsv", model=COMPARISON["models"]),
    output:
        "results/tables/comparison.{dataset}.tsv",
    log:
        "results/logs/comparison_dataset/{dataset}.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule comparison_table:
    input:
        expand("results/tables/comparison.{dataset}.tsv", dataset=COMPARISON["datasets"]),
        expand(
            "results/comparison/holdout/{split}.{model}.tsv",
            split=COMPARISON["holdout_splits"],
            model=COMPARISON["models"],
        ),
    output:
        "results/tables/comparison.tsv",
    log:
        "results/logs/comparison_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule comparison_settings:
    input:
        expand(
            "results/comparison/{dataset}.{model}.settings.tsv",
            dataset=COMPARISON["datasets"],
            model=COMPARISON["models"],
        ),
        expand(
            "results/comparison/holdout/{split}.{model}.settings.tsv",
            split=COMPARISON["holdout_splits"],
            model=COMPARISON["models"],
        ),
    output:
        "results/tables/comparison_settings.tsv",
    log:
        "results/logs/comparison_settings/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule comparison_summary:
    input:
        "results/tables/comparison.tsv",
    output:
        "results/tables/comparison_summary.tsv",
    log:
        "results/logs/comparison_summary/all.log",
    params:
        code=fingerprint_of("comparison_summary.py"),
    conda:
        ENVIRONMENT
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
    params:
        figure="mixlib.figures.comparison.comparison_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.comparison"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


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
    params:
        figure="mixlib.figures.comparison.dataset_confusion_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.comparison"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule comparison_significance:
    input:
        "results/tables/comparison.tsv",
    output:
        pairs="results/tables/comparison_pairs.tsv",
        ranks="results/tables/comparison_ranks.tsv",
    log:
        "results/logs/comparison_significance/all.log",
    params:
        code=fingerprint_of("comparison_significance.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/comparison_significance.py"


rule comparison_cd_figure:
    input:
        "results/tables/comparison_ranks.tsv",
    output:
        png=report(
            "results/figures/comparison_cd.png",
            caption="../report/comparison_cd.rst",
            category="Comparison",
            labels={"figure": "critical difference", "sweep": "classifier"},
        ),
        svg="results/figures/comparison_cd.svg",
    log:
        "results/logs/comparison_cd_figure/all.log",
    params:
        figure="mixlib.figures.critical_difference.critical_difference_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.critical_difference"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


# The pairwise tests per data set as p-value matrices (the table has a row per pair).
rule comparison_pairs_figure:
    input:
        "results/tables/comparison_pairs.tsv",
    output:
        png=report(
            "results/figures/comparison_pairs.png",
            caption="../report/comparison_pairs.rst",
            category="Comparison",
            labels={"figure": "pairs per data set (t-tests)", "sweep": "classifier"},
        ),
        svg="results/figures/comparison_pairs.svg",
    log:
        "results/logs/comparison_pairs_figure/all.log",
    params:
        figure="mixlib.figures.comparison_pairs.comparison_pairs_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.comparison_pairs"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


# Every pair of models across the cross-validated data sets (needs two or more): Wilcoxon
# signed-rank tests (Holm over the pairs) and Bayesian signed-rank tests with a rope.
rule comparison_across:
    input:
        "results/tables/comparison.tsv",
    output:
        wilcoxon="results/tables/comparison_wilcoxon.tsv",
        bayes="results/tables/comparison_bayes.tsv",
        posterior="results/tables/comparison_bayes_posterior.tsv",
    log:
        "results/logs/comparison_across/all.log",
    params:
        rope=COMPARISON["rope"],
        prior_strength=COMPARISON["bayes_prior_strength"],
        n_samples=COMPARISON["bayes_samples"],
        seed=config["seed"],
        code=fingerprint_of("comparison_across.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/comparison_across.py"


rule comparison_bayes_figure:
    input:
        "results/tables/comparison_bayes_posterior.tsv",
        "results/tables/comparison_bayes.tsv",
    output:
        png=report(
            "results/figures/comparison_bayes.png",
            caption="../report/comparison_bayes_figure.rst",
            category="Comparison",
            labels={"figure": "Bayesian signed-rank posterior", "sweep": "classifier"},
        ),
        svg="results/figures/comparison_bayes.svg",
    log:
        "results/logs/comparison_bayes_figure/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        figure="mixlib.figures.bayes_simplex.bayes_simplex_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.bayes_simplex"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


# The report's chapter-6 claims across the cross-validated data sets, built only from as many
# data sets as a one-sided signed-rank test needs to reject (mixlib/pipeline/suite_claims.py): the
# mixture against the MLP, probabilistic against deterministic, and "60 %, 70 %" correct.
rule suite_claims:
    input:
        "results/tables/comparison.tsv",
    output:
        report(
            "results/tables/suite_claims.tsv",
            caption="../report/suite_claims.rst",
            category="Claims",
        ),
    log:
        "results/logs/suite_claims/all.log",
    params:
        rope=COMPARISON["rope"],
        prior_strength=COMPARISON["bayes_prior_strength"],
        n_samples=COMPARISON["bayes_samples"],
        seed=config["seed"],
        code=fingerprint_of("suite_claims.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/suite_claims.py"


# The comparison tables as the report shows them: rounded, sortable HTML (the summary as
# data set x model).
rule comparison_report_tables:
    input:
        summary="results/tables/comparison_summary.tsv",
        ranks="results/tables/comparison_ranks.tsv",
    output:
        summary=report(
            "results/report/comparison_summary.html",
            caption="../report/comparison_summary.rst",
            category="Comparison",
            labels={"table": "errors per data set"},
        ),
        ranks=report(
            "results/report/comparison_ranks.html",
            caption="../report/comparison_ranks.rst",
            category="Comparison",
            labels={"table": "mean ranks"},
        ),
    log:
        "results/logs/comparison_report_tables/all.log",
    params:
        code=fingerprint_of("report_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/report_tables.py"


rule comparison_across_report_tables:
    input:
        wilcoxon="results/tables/comparison_wilcoxon.tsv",
        bayes="results/tables/comparison_bayes.tsv",
    output:
        wilcoxon=report(
            "results/report/comparison_wilcoxon.html",
            caption="../report/comparison_wilcoxon.rst",
            category="Comparison",
            labels={"table": "pairs across data sets (Wilcoxon)"},
        ),
        bayes=report(
            "results/report/comparison_bayes.html",
            caption="../report/comparison_bayes.rst",
            category="Comparison",
            labels={"table": "pairs across data sets (Bayesian)"},
        ),
    log:
        "results/logs/comparison_across_report_tables/all.log",
    params:
        code=fingerprint_of("report_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/report_tables.py"

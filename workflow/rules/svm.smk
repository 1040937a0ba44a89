# Support vector machines (course notes on SVMs): cross-validated grid searches refined level by
# level, the best point refit and tested, SVDD per class, multiple kernel learning.

SVM = config["svm"]
SVM_LEVELS = list(range(SVM["grid"]["n_levels"]))
# The grid's settings but its number of levels (the workflow's: one job per level).
SVM_GRID = {key: value for key, value in SVM["grid"].items() if key != "n_levels"}


rule svm_grid_level:
    input:
        unpack(split_inputs),
        previous=previous_grid_levels,
        compiled=compiled_code("svm_grid_level.py"),
    output:
        "results/svm/{split}.level{level}.tsv",
    log:
        "results/logs/svm_grid_level/{split}.level{level}.log",
    benchmark:
        "results/benchmarks/svm_grid_level/{split}.level{level}.tsv"
    params:
        grid=SVM_GRID,
        seed=config["seed"],
        standardise=standardises,
        code=fingerprint_of("svm_grid_level.py"),
    wildcard_constraints:
        level=r"\d+",
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/svm_grid_level.py"


rule svm_grid:
    input:
        expand("results/svm/{{split}}.level{level}.tsv", level=SVM_LEVELS),
    output:
        "results/tables/svm_grid.{split}.tsv",
    log:
        "results/logs/svm_grid/{split}.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule svm_best:
    input:
        unpack(split_inputs),
        grid="results/tables/svm_grid.{split}.tsv",
        compiled=compiled_code("svm_best.py"),
    output:
        "results/tables/svm_best.{split}.tsv",
    log:
        "results/logs/svm_best/{split}.log",
    benchmark:
        "results/benchmarks/svm_best/{split}.tsv"
    params:
        grid=SVM_GRID,
        standardise=standardises,
        code=fingerprint_of("svm_best.py"),
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/svm_best.py"


rule svm_grid_figure:
    input:
        "results/tables/svm_grid.{split}.tsv",
        "results/tables/svm_best.{split}.tsv",
    output:
        png=report(
            "results/figures/svm_grid_{split}.png",
            caption="../report/svm_grid.rst",
            category="Course classifiers",
            labels={"figure": "SVM grid search", "split": "{split}", "sweep": "C x sigma"},
        ),
        svg="results/figures/svm_grid_{split}.svg",
    log:
        "results/logs/svm_grid_figure/{split}.log",
    params:
        figure="mixlib.figures.svm_grid.svm_grid",
        code=fingerprint_of("figure.py", "mixlib.figures.svm_grid"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule mkl:
    input:
        unpack(split_inputs),
        compiled=compiled_code("mkl.py"),
    output:
        "results/svm/{split}.mkl.tsv",
    log:
        "results/logs/mkl/{split}.log",
    benchmark:
        "results/benchmarks/mkl/{split}.tsv"
    params:
        model_params=SVM["mkl"],
        standardise=standardises,
        code=fingerprint_of("mkl.py"),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/mkl.py"


rule svdd:
    input:
        unpack(split_inputs),
        compiled=compiled_code("svdd.py"),
    output:
        "results/svm/{split}.svdd.tsv",
    log:
        "results/logs/svdd/{split}.log",
    benchmark:
        "results/benchmarks/svdd/{split}.tsv"
    params:
        model_params=SVM["svdd"],
        standardise=standardises,
        code=fingerprint_of("svdd.py"),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/svdd.py"


rule mkl_table:
    input:
        expand("results/svm/{split}.mkl.tsv", split=SVM["splits"]),
    output:
        "results/tables/mkl.tsv",
    log:
        "results/logs/mkl_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule svdd_table:
    input:
        expand("results/svm/{split}.svdd.tsv", split=SVM["splits"]),
    output:
        "results/tables/svdd.tsv",
    log:
        "results/logs/svdd_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule mkl_figure:
    input:
        "results/tables/mkl.tsv",
    output:
        png=report(
            "results/figures/mkl.png",
            caption="../report/mkl.rst",
            category="Course classifiers",
            labels={"figure": "mkl", "sweep": "kernel"},
        ),
        svg="results/figures/mkl.svg",
    log:
        "results/logs/mkl_figure/all.log",
    params:
        figure="mixlib.figures.svm_extras.mkl_weights",
        code=fingerprint_of("figure.py", "mixlib.figures.svm_extras"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule svdd_figure:
    input:
        "results/tables/svdd.tsv",
    output:
        png=report(
            "results/figures/svdd.png",
            caption="../report/svdd.rst",
            category="Course classifiers",
            labels={"figure": "svdd", "sweep": "kernel"},
        ),
        svg="results/figures/svdd.svg",
    log:
        "results/logs/svdd_figure/all.log",
    params:
        figure="mixlib.figures.svm_extras.svdd_detection",
        code=fingerprint_of("figure.py", "mixlib.figures.svm_extras"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

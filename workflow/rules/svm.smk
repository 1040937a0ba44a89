# Support vector machines (course notes, seed 004): cross-validated grid searches refined
# level by level, the best point refit and tested, SVDD per class, multiple kernel learning.

SVM = config["svm"]
SVM_LEVELS = list(range(SVM["grid"]["n_levels"]))


rule svm_grid_level:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
        previous=previous_grid_levels,
    output:
        "results/svm/{split}.level{level}.tsv",
    log:
        "results/logs/svm_grid_level/{split}.level{level}.log",
    benchmark:
        "results/benchmarks/svm_grid_level/{split}.level{level}.tsv"
    params:
        grid={key: value for key, value in SVM["grid"].items() if key != "n_levels"},
        seed=config["seed"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        level=r"\d+",
    threads: 2
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/svm_grid_level.py"


rule svm_grid:
    input:
        expand("results/svm/{{split}}.level{level}.tsv", level=SVM_LEVELS),
    output:
        "results/tables/svm_grid.{split}.tsv",
    log:
        "results/logs/svm_grid/{split}.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule svm_best:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
        grid="results/tables/svm_grid.{split}.tsv",
    output:
        "results/tables/svm_best.{split}.tsv",
    log:
        "results/logs/svm_best/{split}.log",
    benchmark:
        "results/benchmarks/svm_best/{split}.tsv"
    params:
        grid={"tol": SVM["grid"]["tol"]},
        standardise=lambda wildcards: standardises(wildcards.split),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/svm_grid.py"


rule svm_extra:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/svm/{split}.{extra}.tsv",
    log:
        "results/logs/svm_extra/{split}.{extra}.log",
    benchmark:
        "results/benchmarks/svm_extra/{split}.{extra}.tsv"
    params:
        settings=lambda wildcards: SVM[wildcards.extra],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        extra="mkl|svdd",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/svm_extra.py"


rule svm_extra_table:
    input:
        expand("results/svm/{split}.{{extra}}.tsv", split=SVM["splits"]),
    output:
        "results/tables/{extra}.tsv",
    log:
        "results/logs/svm_extra_table/{extra}.log",
    wildcard_constraints:
        extra="mkl|svdd",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/mkl.py"


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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/svdd.py"

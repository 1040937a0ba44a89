# Ensembles of the course notes on ensembles (trees from the course chapter on k-NN and trees):
# error and out-of-bag error against the number of members, with a single tree and ID3 as
# baselines.

from mixlib.experiments.ensembles import ENSEMBLE_METHODS

ENSEMBLES = config["ensembles"]


rule ensemble_curve:
    input:
        unpack(split_inputs),
        compiled=compiled_code("ensemble_curve.py"),
    output:
        "results/ensembles/{split}.{method}.tsv",
    log:
        "results/logs/ensemble_curve/{split}.{method}.log",
    benchmark:
        "results/benchmarks/ensemble_curve/{split}.{method}.tsv"
    params:
        max_members=ENSEMBLES["max_members"],
        trees=ENSEMBLES["trees"],
        base_kernels=ensemble_base_kernels,
        em=ensemble_em,
        seed=config["seed"],
        standardise=standardises,
        code=fingerprint_of("ensemble_curve.py"),
    wildcard_constraints:
        method="|".join(ENSEMBLE_METHODS),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/ensemble_curve.py"


rule ensembles_table:
    input:
        expand(
            "results/ensembles/{split}.{method}.tsv",
            split=ENSEMBLES["splits"],
            method=ENSEMBLES["methods"],
        ),
    output:
        "results/tables/ensembles.tsv",
    log:
        "results/logs/ensembles_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule ensembles_figure:
    input:
        "results/tables/ensembles.tsv",
    output:
        png=report(
            "results/figures/ensembles.png",
            caption="../report/ensembles.rst",
            category="Course classifiers",
            labels={"figure": "ensembles", "sweep": "ensemble size"},
        ),
        svg="results/figures/ensembles.svg",
    log:
        "results/logs/ensembles_figure/all.log",
    params:
        figure="mixlib.figures.ensembles.ensemble_error_curves",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.ensembles"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

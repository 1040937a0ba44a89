# Ensembles of the course notes (seed 004; trees from seed 002): error and out-of-bag error
# against the number of members, with a single tree and ID3 as baselines.

from mixlib.experiments.ensembles import ENSEMBLE_METHODS

ENSEMBLES = config["ensembles"]


rule ensemble_curve:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/ensembles/{split}.{method}.tsv",
    log:
        "results/logs/ensemble_curve/{split}.{method}.log",
    benchmark:
        "results/benchmarks/ensemble_curve/{split}.{method}.tsv"
    params:
        max_members=ENSEMBLES["max_members"],
        settings=ENSEMBLES["trees"],
        base_mixture=lambda wildcards: (
            {**config["em"], **ENSEMBLES["base_mixture"]}
            if wildcards.method == "bagging_base"
            else None
        ),
        seed=config["seed"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        method="|".join(ENSEMBLE_METHODS),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/ensembles.py"

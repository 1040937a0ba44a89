# Unlabelled data (report ch. 5; figs. 5.1, 5.3, 5.4, 5.5), its sensitivity to the settings
# the report never states, and the DNA kernel sweep (fig. 6.1).

from mixlib.experiments.semisupervised import sensitivity_point_paths, sensitivity_settings

SEMI = config["semisupervised"]
SEMI_PARAMS = {
    **config["mixture"]["em"],
    **{key: SEMI[key] for key in ("threshold", "max_rounds", "restart", "finish", "unclassifiable")},
}
KERNEL_SWEEP = config["kernel_sweep"]
DNA_SWEEP = config["dna_kernel_sweep"]
SENSITIVITY = config.get("semisupervised_sensitivity")


rule semisupervised_rounds:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/semisupervised/{split}.{method}.rounds.tsv",
    log:
        "results/logs/semisupervised_rounds/{split}.{method}.log",
    params:
        n_components=SEMI["n_components"],
        settings=SEMI_PARAMS,
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        method="iterative|prior",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../scripts/semisupervised_rounds.py"


rule kernel_sweep_point:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/kernel_sweep/{split}.{method}.k{kernels}.tsv",
    log:
        "results/logs/kernel_sweep_point/{split}.{method}.k{kernels}.log",
    params:
        settings=SEMI_PARAMS,
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        method="labelled_only|iterative|prior",
        kernels=r"\d+",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../scripts/kernel_sweep_point.py"


rule dna_kernel_point:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/dna_kernel_sweep/{split}.k{kernels}.tsv",
    log:
        "results/logs/dna_kernel_point/{split}.k{kernels}.log",
    params:
        settings=config["mixture"]["em"],
        seed=config["seed"],
        encoding=lambda wildcards: split_encoding(wildcards.split),
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        kernels=r"\d+",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/dna_kernel_point.py"


rule semisupervised_sensitivity_point:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/semisupervised_sensitivity/{split}.t{threshold}.v{floor}.tsv",
    log:
        "results/logs/semisupervised_sensitivity_point/{split}.t{threshold}.v{floor}.log",
    params:
        n_components=SEMI["n_components"],
        settings=lambda wildcards: sensitivity_settings(SEMI_PARAMS, wildcards.threshold, wildcards.floor),
        restarts=SENSITIVITY["restarts"] if SENSITIVITY else [],
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        threshold=r"[0-9.eE+-]+",
        floor=r"[0-9.eE+-]+",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    script:
        "../scripts/semisupervised_sensitivity_point.py"


SEMI_TABLE_INPUTS = {
    "semisupervised_rounds": expand(
        "results/semisupervised/{split}.{method}.rounds.tsv",
        split=SEMI["splits"],
        method=SEMI["methods"],
    ),
    "kernel_sweep": expand(
        "results/kernel_sweep/{split}.{method}.k{kernels}.tsv",
        split=KERNEL_SWEEP["splits"],
        method=KERNEL_SWEEP["methods"],
        kernels=KERNEL_SWEEP["kernels"],
    ),
    "dna_kernel_sweep": expand(
        "results/dna_kernel_sweep/{split}.k{kernels}.tsv",
        split=DNA_SWEEP["splits"],
        kernels=DNA_SWEEP["kernels"],
    ),
    "semisupervised_sensitivity": sensitivity_point_paths(SEMI["splits"], SENSITIVITY),
}


rule semisupervised_table:
    input:
        lambda wildcards: SEMI_TABLE_INPUTS[wildcards.table],
    output:
        "results/tables/{table}.tsv",
    log:
        "results/logs/semisupervised_table/{table}.log",
    wildcard_constraints:
        table="semisupervised_rounds|kernel_sweep|dna_kernel_sweep|semisupervised_sensitivity",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule semisupervised_verdicts:
    input:
        "results/tables/semisupervised_sensitivity.tsv",
    output:
        report(
            "results/tables/semisupervised_verdicts.tsv",
            caption="../report/semisupervised_verdicts.rst",
            category="Claims",
        ),
    log:
        "results/logs/semisupervised_verdicts/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/semisupervised_verdicts.py"


SEMI_FIGURES = {
    "fig5_1": ("semisupervised_rounds", "mixlib.figures.semisupervised_rounds:fig5_1", "5.1", "round"),
    "fig5_3": ("semisupervised_rounds", "mixlib.figures.semisupervised_rounds:fig5_3", "5.3", "round"),
    "fig5_4": ("kernel_sweep", "mixlib.figures.kernel_sweep:fig5_4", "5.4", "kernels per class"),
    "fig5_5": ("kernel_sweep", "mixlib.figures.kernel_sweep:fig5_5", "5.5", "kernels per class"),
    "fig6_1": ("dna_kernel_sweep", "mixlib.figures.kernel_sweep:fig6_1", "6.1", "kernels per class"),
}


rule semisupervised_figure:
    input:
        lambda wildcards: f"results/tables/{SEMI_FIGURES[wildcards.figure][0]}.tsv",
    output:
        png=report(
            "results/figures/{figure}.png",
            caption="../report/semisupervised_figure.rst",
            category="Report figures",
            labels=lambda wildcards: {
                "figure": SEMI_FIGURES[wildcards.figure][2],
                "model": "mixture",
                "sweep": SEMI_FIGURES[wildcards.figure][3],
            },
        ),
        svg="results/figures/{figure}.svg",
    log:
        "results/logs/semisupervised_figure/{figure}.log",
    params:
        draw=lambda wildcards: SEMI_FIGURES[wildcards.figure][1],
    wildcard_constraints:
        figure="|".join(SEMI_FIGURES),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figure.py"


rule semisupervised_sensitivity_figure:
    input:
        "results/tables/semisupervised_sensitivity.tsv",
        "results/tables/semisupervised_verdicts.tsv",
    output:
        png=report(
            "results/figures/semisupervised_sensitivity.png",
            caption="../report/semisupervised_sensitivity.rst",
            category="Beyond the report",
            labels={"figure": "sensitivity of ch. 5", "model": "mixture",
                    "sweep": "threshold x restart x variance floor"},
        ),
        svg="results/figures/semisupervised_sensitivity.svg",
    log:
        "results/logs/semisupervised_sensitivity_figure/all.log",
    params:
        draw="mixlib.figures.semisupervised_sensitivity:semisupervised_sensitivity",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figure.py"


for _table in ("semisupervised_rounds", "kernel_sweep", "dna_kernel_sweep"):
    CLAIM_TABLES[_table] = f"results/tables/{_table}.tsv"
ALL_TARGETS.extend(expand("results/figures/{figure}.png", figure=list(SEMI_FIGURES)))
if SENSITIVITY:
    ALL_TARGETS.append("results/figures/semisupervised_sensitivity.png")

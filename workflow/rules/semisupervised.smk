# Unlabelled data (report ch. 5; figs. 5.1, 5.3, 5.4, 5.5) and the DNA kernel sweep (fig. 6.1).

SEMI = config["semisupervised"]
SEMI_PARAMS = {
    **config["mixture"]["em"],
    "threshold": SEMI["threshold"],
    "margin": SEMI["margin"],
    "max_rounds": SEMI["max_rounds"],
}
KERNEL_SWEEP = config["kernel_sweep"]
DNA_SWEEP = config["dna_kernel_sweep"]


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


rule semisupervised_table:
    input:
        lambda wildcards: {
            "semisupervised_rounds": expand(
                "results/semisupervised/{split}.{method}.rounds.tsv",
                split=SEMI["split"],
                method=SEMI["methods"],
            ),
            "kernel_sweep": expand(
                "results/kernel_sweep/{split}.{method}.k{kernels}.tsv",
                split=KERNEL_SWEEP["split"],
                method=KERNEL_SWEEP["methods"],
                kernels=KERNEL_SWEEP["kernels"],
            ),
            "dna_kernel_sweep": expand(
                "results/dna_kernel_sweep/{split}.k{kernels}.tsv",
                split=DNA_SWEEP["splits"],
                kernels=DNA_SWEEP["kernels"],
            ),
        }[wildcards.table],
    output:
        "results/tables/{table}.tsv",
    log:
        "results/logs/semisupervised_table/{table}.log",
    wildcard_constraints:
        table="semisupervised_rounds|kernel_sweep|dna_kernel_sweep",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


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


for _table in ("semisupervised_rounds", "kernel_sweep", "dna_kernel_sweep"):
    CLAIM_TABLES[_table] = f"results/tables/{_table}.tsv"
ALL_TARGETS.extend(expand("results/figures/{figure}.png", figure=list(SEMI_FIGURES)))

# The supervised DNA sweep (report ch. 6, fig. 6.1): the mixture classifier on splice against
# the number of kernels per class, one job per (split, K), for each sequence coding.

DNA_SWEEP = config["dna_kernel_sweep"]


rule dna_kernel_point:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/dna_kernel_sweep/{split}.k{kernels}.tsv",
    log:
        "results/logs/dna_kernel_point/{split}.k{kernels}.log",
    benchmark:
        "results/benchmarks/dna_kernel_point/{split}.k{kernels}.tsv"
    params:
        em=config["em"],
        seed=config["seed"],
        encoding=lambda wildcards: split_encoding(wildcards.split),
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    wildcard_constraints:
        kernels=r"\d+",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/dna_kernel_point.py"


rule dna_kernel_sweep:
    input:
        expand(
            "results/dna_kernel_sweep/{split}.k{kernels}.tsv",
            split=DNA_SWEEP["splits"],
            kernels=DNA_SWEEP["n_components"],
        ),
    output:
        "results/tables/dna_kernel_sweep.tsv",
    log:
        "results/logs/dna_kernel_sweep/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule fig6_1:
    input:
        "results/tables/dna_kernel_sweep.tsv",
    output:
        png=report(
            "results/figures/fig6_1.png",
            caption="../report/fig6_1.rst",
            category="Report figures",
            labels={"figure": "6.1", "model": "mixture", "sweep": "kernels per class"},
        ),
        svg="results/figures/fig6_1.svg",
    log:
        "results/logs/fig6_1/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/fig6_1.py"

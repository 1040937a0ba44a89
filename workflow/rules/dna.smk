# The supervised DNA sweep (report ch. 6, fig. 6.1): the mixture classifier on splice against
# the number of kernels per class, one job per split (every K inside: a K's repeats take about
# a second, the job's start-up as much), for each sequence coding.

DNA_SWEEP = config["dna_kernel_sweep"]


rule dna_kernel_curve:
    input:
        unpack(split_inputs),
        compiled=compiled_code("dna_kernel_curve.py"),
    output:
        "results/dna_kernel_sweep/{split}.tsv",
    log:
        "results/logs/dna_kernel_curve/{split}.log",
    benchmark:
        "results/benchmarks/dna_kernel_curve/{split}.tsv"
    params:
        kernel_counts=DNA_SWEEP["n_components"],
        em=EM,
        seed=config["seed"],
        encoding=split_encoding,
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("dna_kernel_curve.py"),
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/dna_kernel_curve.py"


rule dna_kernel_sweep:
    input:
        expand(
            "results/dna_kernel_sweep/{split}.tsv",
            split=DNA_SWEEP["splits"],
        ),
    output:
        "results/tables/dna_kernel_sweep.tsv",
    log:
        "results/logs/dna_kernel_sweep/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
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
    params:
        figure="mixlib.figures.kernel_sweep.fig6_1",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.kernel_sweep"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

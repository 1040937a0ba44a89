# Unlabelled data (report ch. 5; figs. 5.1, 5.3, 5.4, 5.5) and its sensitivity to the settings
# the report never states.

SEMI = config["semisupervised"]
KERNEL_SWEEP = config["kernel_sweep"]
SENSITIVITY = config.get("semisupervised_sensitivity")


# A split and, with claims.replicate, its replicate in one job (they share every setting).
rule semisupervised_rounds:
    input:
        unpack(replicated_split_inputs),
        compiled=compiled_code("semisupervised_rounds.py"),
    output:
        replicated_outputs(config, "results/semisupervised/{split}.rounds.tsv"),
    wildcard_constraints:
        split=one_of(SEMI["splits"]),
    log:
        "results/logs/semisupervised_rounds/{split}.log",
    benchmark:
        "results/benchmarks/semisupervised_rounds/{split}.tsv"
    params:
        splits=lambda wildcards: split_and_replicate(config, wildcards.split),
        methods=SEMI["methods"],
        n_components=SEMI["n_components"],
        em=EM,
        settings=SEMI_SETTINGS,
        # claims.repeats at least, then on until claims.min_n count (prior: with migrants)
        repeats=CLAIM_REPEATS,
        min_n=CLAIM_MIN_N,
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("semisupervised_rounds.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    conda:
        ENVIRONMENT
    script:
        "../scripts/semisupervised_rounds.py"


# The curves of figs. 5.4 and 5.5 of one split (every method) and, with claims.replicate, of
# its replicate per job: a kernel count and its repeats take a fraction of a second, less than
# a job's start-up.
rule kernel_sweep_curve:
    input:
        unpack(replicated_split_inputs),
        compiled=compiled_code("kernel_sweep_curve.py"),
    output:
        replicated_outputs(config, "results/kernel_sweep/{split}.tsv"),
    wildcard_constraints:
        split=one_of(KERNEL_SWEEP["splits"]),
    log:
        "results/logs/kernel_sweep_curve/{split}.log",
    benchmark:
        "results/benchmarks/kernel_sweep_curve/{split}.tsv"
    params:
        splits=lambda wildcards: split_and_replicate(config, wildcards.split),
        methods=KERNEL_SWEEP["methods"],
        kernel_counts=KERNEL_SWEEP["n_components"],
        em=EM,
        settings=SEMI_SETTINGS,
        repeats=CLAIM_REPEATS,
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("kernel_sweep_curve.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    conda:
        ENVIRONMENT
    script:
        "../scripts/kernel_sweep_curve.py"


# The readings grid: one job per split, every variance floor and threshold inside. The prior
# method fits once for all thresholds (it uses the threshold only to score) and the iterative
# method's thresholds share their labelled-only start.
rule semisupervised_sensitivity:
    input:
        unpack(split_inputs),
        compiled=compiled_code("semisupervised_sensitivity.py"),
    output:
        "results/semisupervised_sensitivity/{split}.tsv",
    log:
        "results/logs/semisupervised_sensitivity/{split}.log",
    benchmark:
        "results/benchmarks/semisupervised_sensitivity/{split}.tsv"
    params:
        n_components=SEMI["n_components"],
        em=EM,
        settings=SEMI_SETTINGS,
        floors=SENSITIVITY_FLOORS,
        thresholds=SENSITIVITY["thresholds"] if SENSITIVITY else [],
        restarts=SENSITIVITY["restarts"] if SENSITIVITY else [],
        finishes=SENSITIVITY["finishes"] if SENSITIVITY else [],
        # the grid keeps the study's repeats, the first of the split's claims.repeats
        repeats=config["repeats"],
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("semisupervised_sensitivity.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/semisupervised_sensitivity.py"


rule kernel_sweep_sensitivity:
    input:
        unpack(split_inputs),
        compiled=compiled_code("kernel_sweep_sensitivity.py"),
    output:
        "results/kernel_sweep_sensitivity/{split}.tsv",
    log:
        "results/logs/kernel_sweep_sensitivity/{split}.log",
    benchmark:
        "results/benchmarks/kernel_sweep_sensitivity/{split}.tsv"
    params:
        kernel_counts=KERNEL_SWEEP["n_components"],
        em=EM,
        settings=SEMI_SETTINGS,
        floors=SENSITIVITY_FLOORS,
        thresholds=SENSITIVITY["thresholds"] if SENSITIVITY else [],
        restarts=SENSITIVITY["restarts"] if SENSITIVITY else [],
        finishes=SENSITIVITY["finishes"] if SENSITIVITY else [],
        # the grid keeps the study's repeats, the first of the split's claims.repeats
        repeats=config["repeats"],
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("kernel_sweep_sensitivity.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=60,
    conda:
        ENVIRONMENT
    script:
        "../scripts/kernel_sweep_sensitivity.py"


# The study's tables of chapter 5: each stacks its sweep points' tables (one rule per table,
# so each output line names the table it makes).
rule semisupervised_rounds_table:
    input:
        expand(
            "results/semisupervised/{split}.rounds.tsv",
            split=SEMI["splits"],
        ),
    output:
        "results/tables/semisupervised_rounds.tsv",
    log:
        "results/logs/semisupervised_rounds_table/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


use rule semisupervised_rounds_table as kernel_sweep_table with:
    input:
        expand(
            "results/kernel_sweep/{split}.tsv",
            split=KERNEL_SWEEP["splits"],
        ),
    output:
        "results/tables/kernel_sweep.tsv",
    log:
        "results/logs/kernel_sweep_table/all.log",


# The replicates of our reading (claims.replicate): the same stages on the replicate splits.
use rule semisupervised_rounds_table as semisupervised_rounds_replicate_table with:
    input:
        expand(
            "results/semisupervised/{split}.rounds.tsv",
            split=[replicate_of(s) for s in SEMI["splits"]],
        ),
    output:
        "results/tables/semisupervised_rounds_replicate.tsv",
    log:
        "results/logs/semisupervised_rounds_replicate_table/all.log",


use rule semisupervised_rounds_table as kernel_sweep_replicate_table with:
    input:
        expand(
            "results/kernel_sweep/{split}.tsv",
            split=[replicate_of(s) for s in KERNEL_SWEEP["splits"]],
        ),
    output:
        "results/tables/kernel_sweep_replicate.tsv",
    log:
        "results/logs/kernel_sweep_replicate_table/all.log",


use rule semisupervised_rounds_table as semisupervised_sensitivity_table with:
    input:
        sensitivity_tables(),
    output:
        "results/tables/semisupervised_sensitivity.tsv",
    log:
        "results/logs/semisupervised_sensitivity_table/all.log",


use rule semisupervised_rounds_table as kernel_sweep_sensitivity_table with:
    input:
        kernel_sweep_sensitivity_tables(),
    output:
        "results/tables/kernel_sweep_sensitivity.tsv",
    log:
        "results/logs/kernel_sweep_sensitivity_table/all.log",


rule fig5_1:
    input:
        "results/tables/semisupervised_rounds.tsv",
    output:
        png=report(
            "results/figures/fig5_1.png",
            caption="../report/fig5_1.rst",
            category="Report figures",
            labels={"figure": "5.1", "model": "mixture", "sweep": "round"},
        ),
        svg="results/figures/fig5_1.svg",
    log:
        "results/logs/fig5_1/all.log",
    params:
        figure="mixlib.figures.semisupervised_rounds.fig5_1",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.semisupervised_rounds"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule fig5_3:
    input:
        "results/tables/semisupervised_rounds.tsv",
    output:
        png=report(
            "results/figures/fig5_3.png",
            caption="../report/fig5_3.rst",
            category="Report figures",
            labels={"figure": "5.3", "model": "mixture", "sweep": "round"},
        ),
        svg="results/figures/fig5_3.svg",
    log:
        "results/logs/fig5_3/all.log",
    params:
        figure="mixlib.figures.semisupervised_rounds.fig5_3",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.semisupervised_rounds"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule fig5_4:
    input:
        "results/tables/kernel_sweep.tsv",
    output:
        png=report(
            "results/figures/fig5_4.png",
            caption="../report/fig5_4.rst",
            category="Report figures",
            labels={"figure": "5.4", "model": "mixture", "sweep": "kernels per class"},
        ),
        svg="results/figures/fig5_4.svg",
    log:
        "results/logs/fig5_4/all.log",
    params:
        figure="mixlib.figures.kernel_sweep.fig5_4",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.kernel_sweep"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule fig5_5:
    input:
        "results/tables/kernel_sweep.tsv",
    output:
        png=report(
            "results/figures/fig5_5.png",
            caption="../report/fig5_5.rst",
            category="Report figures",
            labels={"figure": "5.5", "model": "mixture", "sweep": "kernels per class"},
        ),
        svg="results/figures/fig5_5.svg",
    log:
        "results/logs/fig5_5/all.log",
    params:
        figure="mixlib.figures.kernel_sweep.fig5_5",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.kernel_sweep"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule semisupervised_sensitivity_figure:
    input:
        "results/tables/semisupervised_sensitivity.tsv",
    output:
        png=report(
            "results/figures/semisupervised_sensitivity.png",
            caption="../report/semisupervised_sensitivity.rst",
            category="Beyond the report",
            labels={
                "figure": "sensitivity of ch. 5",
                "model": "mixture",
                "sweep": "threshold x finish x restart x variance floor",
            },
        ),
        svg="results/figures/semisupervised_sensitivity.svg",
    log:
        "results/logs/semisupervised_sensitivity_figure/all.log",
    params:
        figure="mixlib.figures.semisupervised_sensitivity.semisupervised_sensitivity",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.semisupervised_sensitivity"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

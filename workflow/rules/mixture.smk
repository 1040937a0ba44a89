# The mixture-model classifier: EM traces (fig. 3.3) and the kernel map (fig. 3.4), on every
# split of mixture.splits; one job per split, then one table per figure.

MIXTURE = config["mixture"]


# A split and, with claims.replicate, its replicate in one job (they share every setting).
rule em_trace:
    input:
        unpack(replicated_split_inputs),
        compiled=compiled_code("em_trace.py"),
    output:
        replicated_outputs(config, "results/mixture/{split}.em_trace.tsv"),
    wildcard_constraints:
        split=one_of(MIXTURE["splits"]),
    log:
        "results/logs/em_trace/{split}.log",
    benchmark:
        "results/benchmarks/em_trace/{split}.tsv"
    params:
        splits=lambda wildcards: split_and_replicate(config, wildcards.split),
        n_components=MIXTURE["n_components"],
        n_restarts=MIXTURE["n_restarts"],
        em=EM,
        # claims.repeats at least, then on until claims.min_n have a fit without collapse
        repeats=CLAIM_REPEATS,
        min_n=CLAIM_MIN_N,
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("em_trace.py"),
    resources:
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/em_trace.py"


# Fig. 3.3's fits at every variance floor of the sensitivity grid (the claims' readings).
rule em_trace_sensitivity:
    input:
        unpack(split_inputs),
        compiled=compiled_code("em_trace_sensitivity.py"),
    output:
        "results/mixture_sensitivity/{split}.em_trace.tsv",
    log:
        "results/logs/em_trace_sensitivity/{split}.log",
    benchmark:
        "results/benchmarks/em_trace_sensitivity/{split}.tsv"
    params:
        n_components=MIXTURE["n_components"],
        n_restarts=MIXTURE["n_restarts"],
        em=EM,
        floors=SENSITIVITY_FLOORS,
        # the grid keeps the study's repeats, the first of the split's claims.repeats
        repeats=config["repeats"],
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("em_trace_sensitivity.py"),
    resources:
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/em_trace_sensitivity.py"


rule kernel_map:
    input:
        unpack(split_inputs),
        compiled=compiled_code("kernel_map.py"),
    output:
        "results/mixture/{split}.kernel_map.tsv",
    log:
        "results/logs/kernel_map/{split}.log",
    benchmark:
        "results/benchmarks/kernel_map/{split}.tsv"
    params:
        n_components=MIXTURE["n_components"],
        em=EM,
        seed=config["seed"],
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("kernel_map.py"),
    resources:
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/kernel_map.py"


rule em_trace_table:
    input:
        expand("results/mixture/{split}.em_trace.tsv", split=MIXTURE["splits"]),
    output:
        "results/tables/em_trace.tsv",
    log:
        "results/logs/em_trace_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


# The replicate of fig. 3.3's fits (claims.replicate): the same stage on the replicate splits.
use rule em_trace_table as em_trace_replicate_table with:
    input:
        expand(
            "results/mixture/{split}.em_trace.tsv",
            split=[replicate_of(s) for s in MIXTURE["splits"]],
        ),
    output:
        "results/tables/em_trace_replicate.tsv",
    log:
        "results/logs/em_trace_replicate_table/all.log",


rule kernel_map_table:
    input:
        expand("results/mixture/{split}.kernel_map.tsv", split=MIXTURE["splits"]),
    output:
        "results/tables/kernel_map.tsv",
    log:
        "results/logs/kernel_map_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule em_trace_sensitivity_table:
    input:
        expand("results/mixture_sensitivity/{split}.em_trace.tsv", split=MIXTURE["splits"]),
    output:
        "results/tables/em_trace_sensitivity.tsv",
    log:
        "results/logs/em_trace_sensitivity_table/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule fig3_3:
    input:
        "results/tables/em_trace.tsv",
    output:
        png=report(
            "results/figures/fig3_3.png",
            caption="../report/fig3_3.rst",
            category="Report figures",
            labels={"figure": "3.3", "model": "mixture", "sweep": "EM iteration"},
        ),
        svg="results/figures/fig3_3.svg",
    log:
        "results/logs/fig3_3/all.log",
    params:
        figure="mixlib.figures.fig3_3.fig3_3",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.fig3_3"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


rule fig3_4:
    input:
        "results/tables/kernel_map.tsv",
    output:
        png=report(
            "results/figures/fig3_4.png",
            caption="../report/fig3_4.rst",
            category="Report figures",
            labels={"figure": "3.4", "model": "mixture", "sweep": "none"},
        ),
        svg="results/figures/fig3_4.svg",
    log:
        "results/logs/fig3_4/all.log",
    params:
        figure="mixlib.figures.fig3_4.fig3_4",
        code=fingerprint_of("figure.py", "mixlib.figures.fig3_4"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

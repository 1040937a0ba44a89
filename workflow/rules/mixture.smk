# The mixture-model classifier: EM traces (fig. 3.3) and the kernel map (fig. 3.4), on every
# split of mixture.splits; one job per split, then one table per figure.

MIXTURE = config["mixture"]


rule em_trace:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/mixture/{split}.em_trace.tsv",
    log:
        "results/logs/em_trace/{split}.log",
    benchmark:
        "results/benchmarks/em_trace/{split}.tsv"
    params:
        n_components=MIXTURE["n_components"],
        n_restarts=MIXTURE["n_restarts"],
        em=config["em"],
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/em_trace.py"


# Fig. 3.3's fits at every variance floor of the sensitivity grid (the claims' readings).
rule em_trace_sensitivity:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/mixture_sensitivity/{split}.em_trace.tsv",
    log:
        "results/logs/em_trace_sensitivity/{split}.log",
    benchmark:
        "results/benchmarks/em_trace_sensitivity/{split}.tsv"
    params:
        n_components=MIXTURE["n_components"],
        n_restarts=MIXTURE["n_restarts"],
        em=config["em"],
        floors=(
            config["semisupervised_sensitivity"]["relative_min_variances"]
            if "semisupervised_sensitivity" in config
            else []
        ),
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/em_trace_sensitivity.py"


rule kernel_map:
    input:
        unpack(lambda wildcards: split_inputs(wildcards.split)),
    output:
        "results/mixture/{split}.kernel_map.tsv",
    log:
        "results/logs/kernel_map/{split}.log",
    benchmark:
        "results/benchmarks/kernel_map/{split}.tsv"
    params:
        n_components=MIXTURE["n_components"],
        em=config["em"],
        seed=config["seed"],
        dataset=lambda wildcards: config["splits"][wildcards.split]["dataset"],
        standardise=lambda wildcards: standardises(wildcards.split),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/kernel_map.py"


rule mixture_table:
    input:
        lambda wildcards: expand(
            "results/mixture/{split}.{table}.tsv", split=MIXTURE["splits"], table=wildcards.table
        ),
    output:
        "results/tables/{table}.tsv",
    log:
        "results/logs/mixture_table/{table}.log",
    wildcard_constraints:
        table="em_trace|kernel_map",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/concat_tables.py"


rule em_trace_sensitivity_table:
    input:
        expand("results/mixture_sensitivity/{split}.em_trace.tsv", split=MIXTURE["splits"]),
    output:
        "results/tables/em_trace_sensitivity.tsv",
    log:
        "results/logs/em_trace_sensitivity_table/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/fig3_3.py"


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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figures/fig3_4.py"

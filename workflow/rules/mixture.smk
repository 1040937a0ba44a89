# The mixture-model classifier: EM traces (fig. 3.3) and the kernel map (fig. 3.4).

MIXTURE = config["mixture"]


rule em_trace:
    input:
        unpack(lambda wildcards: split_inputs(MIXTURE["split"])),
    output:
        "results/tables/em_trace.tsv",
    log:
        "results/logs/em_trace/all.log",
    params:
        n_components=MIXTURE["n_components"],
        em=MIXTURE["em"],
        seed=config["seed"],
        split=MIXTURE["split"],
        standardise=standardises(MIXTURE["split"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/em_trace.py"


rule kernel_map:
    input:
        unpack(lambda wildcards: split_inputs(MIXTURE["split"])),
    output:
        "results/tables/kernel_map.tsv",
    log:
        "results/logs/kernel_map/all.log",
    params:
        n_components=MIXTURE["n_components"],
        em=MIXTURE["em"],
        seed=config["seed"],
        split=MIXTURE["split"],
        standardise=standardises(MIXTURE["split"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../scripts/kernel_map.py"


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
        draw="mixlib.figures.fig3_3:fig3_3",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
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
        draw="mixlib.figures.fig3_4:fig3_4",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/figure.py"


CLAIM_TABLES["em_trace"] = "results/tables/em_trace.tsv"
CLAIM_TABLES["kernel_map"] = "results/tables/kernel_map.tsv"
ALL_TARGETS.extend(["results/figures/fig3_3.png", "results/figures/fig3_4.png"])

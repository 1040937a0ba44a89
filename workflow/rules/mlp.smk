# MLP hidden-size sweeps under three training regimes (report ch. 2 and 6; fig. 6.2).

from mixlib.neural_network import REGIMES

MLP = config["mlp"]


rule mlp_sweep_point:
    input:
        unpack(split_inputs),
        compiled=compiled_code("mlp_sweep_point.py"),
    output:
        "results/mlp/{split}/{regime}.h{hidden}.tsv",
    log:
        "results/logs/mlp_sweep_point/{split}.{regime}.h{hidden}.log",
    benchmark:
        "results/benchmarks/mlp_sweep_point/{split}.{regime}.h{hidden}.tsv"
    params:
        training=MLP["training"],
        seed=config["seed"],
        encoding=split_encoding,
        dataset=split_dataset,
        standardise=standardises,
        code=fingerprint_of("mlp_sweep_point.py"),
    wildcard_constraints:
        regime="|".join(REGIMES),
        hidden=r"\d+",
    resources:
        mem_mb=1500,
        runtime=30,
    conda:
        ENVIRONMENT
    script:
        "../scripts/mlp_sweep_point.py"


rule mlp_sweep:
    input:
        expand(
            "results/mlp/{split}/{regime}.h{hidden}.tsv",
            split=MLP["splits"],
            regime=MLP["regimes"],
            hidden=MLP["hidden_sizes"],
        ),
    output:
        "results/tables/mlp_sweep.tsv",
    log:
        "results/logs/mlp_sweep/all.log",
    params:
        code=fingerprint_of("concat_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/concat_tables.py"


rule fig6_2:
    input:
        "results/tables/mlp_sweep.tsv",
    output:
        png=report(
            "results/figures/fig6_2.png",
            caption="../report/fig6_2.rst",
            category="Report figures",
            labels={"figure": "6.2", "model": "MLP", "sweep": "hidden size"},
        ),
        svg="results/figures/fig6_2.svg",
    log:
        "results/logs/fig6_2/all.log",
    params:
        figure="mixlib.figures.fig6_2.fig6_2",
        confidence_level=FIGURES["confidence_level"],
        code=fingerprint_of("figure.py", "mixlib.figures.fig6_2"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

# Data stages: fetch -> prepare (parse, encode) -> split (seeded roles, or roles fixed by the
# data), and summaries of the data sets and of the splits.

from mixlib.datasets.sources import with_content_checksum


rule fetch:
    input:
        user_csv,
    output:
        "resources/data/{dataset}.csv",
    log:
        "results/logs/fetch/{dataset}.log",
    params:
        # the source keys and, for a user's CSV, its content's SHA-256: the file's content,
        # not only its time stamp, decides whether the data set is read again
        spec=lambda wildcards: with_content_checksum(source_spec(wildcards)),
        code=fingerprint_of("fetch.py"),
    resources:
        runtime=15,
    conda:
        ENVIRONMENT
    script:
        "../scripts/fetch.py"


rule prepare:
    input:
        "resources/data/{dataset}.csv",
    output:
        "results/data/{dataset}.prepared.tsv",
    log:
        "results/logs/prepare/{dataset}.log",
    params:
        spec=dataset_spec,
        code=fingerprint_of("prepare.py"),
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/prepare.py"


rule split:
    input:
        unpack(split_data_inputs),
    output:
        "results/splits/{split}.split.tsv",
    log:
        "results/logs/split/{split}.log",
    params:
        spec=split_spec,
        seed=config["seed"],
        repeats=split_repeats_of,
        code=fingerprint_of("split.py"),
    resources:
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/split.py"


rule data_summary:
    input:
        expand(prepared_table("{dataset}"), dataset=DATASETS),
    output:
        "results/tables/data_summary.tsv",
    log:
        "results/logs/data_summary/all.log",
    params:
        datasets=DATASETS,
        code=fingerprint_of("data_summary.py"),
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENVIRONMENT
    script:
        "../scripts/data_summary.py"


rule splits_summary:
    input:
        expand("results/splits/{split}.split.tsv", split=SPLITS),
    output:
        "results/tables/splits_summary.tsv",
    log:
        "results/logs/splits_summary/all.log",
    params:
        splits=SPLITS,
        specs=[config["splits"][split] for split in SPLITS],
        code=fingerprint_of("splits_summary.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/splits_summary.py"


rule data_summary_figure:
    input:
        "results/tables/data_summary.tsv",
    output:
        png=report(
            "results/figures/data_summary.png",
            caption="../report/data_summary.rst",
            category="Data",
        ),
        svg="results/figures/data_summary.svg",
    log:
        "results/logs/data_summary_figure/all.log",
    params:
        figure="mixlib.figures.data_summary.draw_data_summary",
        code=fingerprint_of("figure.py", "mixlib.figures.data_summary"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"

# Missing values: substitutes for the missing cells of every repeat of a split (report ch. 4),
# which load_repeats fills in; the study of imputers is imputation_study.smk.


rule impute:
    input:
        prepared=split_dataset_table,
        split="results/splits/{split}.split.tsv",
        compiled=compiled_code("impute.py"),
    output:
        "results/impute/{split}.substitutes.tsv",
    log:
        "results/logs/impute/{split}.log",
    benchmark:
        "results/benchmarks/impute/{split}.tsv"
    params:
        impute=config["impute"],
        em=impute_em,
        seed=config["seed"],
        code=fingerprint_of("impute.py"),
    resources:
        mem_mb=2000,
        runtime=20,
    conda:
        ENVIRONMENT
    script:
        "../scripts/impute.py"

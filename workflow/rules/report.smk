# The claims table: each numeric claim of the report against what this run measured.


rule claims:
    input:
        **claim_tables(),
    output:
        report(
            "results/tables/claims.tsv",
            caption="../report/claims.rst",
            category="Claims",
        ),
    log:
        "results/logs/claims/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/claims.py"

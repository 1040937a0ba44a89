from mixlib.report.snakemake_warnings import ignore_unawaited_input_sizes

# `snakemake --report` would print a RuntimeWarning of Snakemake's own per job (the module says
# why): that one message, from that one module, is ignored.
ignore_unawaited_input_sizes()


# The claims of the report: each a band judged by an interval, under our reading (claims.tsv,
# with how many readings give each verdict) and under every reading of the sensitivity grid
# (claims_readings.tsv), and the figure of both.


rule claims:
    input:
        **claim_tables(),
    output:
        claims="results/tables/claims.tsv",
        readings="results/tables/claims_readings.tsv",
    log:
        "results/logs/claims/all.log",
    params:
        problems=config["claims"]["report_problems"],
        seed=config["seed"],
        rule=SEMI_SETTINGS.unclassifiable[0],
        em=EM,
        min_n=CLAIM_MIN_N,
        timing_tolerance=config["claims"]["timing_tolerance"],
        code=fingerprint_of("claims.py"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/claims.py"


rule claims_figure:
    input:
        "results/tables/claims.tsv",
        "results/tables/claims_readings.tsv",
    output:
        png=report(
            "results/figures/claims.png",
            caption="../report/claims_figure.rst",
            category="Claims",
            labels={"figure": "claims", "model": "mixture", "sweep": "readings"},
        ),
        svg="results/figures/claims.svg",
    log:
        "results/logs/claims_figure/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        figure="mixlib.figures.claims.claims_figure",
        code=fingerprint_of("figure.py", "mixlib.figures.claims"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/figure.py"


# The claims tables as the report shows them (rounded, sortable HTML), and the landing page's
# summary of the verdicts (workflow/report/workflow.rst).
rule claims_report_tables:
    input:
        claims="results/tables/claims.tsv",
        readings="results/tables/claims_readings.tsv",
    output:
        claims=report(
            "results/report/claims.html",
            caption="../report/claims.rst",
            category="Claims",
            labels={"table": "claims"},
        ),
        readings=report(
            "results/report/claims_readings.html",
            caption="../report/claims_readings.rst",
            category="Claims",
            labels={"table": "claims under every reading"},
        ),
        landing="results/report/summary.html",
    log:
        "results/logs/claims_report_tables/all.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=fingerprint_of("report_tables.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/report_tables.py"

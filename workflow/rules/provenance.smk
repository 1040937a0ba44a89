# What produced the run (mixlib/pipeline/provenance.py). The record is a parameter: the job
# reruns, in a second, when the commit, an uncommitted change, the config, a package, Python
# or the BLAS changes, and nothing reads its output, so no other job reruns with it.


rule provenance:
    output:
        report(
            "results/provenance.json",
            caption="../report/provenance.rst",
            category="Provenance",
        ),
    log:
        "results/logs/provenance/all.log",
    params:
        record=PROVENANCE,
        code=fingerprint_of("provenance.py"),
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENVIRONMENT
    script:
        "../scripts/provenance.py"

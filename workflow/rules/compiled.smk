# The numba loops, compiled once per run before the jobs that call them (mixlib/pipeline/
# compiled.py): one job per compiled module writes its machine code to numba's cache
# (NUMBA_CACHE_DIR, set in common.smk) and a marker. A job that may call a module lists its
# marker as an ancient() input (compiled_code in common.smk): it waits for the compilation
# but does not rerun when the marker is rewritten. The compilations go first (priority): the
# jobs that wait for them are most of the study's work.

from mixlib.pipeline.compiled import COMPILED_MODULES


rule compile_numba:
    output:
        "results/compiled/{module}.done",
    log:
        "results/logs/compile_numba/{module}.log",
    wildcard_constraints:
        module="|".join(module.replace(".", r"\.") for module in COMPILED_MODULES),
    threads: 1
    priority: 50
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        code=fingerprint_of("compile_numba.py"),
    conda:
        ENVIRONMENT
    script:
        "../scripts/compile_numba.py"

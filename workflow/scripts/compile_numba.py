import time
from pathlib import Path

from mixlib.pipeline.compiled import warm
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    start = time.process_time()
    warm(snakemake.wildcards.module)
    log.info("%s compiled or loaded in %.2f CPU-s", snakemake.wildcards.module,
             time.process_time() - start)
    Path(snakemake.output[0]).write_text(f"{snakemake.wildcards.module}\n", encoding="utf-8")

"""What every Snakemake script does around its one call into mixlib: logging."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np


@contextmanager
def logged_job(smk: Any) -> Iterator[logging.Logger]:
    """Send the job's log records and warnings to its ``log:`` file, and time the job.

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The ``snakemake`` object of a ``script:`` rule; its first log file receives every
        ``logging`` record of mixlib (INFO and above) and every warning (e.g. EM
        non-convergence). An exception is logged with its traceback, then re-raised so the
        job fails and Snakemake removes its outputs.
    """
    handler = logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    logger = logging.getLogger(f"mixstudy.{smk.rule}")
    wildcards = dict(smk.wildcards.items())
    logger.info("rule %s %s, %d thread(s)", smk.rule, wildcards, smk.threads)
    np.seterr(all="warn")
    start = time.perf_counter()
    try:
        yield logger
    except Exception:
        logger.exception("rule %s failed", smk.rule)
        raise
    else:
        logger.info("rule %s done in %.2f s", smk.rule, time.perf_counter() - start)
    finally:
        root.removeHandler(handler)
        handler.close()

"""What every Snakemake script does around its one call into mixlib: logging."""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from mixlib.experiments.contract import RepeatData
from mixlib.pipeline.manifest import producing_job
from mixlib.pipeline.warning_summary import WarningTally


@contextmanager
def logged_job(smk: Any) -> Iterator[logging.Logger]:
    """Send the job's log records and warnings to its ``log:`` file, and time the job.

    The log ends with the job's wall time (``rule NAME done in S s``, the body's) and its
    process's CPU time (``rule NAME used C CPU-s``, from the process's start, so Python's
    start-up and the imports count).

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The ``snakemake`` object of a ``script:`` rule; its first log file receives every
        ``logging`` record of mixlib (INFO and above) and the warnings (e.g. EM
        non-convergence): the first of each kind where it happens, then one summary line per
        kind at the end of the log, with its count (:mod:`mixlib.pipeline.warning_summary`).
        An exception is logged with its traceback, then re-raised so the job fails and
        Snakemake removes its outputs.
    """
    handler = logging.FileHandler(smk.log[0], mode="w", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    tally = WarningTally()
    handler.addFilter(tally)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logger = logging.getLogger(f"mixstudy.{smk.rule}")
    wildcards = dict(smk.wildcards.items())
    slurm_job = os.environ.get("SLURM_JOB_ID")  # set inside a SLURM job (cluster runs)
    logger.info("rule %s %s, %d thread(s)%s", smk.rule, wildcards, smk.threads,
                f", SLURM job {slurm_job}" if slurm_job else "")
    # Underflow to 0 is what log-space code expects of exp(very negative); the other
    # floating-point errors (overflow, invalid, division by zero) are warned of.
    previous_errors = np.seterr(all="warn", under="ignore")
    start = time.perf_counter()
    with warnings.catch_warnings():
        # Every repeat is counted (the default shows one per message and line), none written twice.
        for category in (UserWarning, RuntimeWarning):
            warnings.filterwarnings("always", category=category)
        warnings.showwarning = tally.show
        try:
            with producing_job(smk.rule):  # tables written get a manifest, tables read are checked
                yield logger
        except Exception:
            logger.exception("rule %s failed", smk.rule)
            raise
        else:
            logger.info("rule %s done in %.2f s", smk.rule, time.perf_counter() - start)
            # The process's CPU time since it started (every thread; start-up and imports
            # included): Snakemake's benchmark files sample it and miss a job's last moments.
            logger.info("rule %s used %.2f CPU-s", smk.rule, time.process_time())
        finally:
            for line in tally.summary_lines():
                logger.warning("warnings: %s", line, extra={"summary": True})
            np.seterr(**previous_errors)
            root.removeHandler(handler)
            handler.close()


def load_repeats(smk: Any, standardise_features: bool,
                 limit: int | None = None) -> Sequence[RepeatData]:
    """The arrays of every repeat of an experiment's split, from the job's named inputs.

    The job must have the inputs ``prepared``, ``split`` and ``substitutes`` (see
    ``split_inputs`` in ``workflow/rules/common.smk``). The result holds
    :func:`mixlib.experiments.data.assemble` of every repeat of the split, in order, each
    made when first read (:class:`~mixlib.experiments.data.SplitRepeats`): the input of
    :func:`mixlib.experiments.contract.run_repeats`; with ``limit``, of its first ``limit``
    repeats only.
    """
    from mixlib.experiments.data import SplitRepeats
    from mixlib.pipeline.io import read_table

    return SplitRepeats(read_table(smk.input.prepared), read_table(smk.input.split),
                        substitutes=read_table(smk.input.substitutes),
                        standardise_features=standardise_features, limit=limit)


def splits_and_replicates(smk: Any, standardise_features: bool,
                          limit: int | None = None) -> Iterator[tuple[str, Sequence[RepeatData], str]]:
    """Each split of a job that runs a split and its replicate: its name, its repeats (as
    :func:`load_repeats`) and the table it writes.

    The job has the params ``splits`` (the split, then its replicate with
    ``claims.replicate``), the inputs ``prepared`` (their common data set), ``split`` and
    ``substitutes`` (one file per split, in that order; ``replicated_split_inputs`` in
    ``workflow/rules/common.smk``), and one output per split, in that order. The two share
    every setting of the stage, so one process runs both: it pays its start-up (Python,
    pandas, numba's cache) once, not twice, and the data table is read once.
    """
    from mixlib.experiments.data import SplitRepeats
    from mixlib.pipeline.io import read_table

    prepared = read_table(smk.input.prepared)
    for name, split, substitutes, output in zip(smk.params.splits, smk.input.split,
                                                smk.input.substitutes, smk.output, strict=True):
        yield name, SplitRepeats(prepared, read_table(split), substitutes=read_table(substitutes),
                                 standardise_features=standardise_features, limit=limit), output


def concat_tables(smk: Any) -> None:
    """An aggregation rule: the input tables (one per sweep point) stacked into one table."""
    import pandas as pd

    from mixlib.pipeline.io import read_table, write_table

    write_table(pd.concat([read_table(path) for path in smk.input], ignore_index=True), smk.output[0])

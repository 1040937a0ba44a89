"""A warning of Snakemake's own that ``snakemake --report`` prints once per job, silenced.

Building the report's DAG, Snakemake 9 evaluates each rule's default ``disk`` resource,
``max(2*input.size_mb, 1000)``, inside its running event loop: ``input.size_mb`` starts a
coroutine that cannot run there, Snakemake catches the ``NestedCoroutineError`` and leaves the
resource "to be determined" (``snakemake/rules.py``), and the coroutine, never awaited, is
reported by Python when it is collected: one ``RuntimeWarning`` (and a hint about
``tracemalloc``) per job. Nothing of ours runs in it and nothing is lost (the report does not
use the disk resource), so the one message is ignored, from that module only: any other
warning, of Snakemake or ours, is still shown.
"""

from __future__ import annotations

import warnings

#: The message Python gives for the coroutine Snakemake leaves unawaited (a regular expression).
UNAWAITED_INPUT_SIZES = (r"coroutine 'InputFiles\._predicated_size_files\.<locals>\.sizes' "
                         r"was never awaited")
#: The module the warning is attributed to: where the coroutine is dropped.
SNAKEMAKE_RULES = r"snakemake\.rules\Z"


def ignore_unawaited_input_sizes() -> None:
    """Ignore :data:`UNAWAITED_INPUT_SIZES` when raised from :data:`SNAKEMAKE_RULES` (a filter
    of :mod:`warnings`, for the rest of the process: the Snakefile sets it)."""
    warnings.filterwarnings("ignore", message=UNAWAITED_INPUT_SIZES, category=RuntimeWarning,
                            module=SNAKEMAKE_RULES)

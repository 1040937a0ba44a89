"""Which jobs of the study fit a Gaussian mixture, and the one set of EM settings they all get.

The config's top-level ``em`` section holds the EM settings of every mixture the study fits
(:mod:`config/README.md <mixlib.pipeline.config>`). A rule passes them to a job as its ``em``
parameter only when the job fits a mixture, and ``None`` otherwise, so that changing an EM
setting makes Snakemake rerun exactly the jobs that fit a mixture (Snakemake reruns a job
whose parameters changed).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from mixlib.datasets import CLASS_COLUMN
from mixlib.experiments.registry import MODELS
from mixlib.pipeline.config import dataset_source, load_dataset_table

def em_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config's EM settings (the top-level ``em`` section) as a plain dict."""
    return dict(config["em"])


@cache
def _has_missing_values(name: str, spec_items: tuple, base_dir: str) -> bool:
    table = load_dataset_table(name, dict(spec_items), base_dir)
    if table is None:  # a url source: only its download tells; assume it may
        return True
    return bool(table.drop(columns=[CLASS_COLUMN]).isna().to_numpy().any())


def dataset_has_missing_values(name: str, spec: Mapping[str, Any],
                               base_dir: str | Path = ".") -> bool:
    """Whether data set ``name`` has a missing cell (True for a not yet downloaded ``url`` source).

    Reads the shipped copy or the user's CSV once per process (cached), as the config checks do.
    """
    items = tuple(sorted(
        (key, tuple(sorted(value.items())) if isinstance(value, Mapping)
         else tuple(value) if isinstance(value, list) else value)
        for key, value in spec.items()))
    return _has_missing_values(name, items, str(base_dir))


def imputer_fits_mixture(config: Mapping[str, Any], dataset: str,
                         base_dir: str | Path = ".") -> bool:
    """Whether the ``impute`` method fits mixtures on ``dataset``: ``kernel_mode`` on a data set
    with missing cells (the imputers fit nothing where no cell is missing)."""
    return (config["impute"]["method"] == "kernel_mode"
            and dataset_has_missing_values(dataset, dataset_source(config, dataset), base_dir))


def comparison_fits_mixture(config: Mapping[str, Any], dataset: str, model: str,
                            base_dir: str | Path = ".") -> bool:
    """Whether the comparison job of ``model`` on ``dataset`` fits a mixture: the model is of
    the mixture family (:data:`mixlib.experiments.registry.MODELS`), or the data set's missing
    cells are filled by the kernel-mode imputer before the cross-validation."""
    return MODELS[model].family == "mixture" or imputer_fits_mixture(config, dataset, base_dir)


def em_if(config: Mapping[str, Any], fits_mixture: bool) -> dict[str, Any] | None:
    """A job's ``em`` parameter: the EM settings if it fits a mixture, else ``None``."""
    return em_settings(config) if fits_mixture else None

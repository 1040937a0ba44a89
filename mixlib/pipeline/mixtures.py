"""Which jobs of the study fit a Gaussian mixture, and the one set of EM settings they all get.

The config's top-level ``em`` section holds the EM settings of every mixture the study fits
(:class:`mixlib.catalogue.settings.EMSettings`). A rule passes them to a job as its ``em``
parameter only when the job fits a mixture, and ``None`` otherwise, so that changing an EM
setting makes Snakemake rerun exactly the jobs that fit a mixture (Snakemake reruns a job
whose parameters changed).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mixlib.catalogue.registry import MODELS
from mixlib.catalogue.settings import EMSettings
from mixlib.pipeline.datasets import dataset_has_missing_values, dataset_source


def imputer_fits_mixture(config: Mapping[str, Any], dataset: str,
                         base_dir: str | Path = ".") -> bool:
    """Whether the ``impute`` method fits mixtures on ``dataset``: ``kernel_mode`` on a data set
    with missing cells (the imputers fit nothing where no cell is missing)."""
    return (config["impute"]["method"] == "kernel_mode"
            and dataset_has_missing_values(dataset, dataset_source(config, dataset), base_dir))


def model_fits_mixture(model: str) -> bool:
    """Whether ``model`` is of the mixture family (:data:`mixlib.catalogue.registry.MODELS`):
    what a hold-out comparison job fits, its rows being imputed already."""
    return MODELS[model].family == "mixture"


def comparison_fits_mixture(config: Mapping[str, Any], dataset: str, model: str,
                            base_dir: str | Path = ".") -> bool:
    """Whether the cross-validation job of ``model`` on ``dataset`` fits a mixture: the model
    is of the mixture family, or the data set's missing cells are filled by the kernel-mode
    imputer before the cross-validation."""
    return model_fits_mixture(model) or imputer_fits_mixture(config, dataset, base_dir)


def em_if(em: EMSettings, fits_mixture: bool) -> EMSettings | None:
    """A job's ``em`` parameter: the EM settings if it fits a mixture, else ``None``."""
    return em if fits_mixture else None

"""Imputation study figure: error of each imputation method against the missing rate."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from mixlib.core.statistics import mean_t_interval
from mixlib.figures import interval_name, new_figure

_PANELS = (
    ("rmse_test", "RMSE on hidden test cells\n(standardised units)"),
    ("mae_test", "MAE on hidden test cells\n(standardised units)"),
    ("test_error", "test error of the mixture\nclassifier (fraction)"),
)


def imputation_figure(results: pd.DataFrame, *, confidence_level: float) -> Figure:
    """RMSE, MAE and classifier test error against the missing rate, one line per method.

    Parameters
    ----------
    results : pandas.DataFrame
        The table of :func:`mixlib.experiments.imputation.imputation_study`: columns
        ``repeat``, ``missing_rate``, ``method``, ``metric``, ``value``.
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels (RMSE and MAE of the test rows, imputed without their labels, and test
        error); lines are means over repeats, bands their Student-t interval over repeats
        (:func:`mixlib.core.statistics.mean_t_interval`, level ``confidence_level``).
    """
    fig, axes = new_figure(1, len(_PANELS), figsize=(12.0, 4.0))
    for ax, (metric, label) in zip(axes, _PANELS):
        table = results[results["metric"] == metric]
        for i, (method, rows) in enumerate(table.groupby("method", sort=True)):
            wide = rows.pivot_table(index="repeat", columns="missing_rate", values="value")
            mean, low, high = mean_t_interval(wide.to_numpy(), 1 - confidence_level)
            rate = 100.0 * wide.columns.to_numpy()
            ax.plot(rate, mean, "o-", color=f"C{i}", label=method, markersize=3)
            ax.fill_between(rate, low, high, color=f"C{i}", alpha=0.15, linewidth=0)
        ax.set_xlabel("missing values (% of cells, MCAR)")
        ax.set_ylabel(label)
    axes[0].legend()
    fig.suptitle(f"Imputation methods over {results['repeat'].nunique()} repeats (band: {interval_name(confidence_level)})")
    return fig

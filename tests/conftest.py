"""Test order: the fast tests first, then those that run the Snakemake DAG or a cluster.

pytest collects ``tests/cluster`` and ``tests/pipeline`` before the ``test_*.py`` files of
``tests/`` (directories sort first), so the minutes of DAG runs would come before the
thousand fast tests and the progress bar would sit near 0 % meanwhile. Sorting by marker
keeps each group in its collected order. Under pytest-xdist (the README runs ``pytest -n
auto``; ``pyproject.toml`` hands out whole files, in this order) the slow files go first
instead, so that the fast ones fill the other workers' time while a DAG runs, rather than
leave one worker alone with the DAG runs at the end.

No test may leave the run's provenance record in the environment: the Snakemake
processes the pipeline tests start would inherit it, and take it for their own run's.
"""

import os

import pytest

from mixlib.pipeline.provenance import ENVIRONMENT_KEY

SLOW_MARKERS = ("pipeline", "cluster")


def _slowness(item: pytest.Item) -> int:
    """0 for a fast test, then one step per slow marker, in the order of SLOW_MARKERS."""
    for rank, marker in enumerate(SLOW_MARKERS, start=1):
        if item.get_closest_marker(marker) is not None:
            return rank
    return 0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow_first = hasattr(config, "workerinput")  # a pytest-xdist worker
    # a stable sort: the collected order within each group
    items.sort(key=lambda item: -_slowness(item) if slow_first else _slowness(item))


@pytest.fixture(autouse=True)
def _no_provenance_record_left_in_the_environment():
    """Drop a provenance record a test's in-process call left in ``os.environ``."""
    had = os.environ.get(ENVIRONMENT_KEY)
    yield
    if had is None:
        os.environ.pop(ENVIRONMENT_KEY, None)

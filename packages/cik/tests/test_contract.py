"""The core's contract suites on the dataset and experiment; the plugin module stays light."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import pytest

from paperzoo.data import locate_unverified
from paperzoo.testing import DatasetContract, ExperimentContract
from paperzoo_cik import plugin

needs_tasks = pytest.mark.skipif(
    locate_unverified(plugin.TASKS_FILE) is None,
    reason="cik/all_tasks.json not available (set PAPERZOO_DATA_MIRROR)",
)


class TestTasksDataset(DatasetContract):
    plugin = plugin
    dataset = "cik.tasks"


@needs_tasks
class TestBenchmarkExperiment(ExperimentContract):
    plugin = plugin
    experiment = "cik.benchmark"
    smoke_overrides: ClassVar[dict[str, Any]] = {"forecaster": "seasonal-naive", "limit": 8}


def test_plugin_module_imports_no_numerics() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'pandas', 'statsmodels'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"

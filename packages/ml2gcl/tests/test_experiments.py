"""The experiments through the core's contract, the efficiency probe, and the paper-level checks (slow)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.testing import ExperimentContract
from paperzoo_graph.datasets import PLANETOID_FILES, load_graph, sbm_graph
from paperzoo_graph.evaluation import linear_probe, random_splits
from paperzoo_ml2gcl import plugin
from paperzoo_ml2gcl.efficiency import measure_in_subprocess
from paperzoo_ml2gcl.estimator import ML2GCL

needs_cora = pytest.mark.skipif(
    any(locate_unverified(f) is None for f in PLANETOID_FILES["cora"].values()),
    reason="planetoid/ind.cora.* not available (set PAPERZOO_DATA_MIRROR)",
)


@needs_cora
class TestNodeClassificationExperiment(ExperimentContract):
    plugin = plugin
    experiment = "ml2gcl.node-classification"
    smoke_overrides: ClassVar[dict[str, Any]] = {"epochs": 2, "n_splits": 2, "grace_epochs": 2}


class TestEfficiencyExperiment(ExperimentContract):
    plugin = plugin
    experiment = "ml2gcl.efficiency"
    smoke_overrides: ClassVar[dict[str, Any]] = {"n_nodes": [300], "epochs": 1, "exact_loss_max_nodes": 200}
    check_reproducible = False  # it reports seconds and resident memory


def test_efficiency_probe_reports_time_and_memory() -> None:
    record = measure_in_subprocess(
        {"method": "ml2gcl", "n_nodes": 400, "epochs": 2, "options": {"hidden": 32}}, timeout_s=120
    )
    assert record["status"] == "ok", record
    assert record["peak_rss_mb"] >= record["rss_before_mb"] > 0
    assert record["epoch_s"] > 0
    assert record["n_edges"] > 0


def test_efficiency_probe_reports_a_timeout() -> None:
    record = measure_in_subprocess({"method": "ml2gcl", "n_nodes": 5_000, "epochs": 50}, timeout_s=1)
    assert record["status"] == "timeout"


def test_plugin_module_imports_no_framework() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'torch', 'numpy', 'scipy'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"


@pytest.mark.slow
@needs_cora
@pytest.mark.parametrize(("dataset", "floor"), [("cora", 80.5), ("citeseer", 68.0)])
def test_paper_level_accuracy_on_twenty_random_splits(dataset: str, floor: float) -> None:
    graph = load_graph(dataset)
    probe = linear_probe(
        ML2GCL().fit(graph).embeddings_, graph.y, random_splits(graph.y, n_splits=20, seed=0)
    )
    assert probe.mean >= floor, probe


@pytest.mark.slow
def test_a_100k_node_graph_trains_with_sampled_negatives() -> None:
    graph = sbm_graph(100_000, seed=0)
    model = ML2GCL(hidden=64, epochs=2, num_negatives=256).fit(graph)
    assert model.embeddings_.shape == (100_000, 64)
    assert np.isfinite(model.embeddings_).all()

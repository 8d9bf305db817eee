"""The settings' constraints, the references, the efficiency probe, and the paper-level checks (slow)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError
from paperzoo_graph.datasets import PLANETOID_FILES, load_graph, sbm_graph
from paperzoo_graph.evaluation import linear_probe, random_splits
from paperzoo_ml2gcl.efficiency import measure_in_subprocess
from paperzoo_ml2gcl.estimator import ML2GCL
from paperzoo_ml2gcl.plugin import plugin

HAVE_CORA = all(locate_unverified(f) is not None for f in PLANETOID_FILES["cora"].values())
needs_cora = pytest.mark.skipif(
    not HAVE_CORA, reason="planetoid/ind.cora.* not available (set PAPERZOO_DATA_MIRROR)"
)


@pytest.mark.parametrize(
    ("experiment", "setting", "message"),
    [
        ("node-classification", {"datasets": ["pubmed"]}, "datasets[0] must be one of 'cora', 'citeseer'"),
        ("node-classification", {"methods": []}, "methods must be a list of ≥ 1"),
        ("node-classification", {"n_splits": 0}, "n_splits must be an integer ≥ 1, got 0"),
        ("node-classification", {"grace_epochs": 0}, "grace_epochs must be an integer ≥ 1 or none, got 0"),
        (
            "node-classification",
            {"negatives": "all"},
            "negatives must be one of 'non-neighbours', 'zero-weight'",
        ),
        ("efficiency", {"n_nodes": [1_000, 2]}, "n_nodes[1] must be an integer ≥ 5, got 2"),
        ("efficiency", {"timeout_s": 0}, "timeout_s must be an integer ≥ 1, got 0"),
    ],
)
def test_bad_settings_are_one_clear_error(experiment: str, setting: dict[str, Any], message: str) -> None:
    spec = next(s for s in plugin.experiments if s.name == f"ml2gcl.{experiment}")
    with pytest.raises(ConfigError) as info:
        spec.settings_for("smoke", setting)
    assert message in str(info.value)


def test_the_official_code_anchors_are_the_references_of_ml2gcl_rows_only() -> None:
    from paperzoo.references import find_reference

    spec = next(s for s in plugin.experiments if s.name == "ml2gcl.node-classification")
    for n_splits in (5, 20):
        metric = f"accuracy, {n_splits} random splits"
        cora = find_reference(spec.references, metric, "dataset=cora, method=ML²-GCL", {})
        assert cora is not None and (cora.value, cora.kind) == (82.1, "official-code")
        assert find_reference(spec.references, metric, "dataset=citeseer, method=ML²-GCL", {}).value == 69.5
        assert find_reference(spec.references, metric, "dataset=cora, method=GRACE", {}) is None
        assert find_reference(spec.references, metric, "dataset=amazon-photo, method=ML²-GCL", {}) is None


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

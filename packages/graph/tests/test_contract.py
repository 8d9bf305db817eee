"""The core's generated contract tests for everything the graph manifest declares, and the lazy package."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from paperzoo.testing import Example, PluginContract
from paperzoo_graph.datasets import sbm_graph
from paperzoo_graph.grace import GRACE
from paperzoo_graph.plugin import plugin


class TestGraph(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        return Example(
            GRACE(num_hidden=8, num_proj_hidden=8, epochs=3, activation="prelu", seed=3),
            fit_args=(sbm_graph(60, n_classes=3, n_features=16, seed=1),),
            fitted_output=lambda model: {"embeddings": model.embeddings_, "loss": model.loss_history_},
        )


def test_package_import_is_lazy_and_exports_the_api() -> None:
    code = "import sys, paperzoo_graph as g; print(sorted({'torch', 'numpy'} & set(sys.modules)), g.__all__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    heavy, names = out.stdout.strip().split("] ", 1)
    assert heavy == "["
    for name in ("Graph", "GCNConv", "load_graph", "sbm_graph", "linear_probe", "GRACE", "GRACE_CONFIGS"):
        assert name in names


def test_the_manifest_declares_four_datasets_and_grace() -> None:
    assert sorted(s.name for s in plugin.datasets) == [
        "graph.amazon-photo",
        "graph.citeseer",
        "graph.coauthor-cs",
        "graph.cora",
    ]
    assert [s.name for s in plugin.estimators] == ["graph.grace"]
    assert plugin.estimators[0].load() is GRACE
    cora = next(s for s in plugin.datasets if s.name == "graph.cora")
    assert len(cora.files) == 8 and cora.size == sum(f.size for f in cora.files)
    assert all(f.url.startswith("https://github.com/kimiyoung/planetoid/raw/") for f in cora.files)


def test_grace_fit_leaves_the_global_torch_rng_alone() -> None:
    import torch

    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    GRACE(num_hidden=4, num_proj_hidden=4, epochs=1).fit(sbm_graph(20, n_classes=2, n_features=8))
    np.testing.assert_array_equal(torch.rand(3).numpy(), expected.numpy())

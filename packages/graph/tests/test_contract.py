"""The core's contract suites on the datasets and GRACE, and what the plugin registers."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np

from paperzoo.host import PluginHost
from paperzoo.testing import DatasetContract, EstimatorContract
from paperzoo_graph import plugin
from paperzoo_graph.datasets import sbm_graph
from paperzoo_graph.grace import GRACE


class TestCoraContract(DatasetContract):
    plugin = plugin
    dataset = "graph.cora"


class TestCiteSeerContract(DatasetContract):
    plugin = plugin
    dataset = "graph.citeseer"


class TestAmazonPhotoContract(DatasetContract):
    plugin = plugin
    dataset = "graph.amazon-photo"


class TestCoauthorCSContract(DatasetContract):
    plugin = plugin
    dataset = "graph.coauthor-cs"


class TestGraceContract(EstimatorContract):
    def make_estimator(self) -> GRACE:
        return GRACE(num_hidden=8, num_proj_hidden=8, epochs=3, activation="prelu", seed=3)

    def fit_args(self) -> tuple[Any, ...]:
        return (sbm_graph(60, n_classes=3, n_features=16, seed=1),)

    def fitted_output(self, estimator: GRACE) -> Any:
        return {"embeddings": estimator.embeddings_, "loss": estimator.loss_history_}


def test_plugin_module_imports_no_framework_nor_numpy() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'torch', 'numpy', 'scipy'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"


def test_package_import_is_lazy_and_exports_the_api() -> None:
    code = "import sys, paperzoo_graph as g; print(sorted({'torch', 'numpy'} & set(sys.modules)), g.__all__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    heavy, names = out.stdout.strip().split("] ", 1)
    assert heavy == "["
    for name in ("Graph", "GCNConv", "load_graph", "sbm_graph", "linear_probe", "GRACE", "GRACE_CONFIGS"):
        assert name in names


def test_plugin_registers_four_datasets_and_grace() -> None:
    host = PluginHost(entry_points=False)
    host.register(plugin, name="graph")
    assert host.datasets.names() == [
        "graph.amazon-photo",
        "graph.citeseer",
        "graph.coauthor-cs",
        "graph.cora",
    ]
    assert host.estimators.get("graph.grace").load() is GRACE
    cora = host.datasets.get("graph.cora")
    assert len(cora.files) == 8 and cora.size == sum(f.size for f in cora.files)
    assert all(f.url.startswith("https://github.com/kimiyoung/planetoid/raw/") for f in cora.files)


def test_grace_fit_leaves_the_global_torch_rng_alone() -> None:
    import torch

    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    GRACE(num_hidden=4, num_proj_hidden=4, epochs=1).fit(sbm_graph(20, n_classes=2, n_features=8))
    np.testing.assert_array_equal(torch.rand(3).numpy(), expected.numpy())

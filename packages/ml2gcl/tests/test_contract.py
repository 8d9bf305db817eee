"""The core's generated contract tests for everything the ml2gcl manifest declares."""

from __future__ import annotations

from paperzoo.testing import Example, PluginContract
from paperzoo_graph.datasets import sbm_graph
from paperzoo_ml2gcl.estimator import ML2GCL
from paperzoo_ml2gcl.plugin import plugin


class TestMl2gcl(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        return Example(
            ML2GCL(hidden=16, epochs=3, seed=1),
            fit_args=(sbm_graph(40, n_classes=2, n_features=12, seed=0),),
            fitted_output=lambda m: m.embeddings_,
        )

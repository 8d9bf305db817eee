"""paperzoo plugin ``ml2gcl``: hook implementations only (nothing heavy imported)."""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import EstimatorSpec, ExperimentSpec, PluginInfo, hookimpl

PAPER = "ML²-GCL: Manifold Learning Inspired Lightweight Graph Contrastive Learning"


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="ml2gcl",
        framework="torch",
        paper=PAPER,
        venue="ICML 2025",
        url="https://proceedings.mlr.press/v267/liang25h.html",
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    register(
        EstimatorSpec(
            "ml2gcl.ml2gcl",
            "paperzoo_ml2gcl.estimator:ML2GCL",
            "Single-view graph contrastive learning with closed-form neighbour weights as positives.",
            framework="torch",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "ml2gcl.node-classification",
            "paperzoo_ml2gcl.experiments:node_classification",
            "Linear-probe accuracy on Cora, CiteSeer, Amazon-Photo, Coauthor-CS: ML²-GCL beside GRACE.",
            settings={
                "datasets": ["cora", "citeseer", "amazon-photo", "coauthor-cs"],
                "methods": ["ml2gcl", "grace"],
                "n_splits": 20,
                "epochs": 40,
                "negatives": "non-neighbours",
                "exact_loss_max_nodes": 10_000,
                "num_negatives": 1024,
                "grace_epochs": None,
                "baseline_max_nodes": 5_000,
            },
            scales={
                "smoke": {"datasets": ["cora"], "n_splits": 5, "grace_epochs": 50},
                "paper": {"exact_loss_max_nodes": 100_000, "baseline_max_nodes": 100_000},
            },
            reproduces="node classification, 20 random splits (official code on CPU: Cora 82.1, CiteSeer 69.5)",
        )
    )
    register(
        ExperimentSpec(
            "ml2gcl.efficiency",
            "paperzoo_ml2gcl.experiments:efficiency",
            "Seconds per epoch, weight time and peak memory against N on SBM graphs, ML²-GCL vs GRACE.",
            settings={
                "n_nodes": [1_000, 3_000, 10_000, 30_000],
                "methods": ["ml2gcl", "grace"],
                "epochs": 3,
                "n_features": 128,
                "exact_loss_max_nodes": 20_000,
                "num_negatives": 1024,
                "baseline_max_nodes": 10_000,
                "timeout_s": 300,
            },
            scales={
                "smoke": {"n_nodes": [500, 2_000], "epochs": 2, "timeout_s": 120},
                "paper": {"n_nodes": [1_000, 3_000, 10_000, 30_000, 100_000], "baseline_max_nodes": 30_000},
            },
            reproduces="the paper's efficiency claim (time and memory vs GRACE); no paper number",
        )
    )

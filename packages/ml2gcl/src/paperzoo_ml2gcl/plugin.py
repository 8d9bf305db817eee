"""paperzoo plugin ``ml2gcl``: the manifest (nothing heavy imported).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy or torch.
"""

from __future__ import annotations

from paperzoo import Plugin, Ref, Setting

PAPER = "ML²-GCL: Manifold Learning Inspired Lightweight Graph Contrastive Learning"
DATASETS = ("cora", "citeseer", "amazon-photo", "coauthor-cs")
"""The graphs of ``paperzoo-graph`` (``paperzoo_graph.datasets.GRAPH_NAMES``)."""
METHODS = ("ml2gcl", "grace")

plugin = Plugin(
    "ml2gcl",
    framework="torch",
    paper=PAPER,
    venue="ICML 2025",
    url="https://proceedings.mlr.press/v267/liang25h.html",
)

plugin.estimator(
    "ml2gcl",
    ".estimator:ML2GCL",
    "Single-view graph contrastive learning with closed-form neighbour weights as positives.",
)

METHOD_LIST = Setting.choice_list(METHODS)
NUM_NEGATIVES = Setting(1024, low=1, help="sampled negatives above exact_loss_max_nodes")
OFFICIAL_CODE = (
    "official code (github.com/a-hou/ML2-GCL, main.py) with its defaults, 20 random splits, on a 2-core CPU"
)
# The paper's own table could not be read: the references are the official code's accuracy, measured.
ANCHORS = [
    Ref(82.1, OFFICIAL_CODE, kind="official-code", setting="dataset=cora, method=ML²-GCL"),
    Ref(69.5, OFFICIAL_CODE, kind="official-code", setting="dataset=citeseer, method=ML²-GCL"),
]
# the metric is named after n_splits: the anchors apply at the scales' 5 (smoke) and 20 splits
ACCURACY_REFS = {f"accuracy, {n} random splits": ANCHORS for n in (5, 20)}

plugin.experiment(
    "node-classification",
    ".experiments:node_classification",
    "Linear-probe accuracy on Cora, CiteSeer, Amazon-Photo, Coauthor-CS: ML²-GCL beside GRACE.",
    settings={
        "datasets": Setting.choice_list(DATASETS),
        "methods": METHOD_LIST,
        "n_splits": Setting(20, low=1),
        "epochs": Setting(40, low=1, help="ML²-GCL's training epochs"),
        "negatives": Setting("non-neighbours", choices=("non-neighbours", "zero-weight")),
        "exact_loss_max_nodes": Setting(10_000, low=0, help="larger graphs: sampled negatives"),
        "num_negatives": NUM_NEGATIVES,
        "grace_epochs": Setting(
            None, type="int", low=1, allow_none=True, help="none: GRACE's published epochs"
        ),
        "baseline_max_nodes": Setting(5_000, low=0, help="GRACE is skipped on larger graphs"),
    },
    scales={
        "smoke": {"datasets": ["cora"], "n_splits": 5, "grace_epochs": 50},
        "paper": {"exact_loss_max_nodes": 100_000, "baseline_max_nodes": 100_000},
    },
    references=ACCURACY_REFS,
    test_scale={"epochs": 2, "n_splits": 2, "grace_epochs": 2},
    datasets=("graph.cora",),  # what the smoke and test scales read
    reproduces="node classification, 20 random splits (official code on CPU: Cora 82.1, CiteSeer 69.5)",
)
plugin.experiment(
    "efficiency",
    ".experiments:efficiency",
    "Seconds per epoch, weight time and peak memory against N on SBM graphs, ML²-GCL vs GRACE.",
    settings={
        "n_nodes": Setting(
            [1_000, 3_000, 10_000, 30_000],
            each=Setting(1_000, low=5),
            min_len=1,
            help="SBM graph sizes (5 classes)",
        ),
        "methods": METHOD_LIST,
        "epochs": Setting(3, low=1),
        "n_features": Setting(128, low=1),
        "exact_loss_max_nodes": Setting(20_000, low=0, help="larger graphs: sampled or blocked losses"),
        "num_negatives": NUM_NEGATIVES,
        "baseline_max_nodes": Setting(10_000, low=0, help="GRACE is not run on larger graphs"),
        "timeout_s": Setting(300, low=1, help="seconds allowed for each measurement"),
    },
    scales={
        "smoke": {"n_nodes": [500, 2_000], "epochs": 2, "timeout_s": 120},
        "paper": {"n_nodes": [1_000, 3_000, 10_000, 30_000, 100_000], "baseline_max_nodes": 30_000},
    },
    test_scale={"n_nodes": [300], "epochs": 1, "exact_loss_max_nodes": 200},
    reproduces="the paper's efficiency claim (time and memory vs GRACE); no paper number",
)

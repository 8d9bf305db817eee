"""paperzoo-graph: the shared base of the graph-learning plugins.

A numpy :class:`Graph`, sparse GCN layers in plain torch, the node-classification
datasets (Cora, CiteSeer, Amazon Photo, Coauthor CS) and an SBM generator, the
linear-probe protocols, and the GRACE baseline::

    from paperzoo_graph import GRACE, linear_probe, load_graph, random_splits

    graph = load_graph("cora")
    z = GRACE.for_dataset("cora").fit(graph).embeddings_
    print(linear_probe(z, graph.y, random_splits(graph.y)))

Importing this package is cheap: its names are imported on first use, and the
plugin module (``paperzoo_graph.plugin``) names everything by ``"module:attr"`` targets.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "Graph": ".graph",
    "require_graph": ".graph",
    "GraphError": ".graph",
    "GCNConv": ".nn",
    "gcn_norm": ".nn",
    "to_sparse_csr": ".nn",
    "to_torch": ".nn",
    "GRAPH_NAMES": ".datasets",
    "load_graph": ".datasets",
    "load_planetoid": ".datasets",
    "load_npz": ".datasets",
    "sbm_graph": ".datasets",
    "Split": ".evaluation",
    "random_splits": ".evaluation",
    "public_split": ".evaluation",
    "ratio_splits": ".evaluation",
    "linear_probe": ".evaluation",
    "ProbeResult": ".evaluation",
    "GRACE": ".grace",
    "GRACE_CONFIGS": ".grace",
    "grace_loss": ".grace",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

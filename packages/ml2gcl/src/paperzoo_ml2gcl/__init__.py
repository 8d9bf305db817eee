"""paperzoo-ml2gcl: ML²-GCL (ICML 2025) as a paperzoo plugin.

>>> from paperzoo_graph import load_graph
>>> from paperzoo_ml2gcl import ML2GCL
>>> z = ML2GCL().fit(load_graph("cora")).embeddings_      # (2708, 500)

Names are imported on first use: discovering the plugin does not import torch.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

_LAZY = {
    "ML2GCL": ".estimator",
    "Encoder": ".encoder",
    "ContrastiveLoss": ".loss",
    "neighbour_weights": ".weights",
    "solve_weights": ".weights",
    "positive_weights": ".weights",
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _LAZY)

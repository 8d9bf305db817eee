"""The :class:`Graph` every graph plugin passes around.

A graph is plain numpy: ``x`` (N × F float32 features), ``edge_index`` (2 × E
int64, both directions stored for an undirected graph, no duplicates), ``y``
(N int64 labels, ``-1`` for an unlabelled node) and optional boolean ``masks``
(e.g. Planetoid's public ``train``/``val``/``test`` split). Conversion to and
from PyTorch Geometric's ``Data`` needs torch_geometric installed; nothing else
here needs torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from paperzoo.errors import ConfigError

__all__ = ["Graph", "GraphError", "require_graph"]


class GraphError(ConfigError):
    """The arrays given do not describe a valid graph."""


def _canonical(edges: np.ndarray, num_nodes: int) -> np.ndarray:
    """``edges`` sorted by (source, target) without duplicates; returned as is if already so.

    Sorts one int64 key per edge (source · N + target): an order of magnitude
    faster than ``np.unique(edges, axis=1)`` for millions of edges.
    """
    if edges.shape[1] < 2:
        return edges
    if num_nodes > 2**31:  # keys could overflow int64
        return np.unique(edges, axis=1)
    keys = edges[0] * num_nodes + edges[1]
    if np.all(keys[1:] > keys[:-1]):
        return edges
    keys.sort()
    keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    return np.stack([keys // num_nodes, keys % num_nodes])


@dataclass(frozen=True, eq=False)
class Graph:
    """An attributed, labelled graph with N nodes and E directed edges.

    Attributes:
        x: Node features, ``(N, F)`` float32.
        edge_index: ``(2, E)`` int64 source/target pairs, sorted, without duplicates.
        y: ``(N,)`` int64 class labels in ``0..C-1``; ``-1`` marks an unlabelled node.
        masks: Named boolean ``(N,)`` node masks, e.g. a public split.
        name: What the graph is, for tables and error messages.
    """

    x: np.ndarray
    edge_index: np.ndarray
    y: np.ndarray
    masks: Mapping[str, np.ndarray] = field(default_factory=dict)
    name: str = "graph"

    def __post_init__(self) -> None:
        if sp.issparse(self.x):
            raise GraphError(
                f"{self.name}: x is a scipy sparse matrix; Graph stores dense features",
                hint="pass x.toarray()",
            )
        x = np.asarray(self.x, dtype=np.float32)
        if x.ndim != 2:
            raise GraphError(f"{self.name}: x must be 2-D (nodes × features), got shape {x.shape}")
        n = x.shape[0]
        edges = np.asarray(self.edge_index)
        if edges.ndim != 2 or edges.shape[0] != 2:
            raise GraphError(f"{self.name}: edge_index must have shape (2, E), got {edges.shape}")
        if edges.size and not np.issubdtype(edges.dtype, np.integer):
            raise GraphError(f"{self.name}: edge_index must hold integers, got {edges.dtype}")
        edges = edges.astype(np.int64, copy=False)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise GraphError(
                f"{self.name}: edge_index refers to node {int(edges.max()) if edges.max() >= n else int(edges.min())}"
                f" but there are {n} nodes (ids 0..{n - 1})"
            )
        y = np.asarray(self.y)
        if y.shape != (n,):
            raise GraphError(f"{self.name}: y must have shape ({n},), got {y.shape}")
        if y.size and not np.issubdtype(y.dtype, np.integer):
            raise GraphError(f"{self.name}: y must hold integer class ids (-1 = unlabelled), got {y.dtype}")
        if y.size and y.min() < -1:
            raise GraphError(f"{self.name}: labels must be ≥ -1 (-1 = unlabelled), got {int(y.min())}")
        masks = {}
        for key, mask in self.masks.items():
            m = np.asarray(mask)
            if m.shape != (n,) or m.dtype != np.bool_:
                raise GraphError(f"{self.name}: mask {key!r} must be a boolean array of shape ({n},)")
            masks[key] = m
        edges = _canonical(edges, n)
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "edge_index", edges)
        object.__setattr__(self, "y", y.astype(np.int64, copy=False))
        object.__setattr__(self, "masks", masks)

    # ------------------------------------------------------------------ sizes

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def num_edges(self) -> int:
        """Directed edges stored (an undirected edge counts twice)."""
        return int(self.edge_index.shape[1])

    @property
    def num_features(self) -> int:
        return int(self.x.shape[1])

    @property
    def num_classes(self) -> int:
        return int(self.y.max()) + 1 if self.y.size else 0

    @property
    def labelled(self) -> np.ndarray:
        """Boolean mask of the nodes with a label."""
        return self.y >= 0

    def degrees(self) -> np.ndarray:
        """Out-degree of every node (the number of neighbours, for an undirected graph)."""
        return np.bincount(self.edge_index[0], minlength=self.num_nodes)

    def __repr__(self) -> str:
        return (
            f"Graph(name={self.name!r}, nodes={self.num_nodes}, edges={self.num_edges}, "
            f"features={self.num_features}, classes={self.num_classes})"
        )

    # ------------------------------------------------------------ structure

    def adjacency(self) -> sp.csr_array:
        """The ``(N, N)`` 0/1 adjacency matrix as a CSR array."""
        n = self.num_nodes
        ones = np.ones(self.num_edges, dtype=np.float32)
        return sp.csr_array((ones, (self.edge_index[0], self.edge_index[1])), shape=(n, n))

    def is_undirected(self) -> bool:
        """Whether every edge (i, j) has its reverse (j, i)."""
        a = self.adjacency()
        return (a != a.T).nnz == 0

    def to_undirected(self) -> Graph:
        """The graph with every edge's reverse added."""
        both = np.concatenate([self.edge_index, self.edge_index[::-1]], axis=1)
        return self.replace(edge_index=both)

    def without_self_loops(self) -> Graph:
        """The graph with edges (i, i) removed."""
        keep = self.edge_index[0] != self.edge_index[1]
        return self.replace(edge_index=self.edge_index[:, keep])

    def replace(self, **changes: Any) -> Graph:
        """A copy with some fields replaced (validated again)."""
        fields = {
            "x": self.x,
            "edge_index": self.edge_index,
            "y": self.y,
            "masks": self.masks,
            "name": self.name,
        }
        fields.update(changes)
        return Graph(**fields)

    # ------------------------------------------------------------------ PyG

    def to_pyg(self) -> Any:
        """This graph as a ``torch_geometric.data.Data`` (needs torch_geometric)."""
        try:
            import torch
            from torch_geometric.data import Data
        except ImportError as exc:
            raise ImportError("Graph.to_pyg needs torch_geometric: pip install torch_geometric") from exc
        extra = {f"{k}_mask": torch.from_numpy(v.copy()) for k, v in self.masks.items()}
        return Data(
            x=torch.from_numpy(self.x.copy()),
            edge_index=torch.from_numpy(self.edge_index.copy()),
            y=torch.from_numpy(self.y.copy()),
            **extra,
        )

    @classmethod
    def from_pyg(cls, data: Any, *, name: str = "graph") -> Graph:
        """A Graph from a ``torch_geometric.data.Data`` with ``x``, ``edge_index`` and ``y``.

        Attributes named ``<split>_mask`` become :attr:`masks`. Missing ``y`` means
        every node is unlabelled.
        """
        if getattr(data, "x", None) is None or getattr(data, "edge_index", None) is None:
            raise GraphError(f"{name}: the Data object needs both x and edge_index")
        x = data.x.detach().cpu().numpy()
        y_attr = getattr(data, "y", None)
        y = np.full(x.shape[0], -1, dtype=np.int64) if y_attr is None else y_attr.detach().cpu().numpy()
        masks = {
            key[: -len("_mask")]: value.detach().cpu().numpy()
            for key, value in data.items()
            if key.endswith("_mask") and value is not None
        }
        return cls(
            x=x, edge_index=data.edge_index.detach().cpu().numpy(), y=y.reshape(-1), masks=masks, name=name
        )


def require_graph(graph: Any, caller: str) -> Graph:
    """``graph`` if it is a :class:`Graph`; else a one-line :class:`GraphError` naming ``caller``."""
    if not isinstance(graph, Graph):
        raise GraphError(
            f"{caller} expects a paperzoo_graph.Graph, got {type(graph).__name__}",
            hint="build one with Graph(x, edge_index, y), Graph.from_pyg(data) or load_graph(name)",
        )
    return graph

"""Sparse GCN building blocks in plain PyTorch (no PyG needed).

``gcn_norm`` builds Â = D̃^{-1/2} (A + I) D̃^{-1/2} with D̃ the degrees of A + I
(Kipf & Welling 2017) as a sparse CSR tensor; :class:`GCNConv` computes
H' = Â H W + b with Glorot-initialised W and zero b, as PyG's ``GCNConv`` does.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import torch
from torch import nn

from paperzoo_graph.graph import Graph

__all__ = ["GCNConv", "gcn_norm", "to_sparse_csr", "to_torch"]


def gcn_norm(
    edge_index: np.ndarray | torch.Tensor, num_nodes: int, *, add_self_loops: bool = True
) -> torch.Tensor:
    """Â = D̃^{-1/2} (A + I) D̃^{-1/2} as a float32 sparse CSR ``(N, N)`` tensor.

    Existing self-loops are replaced by one of weight 1 when ``add_self_loops``.
    """
    edges = torch.as_tensor(edge_index, dtype=torch.long)
    src, dst = edges[0], edges[1]
    if add_self_loops:
        keep = src != dst
        loops = torch.arange(num_nodes)
        src = torch.cat([src[keep], loops])
        dst = torch.cat([dst[keep], loops])
    weight = torch.ones(src.numel(), dtype=torch.float32)
    deg = torch.zeros(num_nodes, dtype=torch.float32).index_add_(0, dst, weight)
    inv_sqrt = deg.pow(-0.5)
    inv_sqrt[torch.isinf(inv_sqrt)] = 0.0
    values = inv_sqrt[src] * weight * inv_sqrt[dst]
    # row = target: H'_i = Σ_j Â_ij H_j aggregates messages j → i
    coo = torch.sparse_coo_tensor(
        torch.stack([dst, src]), values, (num_nodes, num_nodes), check_invariants=False
    ).coalesce()
    return to_sparse_csr(coo)


def to_sparse_csr(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor.to_sparse_csr()`` without torch's "CSR support is in beta" warning.

    CSR @ dense is the fast sparse product on CPU, for Â and for bag-of-words features.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return tensor.to_sparse_csr()


def to_torch(graph: Graph, *, add_self_loops: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x, Â)`` of a :class:`Graph` as torch tensors (features shared, not copied)."""
    return torch.from_numpy(graph.x), gcn_norm(
        graph.edge_index, graph.num_nodes, add_self_loops=add_self_loops
    )


class GCNConv(nn.Module):
    """One graph convolution H' = Â H W + b, with Â from :func:`gcn_norm`."""

    def __init__(self, in_features: int, out_features: int, *, bias: bool = True) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot-uniform W, zero b."""
        bound = math.sqrt(6.0 / (self.weight.shape[0] + self.weight.shape[1]))
        nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        """Â (x W) + b; multiplies by W first, the cheaper order when F_out ≤ F_in."""
        h = adj @ (x @ self.weight)
        return h + self.bias if self.bias is not None else h

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, {self.weight.shape[1]}, bias={self.bias is not None}"

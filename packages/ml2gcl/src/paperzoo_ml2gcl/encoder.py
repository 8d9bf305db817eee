"""The single-view encoder: GCNConv(F→h) → PReLU → dropout → GCNConv(h→h) → PReLU.

As in the official code, one PReLU (one learnt slope) is shared by both layers
and there is no projection head: the loss acts on the encoder's output.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional

from paperzoo_graph.nn import GCNConv

__all__ = ["Encoder"]


class Encoder(nn.Module):
    """Two GCN layers with a shared PReLU and dropout between them."""

    def __init__(self, in_features: int, hidden: int = 500, *, dropout: float = 0.5) -> None:
        super().__init__()
        self.conv1 = GCNConv(in_features, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.activation = nn.PReLU()
        self.dropout = dropout

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        """Z = σ(Â · dropout(σ(Â X W₁ + b₁)) W₂ + b₂) with σ the shared PReLU."""
        h = self.activation(self.conv1(x, adj))
        h = functional.dropout(h, p=self.dropout, training=self.training)
        return self.activation(self.conv2(h, adj))

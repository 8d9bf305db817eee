"""The ML²-GCL loss: weighted positives from the graph against the mean negative.

With e_ij = exp(cos(z_i, z_j)/τ), positives P_i = Σ_j W_ij e_ij over the node's
neighbours and N̄_i the mean of e_ij over its negatives,

    L = −(1/|V'|) Σ_{i∈V'} log( P_i / (P_i + N̄_i) ),

V' being the nodes with at least one neighbour (an isolated node has no positive).
Which j are negatives (``negatives``):

* ``"non-neighbours"`` (default): every j ≠ i that is not a graph neighbour of i.
* ``"zero-weight"`` (the official code): every j with W_ij = 0 — including i
  itself and the neighbours whose weight the ReLU clipped to zero.

The row sums S_i = Σ_j e_ij are exact, by a custom autograd function that uses
the symmetry of e: ∂(Σ_i g_i S_i)/∂ẑ_b = (1/τ) Σ_j (g_b + g_j) e_bj ẑ_j, one N²d
product instead of autograd's two. Up to ``keep_bytes`` of e is kept for the
backward pass; beyond, e is recomputed there in blocks of rows, so memory is
O(block · N) rather than O(N²). Or, with ``num_negatives = k``, N̄_i is estimated
from k nodes drawn without replacement once per call and shared by every row
(neighbours not excluded): O(N k d) time, O(N k) memory, for graphs beyond ~20k nodes.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp
import torch
from torch.nn import functional

from paperzoo.errors import ConfigError

__all__ = ["NEGATIVES", "ContrastiveLoss"]

NEGATIVES = ("non-neighbours", "zero-weight")
_EDGE_CHUNK = 1 << 16  # edges whose endpoint rows are gathered at once


class _ExpRowSums(torch.autograd.Function):
    """S_i = Σ_j exp(ẑ_i·ẑ_j / τ) for all i, memory-bounded, with the symmetric gradient."""

    @staticmethod
    def forward(ctx: Any, zn: torch.Tensor, tau: float, block: int, keep: bool) -> torch.Tensor:
        blocks = [torch.exp(zn[s : s + block] @ zn.T / tau) for s in range(0, zn.shape[0], block)]
        sums = torch.cat([e.sum(dim=1) for e in blocks])
        ctx.tau, ctx.block = tau, block
        ctx.kept = blocks if keep else None
        ctx.save_for_backward(zn)
        return sums

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        (zn,) = ctx.saved_tensors
        tau, block = ctx.tau, ctx.block
        out = torch.empty_like(zn)
        for k, s in enumerate(range(0, zn.shape[0], block)):
            e = ctx.kept[k] if ctx.kept is not None else torch.exp(zn[s : s + block] @ zn.T / tau)
            out[s : s + block] = (e * (grad[s : s + block, None] + grad[None, :])) @ zn / tau
        return out, None, None, None


class _EdgeExp(torch.autograd.Function):
    """e_rc = exp(ẑ_r·ẑ_c / τ) on the edges (r, c), without E × d intermediates.

    Forward gathers the endpoint rows in chunks; backward is two sparse products,
    ∂/∂ẑ = (1/τ) (M ẑ + Mᵀ ẑ) with M_rc = g_rc e_rc.
    """

    @staticmethod
    def forward(ctx: Any, zn: torch.Tensor, row: torch.Tensor, col: torch.Tensor, tau: float) -> torch.Tensor:
        out = torch.empty(row.numel(), dtype=zn.dtype)
        for s in range(0, row.numel(), _EDGE_CHUNK):
            r, c = row[s : s + _EDGE_CHUNK], col[s : s + _EDGE_CHUNK]
            out[s : s + _EDGE_CHUNK] = torch.exp((zn[r] * zn[c]).sum(dim=1) / tau)
        ctx.tau = tau
        ctx.save_for_backward(zn, row, col, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        zn, row, col, e = ctx.saved_tensors
        n = zn.shape[0]
        coefficients = grad * e / ctx.tau
        m = torch.sparse_coo_tensor(torch.stack([row, col]), coefficients, (n, n), check_invariants=False)
        mt = torch.sparse_coo_tensor(torch.stack([col, row]), coefficients, (n, n), check_invariants=False)
        return torch.sparse.mm(m, zn) + torch.sparse.mm(mt, zn), None, None, None


class ContrastiveLoss:
    """The loss for one graph, with its weights and negative counts precomputed.

    Args:
        weights: ``(N, N)`` CSR positive weights (:func:`~paperzoo_ml2gcl.weights.neighbour_weights`);
            its sparsity pattern is the neighbourhood.
        tau: Temperature τ (paper default 0.7).
        negatives: ``"non-neighbours"`` or ``"zero-weight"`` (see the module docstring).
        num_negatives: ``None`` for the exact mean over all negatives; an int k to
            estimate it from k nodes sampled per call, shared by every row.
        block_size: Rows per block of the exact row sums.
        keep_bytes: Keep e for the backward pass when it takes at most this many bytes.
    """

    def __init__(
        self,
        weights: sp.csr_array,
        *,
        tau: float = 0.7,
        negatives: Literal["non-neighbours", "zero-weight"] = "non-neighbours",
        num_negatives: int | None = None,
        block_size: int = 2048,
        keep_bytes: int = 1 << 29,
    ) -> None:
        if negatives not in NEGATIVES:
            raise ConfigError(f"unknown negatives {negatives!r}; choose one of {', '.join(NEGATIVES)}")
        n = weights.shape[0]
        coo = weights.tocoo()
        row, col, w = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data.astype(np.float32)
        if negatives == "zero-weight":
            # W_ij = 0 entries are negatives: only the strictly positive ones leave the negative set
            excluded = w > 0
            n_negative = n - np.bincount(row[excluded], minlength=n)
            self_excluded = False
        else:
            excluded = row != col
            n_negative = n - 1 - np.bincount(row[excluded], minlength=n)
            self_excluded = True
        self.n = n
        self.tau = float(tau)
        self.num_negatives = num_negatives
        self.block_size = int(block_size)
        self.keep = n * n * 4 <= keep_bytes
        self.self_excluded = self_excluded
        self.row = torch.from_numpy(row)
        self.col = torch.from_numpy(col)
        self.w = torch.from_numpy(w)
        self.excluded = torch.from_numpy(excluded.astype(np.float32))
        self.has_positive = torch.from_numpy(np.bincount(row, minlength=n) > 0)
        self.n_negative = torch.from_numpy(np.maximum(n_negative, 1).astype(np.float32))
        self.n_nodes_in_loss = int(self.has_positive.sum())

    def _mean_negative(
        self, zn: torch.Tensor, edge: torch.Tensor, generator: torch.Generator | None
    ) -> torch.Tensor:
        n = zn.shape[0]
        if self.num_negatives is not None:
            sample = torch.randperm(n, generator=generator)[: self.num_negatives]
            return torch.exp(zn @ zn[sample].T / self.tau).mean(dim=1)
        block = zn.shape[0] if self.keep else self.block_size
        total = _ExpRowSums.apply(zn, self.tau, block, self.keep)
        excluded = torch.zeros(n, dtype=zn.dtype).index_add(0, self.row, edge * self.excluded)
        if self.self_excluded:
            excluded = excluded + torch.exp((zn * zn).sum(dim=1) / self.tau)
        return (total - excluded).clamp_min(0.0) / self.n_negative

    def __call__(self, z: torch.Tensor, *, generator: torch.Generator | None = None) -> torch.Tensor:
        """L for embeddings ``z`` (N × d)."""
        zn = functional.normalize(z, dim=1)
        edge = _EdgeExp.apply(zn, self.row, self.col, self.tau)
        positive = torch.zeros(self.n, dtype=zn.dtype).index_add(0, self.row, self.w * edge)
        negative = self._mean_negative(zn, edge, generator)
        keep = self.has_positive
        p, q = positive[keep], negative[keep]
        return -(torch.log(p) - torch.log(p + q)).mean()

    @staticmethod
    def floor(tau: float) -> float:
        """A lower bound of L: −log(e^{1/τ} / (e^{1/τ} + e^{−1/τ}))."""
        return math.log1p(math.exp(-2.0 / tau))

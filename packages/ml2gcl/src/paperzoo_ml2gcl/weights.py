"""Closed-form positive weights: each node reconstructed from its graph neighbours.

For node i with neighbours N(i) (d_i of them) and (binarised) features x:

* ``"ridge"`` (the official code): w_i = (G + εI)⁻¹ b with G = X_N X_Nᵀ and
  b = X_N x_i, the minimiser of ‖x_i − Σ_j w_ij x_j‖² + ε‖w_i‖².
* ``"lle"`` (classic locally linear embedding): w_i = C⁻¹1 / 1ᵀC⁻¹1 with
  C = (X_N − x_i)(X_N − x_i)ᵀ + εI, the minimiser under Σ_j w_ij = 1.

Both are then clipped at zero and normalised to sum to one; a node whose clipped
weights are all zero gets the uniform 1/d_i. Nodes are solved in batches of equal
degree (one batched solve per degree and chunk), never in a Python loop per node.

G + εI and C + εI are symmetric positive definite, so the solves use Cholesky
(:func:`torch.linalg.cholesky_ex` + :func:`torch.cholesky_solve`), not LU
(``torch.linalg.solve``): with torch 2.13 + MKL 2024.2, a batched LU of matrices
of ~180 × 180 or larger never returns once ``torch.set_num_threads(n ≥ 2)`` has
been called ("oneMKL ERROR: Parameter 6 was incorrect on entry to DLASWP"), which
hung Amazon Photo (degrees up to 1,434). A matrix whose Cholesky fails (rounding
in float32 can make it numerically indefinite) is solved by numpy in float64.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp
import torch

from paperzoo.errors import ConfigError

__all__ = ["WEIGHT_METHODS", "neighbour_weights", "positive_weights", "solve_weights", "spd_solve"]

WEIGHT_METHODS = ("ridge", "lle")
_CHUNK_ELEMENTS = 1 << 25  # neighbour features gathered at once: 32M floats (128 MiB)


def solve_weights(
    neighbours: torch.Tensor, target: torch.Tensor, *, epsilon: float, method: str = "ridge"
) -> torch.Tensor:
    """Raw (unclipped) weights for a batch of B nodes with d neighbours each.

    Args:
        neighbours: ``(B, d, F)`` features of each node's neighbours.
        target: ``(B, F)`` features of the nodes.
        epsilon: The ridge ε added to the diagonal.
        method: ``"ridge"`` or ``"lle"`` (see the module docstring).

    Returns:
        ``(B, d)`` weights.
    """
    eye = torch.eye(neighbours.shape[1], dtype=neighbours.dtype)
    if method == "ridge":
        gram = neighbours @ neighbours.transpose(1, 2)
        rhs = (neighbours @ target.unsqueeze(-1)).squeeze(-1)
        return spd_solve(gram + epsilon * eye, rhs)
    diff = neighbours - target.unsqueeze(1)
    cov = diff @ diff.transpose(1, 2)
    w = spd_solve(cov + epsilon * eye, torch.ones(neighbours.shape[:2], dtype=neighbours.dtype))
    return w / w.sum(dim=1, keepdim=True)


def spd_solve(matrices: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """x with ``matrices @ x = rhs`` for a batch of symmetric positive definite matrices.

    Cholesky, never LU (see the module docstring: batched LU hangs under MKL with
    several torch threads). Matrices that Cholesky finds not positive definite
    (float32 rounding) are solved by numpy (OpenBLAS LU, unaffected) in float64.

    Args:
        matrices: ``(B, d, d)`` SPD matrices.
        rhs: ``(B, d)`` right-hand sides.

    Returns:
        ``(B, d)`` solutions, in the dtype of ``matrices``.
    """
    factor, info = torch.linalg.cholesky_ex(matrices)
    x = torch.cholesky_solve(rhs.unsqueeze(-1), factor).squeeze(-1)
    failed = torch.nonzero(info).flatten()
    if failed.numel():
        a = matrices[failed].double().numpy()
        b = rhs[failed].double().numpy()[..., None]
        x[failed] = torch.from_numpy(np.linalg.solve(a, b)[..., 0]).to(x.dtype)
    return x


def positive_weights(raw: torch.Tensor) -> torch.Tensor:
    """ReLU, then normalise each row to sum 1; an all-zero row becomes uniform."""
    w = raw.clamp_min(0.0)
    total = w.sum(dim=1, keepdim=True)
    uniform = torch.full_like(w, 1.0 / w.shape[1])
    return torch.where(total > 0, w / total.clamp_min(torch.finfo(w.dtype).tiny), uniform)


def neighbour_weights(
    x: np.ndarray,
    edge_index: np.ndarray,
    *,
    epsilon: float = 0.01,
    method: Literal["ridge", "lle"] = "ridge",
    dtype: torch.dtype = torch.float64,
) -> sp.csr_array:
    """The ``(N, N)`` positive-weight matrix W, with W_ij > 0 only for edges (i, j).

    Args:
        x: ``(N, F)`` node features (binarise them first to follow the paper).
        edge_index: ``(2, E)`` edges sorted by source, without duplicates
            (a :class:`paperzoo_graph.Graph`'s ``edge_index``).
        epsilon: Ridge ε (paper default 0.01).
        method: ``"ridge"`` (official code) or ``"lle"``.
        dtype: Precision of the solves (float64 by default: G is often singular
            up to ε, e.g. for neighbours with identical features).

    Returns:
        W as a CSR array whose sparsity pattern is exactly ``edge_index``
        (explicit zeros kept where the ReLU clipped a weight).
    """
    if method not in WEIGHT_METHODS:
        raise ConfigError(f"unknown weight method {method!r}; choose one of {', '.join(WEIGHT_METHODS)}")
    if not epsilon > 0:
        raise ConfigError(f"epsilon must be > 0 (it makes G + εI invertible), got {epsilon}")
    n = x.shape[0]
    src, dst = np.asarray(edge_index[0]), np.asarray(edge_index[1])
    if src.size and np.any(np.diff(src) < 0):
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    degree = np.diff(indptr)
    values = np.zeros(src.size, dtype=np.float32)
    feats = torch.from_numpy(np.ascontiguousarray(x)).to(dtype)
    for d in np.unique(degree[degree > 0]):
        nodes = np.flatnonzero(degree == d)
        per_chunk = max(1, _CHUNK_ELEMENTS // int(d * max(x.shape[1], 1)))
        for start in range(0, nodes.size, per_chunk):
            batch = nodes[start : start + per_chunk]
            slots = indptr[batch][:, None] + np.arange(d)  # (B, d) positions in the edge list
            w = solve_weights(
                feats[torch.from_numpy(dst[slots])],
                feats[torch.from_numpy(batch)],
                epsilon=epsilon,
                method=method,
            )
            values[slots] = positive_weights(w).numpy()
    return sp.csr_array((values, dst, indptr), shape=(n, n))

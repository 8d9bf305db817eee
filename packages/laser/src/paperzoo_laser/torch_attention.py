"""LASER attention for PyTorch: the twin of :mod:`paperzoo_laser.attention` (same semantics).

A drop-in for :func:`torch.nn.functional.scaled_dot_product_attention` in models
that call it with ``is_causal`` or without a mask: layout ``(batch, heads, length, dim)``,

    O = m + log(softmax(QKᵀ · scale) · exp(V − m)),   m = stop_gradient(max of V over visible keys),

with the per-query prefix max under ``is_causal`` (``shift="prefix"``, the default) or
the paper's max over the sequence (``shift="global"``); exp/log in float32 for
half-precision inputs. Requires the ``torch`` extra.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

from paperzoo.errors import ConfigError

__all__ = ["laser_attention", "softmax_attention"]


def _probabilities(
    q: Tensor, k: Tensor, is_causal: bool, key_lengths: Tensor | None, scale: float | None
) -> Tensor:
    dtype = torch.promote_types(q.dtype, torch.float32)
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = (q.to(dtype) @ k.to(dtype).transpose(-1, -2)) * scale  # (b, h, q, k)
    visible = torch.ones(s.shape[-2:], dtype=torch.bool, device=s.device)
    if is_causal:
        visible = visible.tril()
    if key_lengths is not None:
        keys = torch.arange(k.shape[-2], device=s.device)
        visible = visible & (keys < key_lengths.to(s.device)[:, None])[:, None, None, :]
    s = s.masked_fill(~visible, float("-inf"))
    row_max = s.amax(-1, keepdim=True).detach()
    e = torch.exp(s - torch.where(torch.isfinite(row_max), row_max, 0.0)).masked_fill(~visible, 0.0)
    return e / e.sum(-1, keepdim=True).clamp_min(torch.finfo(torch.float32).tiny)


def _check(
    q: Tensor, k: Tensor, v: Tensor, attn_mask: Tensor | None, dropout_p: float, is_causal: bool
) -> None:
    if attn_mask is not None:
        raise ConfigError(
            "laser_attention takes no attn_mask",
            hint="pass is_causal=True and/or key_lengths=(batch,) instead",
        )
    if dropout_p:
        raise ConfigError(f"laser_attention has no attention dropout, got dropout_p={dropout_p}")
    if q.ndim != 4 or k.shape != v.shape or q.shape[:2] != k.shape[:2] or q.shape[-1] != k.shape[-1]:
        raise ConfigError(
            f"expected q, k, v of shape (batch, heads, length, dim), got {tuple(q.shape)}, {tuple(k.shape)}, "
            f"{tuple(v.shape)}"
        )
    if is_causal and q.shape[-2] != k.shape[-2]:
        raise ConfigError(f"is_causal needs as many queries as keys, got {q.shape[-2]} and {k.shape[-2]}")


def softmax_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    *,
    key_lengths: Tensor | None = None,
) -> Tensor:
    """O = softmax(QKᵀ · scale) V with the same masking as :func:`laser_attention`."""
    _check(query, key, value, attn_mask, dropout_p, is_causal)
    a = _probabilities(query, key, is_causal, key_lengths, scale)
    return (a @ value.to(a.dtype)).to(value.dtype)


def laser_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    *,
    key_lengths: Tensor | None = None,
    shift: Literal["prefix", "global"] = "prefix",
    block_size: int = 16,
) -> Tensor:
    """O = log(softmax(QKᵀ · scale) exp(V)), stably; the arguments of ``scaled_dot_product_attention``.

    ``key_lengths`` (batch,) marks keys at or past it as padding; ``shift`` and
    ``block_size`` are as in the JAX :func:`paperzoo_laser.attention.laser_attention`.
    A query that sees no key returns 0.
    """
    _check(query, key, value, attn_mask, dropout_p, is_causal)
    if shift not in ("prefix", "global") or block_size < 1:
        raise ConfigError(
            f"need shift in ('prefix', 'global') and block_size ≥ 1, got {shift!r}, {block_size}"
        )
    a = _probabilities(query, key, is_causal, key_lengths, scale)
    v = value.to(a.dtype)
    valid = torch.ones(v.shape[0], v.shape[-2], dtype=torch.bool, device=v.device)
    if key_lengths is not None:
        valid = torch.arange(v.shape[-2], device=v.device) < key_lengths.to(v.device)[:, None]
    valid = valid[:, None, :, None]  # (b, 1, keys, 1)
    masked = v.masked_fill(~valid, float("-inf"))
    if is_causal and shift == "prefix":
        log_sum, m = _causal_log_sum(a, masked, block_size)
    else:
        m = masked.amax(-2, keepdim=True).detach()
        m = torch.where(torch.isfinite(m), m, 0.0)
        e = torch.exp((v - m).masked_fill(~valid, 0.0)).masked_fill(~valid, 0.0)
        log_sum = torch.log((a @ e).clamp_min(_tiny()))
    out = torch.where(a.sum(-1, keepdim=True) > 0, log_sum + m, 0.0)
    return out.to(value.dtype)


def _tiny() -> float:
    return torch.finfo(torch.float32).tiny


def _causal_log_sum(a: Tensor, masked: Tensor, block: int) -> tuple[Tensor, Tensor]:
    """log Σ_{j≤i} a_ij exp(v_j − m_i) and the prefix max m_i, blockwise (see the JAX twin)."""
    b, h, t, d = masked.shape
    pad = -t % block
    n, c = (t + pad) // block, block
    vm = torch.nn.functional.pad(masked, (0, 0, 0, pad), value=float("-inf"))
    a = torch.nn.functional.pad(a, (0, pad, 0, pad))
    chunks = vm.reshape(b, h, n, c, d)
    m_lo = chunks.amax(3).cummax(2).values
    m_lo = torch.cat([torch.full_like(m_lo[:, :, :1], float("-inf")), m_lo[:, :, :-1]], dim=2)
    m = torch.maximum(m_lo[:, :, :, None], chunks.cummax(3).values).detach()
    m_lo = m_lo.detach()
    m_lo = torch.where(torch.isfinite(m_lo), m_lo, 0.0)
    m = torch.where(torch.isfinite(m), m, 0.0)
    finite = torch.isfinite(vm)
    values = torch.where(finite, vm, 0.0)
    keys = torch.arange(n * c, device=a.device)
    earlier = (keys[None, :] < (torch.arange(n, device=a.device) * c)[:, None])[None, None, :, :, None]
    hidden = ~(earlier & finite[:, :, None])
    e_off = torch.exp((values[:, :, None] - m_lo[:, :, :, None]).masked_fill(hidden, 0.0)).masked_fill(
        hidden, 0.0
    )
    a_rows = a.reshape(b, h, n, c, n * c)
    s_off = a_rows @ e_off  # (b, h, n, c, d)
    a_diag = (
        a_rows.reshape(b, h, n, c, n, c).diagonal(dim1=2, dim2=4).permute(0, 1, 4, 2, 3)
    )  # (b, h, n, q, k)
    seen = torch.ones(c, c, dtype=torch.bool, device=a.device).tril()[:, :, None] & finite.reshape(
        b, h, n, 1, c, d
    )
    e_diag = torch.exp((values.reshape(b, h, n, 1, c, d) - m[:, :, :, :, None]).masked_fill(~seen, 0.0))
    e_diag = e_diag.masked_fill(~seen, 0.0)
    s_diag = (a_diag[..., None] * e_diag).sum(4)
    has_earlier = (torch.arange(n, device=a.device) > 0)[None, None, :, None, None]
    rescale = torch.where(has_earlier, torch.exp((m_lo[:, :, :, None] - m).clamp_max(0.0)), 0.0)
    total = s_off * rescale + s_diag
    log_sum = torch.log(total.clamp_min(_tiny())).reshape(b, h, n * c, d)[:, :, :t]
    return log_sum, m.reshape(b, h, n * c, d)[:, :, :t]

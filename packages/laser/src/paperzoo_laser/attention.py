"""LASER and softmax attention in JAX (Duvvuri & Dhillon, ICML 2025, §3).

Softmax attention: O = softmax(QKᵀ/√d) V. LASER: O = log(softmax(QKᵀ/√d) exp(V)),
computed in the stable log-weighted-sum-exp form

    O_id = m_id + log Σ_j a_ij exp(v_jd − m_id),   m = stop_gradient(max of v over the keys i sees).

Without a causal mask m is the max over the valid (non-padding) keys, per batch,
head and feature, as in the paper. With ``is_causal=True`` m is by default the per-query
prefix max m_id = max_{j ≤ i} v_jd, so an early query never sees all its
exp(v − m) underflow (a known pitfall). It is computed blockwise: queries in
chunks of ``block_size``; keys of earlier chunks use the chunk's exclusive prefix
max (one exp per key and chunk), keys of the query's own chunk use the exact
per-query max; the two sums are rescaled to the query's max. ``shift="global"``
keeps the paper's max over the sequence under the causal mask. Exponentials and
logarithms run in float32 for bf16/fp16/fp32 inputs (float64 for float64 ones);
bf16 inputs stay bf16 in the QKᵀ matmul, with float32 accumulation.

Layout follows :func:`jax.nn.dot_product_attention`: ``(batch, length, heads, dim)``.
"""

from __future__ import annotations

from functools import partial
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from paperzoo.errors import ConfigError

__all__ = [
    "KVCache",
    "attention_probabilities",
    "init_cache",
    "laser_attention",
    "laser_decode",
    "softmax_attention",
]

_TINY = float(jnp.finfo(jnp.float32).tiny)


def _compute_dtype(x: Array) -> jnp.dtype:
    """float32 for bf16/fp16/fp32 inputs, float64 for float64 ones."""
    return jnp.promote_types(x.dtype, jnp.float32)


def _check(q: Array, k: Array, v: Array, is_causal: bool) -> None:
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ConfigError(
            f"expected q, k, v of shape (batch, length, heads, dim), got {q.shape}, {k.shape}, {v.shape}",
            hint="add a heads axis of size 1 for single-head attention",
        )
    if (
        k.shape[:3] != v.shape[:3]
        or q.shape[0] != k.shape[0]
        or q.shape[2] != k.shape[2]
        or q.shape[3] != k.shape[3]
    ):
        raise ConfigError(f"incompatible shapes q {q.shape}, k {k.shape}, v {v.shape}")
    if is_causal and q.shape[1] != k.shape[1]:
        raise ConfigError(
            f"is_causal needs as many queries as keys, got {q.shape[1]} and {k.shape[1]}",
            hint="for decoding with a KV cache use laser_decode",
        )


def _key_valid(batch: int, n_keys: int, key_lengths: Array | None) -> Array:
    """(batch, 1, 1, keys) mask: True for real keys, False for padding."""
    if key_lengths is None:
        return jnp.ones((batch, 1, 1, n_keys), bool)
    return (jnp.arange(n_keys) < jnp.asarray(key_lengths)[:, None])[:, None, None, :]


@partial(jax.jit, static_argnames=("is_causal", "scale"))
def attention_probabilities(
    q: Array,
    k: Array,
    *,
    is_causal: bool = False,
    key_lengths: Array | None = None,
    scale: float | None = None,
) -> Array:
    """a = softmax(QKᵀ · scale) over visible keys, float32, shape (batch, heads, queries, keys).

    Masked entries are exactly 0; a query that sees no key gets an all-zero row.
    """
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k, preferred_element_type=_compute_dtype(q)) * scale
    visible = _key_valid(q.shape[0], k.shape[1], key_lengths)
    if is_causal:
        visible = visible & jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
    s = jnp.where(visible, s, -jnp.inf)
    row_max = jax.lax.stop_gradient(jnp.max(s, axis=-1, keepdims=True))
    e = jnp.where(visible, jnp.exp(s - jnp.where(jnp.isfinite(row_max), row_max, 0.0)), 0.0)
    return e / jnp.maximum(e.sum(-1, keepdims=True), _TINY)


@partial(jax.jit, static_argnames=("is_causal", "scale"))
def softmax_attention(
    q: Array,
    k: Array,
    v: Array,
    *,
    is_causal: bool = False,
    key_lengths: Array | None = None,
    scale: float | None = None,
) -> Array:
    """O = softmax(QKᵀ/√d) V, the baseline (same masking and layout as :func:`laser_attention`)."""
    _check(q, k, v, is_causal)
    a = attention_probabilities(q, k, is_causal=is_causal, key_lengths=key_lengths, scale=scale)
    out = jnp.einsum("bhqk,bkhd->bqhd", a, v.astype(a.dtype))
    return out.astype(v.dtype)


@partial(jax.jit, static_argnames=("is_causal", "scale", "shift", "block_size"))
def laser_attention(
    q: Array,
    k: Array,
    v: Array,
    *,
    is_causal: bool = False,
    key_lengths: Array | None = None,
    scale: float | None = None,
    shift: Literal["prefix", "global"] = "prefix",
    block_size: int = 16,
) -> Array:
    """O = log(softmax(QKᵀ/√d) exp(V)), stably: O = m + log(a · exp(V − m)), m = sg(max V).

    Args:
        q, k, v: (batch, length, heads, dim); v may be any real values.
        is_causal: Query i sees keys j ≤ i.
        key_lengths: (batch,) number of real keys; keys at or past it are padding,
            left out of the softmax and of the max.
        scale: Score scale, 1/√dim by default.
        shift: With ``is_causal``: ``"prefix"`` (default), m_i = max_{j≤i} v_j, exact for
            any values; ``"global"``, the paper's max over the whole sequence: cheaper
            (one exp per value), exact unless every key a query sees lies ~87 below
            it (float32 range), where the sum is clamped at the smallest normal
            float, so the output stays finite.
        block_size: Query chunk of the causal form (memory ∝ length · block_size · dim).

    Returns:
        (batch, queries, heads, dim) in v's dtype; 0 for a query that sees no key.
    """
    _check(q, k, v, is_causal)
    if shift not in ("prefix", "global"):
        raise ConfigError(f"shift must be 'prefix' or 'global', got {shift!r}")
    if block_size < 1:
        raise ConfigError(f"block_size must be ≥ 1, got {block_size}")
    a = attention_probabilities(q, k, is_causal=is_causal, key_lengths=key_lengths, scale=scale)
    vh = jnp.swapaxes(v, 1, 2).astype(a.dtype)  # (b, h, keys, d)
    valid = _key_valid(v.shape[0], v.shape[1], key_lengths)[:, :, 0, :, None]  # (b, 1, keys, 1)
    masked = jnp.where(valid, vh, -jnp.inf)
    if is_causal and shift == "prefix":
        log_sum, m = _causal_log_sum(a, masked, block_size)
    else:
        m = jnp.max(masked, axis=2, keepdims=True)  # (b, h, 1, d)
        m = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0.0))
        e = jnp.where(valid, jnp.exp(jnp.where(valid, vh - m, 0.0)), 0.0)
        log_sum = jnp.log(jnp.maximum(jnp.einsum("bhqk,bhkd->bhqd", a, e), _TINY))
    out = jnp.where(a.sum(-1, keepdims=True) > 0, log_sum + m, 0.0)
    return jnp.swapaxes(out, 1, 2).astype(v.dtype)


def _causal_log_sum(a: Array, masked: Array, block: int) -> tuple[Array, Array]:
    """log Σ_{j≤i} a_ij exp(v_j − m_i) and m_i = max_{j≤i} v_j (prefix max), blockwise.

    ``a``: (b, h, t, t) causal probabilities; ``masked``: (b, h, t, d) values with
    padding at −inf. Returns two (b, h, t, d) arrays.
    """
    b, h, t, d = masked.shape
    pad = -t % block
    n, c = (t + pad) // block, block
    vm = jnp.pad(masked, ((0, 0), (0, 0), (0, pad), (0, 0)), constant_values=-jnp.inf)
    a = jnp.pad(a, ((0, 0), (0, 0), (0, pad), (0, pad)))
    chunks = vm.reshape(b, h, n, c, d)
    # m_lo[c]: max over keys of chunks < c; m[c, i]: max(m_lo[c], in-chunk prefix max at i)
    m_lo = jax.lax.cummax(chunks.max(3), axis=2)
    m_lo = jnp.concatenate([jnp.full_like(m_lo[:, :, :1], -jnp.inf), m_lo[:, :, :-1]], axis=2)
    m = jnp.maximum(m_lo[:, :, :, None], jax.lax.cummax(chunks, axis=3))  # (b, h, n, c, d)
    m_lo = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m_lo), m_lo, 0.0))
    m = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0.0))
    values = jnp.where(jnp.isfinite(vm), vm, 0.0)
    # keys of earlier chunks, shifted by the chunk's exclusive prefix max: (b, h, n, keys, d)
    earlier = (jnp.arange(n * c)[None, :] < (jnp.arange(n) * c)[:, None])[None, None, :, :, None]
    off = earlier & jnp.isfinite(vm)[:, :, None]
    e_off = jnp.where(off, jnp.exp(jnp.where(off, values[:, :, None] - m_lo[:, :, :, None], 0.0)), 0.0)
    a_rows = a.reshape(b, h, n, c, n * c)
    s_off = jnp.einsum("bhnqk,bhnkd->bhnqd", a_rows, e_off)
    # keys of the query's own chunk, shifted by the query's own max: (b, h, n, c, c, d)
    a_diag = jnp.einsum("bhnqnk->bhnqk", a_rows.reshape(b, h, n, c, n, c))
    v_chunk = values.reshape(b, h, n, c, d)
    seen = jnp.tril(jnp.ones((c, c), bool))[:, :, None] & jnp.isfinite(chunks)[:, :, :, None]
    e_diag = jnp.where(seen, jnp.exp(jnp.where(seen, v_chunk[:, :, :, None] - m[:, :, :, :, None], 0.0)), 0.0)
    s_diag = jnp.einsum("bhnqk,bhnqkd->bhnqd", a_diag, e_diag)
    has_earlier = (jnp.arange(n) > 0)[None, None, :, None, None]
    rescale = jnp.where(has_earlier, jnp.exp(jnp.minimum(m_lo[:, :, :, None] - m, 0.0)), 0.0)
    total = s_off * rescale + s_diag
    log_sum = jnp.log(jnp.maximum(total, _TINY)).reshape(b, h, n * c, d)[:, :, :t]
    return log_sum, m.reshape(b, h, n * c, d)[:, :, :t]


class KVCache(NamedTuple):
    """Keys and values seen so far, and LASER's running max of the values.

    Attributes:
        k, v: (batch, max_length, heads, dim) buffers, filled up to ``length``.
        v_max: (batch, heads, dim) running max m_t = max(m_{t−1}, v_t).
        length: Number of cached positions (a scalar int32 array).
    """

    k: Array
    v: Array
    v_max: Array
    length: Array


def init_cache(batch: int, max_length: int, heads: int, dim: int, dtype: jnp.dtype = jnp.float32) -> KVCache:
    """An empty :class:`KVCache` (running max at −inf)."""
    zeros = jnp.zeros((batch, max_length, heads, dim), dtype)
    v_max = jnp.full((batch, heads, dim), -jnp.inf, jnp.promote_types(dtype, jnp.float32))
    return KVCache(zeros, zeros, v_max, jnp.zeros((), jnp.int32))


@partial(jax.jit, static_argnames=("scale",))
def laser_decode(
    q: Array, k: Array, v: Array, cache: KVCache, *, scale: float | None = None
) -> tuple[Array, KVCache]:
    """One decoding step of causal LASER with a KV cache.

    Appends ``k``, ``v`` (batch, 1, heads, dim) to the cache, updates the running max
    m_t = max(m_{t−1}, v_t) and returns O_t = m_t + log Σ_{j≤t} a_tj exp(v_j − m_t),
    which equals row t of ``laser_attention(..., is_causal=True)``.
    """
    if q.shape[1] != 1 or k.shape[1] != 1 or v.shape[1] != 1:
        raise ConfigError(
            f"laser_decode takes one position at a time, got lengths {q.shape[1]}, {k.shape[1]}, {v.shape[1]}",
            hint="run the prompt through laser_attention(is_causal=True) or feed it step by step",
        )
    t = cache.length
    keys = jax.lax.dynamic_update_slice_in_dim(cache.k, k.astype(cache.k.dtype), t, axis=1)
    values = jax.lax.dynamic_update_slice_in_dim(cache.v, v.astype(cache.v.dtype), t, axis=1)
    v_max = jax.lax.stop_gradient(jnp.maximum(cache.v_max, v[:, 0].astype(cache.v_max.dtype)))
    lengths = jnp.full((q.shape[0],), t + 1)
    a = attention_probabilities(q, keys, key_lengths=lengths, scale=scale)[:, :, 0]  # (b, h, keys)
    seen = (jnp.arange(keys.shape[1]) <= t)[None, :, None, None]
    e = jnp.where(seen, jnp.exp(jnp.where(seen, values.astype(v_max.dtype) - v_max[:, None], 0.0)), 0.0)
    out = jnp.log(jnp.maximum(jnp.einsum("bhk,bkhd->bhd", a, e), _TINY)) + v_max
    return out[:, None].astype(v.dtype), KVCache(keys, values, v_max, t + 1)

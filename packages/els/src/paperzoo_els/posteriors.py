"""Memory-bounded patch posteriors: softmax-weighted averages streamed over training chunks.

Each machine's denoiser is E[φ | x_t] = Σ_k softmax_k(ℓ_k) v_k over a dictionary of
training entries k (whole images, same-location patches or all patches), with logits

ℓ_k = −‖x_Ω − √ᾱ φ_Ω^k‖² / (2(1 − ᾱ)) ≡ (√ᾱ x_Ω·φ_Ω^k − ᾱ‖φ_Ω^k‖²/2) / (1 − ᾱ)

(the ‖x_Ω‖² term is constant per query and drops out of the softmax). The cross term is
a matmul; the dictionary is streamed in chunks of training images with a running-max
log-sum-exp (``jax.lax.scan``), so memory is O(queries × chunk) whatever the training set.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from paperzoo_els.patches import class_groups, dictionary_patches, query_patches

__all__ = ["chunked_images", "els_posterior", "is_posterior", "ls_posterior"]

Chunk = tuple[jax.Array, jax.Array]  # (logits (R, K), values (K, V), or (G, K, V) shared by R/G rows each)


def chunked_images(images: np.ndarray, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Pad (N, H, W, C) to whole chunks: → images (n_chunks, chunk, H, W, C), valid (n_chunks, chunk)."""
    n = images.shape[0]
    chunk = max(1, min(chunk, n))
    n_chunks = -(-n // chunk)
    pad = n_chunks * chunk - n
    padded = np.concatenate([images, np.zeros((pad, *images.shape[1:]), images.dtype)])
    valid = np.arange(n_chunks * chunk) < n
    return padded.reshape(n_chunks, chunk, *images.shape[1:]), valid.reshape(n_chunks, chunk)


def _stream(chunk_fn: Callable[[jax.Array, jax.Array], Chunk], chunks: jax.Array, valid: jax.Array,
            rows: int, width: int) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    """Σ_k softmax(ℓ)_k v_k over all chunks, and the argmax entry (chunk-major flat index) per row."""

    def step(carry, inputs):
        m, s, acc, best, best_id, offset = carry
        images, ok = inputs
        logits, values = chunk_fn(images, ok)
        top = logits.max(axis=1)
        m_new = jnp.maximum(m, top)
        safe = jnp.where(jnp.isfinite(m_new), m_new, 0.0)
        scale = jnp.exp(m - safe)
        p = jnp.exp(logits - safe[:, None])
        if values.ndim == 2:
            contracted = p @ values
        else:  # row r = g·M + m uses the values of group g
            groups = values.shape[0]
            contracted = jnp.einsum("gmk,gkv->gmv", p.reshape(groups, -1, p.shape[1]), values).reshape(
                rows, -1
            )
        arg = logits.argmax(axis=1)
        better = top > best
        carry = (
            m_new,
            s * scale + p.sum(axis=1),
            acc * scale[:, None] + contracted,
            jnp.where(better, top, best),
            jnp.where(better, arg + offset, best_id),
            offset + logits.shape[1],
        )
        return carry, None

    init = (
        jnp.full(rows, -jnp.inf),
        jnp.zeros(rows),
        jnp.zeros((rows, width)),
        jnp.full(rows, -jnp.inf),
        jnp.zeros(rows, jnp.int32),
        jnp.int32(0),
    )
    (_, s, acc, _, best_id, _), _ = jax.lax.scan(step, init, (chunks, valid))
    return acc / s[:, None], best_id


def _logits(cross: jax.Array, norms: jax.Array, abar: jax.Array) -> jax.Array:
    """ℓ = (√ᾱ x·φ − ᾱ‖φ‖²/2) / (1 − ᾱ)."""
    return (jnp.sqrt(abar) * cross - 0.5 * abar * norms) / (1.0 - abar)


@jax.jit
def is_posterior(
    x: jax.Array, abar: jax.Array, chunks: jax.Array, valid: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Ideal score machine: E[φ | x_t] over whole training images. x: (B, H, W, C)."""
    shape = x.shape[1:]

    def one(xi):
        q = xi.reshape(1, -1)

        def chunk_fn(images, ok):
            flat = images.reshape(images.shape[0], -1)
            logits = _logits(q @ flat.T, (flat**2).sum(1), abar)
            return jnp.where(ok[None, :], logits, -jnp.inf), flat

        mean, best = _stream(chunk_fn, chunks, valid, 1, int(np.prod(shape)))
        return mean.reshape(shape), best[0]

    return jax.vmap(one)(x)


def _box_sum(d2: jax.Array, size: int, padding: str) -> jax.Array:
    """Σ over the P × P window around each pixel of (K, H, W), padded like the network."""
    r = size // 2
    if padding == "circular":
        d2 = jnp.pad(d2, ((0, 0), (r, r), (r, r)), mode="wrap")
        pads = ((0, 0), (0, 0), (0, 0))
    else:
        pads = ((0, 0), (r, r), (r, r))
    return jax.lax.reduce_window(d2, 0.0, jax.lax.add, (1, size, size), (1, 1, 1), pads)


@partial(jax.jit, static_argnames=("size", "padding"))
def ls_posterior(x: jax.Array, abar: jax.Array, chunks: jax.Array, valid: jax.Array, *, size: int,
                 padding: str) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    """Local score machine: per pixel p, a posterior over training patches at the same p.

    ℓ_μ(p) = −‖x_Ω_p − √ᾱ φ^μ_Ω_p‖² / (2(1 − ᾱ)), output Σ_μ softmax_μ φ^μ(p).
    """
    h, w, c = x.shape[1:]

    def one(xi):
        def chunk_fn(images, ok):
            d2 = ((xi[None] - jnp.sqrt(abar) * images) ** 2).sum(-1)
            logits = -_box_sum(d2, size, padding) / (2.0 * (1.0 - abar))
            logits = jnp.where(ok[:, None, None], logits, -jnp.inf).reshape(images.shape[0], -1).T
            return logits, jnp.moveaxis(images.reshape(images.shape[0], -1, c), 0, 1)

        mean, best = _stream(chunk_fn, chunks, valid, h * w, c)
        return mean.reshape(h, w, c), best.reshape(h, w)

    return jax.vmap(one)(x)


@partial(jax.jit, static_argnames=("size", "padding"))
def els_posterior(x: jax.Array, abar: jax.Array, chunks: jax.Array, valid: jax.Array, *, size: int,
                  padding: str) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    """Equivariant local score machine: per pixel p, a posterior over all training patches.

    ℓ_{μ,q}(p) = −‖x_Ω_p − √ᾱ φ^μ_Ω_q‖² / (2(1 − ᾱ)), output Σ_{μ,q} softmax φ^μ(q); with zero
    padding only dictionary patches of p's boundary class match. Returns the mean and the
    best-matching entry per pixel as a flat index μ · L + q (L dictionary patches per image).
    """
    c = x.shape[-1]
    queries = query_patches(x, size, padding)
    if padding == "circular":
        return jax.vmap(lambda q: _els_dense(q, abar, chunks, valid, size, c))(queries)
    return jax.vmap(lambda q: _els_by_class(q, abar, chunks, valid, size, c))(queries)


def _els_dense(q: jax.Array, abar: jax.Array, chunks: jax.Array, valid: jax.Array, size: int,
               c: int) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    """Circular ELS of one image: every query patch against every dictionary patch."""
    h, w = chunks.shape[2:4]

    def chunk_fn(images, ok):
        patches, centres = dictionary_patches(images, size, "circular")
        n, per = patches.shape[:2]
        flat = patches.reshape(n * per, -1)
        logits = _logits(q @ flat.T, (flat**2).sum(1), abar)
        return jnp.where(jnp.repeat(ok, per)[None, :], logits, -jnp.inf), centres.reshape(n * per, c)

    mean, best = _stream(chunk_fn, chunks, valid, h * w, c)
    return mean.reshape(h, w, c), best.reshape(h, w)


def _els_by_class(q: jax.Array, abar: jax.Array, chunks: jax.Array, valid: jax.Array, size: int,
                  c: int) -> tuple[jax.Array, jax.Array]:  # fmt: skip
    """Zero-padding ELS of one image, one dense posterior per group of boundary classes
    (:func:`~paperzoo_els.patches.class_groups`): no work on pairs of different classes.
    The best entry is returned as μ · H·W + (flat position of the source pixel)."""
    h, w = chunks.shape[2:4]
    mean = jnp.zeros((h * w, c))
    best = jnp.zeros(h * w, jnp.int32)
    for idx in class_groups(h, w, size):  # ≤ 4 static groups
        groups, members = idx.shape

        def chunk_fn(images, ok, idx=idx):
            groups, members = idx.shape
            patches, centres = dictionary_patches(images, size, "zeros")
            dic, val = patches[:, idx], centres[:, idx]  # (n, G, M, D), (n, G, M, C)
            n = dic.shape[0]
            cross = jnp.einsum("gmd,ngkd->gmnk", q[idx], dic)
            norms = jnp.moveaxis((dic**2).sum(-1), 0, 1)[:, None]  # (G, 1, n, M)
            logits = _logits(cross, norms, abar).reshape(groups * members, n * members)
            logits = jnp.where(jnp.repeat(ok, members)[None, :], logits, -jnp.inf)
            return logits, jnp.moveaxis(val, 0, 1).reshape(groups, n * members, c)

        m, b = _stream(chunk_fn, chunks, valid, groups * members, c)
        image, member = jnp.divmod(b.reshape(groups, members), members)
        source = jnp.take_along_axis(jnp.asarray(idx), member, axis=1)
        mean = mean.at[idx.ravel()].set(m)
        best = best.at[idx.ravel()].set((image * (h * w) + source).ravel())
    return mean.reshape(h, w, c), best.reshape(h, w)

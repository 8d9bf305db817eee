"""Patches Ω_p of images and the boundary classes of zero padding (JAX, traced code).

Images are (H, W, C) arrays; a patch is the P × P × C window centred on a pixel,
flattened to P²C numbers in one fixed order shared by queries and dictionary.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["boundary_classes", "class_groups", "dictionary_patches", "query_patches"]

PADDINGS = ("zeros", "circular")


def _windows(images: jax.Array, size: int) -> jax.Array:
    """All VALID P × P windows of (N, H', W', C) images → (N, H'−P+1, W'−P+1, P²C)."""
    nchw = jnp.moveaxis(images, -1, 1)
    out = jax.lax.conv_general_dilated_patches(nchw, (size, size), (1, 1), "VALID")
    return jnp.moveaxis(out, 1, -1)


def query_patches(images: jax.Array, size: int, padding: str) -> jax.Array:
    """Ω_p for every pixel p, padded like the network: (N, H, W, C) → (N, H·W, P²C).

    ``"circular"`` wraps around the image, ``"zeros"`` pads with 0.
    """
    d = size // 2
    mode = "wrap" if padding == "circular" else "constant"
    padded = jnp.pad(images, ((0, 0), (d, d), (d, d), (0, 0)), mode=mode)
    out = _windows(padded, size)
    return out.reshape(out.shape[0], -1, out.shape[-1])


def dictionary_patches(images: jax.Array, size: int, padding: str) -> tuple[jax.Array, jax.Array]:
    """The ELS dictionary of a chunk of training images and each patch's centre pixel φ^μ(q).

    ``"circular"``: every patch fully inside the image, (H−P+1)(W−P+1) per image (training
    patches never wrap). ``"zeros"``: a patch at every pixel of the zero-padded image
    (matched only within its boundary class, see :func:`boundary_classes`).

    Returns:
        (patches (N, L, P²C), centres (N, L, C)).
    """
    n, h, w, c = images.shape
    d = size // 2
    if padding == "circular":
        patches = _windows(images, size)
        centres = images[:, d : h - d, d : w - d, :]
    else:
        patches = query_patches(images, size, "zeros")
        centres = images
    return patches.reshape(n, -1, patches.shape[-1]), centres.reshape(n, -1, c)


def boundary_classes(height: int, width: int, size: int) -> np.ndarray:
    """Boundary class of each pixel under zero padding, as integer ids (H·W,).

    c(i, j) = (min(i, d), min(H−1−i, d), min(j, d), min(W−1−j, d)), d = P // 2: interior
    pixels share one class, a border pixel shares it with pixels at the same border
    distances (a corner pixel only with itself when P is large).
    """
    d = size // 2
    i = np.arange(height)[:, None]
    j = np.arange(width)[None, :]
    parts = (np.minimum(i, d), np.minimum(height - 1 - i, d), np.minimum(j, d), np.minimum(width - 1 - j, d))
    parts = [np.broadcast_to(p, (height, width)) for p in parts]
    ids = ((parts[0] * (d + 1) + parts[1]) * (d + 1) + parts[2]) * (d + 1) + parts[3]
    return ids.reshape(-1).astype(np.int32)


def class_groups(height: int, width: int, size: int) -> list[np.ndarray]:
    """The boundary classes of zero padding, grouped by member count: a list of (G, M) arrays
    of flat pixel indices, G classes of M members each (members of a class match each other).

    Row classes are the d top and d bottom rows (one member each) and the H − 2d interior
    rows, likewise for columns; a class is a (row class, column class) pair, so there are
    at most four groups: interior × interior, border rows × interior columns, interior rows ×
    border columns and the (2d)² border × border pixels that only match their own location.
    """
    d = size // 2

    def axis(n: int) -> list[np.ndarray]:
        border = np.r_[0:d, n - d : n]
        return [np.arange(d, n - d)[None, :], border[:, None]] if border.size else [np.arange(n)[None, :]]

    groups = []
    for rows in axis(height):
        for cols in axis(width):
            flat = rows[:, None, :, None] * width + cols[None, :, None, :]  # (Gr, Gc, Mr, Mc)
            groups.append(flat.reshape(rows.shape[0] * cols.shape[0], -1).astype(np.int32))
    return groups

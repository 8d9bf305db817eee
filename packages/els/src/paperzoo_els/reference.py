"""A straightforward numpy ELS denoiser: explicit patches, one full distance matrix, plain softmax.

The baseline of the benchmark and an independent check of the JAX kernels in the tests;
memory is O(H·W × N·L) floats (no chunking, no jit), so use it on small problems only.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from paperzoo_els.patches import boundary_classes

__all__ = ["els_denoise_numpy"]


def els_denoise_numpy(x: np.ndarray, abar: float, images: np.ndarray, size: int, padding: str) -> np.ndarray:
    """E[φ | x_t] of the ELS machine for one image x (H, W, C) against images (N, H, W, C).

    out(p) = Σ_{μ,q} softmax(−‖x_Ω_p − √ᾱ φ^μ_Ω_q‖² / 2(1 − ᾱ)) φ^μ(q), the dictionary and
    boundary classes as in :mod:`paperzoo_els.patches`.
    """
    h, w, c = x.shape
    d = size // 2
    mode = "wrap" if padding == "circular" else "constant"
    xp = np.pad(x, ((d, d), (d, d), (0, 0)), mode=mode)
    queries = sliding_window_view(xp, (size, size), axis=(0, 1)).reshape(h * w, -1)
    if padding == "circular":
        dic = sliding_window_view(images, (size, size), axis=(1, 2))
        centres = images[:, d : h - d, d : w - d, :].reshape(-1, c)
    else:
        padded = np.pad(images, ((0, 0), (d, d), (d, d), (0, 0)))
        dic = sliding_window_view(padded, (size, size), axis=(1, 2))
        centres = images.reshape(-1, c)
    dic = dic.reshape(-1, queries.shape[1])
    scaled = np.sqrt(abar) * dic
    dist = (queries**2).sum(1)[:, None] - 2.0 * queries @ scaled.T + (scaled**2).sum(1)[None, :]
    logits = -dist / (2.0 * (1.0 - abar))
    if padding == "zeros":
        classes = boundary_classes(h, w, size)
        logits = np.where(classes[:, None] == np.tile(classes, images.shape[0])[None, :], logits, -np.inf)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return (weights @ centres).reshape(h, w, c)

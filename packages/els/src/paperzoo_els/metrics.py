"""Metrics comparing machine outputs with network outputs from the same noise.

The paper's "r²" column (Table 1, its ``eval_script.py``) is the Pearson correlation r
of mean-centred flattened images; :func:`pearson_r` computes it and r² is its square.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cosine_similarity", "nearest_training_distance", "pearson_r", "provenance_diversity"]


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-sample cos(a, b) = a·b / (‖a‖ ‖b‖) of flattened (B, …) arrays."""
    a = a.reshape(a.shape[0], -1)
    b = b.reshape(b.shape[0], -1)
    return (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)


def pearson_r(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-sample r = Σ(a − ā)(b − b̄) / √(Σ(a − ā)² Σ(b − b̄)²) of flattened (B, …) images:
    the cosine of the mean-centred images (in float64)."""
    a = a.reshape(a.shape[0], -1).astype(np.float64)
    b = b.reshape(b.shape[0], -1).astype(np.float64)
    return cosine_similarity(a - a.mean(1, keepdims=True), b - b.mean(1, keepdims=True))


def nearest_training_distance(x: np.ndarray, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min_μ ‖x − φ^μ‖₂ per sample (pixels in [−1, 1]) and the argmin μ.

    ‖x − φ‖² = ‖x‖² − 2x·φ + ‖φ‖², one matmul.
    """
    a = x.reshape(x.shape[0], -1).astype(np.float64)
    b = images.reshape(images.shape[0], -1).astype(np.float64)
    d2 = (a**2).sum(1)[:, None] - 2.0 * a @ b.T + (b**2).sum(1)[None, :]
    idx = d2.argmin(axis=1)
    return np.sqrt(np.maximum(d2[np.arange(len(a)), idx], 0.0)), idx


def provenance_diversity(provenance: np.ndarray) -> np.ndarray:
    """Distinct training images (μ) whose patches make up each output, from (B, H, W, 3) maps."""
    images = provenance[..., 0].reshape(provenance.shape[0], -1)
    ordered = np.sort(images, axis=1)
    return 1 + (np.diff(ordered, axis=1) != 0).sum(axis=1)

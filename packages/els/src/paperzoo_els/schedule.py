"""The noise schedule and the deterministic (DDIM) sampler shared by machines and networks.

Forward process x_t = √ᾱ_t φ + √(1 − ᾱ_t) η with the "legacy" cosine schedule of the
official code, ᾱ_t = cos²(π t / (2 · 1.008)) (no +0.008 offset), data in [−1, 1].
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["alpha_bar", "ddim_sample", "time_grid"]

COSINE_S = 1.008


def alpha_bar(t: np.ndarray | float) -> np.ndarray:
    """ᾱ_t = cos²(π t / (2 · 1.008)): signal fraction at time t ∈ [0, 1]."""
    return np.cos(np.pi * np.asarray(t, dtype=np.float64) / (2.0 * COSINE_S)) ** 2


def time_grid(steps: int) -> np.ndarray:
    """The sampler's times t_i = i / steps, i = steps, …, 1 (index k ↔ t = (k + 1)/steps)."""
    return np.arange(steps, 0, -1) / steps


def ddim_sample(
    eps_fn: Callable[[np.ndarray, float, int], np.ndarray],
    noise: np.ndarray,
    steps: int = 20,
    *,
    trajectory: list[np.ndarray] | None = None,
) -> np.ndarray:
    """Deterministic DDIM from t = 1 to 0 in ``steps`` equal steps.

    x_{t'} = √(ᾱ_{t'}/ᾱ_t) · x_t + (√(1 − ᾱ_{t'}) − √(ᾱ_{t'}/ᾱ_t) · √(1 − ᾱ_t)) · ε̂(x_t, t),
    t' = t − 1/steps, so the last step returns the denoiser's E[φ | x_{1/steps}].

    Args:
        eps_fn: ``eps_fn(x, t, k)`` → ε̂ at time t (k: schedule index, t = (k + 1)/steps).
        noise: Initial x_1, shape (B, H, W, C).
        steps: Number of steps (20 for the machines, as the paper).
        trajectory: If given, the x_t fed to each step are appended to it.
    """
    x = np.asarray(noise, dtype=np.float32)
    for t in time_grid(steps):
        k = round(t * steps) - 1
        ab_t, ab_p = float(alpha_bar(t)), float(alpha_bar(t - 1.0 / steps))
        if trajectory is not None:
            trajectory.append(x)
        eps = np.asarray(eps_fn(x, float(t), k), dtype=np.float32)
        ratio = np.sqrt(ab_p / ab_t)
        x = (ratio * x + (np.sqrt(1.0 - ab_p) - ratio * np.sqrt(1.0 - ab_t)) * eps).astype(np.float32)
    return x

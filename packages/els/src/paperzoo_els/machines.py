"""The ideal (IS), local (LS) and equivariant local (ELS) score machines (Kamb & Ganguli, §3–4).

All three are estimators: ``fit(images)`` stores the training set {φ^μ} (N, H, W, C) in
[−1, 1]; ``denoise`` gives E[φ | x_t], ``score`` the score
s(x_t, t) = −(x_t − √ᾱ_t E[φ | x_t]) / (1 − ᾱ_t), and ``sample`` runs the same
deterministic DDIM sampler as the networks (:func:`paperzoo_els.schedule.ddim_sample`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from paperzoo import BaseEstimator, Setting, check_int, check_is_fitted
from paperzoo.errors import ConfigError
from paperzoo_els.patches import PADDINGS
from paperzoo_els.schedule import alpha_bar, ddim_sample

__all__ = ["EquivariantLocalScoreMachine", "IdealScoreMachine", "LocalScoreMachine", "check_images"]


def check_images(images: object, name: str = "images") -> np.ndarray:
    """(N, H, W, C) or (N, H, W) finite floats in [−1, 1] → float32 (N, H, W, C)."""
    arr = np.asarray(images)
    if arr.ndim == 3:
        arr = arr[..., None]
    if arr.ndim != 4 or 0 in arr.shape:
        raise ConfigError(
            f"{name} must have shape (N, H, W, C) or (N, H, W) with N ≥ 1, got {np.shape(images)}",
            hint="stack images along the first axis, channels last",
        )
    if not np.issubdtype(arr.dtype, np.number) or not np.isfinite(arr).all():
        raise ConfigError(f"{name} must be finite numbers", hint="remove NaN/inf pixels")
    if arr.min() < -1.0 - 1e-6 or arr.max() > 1.0 + 1e-6:
        raise ConfigError(
            f"{name} must lie in [−1, 1], got [{arr.min():.3g}, {arr.max():.3g}]",
            hint="rescale uint8 pixels with images / 127.5 − 1",
        )
    return arr.astype(np.float32)


def _odd(size: object) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1 or size % 2 == 0:
        raise ConfigError(f"patch sizes must be odd integers ≥ 1, got {size!r}", hint="use 3, 5, 7, …")
    return int(size)


class _ScoreMachine(BaseEstimator):
    """Shared fit / score / sample of the three machines."""

    _parameters: ClassVar[dict[str, Setting]] = {
        "padding": Setting(choices=PADDINGS),
        "chunk_size": Setting(low=1),
    }

    def __init__(self, patch_size: int | Sequence[int] = 3, padding: str = "zeros", chunk_size: int = 32):
        self.patch_size = patch_size
        self.padding = padding
        self.chunk_size = chunk_size

    def fit(self, images: object) -> _ScoreMachine:
        """Store the training set φ^μ, shape (N, H, W, C) or (N, H, W), values in [−1, 1]."""
        chunk_size = self._validate_params()["chunk_size"]
        arr = check_images(images)
        sizes = [self.patch_size] if np.ndim(self.patch_size) == 0 else list(self.patch_size)
        if not sizes:
            raise ConfigError("patch_size must be an odd integer or a non-empty list of them")
        for size in sizes:
            self._check_size(size, arr.shape[1:3])
        from paperzoo_els.posteriors import chunked_images

        self.images_ = arr
        self.n_images_ = arr.shape[0]
        self.image_shape_ = arr.shape[1:]
        self.chunks_, self.valid_ = chunked_images(arr, chunk_size)  # the streamed layout
        return self

    def _check_size(self, size: object, hw: tuple[int, ...]) -> int:
        return _odd(size)

    def _check_x(self, x: object) -> np.ndarray:
        check_is_fitted(self)
        arr = np.asarray(x, dtype=np.float32)
        if arr.ndim == len(self.image_shape_):
            arr = arr[None]
        if arr.ndim == 3 and self.image_shape_[-1] == 1:
            arr = arr[..., None]
        if arr.shape[1:] != self.image_shape_ or not np.isfinite(arr).all():
            raise ConfigError(
                f"x must be finite with shape (B, {', '.join(map(str, self.image_shape_))}), got {np.shape(x)}",
                hint="pass images of the training set's size",
            )
        return arr

    def _size_at(self, k: int, steps: int, schedule: int | Sequence[int] | None) -> int:
        sched = self.patch_size if schedule is None else schedule
        if np.ndim(sched) == 0:
            return self._check_size(sched, self.image_shape_[:2])
        sched = list(sched)
        if len(sched) != steps:
            raise ConfigError(
                f"a patch-size schedule needs one size per step ({steps}), got {len(sched)}",
                hint="index k is the size at t = (k + 1)/steps",
            )
        return self._check_size(sched[k], self.image_shape_[:2])

    def _posterior(self, x: np.ndarray, abar: float, size: int) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def denoise(self, x_t: object, t: float, patch_size: int | None = None) -> np.ndarray:
        """E[φ | x_t] at time t ∈ (0, 1], shape (B, H, W, C)."""
        return self.denoise_with_provenance(x_t, t, patch_size)[0]

    def denoise_with_provenance(self, x_t: object, t: float, patch_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """E[φ | x_t] and, per output pixel, where its most probable source is.

        Returns:
            (mean (B, H, W, C), provenance (B, H, W, 3): training image μ, row, column of
            the centre pixel of the best-matching training patch).
        """
        x = self._check_x(x_t)
        if not 0.0 < float(t) <= 1.0:
            raise ConfigError(f"t must be in (0, 1], got {t!r}")
        size = self._size_at(0, 1, self.patch_size if patch_size is None else patch_size)
        mean, best = self._posterior(x, float(alpha_bar(t)), size)
        return np.asarray(mean), self._decode(np.asarray(best), size)

    def _decode(self, best: np.ndarray, size: int) -> np.ndarray:
        """Best entries → (B, H, W, 3) ints (training image μ, row, column of the source pixel)."""
        shape = (best.shape[0], *self.image_shape_[:2])
        image = best if best.ndim == 3 else np.broadcast_to(best[:, None, None], shape)
        rows, cols = (np.broadcast_to(a, shape) for a in np.indices(shape[1:]))
        return np.stack([image, rows, cols], axis=-1)

    def score(self, x_t: object, t: float, patch_size: int | None = None) -> np.ndarray:
        """s(x_t, t) = −(x_t − √ᾱ_t E[φ | x_t]) / (1 − ᾱ_t)."""
        x = self._check_x(x_t)
        ab = float(alpha_bar(t))
        return -(x - np.sqrt(ab) * self.denoise(x, t, patch_size)) / (1.0 - ab)

    def sample(self, noise: object, steps: int = 20, schedule: int | Sequence[int] | None = None, *,
               trajectory: list[np.ndarray] | None = None) -> np.ndarray:  # fmt: skip
        """Deterministic DDIM from ``noise`` (B, H, W, C) at t = 1 in ``steps`` steps.

        Args:
            schedule: Patch size, or one per step with index k ↔ t = (k + 1)/steps (the
                calibration's convention); defaults to ``patch_size``.
            trajectory: If given, the x_t fed to each step are appended to it.
        """
        x = self._check_x(noise)
        steps = check_int("steps", steps, low=1)
        sizes = [self._size_at(k, steps, schedule) for k in range(steps)]

        def eps(xt: np.ndarray, t: float, k: int) -> np.ndarray:
            ab = float(alpha_bar(t))
            mean = self._posterior(xt, ab, sizes[k])[0]
            return (xt - np.sqrt(ab) * np.asarray(mean)) / np.sqrt(1.0 - ab)

        return ddim_sample(eps, x, steps, trajectory=trajectory)

    def _chunks(self) -> tuple[np.ndarray, np.ndarray]:
        return self.chunks_, self.valid_


class IdealScoreMachine(_ScoreMachine):
    """IS machine: the exact score of the training set's empirical distribution.

    E[φ | x_t] = Σ_μ softmax_μ(−‖x_t − √ᾱ_t φ^μ‖² / 2(1 − ᾱ_t)) φ^μ; it only reproduces
    training images. ``patch_size`` and ``padding`` are accepted and ignored.
    """

    def _posterior(self, x: np.ndarray, abar: float, size: int) -> tuple[np.ndarray, np.ndarray]:
        from paperzoo_els.posteriors import is_posterior

        return is_posterior(x, np.float32(abar), *self._chunks())


class LocalScoreMachine(_ScoreMachine):
    """LS machine: locality only — pixel p sees the P × P patch Ω_p of x_t and the training
    patches at the same location: Σ_μ softmax_μ(−‖x_Ω_p − √ᾱ φ^μ_Ω_p‖² / 2(1 − ᾱ)) φ^μ(p).

    Args:
        patch_size: Odd P (or one per sampler step, index k ↔ t = (k + 1)/steps).
        padding: ``"zeros"`` or ``"circular"``, as the network's convolutions.
        chunk_size: Training images per streamed chunk (memory ∝ B·H·W·chunk).
    """

    def _posterior(self, x: np.ndarray, abar: float, size: int) -> tuple[np.ndarray, np.ndarray]:
        from paperzoo_els.posteriors import ls_posterior

        return ls_posterior(x, np.float32(abar), *self._chunks(), size=size, padding=self.padding)


class EquivariantLocalScoreMachine(_ScoreMachine):
    """ELS machine: locality and translation equivariance — pixel p matches every training
    patch at every location q: Σ_{μ,q} softmax(−‖x_Ω_p − √ᾱ φ^μ_Ω_q‖² / 2(1 − ᾱ)) φ^μ(q).

    ``"circular"``: the query patch wraps, the dictionary holds the patches fully inside
    each training image — exactly translation-equivariant. ``"zeros"`` (boundary-broken
    ELS): only dictionary patches of p's boundary class match; for P ≥ min(H, W) it is the
    LS machine.

    Args:
        patch_size: Odd P (or one per sampler step, index k ↔ t = (k + 1)/steps).
        padding: ``"zeros"`` or ``"circular"``, as the network's convolutions.
        chunk_size: Training images per streamed chunk (memory ∝ B·(H·W)²·chunk floats).
    """

    def _check_size(self, size: object, hw: tuple[int, ...]) -> int:
        size = _odd(size)
        if self.padding == "circular" and size > min(hw):
            raise ConfigError(
                f"circular ELS needs patch_size ≤ min(H, W) = {min(hw)}, got {size}",
                hint="use a smaller patch, or zero padding (which falls back to LS)",
            )
        return size

    def _posterior(self, x: np.ndarray, abar: float, size: int) -> tuple[np.ndarray, np.ndarray]:
        from paperzoo_els.posteriors import els_posterior, ls_posterior

        chunks = self._chunks()
        if self.padding == "zeros" and size >= min(self.image_shape_[:2]):
            return ls_posterior(x, np.float32(abar), *chunks, size=size, padding="zeros")
        return els_posterior(x, np.float32(abar), *chunks, size=size, padding=self.padding)

    def _decode(self, best: np.ndarray, size: int) -> np.ndarray:
        h, w = self.image_shape_[:2]
        if self.padding == "zeros" and size >= min(h, w):
            return super()._decode(best, size)
        d = size // 2
        cols = w - 2 * d if self.padding == "circular" else w
        per = (h - 2 * d) * cols if self.padding == "circular" else h * w
        image, q = np.divmod(best, per)
        row, col = np.divmod(q, cols)
        offset = d if self.padding == "circular" else 0
        return np.stack([image, row + offset, col + offset], axis=-1)

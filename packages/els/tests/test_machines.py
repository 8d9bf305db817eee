"""Exact cases of the IS, LS and ELS machines, and the JAX kernels against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo_els.machines import EquivariantLocalScoreMachine, IdealScoreMachine, LocalScoreMachine
from paperzoo_els.metrics import nearest_training_distance
from paperzoo_els.patches import boundary_classes
from paperzoo_els.reference import els_denoise_numpy
from paperzoo_els.schedule import alpha_bar

RNG = np.random.default_rng(0)
TRAIN = RNG.uniform(-1, 1, (12, 7, 7, 1)).astype(np.float32)
NOISE = RNG.standard_normal((3, 7, 7, 1)).astype(np.float32)


def noisy(images: np.ndarray, t: float, rng: np.random.Generator) -> np.ndarray:
    ab = alpha_bar(t)
    return (np.sqrt(ab) * images + np.sqrt(1 - ab) * rng.standard_normal(images.shape)).astype(np.float32)


def test_is_machine_at_small_noise_returns_the_nearest_training_image() -> None:
    x = noisy(TRAIN[[4, 9]], 0.02, np.random.default_rng(1))
    out = IdealScoreMachine().fit(TRAIN).denoise(x, 0.02)
    np.testing.assert_allclose(out, TRAIN[[4, 9]], atol=1e-5)


def test_is_machine_samples_are_training_images() -> None:
    out = IdealScoreMachine().fit(TRAIN).sample(NOISE, steps=20)
    dist, _ = nearest_training_distance(out, TRAIN)
    assert dist.max() < 1e-3


@pytest.mark.parametrize(("padding", "size"), [("circular", 7), ("zeros", 13)])
def test_ls_machine_with_whole_image_patches_equals_is_machine(padding: str, size: int) -> None:
    # circular P = H (odd) covers every pixel once; zero padding needs P ≥ 2H − 1 to cover the image
    x = noisy(TRAIN[:3], 0.6, np.random.default_rng(2))
    ls = LocalScoreMachine(patch_size=size, padding=padding).fit(TRAIN).denoise(x, 0.6)
    ideal = IdealScoreMachine().fit(TRAIN).denoise(x, 0.6)
    np.testing.assert_allclose(ls, ideal, atol=1e-5)


def test_circular_els_is_exactly_translation_equivariant() -> None:
    els = EquivariantLocalScoreMachine(patch_size=3, padding="circular").fit(TRAIN)
    x = NOISE[:2]
    shifted = np.roll(x, (2, -3), axis=(1, 2))
    np.testing.assert_allclose(
        els.denoise(shifted, 0.5), np.roll(els.denoise(x, 0.5), (2, -3), axis=(1, 2)), atol=1e-6
    )
    samples = els.sample(x, steps=6)
    np.testing.assert_allclose(
        els.sample(shifted, steps=6), np.roll(samples, (2, -3), axis=(1, 2)), atol=1e-5
    )


def test_zero_padding_els_matches_only_patches_of_the_same_boundary_class() -> None:
    size = 5
    els = EquivariantLocalScoreMachine(patch_size=size, padding="zeros").fit(TRAIN)
    _, prov = els.denoise_with_provenance(NOISE, 0.3, size)
    classes = boundary_classes(7, 7, size).reshape(7, 7)
    assert (classes[prov[..., 1], prov[..., 2]] == classes[None]).all()
    # a corner's class is its own: its best patch sits at the same corner
    assert (prov[:, 0, 0, 1:] == 0).all() and (prov[:, -1, -1, 1:] == 6).all()
    # interior pixels draw on interior patches anywhere, not only at their own location
    interior = prov[:, 2:5, 2:5, 1:]
    assert (interior != np.indices((3, 3)).transpose(1, 2, 0)[None] + 2).any()


def test_zero_padding_els_with_patches_as_large_as_the_image_is_the_ls_machine() -> None:
    x = noisy(TRAIN[:2], 0.4, np.random.default_rng(3))
    els = EquivariantLocalScoreMachine(patch_size=7, padding="zeros").fit(TRAIN).denoise(x, 0.4)
    ls = LocalScoreMachine(patch_size=7, padding="zeros").fit(TRAIN).denoise(x, 0.4)
    np.testing.assert_allclose(els, ls, atol=1e-6)


@pytest.mark.parametrize("padding", ["zeros", "circular"])
def test_els_kernel_matches_plain_numpy(padding: str) -> None:
    images = RNG.uniform(-1, 1, (6, 8, 8, 2))
    x = RNG.standard_normal((1, 8, 8, 2))
    els = EquivariantLocalScoreMachine(patch_size=3, padding=padding, chunk_size=4).fit(images)
    expected = els_denoise_numpy(x[0], float(alpha_bar(0.5)), images, 3, padding)
    np.testing.assert_allclose(els.denoise(x, 0.5)[0], expected, atol=1e-5)


@pytest.mark.parametrize("machine", [IdealScoreMachine, LocalScoreMachine, EquivariantLocalScoreMachine])
def test_chunk_size_changes_memory_not_the_result(machine: type) -> None:
    a = machine(patch_size=3, chunk_size=1).fit(TRAIN).denoise(NOISE, 0.7)
    b = machine(patch_size=3, chunk_size=5).fit(TRAIN).denoise(NOISE, 0.7)  # 12 = 2 × 5 + 2: a padded chunk
    np.testing.assert_allclose(a, b, atol=1e-5)


def test_score_is_the_tweedie_form_of_the_denoiser() -> None:
    els = EquivariantLocalScoreMachine(patch_size=3).fit(TRAIN)
    ab = alpha_bar(0.5)
    expected = -(NOISE - np.sqrt(ab) * els.denoise(NOISE, 0.5)) / (1 - ab)
    np.testing.assert_allclose(els.score(NOISE, 0.5), expected, rtol=1e-5, atol=1e-5)


def test_last_sampler_step_returns_the_denoiser_output() -> None:
    ls = LocalScoreMachine(patch_size=3).fit(TRAIN)
    trajectory: list[np.ndarray] = []
    out = ls.sample(NOISE, steps=5, schedule=[3, 5, 5, 5, 5], trajectory=trajectory)
    assert len(trajectory) == 5
    np.testing.assert_allclose(out, ls.denoise(trajectory[-1], 0.2, 3), atol=1e-5)


def test_els_samples_are_patch_mosaics_not_training_images() -> None:
    digits = np.sign(np.random.default_rng(4).standard_normal((8, 9, 9, 1))).astype(np.float32)
    noise = np.random.default_rng(5).standard_normal((4, 9, 9, 1)).astype(np.float32)
    els = EquivariantLocalScoreMachine(patch_size=3, padding="circular").fit(digits)
    out = els.sample(noise, steps=20)
    dist, _ = nearest_training_distance(out, digits)
    assert dist.min() > 0.5, dist
    _, prov = els.denoise_with_provenance(out, 0.05)
    assert (prov[..., 0].reshape(4, -1).max(1) != prov[..., 0].reshape(4, -1).min(1)).all()

"""Calibration finds a known patch size; metrics on exact cases."""

from __future__ import annotations

import numpy as np

from paperzoo_els.calibration import calibrate_patch_sizes, cosine_similarity
from paperzoo_els.machines import EquivariantLocalScoreMachine
from paperzoo_els.metrics import nearest_training_distance, pearson_r, provenance_diversity
from paperzoo_els.schedule import alpha_bar, ddim_sample

TRAIN = np.random.default_rng(0).uniform(-1, 1, (10, 8, 8, 1)).astype(np.float32)


class MachineAsNetwork:
    """A 'network' whose score is the ELS machine's at a fixed patch size."""

    def __init__(self, machine: EquivariantLocalScoreMachine, size: int):
        self.machine, self.size = machine, size

    def score(self, x: np.ndarray, t: float) -> np.ndarray:
        return self.machine.score(x, t, self.size)

    def sample(self, noise: np.ndarray, steps: int, *, trajectory: list[np.ndarray]) -> np.ndarray:
        return self.machine.sample(noise, steps, self.size, trajectory=trajectory)


def test_calibration_recovers_the_patch_size_of_a_machine_network() -> None:
    els = EquivariantLocalScoreMachine(padding="circular").fit(TRAIN)
    noise = np.random.default_rng(1).standard_normal((3, 8, 8, 1)).astype(np.float32)
    cal = calibrate_patch_sizes(els, MachineAsNetwork(els, 5), noise, [3, 5, 7], steps=4)
    assert cal.schedule == [5, 5, 5, 5]
    assert cal.similarity.shape == (3, 4, 3)
    np.testing.assert_allclose(cal.similarity[:, :, 1], 1.0, atol=1e-5)


def test_pearson_r_is_one_for_affine_copies_and_ignores_the_mean() -> None:
    a = np.random.default_rng(2).standard_normal((4, 5, 5, 1))
    np.testing.assert_allclose(pearson_r(a, 2 * a + 3), 1.0)
    np.testing.assert_allclose(pearson_r(a, -a), -1.0)
    assert np.all(np.abs(cosine_similarity(a, a) - 1) < 1e-12)


def test_nearest_training_distance() -> None:
    x = TRAIN[[3, 7]] + np.array([0.0, 0.5])[:, None, None, None]
    dist, idx = nearest_training_distance(x, TRAIN)
    np.testing.assert_allclose(dist, [0.0, 0.5 * 8], atol=1e-6)
    assert list(idx) == [3, 7]


def test_provenance_diversity_counts_distinct_training_images() -> None:
    prov = np.zeros((2, 3, 3, 3), int)
    prov[1, 0, 0, 0] = 4
    prov[1, 2, 2, 0] = 9
    assert list(provenance_diversity(prov)) == [1, 3]


def test_ddim_with_an_oracle_denoiser_lands_on_its_image() -> None:
    target = TRAIN[:1]

    def eps(x: np.ndarray, t: float, k: int) -> np.ndarray:
        ab = alpha_bar(t)
        return (x - np.sqrt(ab) * target) / np.sqrt(1 - ab)

    out = ddim_sample(eps, np.random.default_rng(3).standard_normal(target.shape), steps=7)
    np.testing.assert_allclose(out, target, atol=1e-5)
    assert alpha_bar(0.0) == 1.0

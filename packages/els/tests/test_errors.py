"""Bad input: one clear error that says what to do, and nothing corrupted."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo.errors import ConfigError, NotFittedError
from paperzoo_els.calibration import calibrate_patch_sizes
from paperzoo_els.machines import EquivariantLocalScoreMachine, IdealScoreMachine, LocalScoreMachine
from paperzoo_els.training import DDPMNetwork

TRAIN = np.random.default_rng(0).uniform(-1, 1, (5, 6, 6, 1)).astype(np.float32)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"patch_size": 4}, "odd integers"),
        ({"patch_size": [3, 0]}, "odd integers"),
        ({"patch_size": []}, "non-empty"),
        ({"padding": "reflect"}, "padding must be one of"),
        ({"chunk_size": 0}, "chunk_size"),
    ],
)
def test_rejects_bad_hyperparameters(params: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        EquivariantLocalScoreMachine(**params).fit(TRAIN)


@pytest.mark.parametrize(
    ("images", "match"),
    [
        (TRAIN * 255, r"\[−1, 1\]"),
        (np.full((2, 6, 6), np.nan), "finite"),
        (np.zeros((6, 6)), "shape"),
        (np.zeros((0, 6, 6, 1)), "shape"),
    ],
)
def test_rejects_bad_training_images(images: np.ndarray, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        LocalScoreMachine().fit(images)


def test_a_failed_refit_keeps_the_previous_fit() -> None:
    ls = LocalScoreMachine().fit(TRAIN)
    with pytest.raises(ConfigError):
        ls.fit(TRAIN * 3)
    np.testing.assert_array_equal(ls.images_, TRAIN)


def test_circular_els_rejects_patches_larger_than_the_image() -> None:
    with pytest.raises(ConfigError, match="patch_size ≤ min"):
        EquivariantLocalScoreMachine(patch_size=7, padding="circular").fit(TRAIN)


def test_sampling_rejects_bad_queries_before_any_work() -> None:
    els = EquivariantLocalScoreMachine().fit(TRAIN)
    with pytest.raises(ConfigError, match="shape"):
        els.sample(np.zeros((2, 5, 5, 1)))
    with pytest.raises(ConfigError, match="one size per step"):
        els.sample(np.zeros((1, 6, 6, 1)), steps=4, schedule=[3, 5])
    with pytest.raises(ConfigError, match="steps"):
        els.sample(np.zeros((1, 6, 6, 1)), steps=0)
    with pytest.raises(ConfigError, match=r"t must be in \(0, 1\]"):
        els.denoise(np.zeros((1, 6, 6, 1)), 0.0)


def test_using_an_unfitted_machine_raises_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        IdealScoreMachine().sample(np.zeros((1, 6, 6, 1)))


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"architecture": "vit"}, "architecture"),
        ({"width": 0}, "width"),
        ({"learning_rate": -1.0}, "learning_rate"),
        ({"width": np.int64(4), "depth": 1.5}, "^DDPMNetwork: depth must be an integer ≥ 1, got 1.5$"),
        (
            {"train_steps": 10, "warmup_steps": 10},
            r"^DDPMNetwork: warmup_steps must be an integer in \[0, train_steps\) \(train_steps = 10\), got 10$",
        ),
        ({"clip_norm": 0.0}, r"^DDPMNetwork: clip_norm must be a number > 0 or none, got 0.0$"),
    ],
)
def test_network_rejects_bad_hyperparameters(params: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        DDPMNetwork(**params, cache=False).fit(TRAIN)


def test_calibration_needs_candidates() -> None:
    with pytest.raises(ConfigError, match="candidate"):
        calibrate_patch_sizes(LocalScoreMachine().fit(TRAIN), None, np.zeros((1, 6, 6, 1)), [])

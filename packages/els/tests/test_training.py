"""The reference networks: shapes, the DDPM objective going down, the orbax cache."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo_els.training import DDPMNetwork, cache_dir

TRAIN = np.random.default_rng(0).uniform(-1, 1, (16, 8, 8, 1)).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize(("architecture", "depth"), [("resnet", 2), ("unet", 2)])
def test_network_predicts_noise_of_the_image_shape(architecture: str, depth: int) -> None:
    net = DDPMNetwork(
        architecture, width=4, depth=depth, train_steps=2, warmup_steps=0, batch_size=4, cache=False
    )
    net.fit(TRAIN)
    assert net.eps(TRAIN[:3], 0.5).shape == (3, 8, 8, 1)
    assert net.sample(TRAIN[:2], steps=3).shape == (2, 8, 8, 1)


@pytest.mark.slow
def test_training_lowers_the_loss_and_the_cache_returns_the_same_network(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    params = {
        "width": 8,
        "depth": 2,
        "train_steps": 60,
        "warmup_steps": 5,
        "batch_size": 16,
        "padding": "circular",
    }
    first = DDPMNetwork(**params).fit(TRAIN)
    assert not first.from_cache_
    assert first.losses_[-10:].mean() < first.losses_[:10].mean()
    assert (cache_dir() / first.config_hash_ / "state").is_dir()
    second = DDPMNetwork(**params).fit(TRAIN)
    assert second.from_cache_
    np.testing.assert_array_equal(second.eps(TRAIN[:2], 0.3), first.eps(TRAIN[:2], 0.3))
    other = DDPMNetwork(**{**params, "seed": 1}).fit(TRAIN)
    assert other.config_hash_ != first.config_hash_ and not other.from_cache_
    numpy_ints = DDPMNetwork(**{**params, "width": np.int64(8), "train_steps": np.int32(60)})
    assert numpy_ints.config_hash(TRAIN) == first.config_hash_

"""The core's generated contract tests for everything the els manifest declares; the README example."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import Example, PluginContract
from paperzoo_els.machines import EquivariantLocalScoreMachine, IdealScoreMachine, LocalScoreMachine
from paperzoo_els.plugin import plugin
from paperzoo_els.training import DDPMNetwork

TRAIN = np.random.default_rng(0).uniform(-1, 1, (6, 6, 6, 1)).astype(np.float32)
ESTIMATORS = {
    "is": lambda: IdealScoreMachine(chunk_size=4),
    "ls": lambda: LocalScoreMachine(patch_size=[3, 5], padding="circular"),
    "els": lambda: EquivariantLocalScoreMachine(patch_size=5, padding="zeros", chunk_size=2),
    "ddpm-network": lambda: DDPMNetwork(
        width=4, depth=1, train_steps=2, warmup_steps=1, batch_size=4, cache=False
    ),
}


class TestEls(PluginContract):
    plugin = plugin
    slow: ClassVar[set[str]] = {
        "cifar10"
    }  # its RGB smoke run compiles its own kernels: ≈ 10 s (fashion-mnist reuses mnist's)

    def estimator_example(self, name: str) -> Example:
        return Example(ESTIMATORS[name](), fit_args=(TRAIN,))


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"dataset": "svhn"}, "dataset must be one of 'mnist', 'fashion-mnist', 'cifar10'"),
        ({"n_samples": 0}, "n_samples must be an integer ≥ 1, got 0"),
        ({"calib_train": 200}, "calib_train must be an integer in [1, n_train] (n_train = 100), got 200"),
        (
            {"warmup_steps": 40},
            "warmup_steps must be an integer in [0, train_steps) (train_steps = 40), got 40",
        ),
        ({"clip_norm": 0.0}, "clip_norm must be a number > 0 or none, got 0.0"),
        ({"patch_sizes": []}, "patch_sizes must be a list of ≥ 1"),
        ({"architecture": "vit"}, "architecture must be one of 'resnet', 'unet'"),
    ],
)
def test_bad_settings_are_one_clear_error(setting: dict[str, Any], message: str) -> None:
    spec = next(s for s in plugin.experiments if s.name == "els.mnist")
    with pytest.raises(ConfigError) as info:
        spec.settings_for("smoke", setting)
    assert message in str(info.value)


def test_clip_norm_none_switches_clipping_off() -> None:
    spec = next(s for s in plugin.experiments if s.name == "els.mnist")
    assert spec.settings_for("smoke", {"clip_norm": None})["clip_norm"] is None
    assert spec.settings_for("paper")["clip_norm"] is None


def test_readme_usage_example_runs() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the README's example, as written
    assert namespace["samples"].shape == (4, 10, 10, 1)

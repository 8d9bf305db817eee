"""The core's contract suites on the estimators, datasets and experiments; the import guard."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.testing import DatasetContract, EstimatorContract, ExperimentContract
from paperzoo_els import plugin
from paperzoo_els.machines import EquivariantLocalScoreMachine, IdealScoreMachine, LocalScoreMachine
from paperzoo_els.training import DDPMNetwork

TRAIN = np.random.default_rng(0).uniform(-1, 1, (6, 6, 6, 1)).astype(np.float32)
TINY_RUN = {"image_size": 8, "n_train": 40, "width": 4, "depth": 1, "train_steps": 5, "warmup_steps": 1,
            "batch_size": 16, "n_samples": 2, "calib_samples": 1, "calib_train": 20, "patch_sizes": [3], "steps": 3}  # fmt: skip


class TestISContract(EstimatorContract):
    def make_estimator(self) -> IdealScoreMachine:
        return IdealScoreMachine(chunk_size=4)

    def fit_args(self) -> tuple[Any, ...]:
        return (TRAIN,)


class TestLSContract(EstimatorContract):
    def make_estimator(self) -> LocalScoreMachine:
        return LocalScoreMachine(patch_size=[3, 5], padding="circular")

    def fit_args(self) -> tuple[Any, ...]:
        return (TRAIN,)


class TestELSContract(EstimatorContract):
    def make_estimator(self) -> EquivariantLocalScoreMachine:
        return EquivariantLocalScoreMachine(patch_size=5, padding="zeros", chunk_size=2)

    def fit_args(self) -> tuple[Any, ...]:
        return (TRAIN,)


class TestDDPMNetworkContract(EstimatorContract):
    def make_estimator(self) -> DDPMNetwork:
        return DDPMNetwork(width=4, depth=1, train_steps=2, warmup_steps=1, batch_size=4, cache=False)

    def fit_args(self) -> tuple[Any, ...]:
        return (TRAIN,)


class TestMnistDataset(DatasetContract):
    plugin = plugin
    dataset = "els.mnist"


@pytest.mark.slow
class TestCifar10Dataset(DatasetContract):
    plugin = plugin
    dataset = "els.cifar10"


class TestMnistExperiment(ExperimentContract):
    plugin = plugin
    experiment = "els.mnist"
    smoke_overrides: ClassVar[dict[str, Any]] = TINY_RUN


def test_plugin_module_imports_no_framework() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'jax', 'flax'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"


def test_readme_usage_example_runs() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the README's example, as written
    assert namespace["samples"].shape == (4, 10, 10, 1)

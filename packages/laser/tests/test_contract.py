"""The core's contract suites, run on this plugin, and unit tests of the placeholder."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.errors import ConfigError, NotFittedError
from paperzoo.testing import EstimatorContract, ExperimentContract
from paperzoo_laser import plugin
from paperzoo_laser.estimators import ShrunkMean


def small_problem() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(20, 3)), 1.0 + rng.normal(size=20)


class TestShrunkMeanContract(EstimatorContract):
    def make_estimator(self) -> ShrunkMean:
        return ShrunkMean(shrinkage=0.25)

    def fit_args(self) -> tuple[np.ndarray, np.ndarray]:
        return small_problem()


class TestExampleExperimentContract(ExperimentContract):
    plugin = plugin
    experiment = "laser.example"
    smoke_overrides: ClassVar[dict[str, Any]] = {"n": 50}  # keeps the contract tests fast


def test_shrinkage_zero_predicts_the_mean() -> None:
    X, y = small_problem()
    np.testing.assert_allclose(ShrunkMean().fit(X, y).predict(X[:3]), np.full(3, y.mean()))


def test_shrinkage_one_predicts_zero() -> None:
    X, y = small_problem()
    np.testing.assert_allclose(ShrunkMean(shrinkage=1.0).fit(X, y).predict(X), 0.0)


def test_rejects_shrinkage_outside_unit_interval() -> None:
    with pytest.raises(ConfigError, match="shrinkage must be in"):
        ShrunkMean(shrinkage=1.5).fit(*small_problem())


def test_predict_before_fit_raises() -> None:
    with pytest.raises(NotFittedError):
        ShrunkMean().predict(np.zeros((2, 3)))


def test_plugin_module_imports_no_framework() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'torch', 'jax', 'flax'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"

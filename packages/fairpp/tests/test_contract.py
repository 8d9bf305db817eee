"""The core's contract suites on the plugin's estimators, experiments and datasets."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np

from paperzoo.testing import DatasetContract, EstimatorContract, ExperimentContract
from paperzoo_fairpp import plugin
from paperzoo_fairpp.baselines import PenalizedLinearRegression
from paperzoo_fairpp.datasets import gaussian_linear_groups
from paperzoo_fairpp.regressor import DemographicParityRegressor

DATA = gaussian_linear_groups(400, seed=0)


class TestDemographicParityRegressorContract(EstimatorContract):
    def make_estimator(self) -> DemographicParityRegressor:
        return DemographicParityRegressor(fairness=0.8, use_sensitive="separate")

    def fit_args(self) -> tuple[Any, ...]:
        return (DATA.X, DATA.y)

    def fit_kwargs(self) -> dict[str, Any]:
        return {"sensitive_features": DATA.s}

    def fitted_output(self, estimator: DemographicParityRegressor) -> Any:
        return estimator.predict(DATA.X, DATA.s)


class TestPenalizedLinearContract(EstimatorContract):
    def make_estimator(self) -> PenalizedLinearRegression:
        return PenalizedLinearRegression(penalty=5.0)

    def fit_args(self) -> tuple[Any, ...]:
        return (DATA.X, DATA.y)

    def fit_kwargs(self) -> dict[str, Any]:
        return {"sensitive_features": DATA.s}

    def fitted_output(self, estimator: PenalizedLinearRegression) -> Any:
        return estimator.predict(DATA.X, DATA.s)


def test_penalty_equalises_group_means() -> None:
    data = gaussian_linear_groups(3_000, seed=1)
    gaps = []
    for penalty in (0.0, 1e4):
        model = PenalizedLinearRegression(penalty=penalty).fit(data.X, data.y, sensitive_features=data.s)
        pred = model.predict(data.X, data.s)
        gaps.append(abs(pred[data.s == 0].mean() - pred[data.s == 1].mean()))
    assert gaps[0] > 1.0  # the groups' intercepts differ by 2
    assert gaps[1] < 1e-3


class TestRateExperiment(ExperimentContract):
    plugin = plugin
    experiment = "fairpp.rate"
    smoke_overrides: ClassVar[dict[str, Any]] = {"sizes": [100, 400], "repeats": 2, "test_size": 1_000}


class TestCrimeExperiment(ExperimentContract):
    plugin = plugin
    experiment = "fairpp.crime"
    smoke_overrides: ClassVar[dict[str, Any]] = {"bases": ["linear"], "repeats": 1, "levels": [0.0, 1.0]}


class TestCrimeDataset(DatasetContract):
    plugin = plugin
    dataset = "fairpp.communities-crime"


class TestGaussianDataset(DatasetContract):
    plugin = plugin
    dataset = "fairpp.gaussian-groups"
    load_options: ClassVar[dict[str, Any]] = {"n": 50}


def test_plugin_module_imports_no_numerics() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'sklearn', 'scipy'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_crime_loader_shape() -> None:
    import pytest

    from paperzoo.data import locate_unverified

    if locate_unverified(plugin.CRIME_FILE) is None:
        pytest.skip("Communities & Crime not available (set PAPERZOO_DATA_MIRROR)")
    from paperzoo_fairpp.datasets import communities_crime

    data = communities_crime()
    assert data.X.shape == (1_994, 99)
    assert set(np.unique(data.s)) == {0, 1}
    assert data.y.min() >= 0.0 and data.y.max() <= 1.0

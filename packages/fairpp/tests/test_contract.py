"""The core's generated contract tests for everything the fairpp manifest declares; the loaders."""

from __future__ import annotations

import re

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import Example, PluginContract
from paperzoo_fairpp.baselines import PenalizedLinearRegression
from paperzoo_fairpp.datasets import gaussian_linear_groups
from paperzoo_fairpp.plugin import BASE_NAMES, CRIME_FILE, plugin
from paperzoo_fairpp.postprocess import BarycenterPostProcessor
from paperzoo_fairpp.regressor import DemographicParityRegressor

DATA = gaussian_linear_groups(400, seed=0)


def _predictions(estimator: DemographicParityRegressor | PenalizedLinearRegression) -> np.ndarray:
    return estimator.predict(DATA.X, DATA.s)


def _fair_predictions(estimator: BarycenterPostProcessor) -> np.ndarray:
    return estimator.transform(DATA.y, DATA.s)


class TestFairpp(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        if name == "barycenter-postprocessor":
            pp = BarycenterPostProcessor(fairness=0.8)
            return Example(pp, fit_args=(DATA.y, DATA.s), fitted_output=_fair_predictions)
        if name == "demographic-parity-regressor":
            estimator = DemographicParityRegressor(fairness=0.8, use_sensitive="separate")
        else:
            estimator = PenalizedLinearRegression(penalty=5.0)
        fit_kwargs = {"sensitive_features": DATA.s}
        return Example(
            estimator, fit_args=(DATA.X, DATA.y), fit_kwargs=fit_kwargs, fitted_output=_predictions
        )

    def dataset_options(self, name: str) -> dict:
        return {"n": 50} if name == "gaussian-groups" else {}


def test_the_manifest_names_every_base_regressor() -> None:
    from paperzoo_fairpp.experiments import BASES

    assert set(BASES) == set(BASE_NAMES)


RATE, CRIME = (next(s for s in plugin.experiments if s.name == f"fairpp.{n}") for n in ("rate", "crime"))


@pytest.mark.parametrize(
    ("spec", "overrides", "message"),
    [
        (RATE, {"sizes": [10, 100]}, "sizes[0] must be an integer ≥ 20, got 10"),
        (RATE, {"sizes": [100]}, "sizes must be a list of ≥ 2"),
        (RATE, {"n_groups": 1}, "n_groups must be an integer ≥ 2, got 1"),
        (RATE, {"repeats": 0}, "repeats must be an integer ≥ 1, got 0"),
        (CRIME, {"bases": ["linear", "svm"]}, "bases[1] must be one of 'linear'"),
        (CRIME, {"bases": []}, "bases must be a list of ≥ 1"),
        (CRIME, {"levels": [0.0, 1.5]}, "levels[1] must be a number in [0, 1], got 1.5"),
        (CRIME, {"test_size": 1.0}, "test_size must be a number in (0, 1), got 1.0"),
        (CRIME, {"trees": 0}, "trees must be an integer ≥ 1, got 0"),
    ],
)
def test_a_bad_setting_names_itself_and_what_is_allowed(spec, overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"{spec.name}: {message}")):
        spec.settings_for("smoke", overrides)


def test_penalty_equalises_group_means() -> None:
    data = gaussian_linear_groups(3_000, seed=1)
    gaps = []
    for penalty in (0.0, 1e4):
        model = PenalizedLinearRegression(penalty=penalty).fit(data.X, data.y, sensitive_features=data.s)
        pred = model.predict(data.X, data.s)
        gaps.append(abs(pred[data.s == 0].mean() - pred[data.s == 1].mean()))
    assert gaps[0] > 1.0  # the groups' intercepts differ by 2
    assert gaps[1] < 1e-3


def test_crime_loader_shape() -> None:
    from paperzoo.data import locate_unverified

    if locate_unverified(CRIME_FILE) is None:
        pytest.skip("Communities & Crime not available (set PAPERZOO_DATA_MIRROR)")
    from paperzoo_fairpp.datasets import communities_crime

    data = communities_crime()
    assert data.X.shape == (1_994, 99)
    assert set(np.unique(data.s)) == {0, 1}
    assert data.y.min() >= 0.0 and data.y.max() <= 1.0

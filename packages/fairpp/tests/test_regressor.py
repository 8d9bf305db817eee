"""The meta-estimator: scikit-learn compatibility, convergence to the oracle, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from paperzoo.errors import ConfigError
from paperzoo_fairpp.datasets import gaussian_linear_groups
from paperzoo_fairpp.groups import FairnessError
from paperzoo_fairpp.metrics import ks_unfairness
from paperzoo_fairpp.regressor import DemographicParityRegressor


def test_passes_scikit_learns_estimator_checks() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(DemographicParityRegressor(), on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert failed == []


def test_converges_to_the_fair_oracle() -> None:
    test = gaussian_linear_groups(20_000, seed=123)
    oracle = test.fair_oracle(test.X, test.s)
    risks = []
    for n in (500, 8_000):
        train = gaussian_linear_groups(n, seed=n)
        model = DemographicParityRegressor(LinearRegression(), use_sensitive="separate").fit(
            train.X, train.y, sensitive_features=train.s
        )
        risks.append(np.mean((model.predict(test.X, test.s) - oracle) ** 2))
    assert risks[1] < risks[0] / 8  # the n^-1 rate gives /16; leave room for noise
    assert risks[1] < 0.01


def test_fair_predictions_are_fair_and_base_ones_are_not() -> None:
    data = gaussian_linear_groups(6_000, n_groups=3, seed=1)
    model = DemographicParityRegressor().fit(data.X, data.y, sensitive_features=data.s)
    test = gaussian_linear_groups(6_000, n_groups=3, seed=2)
    assert ks_unfairness(model.predict_base(test.X, test.s), test.s) > 0.3
    assert ks_unfairness(model.predict(test.X, test.s), test.s) < 0.1  # test-sample noise ~0.05


@pytest.mark.parametrize("cv", [None, 3, "prefit"])
def test_calibration_modes(cv: object) -> None:
    data = gaussian_linear_groups(2_000, seed=3)
    estimator = (
        LinearRegression().fit(np.hstack([data.X, np.eye(2)[data.s]]), data.y) if cv == "prefit" else None
    )
    model = DemographicParityRegressor(estimator, cv=cv).fit(data.X, data.y, sensitive_features=data.s)
    assert ks_unfairness(model.predict(data.X, data.s), data.s) < 0.1


def test_works_in_pipeline_clone_and_cross_validation_with_sensitive_columns() -> None:
    data = gaussian_linear_groups(1_500, seed=4)
    X = np.column_stack([data.X, data.s])  # the group is the last column
    pipe = make_pipeline(StandardScaler(), DemographicParityRegressor(sensitive_columns=[-1]))
    scores = cross_val_score(pipe, X, data.y, cv=3, scoring="neg_mean_squared_error")
    assert scores.shape == (3,)
    assert np.all(scores < 0)
    fitted = clone(pipe).fit(X, data.y)
    assert fitted.predict(X).shape == (1_500,)


def test_dataframe_column_names_and_several_attributes() -> None:
    pd = pytest.importorskip("pandas")
    data = gaussian_linear_groups(1_000, seed=5)
    frame = pd.DataFrame(data.X, columns=[f"x{i}" for i in range(5)])
    frame["group"] = np.where(data.s == 1, "b", "a")
    frame["region"] = np.arange(1_000) % 2
    model = DemographicParityRegressor(sensitive_columns=["group", "region"]).fit(frame, data.y)
    assert list(model.groups_) == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    assert model.predict(frame).shape == (1_000,)


def test_bad_inputs_are_clear_errors() -> None:
    data = gaussian_linear_groups(200, seed=6)
    model = DemographicParityRegressor().fit(data.X, data.y, sensitive_features=data.s)
    with pytest.raises(FairnessError, match="groups not seen in fit: 7"):
        model.predict(data.X[:2], [0, 7])
    with pytest.raises(FairnessError, match="predict needs sensitive_features"):
        model.predict(data.X)
    with pytest.raises(ConfigError, match="use_sensitive must be"):
        DemographicParityRegressor(use_sensitive="maybe").fit(data.X, data.y, sensitive_features=data.s)
    with pytest.raises(ConfigError, match="cv must be"):
        DemographicParityRegressor(cv=1).fit(data.X, data.y, sensitive_features=data.s)
    with pytest.raises(ConfigError, match="calibration_size must be"):
        DemographicParityRegressor(calibration_size=1.0).fit(data.X, data.y, sensitive_features=data.s)
    with pytest.raises(ConfigError, match="not column indices"):
        DemographicParityRegressor(sensitive_columns=[9]).fit(data.X, data.y)
    with pytest.raises(ConfigError, match="not both"):
        DemographicParityRegressor(sensitive_columns=[0]).fit(data.X, data.y, sensitive_features=data.s)

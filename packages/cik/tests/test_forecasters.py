"""Forecasters: one interface, the oracle scores ≈ 0, random scores badly, fallbacks are counted."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError
from paperzoo_cik.forecasters import FORECASTERS, make_forecaster
from paperzoo_cik.metrics import aggregate, rcrps_instance
from paperzoo_cik.plugin import TASKS_FILE

pytestmark = pytest.mark.skipif(
    locate_unverified(TASKS_FILE) is None, reason="cik/all_tasks.json not available"
)


@pytest.fixture(scope="module")
def tasks():
    from paperzoo_cik.tasks import load_tasks

    return load_tasks()


def _score(name: str, instances) -> float:
    f = make_forecaster(name)
    return aggregate(
        [rcrps_instance(f.forecast(i), i) for i in instances], [i.weight for i in instances]
    ).score


def test_oracle_scores_at_most_0_01_on_all_instances(tasks) -> None:
    assert _score("oracle", tasks) <= 0.01


def test_random_reference_scores_far_worse_than_the_oracle(tasks) -> None:
    assert _score("random", tasks[::5]) > 0.3


@pytest.mark.parametrize("name", ["oracle", "random", "naive", "seasonal-naive", "exp-smoothing"])
def test_every_forecaster_returns_n_samples_by_horizon(tasks, name: str) -> None:
    f = make_forecaster(name, n_samples=25)
    for inst in tasks[::71]:
        out = f.forecast(inst)
        assert out.shape == (25, inst.horizon) and np.isfinite(out).all()


@pytest.mark.parametrize("name", ["exp-smoothing", "ets", "arima"])
def test_statistical_forecasts_are_reproducible(tasks, name: str) -> None:
    inst = tasks[100]
    np.testing.assert_array_equal(make_forecaster(name).forecast(inst), make_forecaster(name).forecast(inst))


def test_unknown_forecaster_names_the_choices() -> None:
    with pytest.raises(ConfigError, match="unknown forecaster 'prophet'") as info:
        make_forecaster("prophet")
    assert "arima" in str(info.value)
    assert set(FORECASTERS) >= {
        "oracle",
        "random",
        "naive",
        "seasonal-naive",
        "exp-smoothing",
        "ets",
        "arima",
    }


def test_too_few_samples_is_rejected(tasks) -> None:
    with pytest.raises(ConfigError, match="Naive: n_samples must be an integer ≥ 2, got 1"):
        make_forecaster("naive", n_samples=1).forecast(tasks[0])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "paper"), [("exp-smoothing", 0.605), ("ets", 0.530), ("arima", 0.475)])
def test_statistical_baselines_land_near_the_paper(tasks, name: str, paper: float) -> None:
    assert _score(name, tasks) == pytest.approx(paper, rel=0.15)


@pytest.mark.parametrize("name", [n for n in FORECASTERS if n != "arima"])  # arima: slow, same base
def test_forecasters_follow_the_estimator_rules(tasks, name: str) -> None:
    from paperzoo import clone

    inst = next(i for i in tasks if 40 <= len(i.past_values) <= 50)
    f = make_forecaster(name, n_samples=5, seed=3)
    assert f.get_params()["n_samples"] == 5 and not hasattr(f, "fallbacks_")
    first = f.forecast(inst)
    twin = clone(f)
    assert not hasattr(twin, "fallbacks_") and twin.get_params() == f.get_params()
    np.testing.assert_array_equal(twin.forecast(inst), first)

"""The core's generated contract tests for everything the pessimistic-transfer manifest declares."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import Example, PluginContract
from paperzoo_pessimistic_transfer.mdps import garnet, sources_at_discrepancy
from paperzoo_pessimistic_transfer.mdtl import MDTL
from paperzoo_pessimistic_transfer.plugin import plugin

TARGET = garnet(6, 2, 2, seed=0)
RADII = np.array([0.1, 0.3])
SOURCES = sources_at_discrepancy(TARGET, RADII, 2, seed=1)


class TestPessimisticTransfer(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        return Example(MDTL(aggregation="avg", rounds=20, local_steps=2), fit_args=(SOURCES, RADII, TARGET.r))


@pytest.mark.parametrize(
    ("experiment", "setting", "message"),
    [
        ("pessimistic-transfer.garnet", {"seeds": 0}, "seeds must be an integer ≥ 1, got 0"),
        ("pessimistic-transfer.garnet", {"discrepancies": []}, "discrepancies must be a list of ≥ 1"),
        ("pessimistic-transfer.garnet", {"discrepancies": [0.1, 2.5]}, "discrepancies[1] must be a number in [0, 2]"),
        ("pessimistic-transfer.garnet", {"branching": 40}, "branching must be an integer in [1, n_states]"),
        ("pessimistic-transfer.garnet", {"step_size": 0.0}, "step_size must be a number in (0, 1]"),
        ("pessimistic-transfer.garnet", {"backup": "exakt"}, "backup must be one of 'kappa', 'exact'"),
        ("pessimistic-transfer.frozenlake", {"bad_eps": []}, "bad_eps must be a list of ≥ 1"),
        ("pessimistic-transfer.frozenlake", {"bad_eps": [-0.1]}, "bad_eps[0] must be a number ≥ 0"),
        ("pessimistic-transfer.frozenlake", {"gamma": 1.0}, "gamma must be a number in [0, 1)"),
        ("pessimistic-transfer.local-steps", {"local_steps_grid": [1, 0]}, "local_steps_grid[1] must be an integer ≥ 1"),
    ],
)  # fmt: skip
def test_bad_settings_are_one_clear_error(experiment: str, setting: dict[str, Any], message: str) -> None:
    spec = next(s for s in plugin.experiments if s.name == experiment)
    with pytest.raises(ConfigError) as info:
        spec.settings_for("smoke", setting)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rounds": 0}, "MDTL: rounds must be an integer ≥ 1, got 0"),
        ({"step_size": 1.5}, "MDTL: step_size must be a number in (0, 1], got 1.5"),
        ({"aggregation": "mean"}, "MDTL: aggregation must be one of 'avg', 'max', got 'mean'"),
        ({"devices": 0}, "MDTL: devices must be an integer ≥ 1 or none, got 0"),
    ],
)
def test_estimator_refuses_bad_parameters_in_one_line(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        MDTL(**params).fit(SOURCES, RADII, TARGET.r)
    assert str(info.value) == message


def test_mdtl_end_to_end_policy_is_near_optimal_and_its_value_a_lower_bound() -> None:
    from paperzoo_pessimistic_transfer.operators import evaluate_policy, optimal_q, performance

    # E = 1 and λ = 1 is value iteration on T_MP: after 400 rounds Q is at its fixed point
    est = MDTL(aggregation="max", gamma=TARGET.gamma, local_steps=1, step_size=1.0, rounds=400)
    est.fit(SOURCES, RADII, TARGET.r)
    opt = performance(TARGET, optimal_q(TARGET.P, TARGET.r, TARGET.gamma).argmax(1))
    assert performance(TARGET, est.policy_) / opt > 0.9
    V_true = evaluate_policy(TARGET.P, TARGET.r, est.policy_, TARGET.gamma)
    assert (est.value() <= V_true + 1e-4).all(), (est.value() - V_true).max()  # float32 iterate
    assert est.predict(np.array([0, 1])).shape == (2,)


def test_readme_usage_example_runs() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.replace("garnet(30, 4, 3", "garnet(8, 2, 2").replace("branching=3", "branching=2")
    code = code.replace("gamma=0.95)", "gamma=0.95, rounds=20)")
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the README's example, on a smaller Garnet
    assert namespace["mdtl"].q_.shape == (8, 2)


def test_package_docstring_example() -> None:
    import doctest

    import paperzoo_pessimistic_transfer as pkg

    failures, tried = doctest.testmod(pkg, verbose=False)
    assert tried >= 2 and failures == 0

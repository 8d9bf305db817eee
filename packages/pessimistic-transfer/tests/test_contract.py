"""The core's contract suites on the estimator and the three experiments; the import guard."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import numpy as np

from paperzoo.testing import EstimatorContract, ExperimentContract
from paperzoo_pessimistic_transfer import plugin
from paperzoo_pessimistic_transfer.mdps import garnet, sources_at_discrepancy
from paperzoo_pessimistic_transfer.mdtl import MDTL

TARGET = garnet(6, 2, 2, seed=0)
RADII = np.array([0.1, 0.3])
SOURCES = sources_at_discrepancy(TARGET, RADII, 2, seed=1)


class TestMDTLContract(EstimatorContract):
    def make_estimator(self) -> MDTL:
        return MDTL(aggregation="avg", rounds=20, local_steps=2)

    def fit_args(self) -> tuple[Any, ...]:
        return (SOURCES, RADII, TARGET.r)


class TestGarnetExperiment(ExperimentContract):
    plugin = plugin
    experiment = "pessimistic-transfer.garnet"
    smoke_overrides: ClassVar[dict[str, Any]] = {"seeds": 1, "rounds": 10, "n_states": 8, "curve_every": 5}


class TestFrozenLakeExperiment(ExperimentContract):
    plugin = plugin
    experiment = "pessimistic-transfer.frozenlake"
    smoke_overrides: ClassVar[dict[str, Any]] = {"seeds": 1, "rounds": 5, "bad_eps": [0.4]}


class TestLocalStepsExperiment(ExperimentContract):
    plugin = plugin
    experiment = "pessimistic-transfer.local-steps"
    smoke_overrides: ClassVar[dict[str, Any]] = {
        "seeds": 1,
        "rounds": 10,
        "n_states": 8,
        "local_steps_grid": [1, 5],
    }


def test_plugin_module_imports_no_framework() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'jax', 'flax'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"


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

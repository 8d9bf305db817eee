"""The core's generated contract tests for everything the cik manifest declares."""

from __future__ import annotations

import re

import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import Example, PluginContract
from paperzoo_cik.plugin import plugin

BENCHMARK = next(s for s in plugin.experiments if s.name == "cik.benchmark")


class TestCik(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        from paperzoo_cik.forecasters import make_forecaster

        options = {"model": "scripted:echo", "n_retries": 2} if name == "direct-prompt" else {}
        return Example(make_forecaster(name, n_samples=5, seed=3, **options))


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"forecaster": "prophet"}, "forecaster must be one of 'oracle', 'random'"),
        ({"n_samples": 1}, "n_samples must be an integer ≥ 2, got 1"),
        ({"seeds": []}, "seeds must be a list of ≥ 1"),
        ({"seeds": [1, 6]}, "seeds[1] must be an integer in [1, 5], got 6"),
        ({"limit": 0}, "limit must be an integer ≥ 1 or none, got 0"),
        ({"context_type": "causl"}, "context_type must be one of 'intemporal'"),
        ({"tasks": [3]}, "tasks[0] must be a string, got 3"),
    ],
)
def test_bad_settings_are_one_clear_error(setting: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        BENCHMARK.settings_for("smoke", setting)


def test_table_1_applies_to_runs_on_all_instances_only() -> None:
    from paperzoo import Result

    result = Result()
    for forecaster, n in (("ets", 355), ("ets", 20), ("naive", 355)):
        result.add("aggregate RCRPS", 0.5, setting={"forecaster": forecaster, "instances": n})
    result.add("standard error", 0.01, setting={"forecaster": "ets", "instances": 355})
    rows = result.with_references(BENCHMARK.references, BENCHMARK.settings_for("paper")).rows
    assert [r.paper for r in rows] == [0.530, None, None, None]
    assert rows[0].ref_source == "Table 1 (ETS)" and rows[0].ref_kind == "paper"

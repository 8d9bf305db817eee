"""The core's contract suites, run on every estimator and experiment of the plugin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.testing import EstimatorContract, ExperimentContract
from paperzoo_revdiv import plugin
from paperzoo_revdiv.datasets import synthetic_streams
from paperzoo_revdiv.rules import GlobalProp, RevenueRule, ScaledUserProp, UserEq, UserProp


class _RuleContract(EstimatorContract):
    rule: ClassVar[type[RevenueRule]]

    def make_estimator(self) -> RevenueRule:
        return self.rule(alpha=0.6, on_empty="drop")

    def fit_args(self) -> tuple[Any]:
        # integer counts with unsorted indices and explicit zeros, as users' data often is
        W = synthetic_streams(200, 30, max_artists=10, seed=0).astype(np.int64)
        W.data[::7] = 0
        W.indices[W.indptr[0] : W.indptr[1]] = W.indices[W.indptr[0] : W.indptr[1]][::-1].copy()
        W.has_sorted_indices = False
        return (W,)


class TestGlobalProp(_RuleContract):
    rule = GlobalProp


class TestUserProp(_RuleContract):
    rule = UserProp


class TestUserEq(_RuleContract):
    rule = UserEq


class TestScaledUserProp(_RuleContract):
    rule = ScaledUserProp


SMALL = {"n_users": 300, "n_artists": 40, "max_artists": 10}


class TestSyntheticExperiment(ExperimentContract):
    plugin = plugin
    experiment = "revdiv.synthetic"
    smoke_overrides: ClassVar[dict[str, Any]] = {**SMALL, "repeats": 2, "alphas": [0.3, 1.0], "k": 3}


class TestFraudExperiment(ExperimentContract):
    plugin = plugin
    experiment = "revdiv.fraud"
    smoke_overrides: ClassVar[dict[str, Any]] = {**SMALL, "bots": [1, 5]}


class TestLastFMExperiment(ExperimentContract):
    plugin = plugin
    experiment = "revdiv.lastfm"
    smoke_overrides: ClassVar[dict[str, Any]] = {"alphas": [0.5, 1.0], "k": 10}

    @pytest.fixture(autouse=True)
    def _needs_data(self) -> None:
        from paperzoo.data import locate_unverified

        if locate_unverified(plugin.LASTFM_FILE) is None:
            pytest.skip("Last.fm file not available (set PAPERZOO_DATA_MIRROR)")


def test_plugin_module_imports_no_numerics() -> None:
    code = f"import sys, {plugin.__name__}; print(sorted({{'numpy', 'scipy', 'torch', 'jax'}} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing the plugin module imported {out.stdout.strip()}"


def test_end_to_end_through_the_command_line(tmp_path: Path) -> None:
    """`paperzoo run revdiv.fraud --json` in a fresh process: SCUP breaks even, GP profits."""
    env = {"PAPERZOO_HOME": str(tmp_path), "PAPERZOO_LOAD_PLUGINS": "revdiv", "PATH": ""}
    args = [
        "run",
        "revdiv.fraud",
        "--json",
        "--set",
        "n_users=500",
        "--set",
        "bots=1",
        "--set",
        "n_artists=50",
        "--set",
        "max_artists=10",
    ]
    out = subprocess.run(
        [sys.executable, "-m", "paperzoo.cli", *args], capture_output=True, text=True, env=env, check=True
    )
    rows = json.loads(out.stdout)["result"]["rows"]
    gain = {r["setting"]: r["value"] for r in rows}
    assert gain["rule=SCUP, bots=1"] == pytest.approx(0.0, abs=1e-9)
    assert gain["rule=GP, bots=1"] > 1
    assert np.isclose(gain["rule=UP, bots=1"], 0.7 - 1)
    assert (tmp_path / "results.sqlite").is_file()


@pytest.mark.parametrize(
    ("experiment", "setting", "hint"),
    [
        ("revdiv.synthetic", {"alphas": []}, "non-empty list of numbers in (0, 1]"),
        ("revdiv.synthetic", {"repeats": 0}, "positive number"),
        ("revdiv.fraud", {"bots": [0]}, "whole numbers >= 1"),
        ("revdiv.fraud", {"alpha": 1.5}, "(0, 1]"),
    ],
)
def test_bad_settings_are_one_clear_error(
    experiment: str, setting: dict[str, Any], hint: str, tmp_path: Path
) -> None:
    import os

    from paperzoo.errors import ConfigError
    from paperzoo.runs import RunRequest, execute
    from paperzoo.testing import isolated_host

    os.environ["PAPERZOO_HOME"] = str(tmp_path)
    with pytest.raises(ConfigError) as info:
        execute(RunRequest(experiment, overrides=setting), host=isolated_host(plugin), reraise=True)
    assert hint in (info.value.hint or "")

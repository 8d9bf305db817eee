"""The core's generated contract tests for everything the revdiv manifest declares."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperzoo.testing import Example, PluginContract
from paperzoo_revdiv.datasets import synthetic_streams
from paperzoo_revdiv.plugin import plugin
from paperzoo_revdiv.rules import GlobalProp, ScaledUserProp, UserEq, UserProp

RULES = {
    "global-prop": GlobalProp,
    "user-prop": UserProp,
    "user-eq": UserEq,
    "scaled-user-prop": ScaledUserProp,
}


def _engagement():
    """Integer counts with unsorted indices and explicit zeros, as users' data often is."""
    W = synthetic_streams(200, 30, max_artists=10, seed=0).astype(np.int64)
    W.data[::7] = 0
    W.indices[W.indptr[0] : W.indptr[1]] = W.indices[W.indptr[0] : W.indptr[1]][::-1].copy()
    W.has_sorted_indices = False
    return W


class TestRevdiv(PluginContract):
    plugin = plugin

    def estimator_example(self, name: str) -> Example:
        return Example(RULES[name](alpha=0.6, on_empty="drop"), fit_args=(_engagement(),))

    def dataset_options(self, name: str) -> dict:
        return (
            {"n_users": 100, "n_artists": 20, "max_artists": 5, "seed": 1}
            if name == "synthetic-streams"
            else {}
        )


def test_end_to_end_through_the_command_line(tmp_path: Path) -> None:
    """`paperzoo run revdiv.fraud --json` in a fresh process: SCUP breaks even, GP profits."""
    env = {"PAPERZOO_HOME": str(tmp_path), "PAPERZOO_LOAD_PLUGINS": "revdiv", "PATH": ""}
    sets = ["n_users=500", "bots=1", "n_artists=50", "max_artists=10"]
    args = ["run", "revdiv.fraud", "--json", *(a for s in sets for a in ("--set", s))]
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
    ("experiment", "setting", "message"),
    [
        ("revdiv.synthetic", {"alphas": []}, "alphas must be a list of ≥ 1"),
        ("revdiv.synthetic", {"alphas": [0.5, 1.5]}, "alphas[1] must be a number in (0, 1]"),
        ("revdiv.synthetic", {"repeats": 0}, "repeats must be an integer ≥ 1"),
        ("revdiv.fraud", {"bots": [0]}, "bots[0] must be an integer ≥ 1"),
        ("revdiv.fraud", {"alpha": 1.5}, "alpha must be a number in (0, 1]"),
        ("revdiv.fraud", {"max_artists": 300}, "max_artists must be an integer in [1, n_artists]"),
    ],
)
def test_bad_settings_are_one_clear_error(experiment: str, setting: dict, message: str) -> None:
    from paperzoo.errors import ConfigError

    spec = next(s for s in plugin.experiments if s.name == experiment)
    with pytest.raises(ConfigError) as info:
        spec.settings_for("smoke", setting)
    assert message in str(info.value)

"""Longer checks, run by `nox -s slow`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paperzoo.runs import RunRequest, execute
from paperzoo.testing import isolated_host
from paperzoo_revdiv.axioms import PAPER_TABLE as TABLE
from paperzoo_revdiv.axioms import axiom_report
from paperzoo_revdiv.plugin import plugin
from paperzoo_revdiv.rules import RULES

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("alpha", [0.4, 0.6, 0.8, 0.95])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_axiom_table_at_more_alphas(rule: str, alpha: float) -> None:
    report = axiom_report(RULES[rule](alpha=alpha), trials=4000, seed=7)
    for axiom, found in report.items():
        if TABLE[rule][axiom]:
            assert found is None, f"{rule} at α={alpha} violates {axiom}: {found}"


def test_default_scale_scup_moves_monotonically_to_global_prop(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    outcome = execute(RunRequest("revdiv.synthetic", "default", 0), host=isolated_host(plugin), reraise=True)
    assert outcome.result is not None
    rows = [r for r in outcome.result.rows if r.setting.startswith("rule=SCUP, alpha=")]
    top = [r.value for r in rows if r.metric.startswith("top")]
    bottom = [r.value for r in rows if r.metric.startswith("bottom")]
    assert np.all(np.diff(top) >= -1e-12)
    assert np.all(np.diff(bottom) <= 1e-12)
    assert top[0] == pytest.approx(1.0)
    assert top[-1] == pytest.approx(outcome.result.value("top-10 PPS / GlobalProp", "rule=UP"))

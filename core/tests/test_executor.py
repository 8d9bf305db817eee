from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from paperzoo import hookimpl
from paperzoo.cli import main
from paperzoo.errors import ConfigError
from paperzoo.executor import Executor, LocalExecutor
from paperzoo.host import PluginHost, reset_host
from paperzoo.paths import store_path
from paperzoo.runs import RunOutcome, RunRequest, execute
from paperzoo.store import ResultsStore
from paperzoo.testing import fake_distribution

DEMO_DIST = """
from paperzoo.testing.demo_plugin import (
    paperzoo_plugin_info, paperzoo_register_experiments, paperzoo_register_estimators,
)
"""


def test_local_sequential_runs_in_order(host: PluginHost) -> None:
    requests = [RunRequest("demo.noisy-mean", seed=s) for s in range(3)]
    outcomes = list(LocalExecutor(host=host).map(requests))
    assert [o.request.seed for o in outcomes] == [0, 1, 2]
    assert all(o.ok for o in outcomes)


def test_process_pool_matches_sequential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = fake_distribution(
        tmp_path / "site", name="paperzoo-demo-dist", module="demo_dist", source=DEMO_DIST
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("PAPERZOO_LOAD_PLUGINS", "paperzoo-demo-dist")
    requests = [RunRequest("demo.noisy-mean", seed=s, overrides={"n": 20 + s}) for s in range(4)]
    pooled = {o.request.seed: o for o in LocalExecutor(workers=2).map(requests)}
    sequential = {o.request.seed: o for o in LocalExecutor(workers=1).map(requests)}
    assert sorted(pooled) == [0, 1, 2, 3]
    for seed, outcome in pooled.items():
        assert outcome.ok, outcome.error
        assert outcome.result is not None
        assert outcome.result.rows == sequential[seed].result.rows  # type: ignore[union-attr]
    assert len(ResultsStore(store_path()).runs(status="succeeded")) == 8


class Reverse:
    """A third-party executor: runs requests last to first."""

    name = "reverse"

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = options

    def map(self, requests: Sequence[RunRequest]) -> Iterator[RunOutcome]:
        for request in reversed(requests):
            yield execute(request)


class ReversePlugin:
    @hookimpl
    def paperzoo_executor(self, name: str, options: Mapping[str, Any]) -> Executor | None:
        return Reverse(options) if name == "reverse" else None


def test_executor_from_a_plugin_is_selected(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    host.register(ReversePlugin(), name="reverse")
    executor = host.hooks.executor(name="reverse", options={"a": "1"})
    assert isinstance(executor, Executor)
    main(["run", "demo.noisy-mean", "--seeds", "0-2", "--executor", "reverse", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [r["seed"] for r in data["runs"]] == [2, 1, 0]
    assert data["sweep"]
    assert len(ResultsStore(store_path()).runs(sweep=data["sweep"])) == 3


def test_unknown_executor_and_bad_options(host: PluginHost) -> None:
    with pytest.raises(ConfigError, match="no executor called 'slurm'"):
        host.hooks.executor(name="slurm", options={})
    with pytest.raises(ConfigError, match="no option 'address'"):
        host.hooks.executor(name="local", options={"address": "x"})
    with pytest.raises(ConfigError, match="whole number"):
        host.hooks.executor(name="local", options={"workers": "two"})
    with pytest.raises(ConfigError, match="at least 1"):
        LocalExecutor(workers=0)
    reset_host(None)

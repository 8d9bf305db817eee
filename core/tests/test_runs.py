from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperzoo import hookimpl
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.host import PluginHost
from paperzoo.paths import store_path
from paperzoo.results import Result
from paperzoo.runs import RunRequest, execute
from paperzoo.store import ResultsStore


def test_successful_run_writes_directory_and_store(host: PluginHost) -> None:
    outcome = execute(RunRequest("demo.noisy-mean", "smoke", seed=3), host=host)
    assert outcome.ok
    run_dir = Path(outcome.dir)
    config = json.loads((run_dir / "config.json").read_text())
    assert config["settings"]["n"] == 50
    assert config["seed"] == 3
    assert config["versions"]["paperzoo"]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["rows"][0]["metric"] == "mean"
    assert result["rows"][0]["paper"] == 1.0
    metrics = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics if m["name"] == "loss"] == [0, 1, 2]
    assert any(m["name"] == "estimate" and m["step"] is None for m in metrics)
    kinds = {a.kind for a in outcome.result.artifacts} if outcome.result else set()
    assert "json" in kinds
    record = ResultsStore(store_path()).get(outcome.run_id)
    assert record.status == "succeeded"
    assert record.plugin == "paperzoo.testing.demo_plugin"


def test_same_seed_same_result_other_seed_differs(host: PluginHost) -> None:
    a = execute(RunRequest("demo.noisy-mean", seed=1), host=host).result
    b = execute(RunRequest("demo.noisy-mean", seed=1), host=host).result
    c = execute(RunRequest("demo.noisy-mean", seed=2), host=host).result
    assert a is not None and b is not None and c is not None
    assert a.rows == b.rows
    assert a.rows != c.rows


def test_overrides_apply(host: PluginHost) -> None:
    outcome = execute(RunRequest("demo.noisy-mean", overrides={"n": 7}), host=host)
    assert outcome.result is not None
    assert outcome.result.rows[0].setting == "n=7"


def test_failing_run_is_recorded_with_its_error(host: PluginHost) -> None:
    outcome = execute(RunRequest("demo.noisy-mean", overrides={"fail": True}), host=host)
    assert not outcome.ok
    assert outcome.error == "RuntimeError: failing on purpose (fail=true)"
    assert "error.txt" in (outcome.hint or "")
    assert "Traceback" in (Path(outcome.dir) / "error.txt").read_text()
    record = ResultsStore(store_path()).get(outcome.run_id)
    assert record.status == "failed"
    assert record.error == outcome.error
    with pytest.raises(RuntimeError):
        execute(RunRequest("demo.noisy-mean", overrides={"fail": True}), host=host, reraise=True)


def test_invalid_requests_record_nothing(host: PluginHost) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'demo.noisy-mean'"):
        execute(RunRequest("demo.noisy-man"), host=host)
    with pytest.raises(ConfigError, match="unknown setting 'm'"):
        execute(RunRequest("demo.noisy-mean", overrides={"m": 1}), host=host)
    with pytest.raises(ConfigError, match="unknown scale"):
        execute(RunRequest("demo.noisy-mean", scale="huge"), host=host)
    assert ResultsStore(store_path()).runs() == []


class _Bad:
    """Experiments that break the rules."""

    @hookimpl
    def paperzoo_register_experiments(self, register):  # type: ignore[no-untyped-def]
        from paperzoo.specs import ExperimentSpec

        register(ExperimentSpec("bad.not-a-result", "builtins:repr"))
        register(ExperimentSpec("bad.interrupt", "builtins:exit"))


def test_experiment_must_return_a_result(host: PluginHost) -> None:
    host.register(_Bad(), name="bad")
    outcome = execute(RunRequest("bad.not-a-result"), host=host)
    assert not outcome.ok
    assert "returned str, not a paperzoo.Result" in (outcome.error or "")


def test_system_exit_is_recorded_then_reraised(host: PluginHost) -> None:
    host.register(_Bad(), name="bad")
    with pytest.raises(SystemExit):
        execute(RunRequest("bad.interrupt"), host=host)
    (record,) = ResultsStore(store_path()).runs()
    assert record.status == "failed"
    assert record.error is not None
    assert record.error.startswith("SystemExit")


class _BrokenTracker:
    """A lifecycle plugin whose every hook raises (a tracking server that is down)."""

    calls = 0

    @hookimpl
    def paperzoo_on_metric(self, run, name, value, step):  # type: ignore[no-untyped-def]
        _BrokenTracker.calls += 1
        raise ConnectionError("tracking server down")

    @hookimpl
    def paperzoo_on_step(self, run, step, logs):  # type: ignore[no-untyped-def]
        raise ConnectionError("tracking server down")


def test_failing_lifecycle_hook_warns_once_and_run_succeeds(
    host: PluginHost, caplog: pytest.LogCaptureFixture
) -> None:
    host.register(_BrokenTracker(), name="tracker")
    with caplog.at_level(logging.WARNING, logger="paperzoo"):
        outcome = execute(RunRequest("demo.noisy-mean"), host=host)
        execute(RunRequest("demo.noisy-mean"), host=host)
    assert outcome.ok
    warnings = [r.getMessage() for r in caplog.records]
    assert sum("paperzoo_on_step" in w for w in warnings) == 1
    assert sum("paperzoo_on_metric" in w for w in warnings) == 1
    assert _BrokenTracker.calls == 2


SLOW_EXPERIMENT = """
import sys, time
from paperzoo import hookimpl, ExperimentSpec, Result
from paperzoo.host import PluginHost
from paperzoo.runs import RunRequest, execute

def sleepy(run):
    print("started", flush=True)
    time.sleep(60)
    return Result()

class P:
    @hookimpl
    def paperzoo_register_experiments(self, register):
        register(ExperimentSpec("slow.sleep", "__main__:sleepy"))

host = PluginHost(entry_points=False)
host.register(P(), name="slow")
execute(RunRequest("slow.sleep"), host=host)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_terminated_run_is_marked_failed(home: Path, sig: signal.Signals) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_EXPERIMENT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PAPERZOO_HOME": str(home)},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"started"
    time.sleep(0.2)
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    assert proc.returncode != 0
    (record,) = ResultsStore(home / "results.sqlite").runs()
    assert record.status == "failed"
    assert "KeyboardInterrupt" in (record.error or "") or "Terminated" in (record.error or "")


def test_artifacts_cannot_escape_run_directory(host: PluginHost, tmp_path: Path) -> None:
    from paperzoo.runs import Run

    run = Run(
        id="r",
        spec=host.experiments.get("demo.noisy-mean"),
        scale="smoke",
        seed=0,
        settings={},
        directory=tmp_path / "run",
    )
    with pytest.raises(ConfigError, match="escapes the run directory"):
        run.artifact_path("../../x.png")
    with pytest.raises(ConfigError, match="outside the run directory"):
        run.add_artifact(tmp_path / "elsewhere.txt")
    assert isinstance(Result(), Result)


def test_failure_before_the_run_starts_leaves_no_orphan_directory(
    host: PluginHost, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperzoo.errors import StoreError

    def broken(self: ResultsStore, record: object) -> None:
        raise StoreError("disk full")

    monkeypatch.setattr(ResultsStore, "start", broken)
    with pytest.raises(StoreError, match="disk full"):
        execute(RunRequest("demo.noisy-mean"), host=host)
    assert list((home / "runs").iterdir()) == []


def test_every_path_lives_under_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperzoo import paths

    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    assert paths.cache_dir("els") == tmp_path / "cache" / "els"
    for where in (paths.data_home(), paths.runs_dir(), paths.store_path(), paths.report_dir()):
        assert where.parent == tmp_path
    assert not (tmp_path / "cache").exists(), "paths are not created"

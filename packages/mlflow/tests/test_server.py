"""Runs logged to a real ``mlflow server`` (SQLite backend, proxied artifacts) on
127.0.0.1, read back with ``MlflowClient``."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from mlflow import MlflowClient
from mlflow.entities import Run as MlflowRun

from paperzoo import RunOutcome, RunRequest, execute
from paperzoo.testing import demo_plugin, isolated_host
from paperzoo_mlflow.plugin import plugin

FindRun = Callable[[MlflowClient, RunOutcome], MlflowRun]
STARTUP = 180.0  # seconds; the server takes ~20 s to start on 2 cores


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and every process it started (uvicorn, job consumers)."""
    if os.name != "posix":
        proc.terminate()
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # any worker still shutting down


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URI of an MLflow tracking server, running until the module's tests end."""
    root = tmp_path_factory.mktemp("mlflow-server")
    port = free_port()
    command = [
        sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
        "--backend-store-uri", "sqlite:///" + (root / "mlflow.db").as_posix(),
        "--artifacts-destination", str(root / "artifacts"), "--workers", "1",
    ]  # fmt: skip
    log = open(root / "server.log", "wb")  # noqa: SIM115
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    proc = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, cwd=root, env=env, start_new_session=os.name == "posix"
    )
    uri = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"mlflow server exited with {proc.returncode}:\n{(root / 'server.log').read_text()}"
                )
            try:
                urllib.request.urlopen(f"{uri}/health", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"mlflow server did not answer in {STARTUP:.0f} s")
                time.sleep(0.25)
        yield uri
    finally:
        stop(proc)
        log.close()


@pytest.fixture
def to_server(server: str, monkeypatch: pytest.MonkeyPatch) -> MlflowClient:
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", server)
    return MlflowClient(tracking_uri=server)


def test_run_is_logged_to_the_server(to_server: MlflowClient, find_run: FindRun, home: Path) -> None:
    host = isolated_host(demo_plugin, plugin)
    outcome = execute(
        RunRequest("demo.noisy-mean", seed=7, overrides={"steps": 5, "shrinkage": 0.5}), host=host
    )
    assert outcome.ok, outcome.error
    logged = find_run(to_server, outcome)
    assert logged.info.status == "FINISHED"
    assert to_server.get_experiment(logged.info.experiment_id).name == "demo.noisy-mean"
    params = logged.data.params
    assert (params["paperzoo.seed"], params["shrinkage"], params["n"]) == ("7", "0.5", "50")
    assert params["paperzoo.plugin"] == host.experiments.get("demo.noisy-mean").plugin
    history = to_server.get_metric_history(logged.info.run_id, "loss")
    assert [m.step for m in history] == [0, 1, 2, 3, 4]
    assert logged.data.metrics["result/mean/n_50"] == pytest.approx(outcome.result.rows[0].value)
    top = {a.path for a in to_server.list_artifacts(logged.info.run_id)}
    assert {"config.json", "result.json", "result.csv", "result.md"} <= top
    table = Path(to_server.download_artifacts(logged.info.run_id, "result.md", str(home.parent)))
    assert table.read_text().startswith("| metric | setting | value | paper | unit |")
    assert not (home / "mlflow.db").exists(), "logged to the server, not to the default database"


def test_failed_run_is_failed_on_the_server(to_server: MlflowClient, find_run: FindRun) -> None:
    outcome = execute(
        RunRequest("demo.noisy-mean", overrides={"fail": True}), host=isolated_host(demo_plugin, plugin)
    )
    logged = find_run(to_server, outcome)
    assert (outcome.ok, logged.info.status) == (False, "FAILED")


def test_revdiv_smoke_run_on_the_server(to_server: MlflowClient, find_run: FindRun) -> None:
    from paperzoo_revdiv.plugin import plugin as revdiv

    outcome = execute(RunRequest("revdiv.synthetic"), host=isolated_host(revdiv, plugin))
    assert outcome.ok, outcome.error
    logged = find_run(to_server, outcome)
    assert logged.data.params["paperzoo.experiment"] == "revdiv.synthetic"
    figures = {a.path for a in to_server.list_artifacts(logged.info.run_id, "artifacts")}
    assert "artifacts/relative_pps_vs_alpha.png" in figures


def test_status_reports_the_server_and_its_experiments(to_server: MlflowClient) -> None:
    import click

    group = click.Group("paperzoo")
    plugin.paperzoo_register_commands(cli=group)
    result = CliRunner().invoke(group, ["mlflow", "status"])
    assert result.exit_code == 0, result.output
    assert "store:        answers" in result.output
    assert "(from PAPERZOO_MLFLOW_URI)" in result.output

"""Runs executed through the core are logged to MLflow, and MLflow never fails a run.

These use the default destination, a SQLite database under PAPERZOO_HOME: no
server needed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mlflow import MlflowClient
from mlflow.entities import Run as MlflowRun

from paperzoo import RunOutcome, RunRequest, execute
from paperzoo.testing import demo_plugin, isolated_host
from paperzoo_mlflow import tracking
from paperzoo_mlflow.plugin import plugin

FindRun = Callable[[MlflowClient, RunOutcome], MlflowRun]
Warnings = Callable[[], list[str]]


def sqlite_client(home: Path) -> MlflowClient:
    return MlflowClient(tracking_uri="sqlite:///" + (home / "mlflow.db").as_posix())


def test_default_sqlite_logs_params_metrics_artifacts_and_result(logging_on: Path, find_run: FindRun) -> None:
    home = logging_on
    host = isolated_host(demo_plugin, plugin)
    outcome = execute(RunRequest("demo.noisy-mean", seed=3, overrides={"steps": 4}), host=host)
    assert outcome.ok, outcome.error
    client = sqlite_client(home)
    logged = find_run(client, outcome)
    assert logged.info.status == "FINISHED" and logged.info.run_name == outcome.run_id
    params = logged.data.params
    assert params["paperzoo.seed"] == "3" and params["paperzoo.scale"] == "smoke"
    assert params["paperzoo.experiment"] == "demo.noisy-mean" and params["paperzoo.run_id"] == outcome.run_id
    assert params["n"] == "50" and params["steps"] == "4" and params["fail"] == "False"
    loss = client.get_metric_history(logged.info.run_id, "loss")
    assert [(m.step, m.value) for m in loss] == [(s, 1.0 / (s + 1)) for s in range(4)]
    assert logged.data.metrics["estimate"] == pytest.approx(outcome.result.value("mean", {"n": 50}))
    assert logged.data.metrics["result/mean/n_50"] == pytest.approx(outcome.result.value("mean", {"n": 50}))
    assert "result/squared error" in logged.data.metrics
    names = {a.path for a in client.list_artifacts(logged.info.run_id)}
    assert {"config.json", "result.json", "result.csv", "result.md", "artifacts"} <= names
    inside = {a.path for a in client.list_artifacts(logged.info.run_id, "artifacts")}
    assert "artifacts/estimate.json" in inside
    location = Path(client.download_artifacts(logged.info.run_id, "result.json", str(home.parent)))
    assert json.loads(location.read_text()) == outcome.result.to_dict()
    artifacts_root = home / "mlflow-artifacts" / "demo.noisy-mean"
    assert any(artifacts_root.rglob("result.md")), "artifacts are not stored under the paperzoo home"


def test_failed_run_is_marked_failed_with_its_error(logging_on: Path, find_run: FindRun) -> None:
    home = logging_on
    host = isolated_host(demo_plugin, plugin)
    outcome = execute(RunRequest("demo.noisy-mean", overrides={"fail": True}), host=host)
    assert not outcome.ok
    logged = find_run(sqlite_client(home), outcome)
    assert logged.info.status == "FAILED"
    assert logged.data.tags["paperzoo.error"] == "RuntimeError: failing on purpose (fail=true)"
    assert "error.txt" in {a.path for a in sqlite_client(home).list_artifacts(logged.info.run_id)}


def test_nothing_is_logged_unless_asked(home: Path) -> None:
    outcome = execute(RunRequest("demo.noisy-mean"), host=isolated_host(demo_plugin, plugin))
    assert outcome.ok and not (home / "mlflow.db").exists()


def test_switched_off_wins_over_a_tracking_uri(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database = home.parent / "elsewhere.db"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "sqlite:///" + database.as_posix())
    monkeypatch.setenv("PAPERZOO_MLFLOW", "0")
    outcome = execute(RunRequest("demo.noisy-mean"), host=isolated_host(demo_plugin, plugin))
    assert outcome.ok and not database.exists() and not (home / "mlflow.db").exists()


@pytest.mark.slow
def test_parallel_processes_share_one_new_database(logging_on: Path, find_run: FindRun) -> None:
    code = (
        "from paperzoo import RunRequest, execute\n"
        "from paperzoo.testing import demo_plugin, isolated_host\n"
        "from paperzoo_mlflow.plugin import plugin\n"
        "outcome = execute(RunRequest('demo.noisy-mean'), host=isolated_host(demo_plugin, plugin))\n"
        "print(outcome.run_id)\n"
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    results = [w.communicate(timeout=120) for w in workers]
    for (_, err), worker in zip(results, workers, strict=True):
        assert worker.returncode == 0 and "MLflow logging" not in err, err
    client = sqlite_client(logging_on)
    experiment = client.get_experiment_by_name("demo.noisy-mean")
    assert experiment is not None
    finished = client.search_runs([experiment.experiment_id], filter_string="attributes.status = 'FINISHED'")
    assert sorted(r.data.tags["paperzoo.run_id"] for r in finished) == sorted(
        out.strip() for out, _ in results
    )
    assert not list(logging_on.glob(".mlflow.db.*")), "a temporary database was left behind"


def test_concurrent_runs_in_threads_log_to_their_own_mlflow_runs(logging_on: Path, find_run: FindRun) -> None:
    home = logging_on
    host = isolated_host(demo_plugin, plugin)
    requests = [RunRequest("demo.noisy-mean", seed=s, overrides={"steps": 3 + s}) for s in range(3)]
    execute(requests[0], host=host)  # creates the database and the experiment first
    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(lambda r: execute(r, host=host), requests[1:]))
    client = sqlite_client(home)
    for request, outcome in zip(requests[1:], outcomes, strict=True):
        logged = find_run(client, outcome)
        assert logged.data.params["paperzoo.seed"] == str(request.seed)
        steps = [m.step for m in client.get_metric_history(logged.info.run_id, "loss")]
        assert steps == list(range(request.overrides["steps"]))


def test_revdiv_smoke_run_is_logged(logging_on: Path, find_run: FindRun) -> None:
    from paperzoo_revdiv.plugin import plugin as revdiv

    outcome = execute(RunRequest("revdiv.synthetic"), host=isolated_host(revdiv, plugin))
    assert outcome.ok, outcome.error
    client = sqlite_client(logging_on)
    logged = find_run(client, outcome)
    numeric = [row for row in outcome.result.rows if row.value is not None]
    result_metrics = {k for k in logged.data.metrics if k.startswith("result/")}
    assert len(result_metrics) == len(numeric)
    figures = {a.path for a in client.list_artifacts(logged.info.run_id, "artifacts")}
    assert "artifacts/relative_pps_vs_alpha.png" in figures


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_leaves_the_run_successful_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, paperzoo_warnings: Warnings
) -> None:
    uri = f"http://127.0.0.1:{unused_port()}"
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", uri)
    started = time.perf_counter()
    outcome = execute(
        RunRequest("demo.noisy-mean", overrides={"steps": 20}), host=isolated_host(demo_plugin, plugin)
    )
    assert outcome.ok, outcome.error
    assert time.perf_counter() - started < 10, "a dead server must not stall the run"
    [warning] = paperzoo_warnings()
    assert uri in warning and "the run goes on" in warning and "PAPERZOO_MLFLOW=0" in warning


def test_malformed_uri_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, paperzoo_warnings: Warnings
) -> None:
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", "htp:/nowhere")
    host = isolated_host(demo_plugin, plugin)
    assert execute(RunRequest("demo.noisy-mean"), host=host).ok
    assert execute(RunRequest("demo.noisy-mean"), host=host).ok
    [warning] = paperzoo_warnings()  # said once per process, not once per run
    assert "PAPERZOO_MLFLOW_URI='htp:/nowhere' has a scheme MLflow does not know" in warning
    assert "\n" not in warning


def test_first_failure_mid_run_warns_once_then_stops_logging(
    logging_on: Path, monkeypatch: pytest.MonkeyPatch, paperzoo_warnings: Warnings
) -> None:
    calls = []

    def broken(run_id: str, *, metrics: object = (), **kwargs: object) -> object:
        if not metrics:
            return original(run_id, **kwargs)  # params at run start go through
        calls.append(run_id)
        raise ConnectionError("tracking server went away")

    host = isolated_host(demo_plugin, plugin)
    execute(RunRequest("demo.noisy-mean"), host=host)  # the client exists now: break it
    client = tracking.client_for(tracking.destination())
    original = client.log_batch
    monkeypatch.setattr(client, "log_batch", broken)
    monkeypatch.setattr(tracking, "FLUSH_SECONDS", 0.0)  # send every step at once
    outcome = execute(RunRequest("demo.noisy-mean", overrides={"steps": 5}), host=host)
    assert outcome.ok
    [warning] = paperzoo_warnings()
    assert "tracking server went away" in warning and "sending metrics" in warning
    assert len(calls) == 1, "logging must stop after the first failure"


def test_runs_import_no_mlflow_while_logging_is_off(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from paperzoo import RunRequest, execute\n"
        "from paperzoo.testing import demo_plugin, isolated_host\n"
        "from paperzoo_mlflow.plugin import plugin\n"
        "assert execute(RunRequest('demo.noisy-mean'), host=isolated_host(demo_plugin, plugin)).ok\n"
        "print('mlflow' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if "MLFLOW" not in k}  # nothing configured
    env.update(PAPERZOO_HOME=str(tmp_path / "h"), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"

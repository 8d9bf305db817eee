"""Every test runs with its own PAPERZOO_HOME, no MLflow configuration from outside,
and a fresh plugin host."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mlflow import MlflowClient
from mlflow.entities import Run as MlflowRun

from paperzoo import RunOutcome
from paperzoo.host import reset_host
from paperzoo_mlflow import tracking

ENV = (
    "PAPERZOO_MLFLOW",
    "PAPERZOO_MLFLOW_URI",
    "MLFLOW_TRACKING_URI",
    "PAPERZOO_LOAD_PLUGINS",
    "PAPERZOO_DISABLE_PLUGINS",
    "PAPERZOO_OFFLINE",
)


@pytest.fixture(autouse=True)
def _isolate(paperzoo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(tracking, "_WARNED", set())
    reset_host(None)
    yield
    reset_host(None)


@pytest.fixture
def home(paperzoo_home: Path) -> Path:
    """This test's ``PAPERZOO_HOME`` (the core's ``paperzoo_home`` fixture)."""
    return paperzoo_home


@pytest.fixture
def logging_on(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    """``PAPERZOO_MLFLOW=1``: runs are logged to ``sqlite:///<home>/mlflow.db``; returns the home."""
    monkeypatch.setenv("PAPERZOO_MLFLOW", "1")
    return home


@pytest.fixture
def find_run() -> Callable[[MlflowClient, RunOutcome], MlflowRun]:
    """``find_run(client, outcome)``: the MLflow run that logged a paperzoo run."""
    return _find_run


@pytest.fixture
def paperzoo_warnings(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """``paperzoo_warnings()``: warnings logged under ``paperzoo`` so far."""
    return lambda: _warnings(caplog)


def _find_run(client: MlflowClient, outcome: RunOutcome) -> MlflowRun:
    experiment = client.get_experiment_by_name(outcome.request.experiment)
    assert experiment is not None, f"no MLflow experiment {outcome.request.experiment!r}"
    runs = client.search_runs(
        [experiment.experiment_id], filter_string=f"tags.`paperzoo.run_id` = '{outcome.run_id}'"
    )
    assert len(runs) == 1, f"expected one MLflow run for {outcome.run_id}, found {len(runs)}"
    return runs[0]


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    # ours, and the core's about hooks that raise
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and (r.name == "paperzoo" or r.name.startswith("paperzoo."))
    ]

"""Switching logging on and off, choosing the tracking URI, and ``paperzoo mlflow``."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from paperzoo.errors import ConfigError
from paperzoo_mlflow.config import destination, enabled
from paperzoo_mlflow.plugin import plugin


def test_logging_is_off_until_a_uri_or_the_switch_turns_it_on(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not enabled()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://mlflow.example:5000")
    assert enabled()
    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", "sqlite:////tmp/x.db")
    assert enabled()
    for value, expected in [
        ("0", False),
        ("off", False),
        ("false", False),
        ("1", True),
        ("yes", True),
        ("", True),
    ]:
        monkeypatch.setenv("PAPERZOO_MLFLOW", value)
        assert enabled() is expected, value
    monkeypatch.delenv("PAPERZOO_MLFLOW_URI")
    monkeypatch.setenv("PAPERZOO_MLFLOW", "1")
    assert enabled()


def test_unknown_switch_value_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_MLFLOW", "maybe")
    with pytest.raises(ConfigError, match="PAPERZOO_MLFLOW='maybe' is neither on nor off"):
        enabled()


def test_default_is_sqlite_under_the_home(home: Path) -> None:
    where = destination()
    assert where.uri == "sqlite:///" + (home / "mlflow.db").as_posix()
    assert (where.source, where.artifacts, where.is_server) == ("default", home / "mlflow-artifacts", False)


def test_paperzoo_uri_wins_over_mlflow_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://mlflow.example:5000")
    assert (destination().uri, destination().source) == ("http://mlflow.example:5000", "MLFLOW_TRACKING_URI")
    assert destination().is_server and destination().artifacts is None
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", "sqlite:////tmp/x.db")
    assert (destination().uri, destination().source) == ("sqlite:////tmp/x.db", "PAPERZOO_MLFLOW_URI")


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("htp://localhost:5000", "has a scheme MLflow does not know"),
        ("http://", "is not a valid server address"),
        ("http://localhost:port", "is not a valid server address"),
        ("sqlite:mlflow.db", "is not a valid database URI"),
    ],
)
def test_malformed_uris_are_config_errors(monkeypatch: pytest.MonkeyPatch, uri: str, message: str) -> None:
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", uri)
    with pytest.raises(ConfigError, match=message) as info:
        destination()
    assert "PAPERZOO_MLFLOW_URI" in str(info.value) and info.value.hint


def test_plain_paths_are_accepted_as_mlflow_file_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    for uri in ["./mlruns", "C:\\mlruns", "/data/mlruns", "file:///data/mlruns"]:
        monkeypatch.setenv("PAPERZOO_MLFLOW_URI", uri)
        assert destination().uri == uri


def cli() -> click.Group:
    group = click.Group("paperzoo")
    plugin.paperzoo_register_commands(cli=group)
    return group


def test_status_before_any_run(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_MLFLOW", "1")
    result = CliRunner().invoke(cli(), ["mlflow", "status", "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["logging"] == "on" and info["source"] == "default" and info["reachable"]
    assert "not created yet" in info["store"]
    assert not (home / "mlflow.db").exists(), "status must not create the database"


def test_status_says_how_to_turn_logging_on(home: Path) -> None:
    result = CliRunner().invoke(cli(), ["mlflow", "status"])
    assert result.exit_code == 0, result.output
    line = "logging:      off (no tracking URI set: set PAPERZOO_MLFLOW=1 to log to sqlite:///"
    assert line in result.output and "store:        not used" in result.output


def test_status_says_when_logging_is_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_MLFLOW_URI", "http://127.0.0.1:1")
    monkeypatch.setenv("PAPERZOO_MLFLOW", "0")
    result = CliRunner().invoke(cli(), ["mlflow", "status"])
    assert result.exit_code == 0 and "logging:      off (PAPERZOO_MLFLOW=0)" in result.output


def test_uri_prints_the_tracking_uri(home: Path) -> None:
    result = CliRunner().invoke(cli(), ["mlflow", "uri"])
    assert result.output.strip() == "sqlite:///" + (home / "mlflow.db").as_posix()

"""``paperzoo mlflow``: where runs are logged, and whether that works."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from paperzoo.errors import PaperzooError
from paperzoo_mlflow.config import ENABLE_ENV, destination, enabled, sqlite_path

__all__ = ["StoreUnreachableError", "mlflow_group"]


class StoreUnreachableError(PaperzooError):
    """The tracking store does not answer (``paperzoo mlflow status`` exits with 1)."""

    exit_code = 1


@click.group("mlflow")
def mlflow_group() -> None:
    """MLflow logging of runs (paperzoo-mlflow)."""


@mlflow_group.command("uri")
def uri_command() -> None:
    """Print the tracking URI runs are logged to.

    For example: mlflow ui --backend-store-uri "$(paperzoo mlflow uri)"
    """
    click.echo(destination().uri)


@mlflow_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status_command(as_json: bool) -> None:
    """Say whether runs are logged, where, and whether the tracking store answers.

    Exits with status 1 when the tracking store cannot be reached.
    """
    on = enabled()
    where = destination()
    if os.environ.get(ENABLE_ENV, "").strip():
        switch = f"{ENABLE_ENV}={os.environ[ENABLE_ENV]}"
    elif on:
        switch = f"{where.source} is set"
    else:
        switch = f"no tracking URI set: set {ENABLE_ENV}=1 to log to {where.uri}"
    info: dict[str, Any] = {
        "logging": "on" if on else "off",
        "switch": switch,
        "tracking_uri": where.uri,
        "source": where.source,
        "artifacts": str(where.artifacts) if where.artifacts else "chosen by the tracking server",
    }
    info.update(_probe(where) if on else {"reachable": True, "store": "not used", "experiments": []})
    if as_json:
        click.echo(json.dumps(info, indent=2))
    else:
        click.echo(f"logging:      {info['logging']} ({info['switch']})")
        click.echo(f"tracking URI: {where}")
        click.echo(f"artifacts:    {info['artifacts']}")
        click.echo(f"store:        {info['store']}")
        if info.get("experiments"):
            click.echo(f"experiments:  {', '.join(info['experiments'])}")
    if not info["reachable"]:
        raise StoreUnreachableError(
            f"the tracking store {where.uri} does not answer; runs are not logged to MLflow",
            hint=f"start the server, point {'PAPERZOO_MLFLOW_URI' if where.source == 'default' else where.source} "
            f"elsewhere, or set {ENABLE_ENV}=0",
        )


def _probe(where: Any) -> dict[str, Any]:
    from paperzoo_mlflow.tracking import _check_server, _why, client_for

    path = sqlite_path(where.uri)
    if path is not None and not path.exists():
        return {
            "reachable": True,
            "store": "not created yet (the first logged run creates it)",
            "experiments": [],
        }
    try:
        if where.is_server:
            _check_server(where.uri)
        names = sorted(e.name for e in client_for(where).search_experiments() if e.name != "Default")
    except Exception as exc:
        return {"reachable": False, "store": f"unreachable: {_why(exc)}", "experiments": []}
    return {"reachable": True, "store": "answers", "experiments": names}

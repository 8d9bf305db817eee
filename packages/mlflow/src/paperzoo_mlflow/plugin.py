"""paperzoo plugin ``mlflow``: lifecycle hooks that log every run to MLflow.

The manifest declares no estimators or experiments, only raw hooks. Each one hands
the run to :mod:`paperzoo_mlflow.tracking`, imported on first use, which imports
mlflow when the first logged run starts: listing plugins, and runs while logging
is off, never import mlflow.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from paperzoo import Plugin

if TYPE_CHECKING:
    import click

    from paperzoo import Result, Run

plugin = Plugin("mlflow", framework="python", url="https://mlflow.org")


@plugin.hook
def paperzoo_register_commands(cli: click.Group) -> None:
    from paperzoo_mlflow.cli import mlflow_group

    cli.add_command(mlflow_group)


@plugin.hook
def paperzoo_on_run_start(run: Run) -> None:
    from paperzoo_mlflow import tracking

    tracking.start(run)


@plugin.hook
def paperzoo_on_step(run: Run, step: int, logs: Mapping[str, float]) -> None:
    from paperzoo_mlflow import tracking

    logger = tracking.active(run)
    if logger is not None:
        logger.log_step(step, logs)


@plugin.hook
def paperzoo_on_metric(run: Run, name: str, value: float, step: int | None) -> None:
    from paperzoo_mlflow import tracking

    logger = tracking.active(run)
    if logger is not None:
        logger.log_metric(name, value, step)


@plugin.hook
def paperzoo_on_artifact(run: Run, path: Path, kind: str) -> None:
    from paperzoo_mlflow import tracking

    logger = tracking.active(run)
    if logger is not None:
        logger.log_artifact(path)


@plugin.hook
def paperzoo_on_run_end(run: Run, result: Result) -> None:
    from paperzoo_mlflow import tracking

    tracking.finish(run, result)


@plugin.hook
def paperzoo_on_run_error(run: Run, error: BaseException) -> None:
    from paperzoo_mlflow import tracking

    tracking.fail(run, error)

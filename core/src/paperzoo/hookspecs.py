"""Hook specifications of the ``paperzoo`` pluggy project.

Plugins implement these with :data:`paperzoo.hookimpl`. Every hook takes keyword
arguments only. Rules for evolving them: arguments are added, never removed or
renamed; a plugin that implements a hook newer than its minimum core marks it
``@hookimpl(optionalhook=True)``.

Three families:

* **registration** hooks are called lazily, once per plugin, the first time the
  matching registry is used; an exception marks that plugin failed and is never
  fatal to the others;
* **lifecycle** hooks are emitted by a :class:`~paperzoo.runs.Run` on the host,
  between steps (never from inside jitted or compiled code); an exception in one
  implementation is reported once as a warning and never fails the run;
* **first-result** hooks stop at the first implementation that returns something
  other than ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from paperzoo.executor import Executor
    from paperzoo.results import Result
    from paperzoo.runs import Run
    from paperzoo.specs import (
        DatasetSpec,
        EstimatorSpec,
        ExperimentSpec,
        MetricSpec,
        PluginInfo,
    )

PROJECT = "paperzoo"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --------------------------------------------------------------------- registration


@hookspec
def paperzoo_plugin_info() -> PluginInfo:  # type: ignore[empty-body]
    """Describe the plugin.

    Returns:
        A :class:`~paperzoo.specs.PluginInfo` with the plugin's id, framework and
        the paper it implements. Shown by ``paperzoo plugins``.
    """


@hookspec
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    """Register estimators.

    Args:
        register: Call ``register(EstimatorSpec(name=..., target="mod:Class"))``
            once per estimator. Names must be unique across plugins.
    """


@hookspec
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    """Register dataset loaders.

    Args:
        register: Call ``register(DatasetSpec(name=..., target="mod:load",
            files=(DataFile(...), ...)))`` once per dataset.
    """


@hookspec
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    """Register metrics.

    Args:
        register: Call ``register(MetricSpec(name=..., target="mod:func"))`` once
            per metric.
    """


@hookspec
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    """Register experiments, each runnable with ``paperzoo run NAME``.

    Args:
        register: Call ``register(ExperimentSpec(name=..., target="mod:func",
            settings={...}, scales={...}))`` once per experiment.
    """


@hookspec(historic=True)
def paperzoo_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    """Add hook specifications of the plugin's own.

    Historic: plugins registered later receive the call too. A shared package
    (such as ``paperzoo-llm`` adding LLM-backend hooks) calls
    ``pluginmanager.add_hookspecs(its_hookspecs_module)`` here.

    Args:
        pluginmanager: The :class:`pluggy.PluginManager` of this host.
    """


@hookspec
def paperzoo_register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``paperzoo`` command line.

    Args:
        cli: The top-level :class:`click.Group`; decorate functions with
            ``@cli.command()`` or ``@cli.group()``. Import heavy modules inside the
            command functions, not here.
    """


# ------------------------------------------------------------------------ lifecycle


@hookspec
def paperzoo_on_run_start(run: Run) -> None:
    """A run starts: its directory and ``config.json`` exist, nothing ran yet.

    Args:
        run: The :class:`~paperzoo.runs.Run` (id, experiment, scale, seed,
            settings, directory).
    """


@hookspec
def paperzoo_on_step(run: Run, step: int, logs: Mapping[str, float]) -> None:
    """The experiment logged a step with ``run.log_step(step, **logs)``.

    Args:
        run: The run.
        step: Step counter (epoch, iteration, sweep point...).
        logs: Scalar values at this step, e.g. ``{"loss": 0.12}``.
    """


@hookspec
def paperzoo_on_metric(run: Run, name: str, value: float, step: int | None) -> None:
    """The experiment logged one scalar metric with ``run.log_metric``.

    Args:
        run: The run.
        name: Metric name.
        value: Its value.
        step: The step it belongs to, or ``None`` for a final value.
    """


@hookspec
def paperzoo_on_artifact(run: Run, path: Path, kind: str) -> None:
    """The experiment wrote an artifact into the run directory.

    Args:
        run: The run.
        path: Absolute path of the file.
        kind: ``"figure"``, ``"table"``, ``"json"``, ``"checkpoint"`` or ``"file"``.
    """


@hookspec
def paperzoo_on_run_end(run: Run, result: Result) -> None:
    """A run finished successfully and its result was stored.

    Args:
        run: The run.
        result: The :class:`~paperzoo.results.Result` it returned.
    """


@hookspec
def paperzoo_on_run_error(run: Run, error: BaseException) -> None:
    """A run failed (exception or interruption) and was marked failed in the store.

    Args:
        run: The run.
        error: What was raised (``KeyboardInterrupt`` included).
    """


# --------------------------------------------------------------------- first result


@hookspec(firstresult=True)
def paperzoo_executor(name: str, options: Mapping[str, Any]) -> Executor | None:
    """Provide the executor called ``name`` (``paperzoo run --executor NAME``).

    Args:
        name: The executor the user asked for, e.g. ``"local"`` or ``"ray"``.
        options: ``--executor-option key=value`` pairs, plus ``workers``.

    Returns:
        An :class:`~paperzoo.executor.Executor`, or ``None`` if this plugin does
        not provide ``name``.
    """


@hookspec(firstresult=True)
def paperzoo_resolve_data_path(name: str) -> Path | None:
    """Say where a data file already is (a shared cache, a cluster file system).

    Consulted after the data home and before ``$PAPERZOO_DATA_MIRROR``. The file
    found is still verified against its sha256.

    Args:
        name: The file's relative path, e.g. ``"lastfm-hetrec2011/user_artists.dat"``.

    Returns:
        A path to an existing file, or ``None``.
    """

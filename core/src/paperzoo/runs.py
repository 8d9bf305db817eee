"""Runs: one execution of an experiment, its directory and its lifecycle.

:func:`execute` turns a :class:`RunRequest` into a finished run::

    <home>/runs/<run-id>/
        config.json      experiment, scale, seed, settings, versions, host
        metrics.jsonl    one line per logged value: {"step", "name", "value", "time"}
        result.json      the Result (rows, artifacts, notes), written last
        error.txt        the traceback, for failed runs
        artifacts/       figures, tables, checkpoints written by the experiment

It inserts the run as ``running`` in the results store, emits the lifecycle hooks
on the host, and finishes the run as ``succeeded`` or ``failed`` (an exception,
``KeyboardInterrupt`` or ``SIGTERM`` included) with its error.
"""

from __future__ import annotations

import json
import math
import os
import platform
import secrets
import shutil
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, MappingProxyType
from typing import IO, TYPE_CHECKING, Any, TypeVar

from paperzoo.errors import ConfigError, PaperzooError, ResultError, StoreError
from paperzoo.paths import runs_dir, store_path
from paperzoo.results import Artifact, Result
from paperzoo.specs import ExperimentSpec
from paperzoo.store import ResultsStore, RunRecord

if TYPE_CHECKING:
    import numpy as np

    from paperzoo.host import Hooks, PluginHost

__all__ = ["Run", "RunOutcome", "RunRequest", "execute", "write_json_atomic"]

T = TypeVar("T")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, default=str, allow_nan=False)
            fh.write("\n")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


@dataclass(frozen=True)
class RunRequest:
    """What to run; picklable, so executors can ship it to other processes.

    Attributes:
        experiment: Experiment name.
        scale: ``smoke``, ``default`` or ``paper``.
        seed: Seed for the run's random generators.
        overrides: Settings that replace the scale's values (already typed).
        sweep: Id shared by the runs of one sweep.
    """

    experiment: str
    scale: str = "smoke"
    seed: int = 0
    overrides: Mapping[str, Any] = field(default_factory=dict)
    sweep: str | None = None

    def label(self) -> str:
        """Short description, e.g. ``"revdiv.synthetic seed=1 alpha=0.5"``."""
        extra = " ".join(f"{k}={v}" for k, v in self.overrides.items())
        return f"{self.experiment} [{self.scale}] seed={self.seed}" + (f" {extra}" if extra else "")


@dataclass
class RunOutcome:
    """How a run ended; picklable.

    Attributes:
        request: What was asked.
        run_id: The run's id ("" if it failed before it had one).
        status: ``"succeeded"`` or ``"failed"``.
        dir: The run directory.
        result: The Result of a successful run.
        error: ``"Type: message"`` of a failed run.
        hint: What to do, when the error was a :class:`~paperzoo.PaperzooError`.
        duration: Wall time in seconds.
    """

    request: RunRequest
    run_id: str
    status: str
    dir: str
    result: Result | None = None
    error: str | None = None
    hint: str | None = None
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the run succeeded."""
        return self.status == "succeeded"

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``paperzoo run --json``)."""
        return {
            "run_id": self.run_id,
            "experiment": self.request.experiment,
            "scale": self.request.scale,
            "seed": self.request.seed,
            "overrides": dict(self.request.overrides),
            "status": self.status,
            "dir": self.dir,
            "duration": self.duration,
            "error": self.error,
            "result": self.result.to_dict() if self.result is not None else None,
        }


class Run:
    """The handle an experiment receives: settings, seed, logging, artifacts.

    Experiments read ``run.settings``, ``run.seed`` and ``run.scale``; they log
    with :meth:`log_step` and :meth:`log_metric`; they write files with
    :meth:`save_figure`, :meth:`save_json` or :meth:`artifact_path` +
    :meth:`add_artifact`; and they return a :class:`~paperzoo.Result`.
    """

    def __init__(
        self,
        *,
        id: str,
        spec: ExperimentSpec,
        scale: str,
        seed: int,
        settings: Mapping[str, Any],
        directory: Path,
        hooks: Hooks | None = None,
        sweep: str | None = None,
    ) -> None:
        self.id = id
        self.spec = spec
        self.experiment = spec.name
        self.scale = scale
        self.seed = seed
        self.settings: Mapping[str, Any] = MappingProxyType(dict(settings))
        self.dir = directory
        self.sweep = sweep
        self.artifacts: list[Artifact] = []
        self._hooks = hooks
        self._metrics: IO[str] | None = None

    def __repr__(self) -> str:
        return f"Run({self.id!r})"

    @property
    def artifacts_dir(self) -> Path:
        """``<run dir>/artifacts``, created on first use."""
        path = self.dir / "artifacts"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def rng(self, stream: int = 0) -> np.random.Generator:
        """A numpy generator seeded by ``(seed, stream)``; streams are independent."""
        import numpy as np

        return np.random.default_rng([self.seed, stream])

    # ------------------------------------------------------------------ logging

    def _write_metric(self, step: int | None, name: str, value: float) -> None:
        if self._metrics is None:
            self._metrics = open(self.dir / "metrics.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        value = float(value)
        line = {
            "step": step,
            "name": name,
            "value": value if math.isfinite(value) else str(value),
            "time": round(time.time(), 3),
        }
        self._metrics.write(json.dumps(line) + "\n")

    def log_step(self, step: int, **logs: float) -> None:
        """Record scalar values at ``step`` (``metrics.jsonl`` + ``paperzoo_on_step``)."""
        for name, value in logs.items():
            self._write_metric(step, name, value)
        if self._metrics is not None:
            self._metrics.flush()
        if self._hooks is not None:
            self._hooks.on_step(run=self, step=step, logs=logs)

    def log_metric(self, name: str, value: float, step: int | None = None) -> None:
        """Record one scalar (``metrics.jsonl`` + ``paperzoo_on_metric``)."""
        self._write_metric(step, name, value)
        assert self._metrics is not None
        self._metrics.flush()
        if self._hooks is not None:
            self._hooks.on_metric(run=self, name=name, value=float(value), step=step)

    # ---------------------------------------------------------------- artifacts

    def artifact_path(self, name: str) -> Path:
        """Path for a new artifact called ``name`` under ``artifacts/``."""
        path = (self.artifacts_dir / name).resolve()
        if self.artifacts_dir.resolve() not in path.parents:
            raise ConfigError(f"artifact name {name!r} escapes the run directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def add_artifact(self, path: Path, kind: str = "file", title: str = "") -> Artifact:
        """Record a file written into the run directory as an artifact."""
        path = Path(path).resolve()
        try:
            rel = path.relative_to(self.dir.resolve()).as_posix()
        except ValueError:
            raise ConfigError(
                f"artifact {path} is outside the run directory {self.dir}",
                hint="write artifacts to run.artifact_path(name)",
            ) from None
        artifact = Artifact(rel, kind, title)
        self.artifacts.append(artifact)
        if self._hooks is not None:
            self._hooks.on_artifact(run=self, path=path, kind=kind)
        return artifact

    def save_figure(self, figure: Any, name: str, title: str = "", *, dpi: int = 120) -> Path:
        """Save a matplotlib figure as ``artifacts/<name>.png`` and close it."""
        path = self.artifact_path(name if name.endswith(".png") else f"{name}.png")
        figure.savefig(path, dpi=dpi, bbox_inches="tight")
        try:
            import matplotlib.pyplot as plt

            plt.close(figure)
        except ImportError:  # a figure object without pyplot: nothing to close
            pass
        self.add_artifact(path, "figure", title or _suptitle(figure) or name)
        return path

    def save_json(self, data: Any, name: str, title: str = "") -> Path:
        """Save ``data`` as ``artifacts/<name>.json``."""
        path = self.artifact_path(name if name.endswith(".json") else f"{name}.json")
        write_json_atomic(path, data)
        self.add_artifact(path, "json", title or name)
        return path

    def progress(self, items: Iterable[T], *, total: int | None = None, description: str = "") -> Iterator[T]:
        """Iterate with a progress bar on an interactive terminal."""
        from paperzoo.progress import track

        return track(items, total=total, description=description or self.experiment)

    def close(self) -> None:
        """Close the metrics file."""
        if self._metrics is not None:
            self._metrics.close()
            self._metrics = None


def _suptitle(figure: Any) -> str:
    title = getattr(figure, "_suptitle", None)
    return str(title.get_text()) if title is not None else ""


def new_run_id(experiment: str) -> str:
    """``<yyyymmdd-hhmmss>-<experiment>-<6 hex>``."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{experiment}-{secrets.token_hex(3)}"


class _Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM."""


@dataclass
class _SigtermAsInterrupt:
    previous: Any = None
    installed: bool = False

    def __enter__(self) -> _SigtermAsInterrupt:
        if threading.current_thread() is threading.main_thread():

            def handler(signum: int, frame: FrameType | None) -> None:
                raise _Terminated("terminated by SIGTERM")

            self.previous = signal.signal(signal.SIGTERM, handler)
            self.installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous)


def execute(
    request: RunRequest,
    *,
    host: PluginHost | None = None,
    store: ResultsStore | None = None,
    reraise: bool = False,
) -> RunOutcome:
    """Run one experiment and record it.

    Args:
        request: What to run.
        host: Plugin host (default: the process-wide one).
        store: Results store (default: ``<home>/results.sqlite``).
        reraise: Re-raise the experiment's exception after recording it.
            ``KeyboardInterrupt`` and ``SystemExit`` are always re-raised.

    Returns:
        The outcome; a failed run is recorded, not raised (unless ``reraise``).

    Raises:
        PaperzooError: the request itself is invalid (unknown experiment, scale
            or setting) — nothing is recorded then.
    """
    from paperzoo.host import activate, get_host

    host = host or get_host()
    store = store or ResultsStore(store_path())
    spec = host.experiments.get(request.experiment)
    settings = spec.settings_for(request.scale, request.overrides)  # checked before anything exists
    run_id = new_run_id(spec.name)
    directory = runs_dir() / run_id
    try:
        directory.mkdir(parents=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create the run directory {directory}: {exc.strerror}",
            hint="set PAPERZOO_HOME to a writable directory",
        ) from None
    record = RunRecord(
        id=run_id,
        experiment=spec.name,
        plugin=spec.plugin,
        scale=request.scale,
        seed=request.seed,
        settings=settings,
        sweep=request.sweep,
        dir=str(directory),
        versions=host.versions(spec.plugin),
    )
    config = {
        "id": run_id,
        "experiment": spec.name,
        "plugin": spec.plugin,
        "scale": request.scale,
        "seed": request.seed,
        "settings": settings,
        "overrides": dict(request.overrides),
        "sweep": request.sweep,
        "started": record.started,
        "host": record.host,
        "platform": platform.platform(),
        "versions": record.versions,
    }
    try:
        write_json_atomic(directory / "config.json", config)
        store.start(record)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)  # nothing ran: leave no orphan directory
        raise
    run = Run(
        id=run_id,
        spec=spec,
        scale=request.scale,
        seed=request.seed,
        settings=settings,
        directory=directory,
        hooks=host.hooks,
        sweep=request.sweep,
    )
    started = time.perf_counter()
    try:
        with _SigtermAsInterrupt(), activate(host):
            host.hooks.on_run_start(run=run)
            experiment: Callable[[Run], Any] = spec.load()
            result = experiment(run)
            if not isinstance(result, Result):
                raise ResultError(
                    f"experiment {spec.name} returned {type(result).__name__}, not a paperzoo.Result",
                    hint="report this to the plugin's authors",
                )
            result.with_references(spec.references, settings)
            known = {a.path for a in result.artifacts}
            result.artifacts.extend(a for a in run.artifacts if a.path not in known)
            run.close()
            write_json_atomic(directory / "result.json", result.to_dict())
            store.succeed(run_id, result)
    except BaseException as exc:
        run.close()
        error = f"{type(exc).__name__}: {exc.message if isinstance(exc, PaperzooError) else exc}"
        (directory / "error.txt").write_text(traceback.format_exc(), encoding="utf-8")
        store.fail(run_id, error)
        host.hooks.on_run_error(run=run, error=exc)
        if reraise or not isinstance(exc, Exception):
            raise
        return RunOutcome(
            request,
            run_id,
            "failed",
            str(directory),
            error=error,
            hint=exc.hint if isinstance(exc, PaperzooError) else f"traceback in {directory / 'error.txt'}",
            duration=time.perf_counter() - started,
        )
    host.hooks.on_run_end(run=run, result=result)
    return RunOutcome(
        request, run_id, "succeeded", str(directory), result=result, duration=time.perf_counter() - started
    )

"""One paperzoo run → one MLflow run, logged through ``MlflowClient`` by run id.

No global state of MLflow's fluent API (``mlflow.start_run``) is touched, so runs
executed concurrently in one process (threads, sweeps) each log to their own
MLflow run. mlflow itself is imported by the first run that logs.

What is logged, and when:

* run start — an MLflow run named after the paperzoo run id, in the MLflow
  experiment named after the paperzoo experiment; the settings (flattened) and
  ``paperzoo.{seed,scale,experiment,plugin,run_id,sweep}`` as params; ids,
  directory and versions as tags; ``config.json`` as an artifact;
* each step and metric — buffered, sent in batches (every 5 s, every 1000 values
  and at the end), with their steps (a final value without a step gets step 0);
* each artifact — the file, under the same relative path as in the run directory;
* run end — ``result.json``, ``result.csv`` and ``result.md``, every row with a
  value as the metric ``result/<metric>/<setting>``, and status ``FINISHED``;
* run error — ``error.txt``, the tag ``paperzoo.error`` and status ``FAILED``
  (``KILLED`` on Ctrl-C or SIGTERM).

Failures never reach the run: the first one is reported as one warning (logger
``paperzoo.mlflow``) saying what to do, and the rest of that run is not logged. A
bad configuration (``PAPERZOO_MLFLOW=maybe``, a malformed URI) is one warning per
process, and no run is logged.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperzoo.errors import PaperzooError
from paperzoo_mlflow import keys
from paperzoo_mlflow.config import ENABLE_ENV, Destination, destination, enabled, sqlite_path
from paperzoo_mlflow.tables import result_csv, result_markdown

if TYPE_CHECKING:
    from mlflow import MlflowClient

    from paperzoo.results import Result
    from paperzoo.runs import Run

__all__ = ["RunLogger", "active", "fail", "finish", "start"]

log = logging.getLogger("paperzoo.mlflow")

#: Set (unless already set) before talking to a tracking server: MLflow's own
#: defaults (7 retries, 120 s timeout) would stall a run for minutes on a dead server,
#: and it would print a link to every run on stdout.
HTTP_DEFAULTS = {
    "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true",  # "🏃 View run ..." would corrupt --json output
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "10",
}
HEALTH_TIMEOUT = 3.0
FLUSH_SECONDS = 5.0
BATCH = 1000  # MLflow's limit of metrics per log_batch
PARAM_BATCH = 100  # ... and of params or tags

_LOCK = threading.Lock()
_ACTIVE: dict[str, RunLogger] = {}
_EXPERIMENTS: dict[tuple[str, str], str] = {}
_CLIENTS: dict[str, MlflowClient] = {}
_WARNED: set[str] = set()


# ----------------------------------------------------------------- entry points


def start(run: Run) -> None:
    """Start logging ``run`` unless logging is off; never raises."""
    try:
        if not enabled():
            return
        where = destination()
    except PaperzooError as exc:
        with _LOCK:
            first = str(exc) not in _WARNED
            _WARNED.add(str(exc))
        if first:  # a configuration does not change between runs: say it once per process
            log.warning("MLflow logging is off: %s", exc)
        return
    logger = RunLogger(run, where)
    with _LOCK:
        _ACTIVE[run.id] = logger
    logger.start()


def active(run: Run) -> RunLogger | None:
    """The logger of ``run``, if it is being logged."""
    return _ACTIVE.get(run.id)


def finish(run: Run, result: Result) -> None:
    """Log the result of ``run`` and mark its MLflow run finished."""
    with _LOCK:
        logger = _ACTIVE.pop(run.id, None)
    if logger is not None:
        logger.finish(result)


def fail(run: Run, error: BaseException) -> None:
    """Log the error of ``run`` and mark its MLflow run failed (or killed)."""
    with _LOCK:
        logger = _ACTIVE.pop(run.id, None)
    if logger is not None:
        logger.fail(error)


# ---------------------------------------------------------------------- logger


class RunLogger:
    """Logs one paperzoo run to one MLflow run.

    Every public method is safe: an exception turns the logger off after one
    warning, and later calls do nothing.

    Attributes:
        run: The paperzoo run.
        destination: Where it is logged.
        run_id: The MLflow run id, once created.
        disabled: Whether logging stopped after a failure.
    """

    def __init__(self, run: Run, where: Destination) -> None:
        self.run = run
        self.destination = where
        self.run_id: str | None = None
        self.disabled = False
        self._client: MlflowClient | None = None
        self._buffer: list[tuple[str, float, int, int]] = []
        self._flushed = time.monotonic()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RunLogger({self.run.id!r} → {self.destination.uri!r}, mlflow run {self.run_id!r})"

    # ------------------------------------------------------------- public API

    def start(self) -> None:
        """Create the MLflow run and log params, tags and ``config.json``."""
        self._guard("starting the MLflow run", self._start)

    def log_step(self, step: int, logs: Mapping[str, float]) -> None:
        """Queue the values of one step."""
        stamp = _now_ms()
        self._queue([(keys.key(name), float(value), stamp, int(step)) for name, value in logs.items()])

    def log_metric(self, name: str, value: float, step: int | None) -> None:
        """Queue one value (step 0 when it has none)."""
        self._queue([(keys.key(name), float(value), _now_ms(), 0 if step is None else int(step))])

    def log_artifact(self, path: Path) -> None:
        """Upload one file of the run directory, keeping its relative folder."""
        self._guard(f"uploading {path.name}", self._artifact, Path(path))

    def finish(self, result: Result) -> None:
        """Log the result table and mark the MLflow run ``FINISHED``."""
        self._guard("logging the result", self._finish, result)

    def fail(self, error: BaseException) -> None:
        """Log the error and mark the MLflow run ``FAILED`` (``KILLED`` when interrupted)."""
        self._guard("logging the error", self._fail, error)

    # -------------------------------------------------------------- internals

    def _guard(self, what: str, action: Callable[..., None], *args: Any) -> None:
        if self.disabled:
            return
        try:
            action(*args)
        except Exception as exc:
            self.disabled = True
            self._buffer.clear()
            log.warning(
                "MLflow logging of run %s stopped: %s at %s failed (%s); the run goes on without it. "
                "Check the tracking store with 'paperzoo mlflow status', or set %s=0 to turn logging off",
                self.run.id,
                what,
                self.destination.uri,
                _why(exc),
                ENABLE_ENV,
            )

    def _queue(self, values: list[tuple[str, float, int, int]]) -> None:
        if self.disabled or self.run_id is None:
            return
        with self._lock:
            self._buffer.extend(values)
            due = len(self._buffer) >= BATCH or time.monotonic() - self._flushed >= FLUSH_SECONDS
        if due:
            self._guard("sending metrics", self._flush)

    def _flush(self) -> None:
        from mlflow.entities import Metric

        with self._lock:
            batch, self._buffer = self._buffer, []
            self._flushed = time.monotonic()
        client = self._need_client()
        for i in range(0, len(batch), BATCH):
            metrics = [Metric(k, v, t, s) for k, v, t, s in batch[i : i + BATCH]]
            client.log_batch(self._need_run(), metrics=metrics, synchronous=True)

    def _need_client(self) -> MlflowClient:
        assert self._client is not None, "the MLflow run was not started"
        return self._client

    def _need_run(self) -> str:
        assert self.run_id is not None, "the MLflow run was not started"
        return self.run_id

    def _start(self) -> None:
        where, run = self.destination, self.run
        if where.is_server:
            for name, value in HTTP_DEFAULTS.items():
                os.environ.setdefault(name, value)
            _check_server(where.uri)
        client, experiment_id = _retrying(lambda: _open(where, run))
        self._client = client
        config = _read_json(run.dir / "config.json")
        tags = {
            "mlflow.source.name": "paperzoo",
            "mlflow.note.content": run.spec.summary,
            "paperzoo.run_id": run.id,
            "paperzoo.experiment": run.experiment,
            "paperzoo.plugin": run.spec.plugin,
            "paperzoo.scale": run.scale,
            "paperzoo.dir": str(run.dir),
            **({"paperzoo.sweep": run.sweep} if run.sweep else {}),
            **{f"paperzoo.version.{k}": v for k, v in dict(config.get("versions") or {}).items()},
        }
        tags = {keys.key(k): keys.text(v, keys.MAX_TAG) for k, v in tags.items() if v not in (None, "")}
        created = client.create_run(experiment_id, run_name=run.id, tags=tags)
        self.run_id = created.info.run_id
        self._log_params(self._params())
        if (run.dir / "config.json").is_file():
            client.log_artifact(self.run_id, str(run.dir / "config.json"))

    def _params(self) -> dict[str, str]:
        run = self.run
        params: dict[str, str] = {}
        taken: set[str] = set()
        paperzoo = {
            "seed": run.seed,
            "scale": run.scale,
            "experiment": run.experiment,
            "plugin": run.spec.plugin,
            "run_id": run.id,
            "sweep": run.sweep,
        }
        for name, value in paperzoo.items():
            if value is not None:
                params[keys.unique(f"paperzoo.{name}", taken)] = keys.text(value, keys.MAX_PARAM)
        for name, value in keys.flatten(run.settings):
            params[keys.unique(keys.key(name), taken)] = keys.text(value, keys.MAX_PARAM)
        return params

    def _log_params(self, params: dict[str, str]) -> None:
        from mlflow.entities import Param

        items = [Param(k, v) for k, v in params.items()]
        for i in range(0, len(items), PARAM_BATCH):
            self._need_client().log_batch(self._need_run(), params=items[i : i + PARAM_BATCH])

    def _artifact(self, path: Path) -> None:
        if self.run_id is None:
            return
        try:
            folder = path.resolve().parent.relative_to(self.run.dir.resolve()).as_posix()
        except ValueError:
            folder = "."
        self._need_client().log_artifact(self.run_id, str(path), None if folder == "." else folder)

    def _finish(self, result: Result) -> None:
        from mlflow.entities import Metric

        self._flush()
        client, run_id = self._need_client(), self._need_run()
        if (self.run.dir / "result.json").is_file():
            client.log_artifact(run_id, str(self.run.dir / "result.json"))
        with tempfile.TemporaryDirectory(prefix="paperzoo-mlflow-") as tmp:
            (Path(tmp) / "result.csv").write_text(result_csv(result), encoding="utf-8")
            (Path(tmp) / "result.md").write_text(result_markdown(result), encoding="utf-8")
            client.log_artifacts(run_id, tmp)
        stamp, taken = _now_ms(), set[str]()
        metrics = [
            Metric(keys.unique(keys.metric_key(row.metric, row.setting), taken), row.value, stamp, 0)
            for row in result.rows
            if row.value is not None
        ]
        for i in range(0, len(metrics), BATCH):
            client.log_batch(run_id, metrics=metrics[i : i + BATCH])
        client.set_tag(run_id, "paperzoo.status", "succeeded")
        client.set_terminated(run_id, "FINISHED")

    def _fail(self, error: BaseException) -> None:
        self._flush()
        client, run_id = self._need_client(), self._need_run()
        if (self.run.dir / "error.txt").is_file():
            client.log_artifact(run_id, str(self.run.dir / "error.txt"))
        client.set_tag(run_id, "paperzoo.status", "failed")
        client.set_tag(run_id, "paperzoo.error", keys.text(f"{type(error).__name__}: {error}", keys.MAX_TAG))
        client.set_terminated(run_id, "FAILED" if isinstance(error, Exception) else "KILLED")


# ------------------------------------------------------------------- helpers


def _now_ms() -> int:
    return int(time.time() * 1000)


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    first = first if len(first) <= 200 else first[:199] + "…"
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _read_json(path: Path) -> dict[str, Any]:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _check_server(uri: str) -> None:
    """Raise ``ConnectionError`` unless something answers at ``uri`` within 3 s."""
    try:
        urllib.request.urlopen(uri.rstrip("/") + "/health", timeout=HEALTH_TIMEOUT).close()
    except urllib.error.HTTPError:
        return  # it answered (perhaps asking for credentials): MLflow's client takes over
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConnectionError(f"no MLflow server answers ({reason})") from None


def _retrying(action: Callable[[], Any], attempts: int = 3) -> Any:
    """``action()``, retried when a shared SQLite file is busy (parallel workers)."""
    for attempt in range(attempts):
        try:
            return action()
        except Exception as exc:
            if attempt == attempts - 1 or "database is locked" not in str(exc).lower():
                raise
            time.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable")


def client_for(where: Destination) -> MlflowClient:
    """The process's ``MlflowClient`` for ``where`` (created once per URI)."""
    with _LOCK:
        client = _CLIENTS.get(where.uri)
    if client is not None:
        return client
    for name in ("mlflow.store.db.utils", "alembic.runtime.migration"):
        logging.getLogger(name).setLevel(logging.WARNING)  # "Creating initial MLflow database tables..."
    path = sqlite_path(where.uri)
    if path is not None and not path.exists():
        _create_sqlite(path, where.artifacts)
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=where.uri)
    with _LOCK:
        return _CLIENTS.setdefault(where.uri, client)


def _create_sqlite(path: Path, artifacts: Path | None) -> None:
    """Create an MLflow database at ``path`` atomically.

    MLflow creates its tables with ~70 migrations (2 s); two processes doing that
    on one file (parallel workers starting together), or one killed halfway, leave
    a database MLflow cannot open again. So the tables are made in a private file
    that is then hard-linked into place only if ``path`` still does not exist.
    """
    from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        root = (artifacts or path.parent / "mlflow-artifacts").resolve().as_uri()
        store = SqlAlchemyStore("sqlite:///" + tmp.as_posix(), root)  # type: ignore[no-untyped-call]
        store.engine.dispose()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process was first: use its database
        except OSError:  # no hard links on this file system
            if not path.exists():
                tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _open(where: Destination, run: Run) -> tuple[MlflowClient, str]:
    client = client_for(where)
    cache = (where.uri, run.experiment)
    with _LOCK:
        known = _EXPERIMENTS.get(cache)
    if known is not None:
        return client, known
    experiment = client.get_experiment_by_name(run.experiment)
    if experiment is None:
        location = None
        if where.artifacts is not None:
            location = (where.artifacts / keys.key(run.experiment)).resolve().as_uri()
        try:
            experiment_id = client.create_experiment(
                run.experiment, artifact_location=location, tags={"paperzoo.plugin": run.spec.plugin}
            )
        except Exception:
            experiment = client.get_experiment_by_name(run.experiment)  # created meanwhile elsewhere
            if experiment is None:
                raise
            experiment_id = experiment.experiment_id
    elif experiment.lifecycle_stage != "active":
        raise RuntimeError(
            f"the MLflow experiment {run.experiment!r} is deleted; restore it "
            f"(mlflow experiments restore --experiment-id {experiment.experiment_id}) or purge it (mlflow gc)"
        )
    else:
        experiment_id = experiment.experiment_id
    with _LOCK:
        _EXPERIMENTS[cache] = experiment_id
    return client, experiment_id
